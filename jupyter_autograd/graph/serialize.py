"""Serializing a selected raw graph into the schema-v2 payload dict."""

from __future__ import annotations

from .common import (
    ARROW,
    SCHEMA_VERSION,
    clean,
    dtype_name,
    group_members,
    is_tensor,
    op_name,
    preview,
    shape_label,
    value_preview,
)

# Attributes that say what a module maps from and to, for its collapsed label.
_DIMS = (
    ("in_features", "out_features"),
    ("in_channels", "out_channels"),
    ("input_size", "hidden_size"),
    ("num_embeddings", "embedding_dim"),
)


def module_label(module, path: str | None) -> str:
    """``Linear fc1 (784 → 256)``: type, the last part of its path, and its sizes if known.

    Example:
        >>> import jupyter_autograd as torch
        >>> module_label(torch.nn.Linear(784, 256), "model.fc1")
        'Linear fc1 (784 → 256)'
    """
    text = type(module).__name__
    if path:
        text += " " + path.rsplit(".", 1)[-1]
    for a, b in _DIMS:
        i, o = getattr(module, a, None), getattr(module, b, None)
        if isinstance(i, int) and isinstance(o, int):
            text += f" ({i} {ARROW} {o})"
            break
    return text


class _Modules:
    """The modules whose ``forward`` made a drawn node, as a table with parent links."""

    def __init__(self, names) -> None:
        self.names = names
        self.by_obj: dict = {}
        self.by_path: dict = {}
        self.table: list = []

    def id_for(self, chain) -> str | None:
        parent = None
        for m in chain or ():
            e = self.by_obj.get(id(m))
            if e is None:
                path = self.names.module_path(m)
                e = {
                    "id": f"m{len(self.table)}",
                    "path": clean(path or "", 500),
                    "type": clean(type(m).__name__, 200),
                    "label": clean(module_label(m, path), 500),
                    "parent": parent,
                }
                self.by_obj[id(m)] = e
                if path:
                    self.by_path.setdefault(path, e)
                self.table.append(e)
            parent = e["id"]
        return parent

    def owner_of(self, names: list) -> str | None:
        """The drawn module a parameter or buffer belongs to, from its path."""
        for name, kind in names:
            if kind in ("parameter", "buffer") and "." in name:
                e = self.by_path.get(name.rsplit(".", 1)[0])
                if e is not None:
                    return e["id"]
        return None


def serialize(ctx, sel, values, saved, total, truncated, cap, extra) -> dict:
    """The payload dict of selection ``sel`` (see ``payload._Selection``)."""
    raw = ctx.raw
    kinds, objs = raw.kind, raw.obj
    order = sel.order
    ids = {r: f"n{i}" for i, r in enumerate(order)}
    drawn_tensors = {id(objs[r]): ids[r] for r in order if kinds[r] == "tensor"}
    roots = set(raw.roots)
    step_of: dict = {}
    order_ids: list = []
    backward = ctx.backward
    if backward is not None and backward.order:
        rep_of: dict = {}  # a raw node not drawn -> the node drawn for it
        for head, members in sel.groups.items():
            for m in members:
                rep_of[m] = head
        for r, listed in sel.repeats:
            template = r.iterations[0]
            for it in r.iterations[len(listed) :]:
                for m, v in enumerate(it[: len(template)]):
                    rep_of[v] = rep_of.get(template[m], template[m])
        pos = {id(objs[r]): r for r in range(len(objs)) if kinds[r] != "tensor"}
        for node in backward.order:
            r = pos.get(id(node))
            if r is None:
                continue
            r = rep_of.get(r, r)
            if r in ids and r not in step_of:
                step_of[r] = len(order_ids)
                order_ids.append(ids[r])
    bgrads = backward.grads if backward is not None else {}
    modules = _Modules(ctx.names)
    module_of: dict = {}
    if ctx.modules_of is not None:
        for r in order:
            if kinds[r] == "function" and r not in sel.groups:
                mid = modules.id_for(ctx.modules_of(objs[r]))
                if mid is not None:
                    module_of[r] = mid
    nodes = []
    for r in order:
        obj = objs[r]
        kind = kinds[r]
        d: dict = {"id": ids[r]}
        members = sel.groups.get(r)
        if members is not None:
            ops = [op_name(kinds[m], objs[m]) for m in members]
            uniq = list(dict.fromkeys(ops))
            head = uniq[0] if len(uniq) == 1 else f"{ops[0]} \u2026 {ops[-1]}"
            d["kind"] = "group"
            d["label"] = clean(f"{head} \u00d7{len(members)}")
            d["op"] = None
            d["count"] = len(members)
            d["members"] = [clean(o, 200) for o in group_members(ops)]
            if r in step_of:
                d["backward_step"] = step_of[r]
            nodes.append(d)
            continue
        src = ctx.source_of(obj) if ctx.source_of is not None else None
        if kind == "tensor":
            _tensor_fields(d, obj, ctx.names.of(obj), values, cap)
            d["is_root"] = r in roots
            owner = modules.owner_of(ctx.names.of(obj))
        else:
            op = op_name(kind, obj)
            d["kind"] = kind
            d["label"] = clean(op)
            d["op"] = clean(op)
            if r in roots:
                d["is_root"] = True
            if saved and kind == "function":
                kept = backward.saved.get(obj) if backward is not None else None
                d["saved"] = _saved_list(obj, drawn_tensors, values, cap, kept)
            g = bgrads.get(obj)
            if g is not None and values:
                g = [x for x in g if x is not None]
                if g:
                    d["grad"] = _array_preview(g[0], cap)
            if r in step_of:
                d["backward_step"] = step_of[r]
            owner = module_of.get(r)
            if owner is None and kind == "accumulate":
                owner = modules.owner_of(ctx.names.of(obj.variable))
        if owner is not None:
            d["module"] = owner
        d["source"] = _source(src)
        nodes.append(d)
    payload = {
        "version": SCHEMA_VERSION,
        "direction": ctx.direction,
        "nodes": nodes,
        "edges": _edges(sel.edges, ids, objs, bgrads, values, cap),
        "roots": [ids[r] for r in raw.roots if r in ids],
        "backward_order": order_ids,
        "truncated": truncated,
        "total_nodes": total,
        "total_edges": raw.n_edges,
        "repeats": _repeats(sel.repeats, ids),
        "modules": modules.table,
        "show_saved": extra["show_saved"],
    }
    replay = extra["replay"]
    if order_ids and (replay["step"] is not None or not replay["controls"]):
        step = len(order_ids) if replay["step"] is None else replay["step"]
        payload["replay"] = {
            "step": max(0, min(int(step), len(order_ids))),
            "controls": replay["controls"],
        }
    if extra["title"] is not None:
        payload["title"] = clean(extra["title"])
    return payload


def _tensor_fields(d: dict, t, names: list, values: bool, cap: int) -> None:
    name = names[0][0] if names else None
    shape = list(t._data.shape)
    d["kind"] = "tensor"
    d["label"] = clean(f"{name}\n{shape_label(shape)}" if name else shape_label(shape))
    d["name"] = clean(name) if name else None
    if names:
        d["names"] = [{"name": clean(n, 500), "kind": k} for n, k in names]
    d["op"] = None
    d["shape"] = shape
    d["dtype"] = dtype_name(t)
    d["requires_grad"] = bool(t._requires_grad)
    d["is_leaf"] = t.grad_fn is None
    d["retains_grad"] = bool(t._retains_grad)
    d["value"] = preview(t, cap) if values else None
    d["grad"] = preview(t._grad, cap) if values and t._grad is not None else None


def _edges(edges, ids, objs, bgrads, values, cap) -> list:
    out = []
    for s, t, inp, o, count in edges:
        e = {"source": ids[s], "target": ids[t]}
        if inp is not None:
            e["input"] = inp
        if o is not None:
            e["output"] = o
        if count > 1:
            e["count"] = count
        g = bgrads.get(objs[s]) if bgrads else None
        if g is not None:
            k = o or 0
            if k < len(g) and g[k] is not None:
                e["grad_shape"] = [int(x) for x in getattr(g[k], "shape", ())]
                if values:
                    e["grad"] = _array_preview(g[k], cap)
        out.append(e)
    return out


def _repeats(repeats, ids) -> list:
    out = []
    for r, listed in repeats:
        its = [[ids[v] for v in it if v in ids] for it in listed]
        if not its or not all(its):
            continue
        ops = list(reversed(r.ops)) if r.kind == "loop" else r.ops
        label = f"\u00d7{r.count} " + f" {ARROW} ".join(ops)
        out.append(
            {
                "id": f"r{len(out)}",
                "kind": r.kind,
                "count": r.count,
                "label": clean(label, 300),
                "iterations": its,
            }
        )
    return out


def _source(src) -> dict | None:
    if not src:
        return None
    out = {"line": int(src.get("line", 0)), "code": clean(src.get("code", ""))}
    if src.get("file"):
        out["file"] = clean(src["file"])
    return out


def _array_preview(g, cap) -> str:
    from ..tensor import Tensor

    return preview(g if isinstance(g, Tensor) else Tensor._wrap(g), cap)


def _saved_list(fn, drawn_tensors, values, cap, kept=None) -> list:
    """Saved tensors and values of ``fn``; ``kept``: those a BackwardRecord kept before
    backward freed them."""
    out = []
    for key in getattr(type(fn), "_saved_names", ()):
        name = "_saved_" + key
        item: dict = {"name": name}
        try:
            v = getattr(fn, name)
        except RuntimeError:
            if kept is None or name not in kept:
                item.update(
                    shape=None, dtype=None, value="<freed by backward; use retain_graph=True>"
                )
                out.append(item)
                continue
            v = kept[name]
        except Exception:  # noqa: BLE001, S112 - an unreadable saved value is left out
            continue
        if is_tensor(v):
            item["shape"] = list(v._data.shape)
            item["dtype"] = dtype_name(v)
            if values:
                item["value"] = preview(v, cap)
            tid = drawn_tensors.get(id(v))
            if tid is not None:
                item["tensor"] = tid
        else:
            item["shape"] = None
            item["dtype"] = None
            item["value"] = value_preview(v, cap)
        out.append(item)
    return out
