"""The computation graph as data: a versioned, JSON-safe description and its exports.

``build_graph`` walks ``grad_fn`` nodes from root tensors (or nodes) without recursion and
returns a dict that validates against ``schema/graph-v1.schema.json`` (the contract with the
JupyterLab renderer). Node ids are sequential (``n0, n1, ...``) in walk order, never addresses,
so stored notebook outputs are stable. Huge graphs are collapsed (chains become ``xN`` groups)
to at most ``max_nodes`` nodes and ``max_bytes`` of JSON, and marked ``truncated``.

Exports: ``to_json``, ``to_svg`` (our own layered layout, no Graphviz program), ``to_dot``
(Graphviz source) and ``to_text`` (a plain-text tree). Every string in the graph is treated as
untrusted text: the SVG escapes it, the text export neutralises control and bidi characters.

This module imports only the standard library and the core; no Jupyter imports.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping

from .autograd.engine import FLAGS
from .autograd.node import AccumulateGrad, Node

__all__ = [
    "MIME_TYPE",
    "SCHEMA_VERSION",
    "GraphTooLarge",
    "BackwardRecord",
    "build_graph",
    "grad_fn_tree",
    "summary",
    "to_dot",
    "to_json",
    "to_svg",
    "to_text",
]

SCHEMA_VERSION = 1
MIME_TYPE = "application/vnd.jupyter-autograd.graph+json"
MAX_NODES = 2000
MAX_BYTES = 1_000_000
# Above this even an explicit max_nodes=None is refused: a notebook output that large breaks
# the frontend and the .ipynb (test plan G2).
HARD_LIMIT_BYTES = 10_000_000
# The smallest a serialized node (plus its edge) can be; bounds the walk when refusing.
_MIN_NODE_BYTES = 100

_LABEL_CAP = 2000
_VALUE_CAP = 20000
_PREVIEW_CAP = 2000  # previews are cut here by default so 2,000 nodes fit in 1 MB
_SURROGATE = re.compile("[\ud800-\udfff]")


class GraphTooLarge(ValueError):
    """The graph is too large to serialize with the requested limits."""


# ------------------------------------------------------------------ backward tracing
class BackwardRecord:
    """Records the nodes backward executes, in order, and the gradients they received.

    Use as a context manager around ``backward()``; it registers a tracer in
    ``autograd.engine.FLAGS.backward_tracers`` only while active.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import BackwardRecord
        >>> x = torch.ones(2, requires_grad=True)
        >>> y = (x * 2).sum()
        >>> with BackwardRecord() as rec:
        ...     y.backward()
        >>> [fn.name() for fn in rec.order]
        ['SumBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad']
    """

    def __init__(self) -> None:
        self.order: list = []
        self.grads: dict = {}

    def _on_node(self, node, grads) -> None:
        self.order.append(node)
        self.grads[node] = grads

    def __enter__(self) -> "BackwardRecord":
        FLAGS.backward_tracers.append(self._on_node)
        return self

    def __exit__(self, *exc) -> None:
        try:
            FLAGS.backward_tracers.remove(self._on_node)
        except ValueError:
            pass


# ------------------------------------------------------------------ text helpers
def _clean(s, cap: int = _LABEL_CAP) -> str:
    """A JSON/UTF-8-safe string: lone surrogates replaced, length capped."""
    if not isinstance(s, str):
        s = str(s)
    if len(s) > cap:
        s = s[: cap - 1] + "\u2026"
    if not s.isascii():
        s = _SURROGATE.sub("\ufffd", s)
    return s


def _dtype_name(t) -> str:
    return repr(t.dtype).replace("torch.", "")


def _preview(t, cap: int = _PREVIEW_CAP) -> str | None:
    if t is None:
        return None
    try:
        from ._printing import tensor_repr  # noqa: PLC0415

        return _clean(tensor_repr(t), cap)
    except Exception:  # noqa: BLE001 - a preview must never break the graph
        return "<unprintable>"


def _value_preview(v, cap: int = _PREVIEW_CAP) -> str:
    if hasattr(v, "_data") and hasattr(v, "grad_fn"):
        return _preview(v, cap)
    try:
        return _clean(repr(v), cap)
    except Exception:  # noqa: BLE001
        return "<unprintable>"


def _shape_label(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _is_tensor(x) -> bool:
    return hasattr(x, "_data") and hasattr(x, "_requires_grad")


# ------------------------------------------------------------------ raw walk
class _Raw:
    """The uncollapsed graph: parallel lists indexed by int, edges in data-flow direction."""

    __slots__ = ("kind", "obj", "edges", "index", "roots", "tensor_of_edge")

    def __init__(self) -> None:
        self.kind: list = []  # "tensor" | "function" | "accumulate"
        self.obj: list = []
        self.edges: list = []  # (src, dst, input, output)
        self.index: dict = {}  # id(obj) -> idx
        self.roots: list = []

    def add(self, kind: str, obj) -> tuple[int, bool]:
        k = id(obj)
        i = self.index.get(k)
        if i is not None:
            return i, False
        i = len(self.kind)
        self.index[k] = i
        self.kind.append(kind)
        self.obj.append(obj)
        return i, True


def _walk(roots, names, inputs_of, limit) -> _Raw:
    raw = _Raw()
    named_edge = {}  # (id(fn), nr) -> named non-leaf tensor
    for t in names.values():
        if _is_tensor(t) and t.grad_fn is not None:
            named_edge.setdefault((id(t.grad_fn), t._output_nr), t)
    stack: list = []

    def tensor_node(t) -> int:
        """Add a tensor; queue its producer (grad_fn, or the leaf's AccumulateGrad is not drawn)."""
        i, new = raw.add("tensor", t)
        if new and t.grad_fn is not None:
            fi, fnew = raw.add("function", t.grad_fn)
            raw.edges.append((fi, i, None, t._output_nr))
            if fnew:
                stack.append(fi)
        return i

    for r in roots:
        if isinstance(r, Node):
            i, new = raw.add("accumulate" if isinstance(r, AccumulateGrad) else "function", r)
            if new:
                stack.append(i)
        else:
            i = tensor_node(r)
        if i not in raw.roots:
            raw.roots.append(i)
    # DFS, input 0 first, so ids read top-down like the code
    stack.reverse()
    kinds, objs, edges, add, index = raw.kind, raw.obj, raw.edges, raw.add, raw.index
    kinds_append, objs_append, edges_append = kinds.append, objs.append, edges.append
    acc_cls = AccumulateGrad
    while stack:
        if limit is not None and len(kinds) > limit:
            raise GraphTooLarge(len(kinds))
        fi = stack.pop()
        fn = objs[fi]
        if kinds[fi] == "accumulate":
            ti, _ = add("tensor", fn.variable)
            edges_append((ti, fi, 0, None))
            continue
        traced = inputs_of(fn) if inputs_of is not None else None
        pending = None
        for k, (nxt, nr) in enumerate(fn.next_functions):
            if nxt is None:
                t = traced[k] if traced is not None and k < len(traced) else None
                if t is not None:
                    ti, _ = add("tensor", t)
                    edges_append((ti, fi, k, None))
                continue
            if named_edge:
                t = named_edge.get((id(nxt), nr))
                if t is not None:
                    ti, new = add("tensor", t)
                    edges_append((ti, fi, k, None))
                    if new:
                        ni, nnew = add("function", nxt)
                        edges_append((ni, ti, None, nr))
                        if nnew:
                            if pending is None:
                                pending = []
                            pending.append(ni)
                    continue
            key = id(nxt)
            ni = index.get(key)
            if ni is None:
                # inlined _Raw.add: this loop runs once per edge of graphs up to ~10^5 nodes
                ni = len(kinds)
                index[key] = ni
                kinds_append("accumulate" if nxt.__class__ is acc_cls else "function")
                objs_append(nxt)
                if pending is None:
                    pending = []
                pending.append(ni)
            edges_append((ni, fi, k, nr if nr else None))
        if pending is not None:
            if len(pending) == 1:
                stack.append(pending[0])
            else:
                stack.extend(reversed(pending))
    return raw


# ------------------------------------------------------------------ collapsing
def _collapse(raw: _Raw, max_nodes: int):
    """Group chains of single-input/single-consumer function nodes; cut the rest if needed.

    Returns (keep, groups, edges): ``keep`` the kept raw indices in order, ``groups`` maps a
    representative raw index to the list of raw indices it stands for, ``edges`` remapped.
    """
    n = len(raw.kind)
    indeg = [0] * n
    outdeg = [0] * n
    pred = [-1] * n
    succ = [-1] * n
    for s, d, _, _ in raw.edges:
        outdeg[s] += 1
        indeg[d] += 1
        pred[d] = s
        succ[s] = d
    roots = set(raw.roots)
    kinds = raw.kind
    cand = [kinds[i] == "function" and indeg[i] == 1 and outdeg[i] == 1 and i not in roots for i in range(n)]
    rep = list(range(n))  # raw index -> representative
    groups: dict = {}
    for i in range(n):
        if not cand[i] or (cand[pred[i]] and succ[pred[i]] == i):
            continue
        chain = [i]
        j = succ[i]
        while j >= 0 and cand[j] and pred[j] == chain[-1]:
            chain.append(j)
            j = succ[j]
        if len(chain) >= 3:
            head = chain[0]
            for c in chain:
                rep[c] = head
            groups[head] = chain
    # the representative is the chain's first node in data-flow order; keep walk order
    keep = [i for i in range(n) if rep[i] == i]
    edges = []
    for s, d, inp, out in raw.edges:
        rs, rd = rep[s], rep[d]
        if rs != rd:
            edges.append((rs, rd, inp, out))
    if len(keep) > max_nodes:
        # still too big (a wide graph): keep the first nodes of the walk, one group for the rest
        kept = set(keep[: max_nodes - 1])
        rest = [i for i in keep if i not in kept]
        cut = rest[0]
        members = []
        for r in rest:
            members.extend(groups.pop(r, [r]))
        groups[cut] = members
        keep = keep[: max_nodes - 1] + [cut]
        new_edges = []
        seen = set()
        for s, d, inp, out in edges:
            s2 = s if s in kept else cut
            d2 = d if d in kept else cut
            if s2 == d2 == cut:
                continue
            if s2 == cut or d2 == cut:
                key = (s2, d2, inp)
                if key in seen:
                    continue
                seen.add(key)
            new_edges.append((s2, d2, inp, out))
        edges = new_edges
    return keep, groups, edges


def _group_members(names: list) -> list:
    if len(names) <= 20:
        return names
    return names[:10] + ["\u2026"] + names[-9:]


# ------------------------------------------------------------------ build
def build_graph(
    roots: Iterable,
    *,
    names: Mapping[str, object] | None = None,
    source_of: Callable[[object], dict | None] | None = None,
    inputs_of: Callable[[object], tuple | None] | None = None,
    backward: BackwardRecord | None = None,
    max_nodes: int | None = MAX_NODES,
    max_bytes: int | None = MAX_BYTES,
    direction: str = "forward",
    values: bool = True,
    saved: bool = True,
    title: str | None = None,
) -> dict:
    """Describe the graph behind ``roots`` as a JSON-safe dict (schema version 1).

    Args:
        roots: tensors and/or ``grad_fn`` nodes; each is marked ``is_root``.
        names: variable name -> tensor; named tensors are drawn with their names (non-leaf
            named tensors are inserted between their ``grad_fn`` and its consumers).
        source_of: ``obj -> {"line": int, "code": str}`` for nodes/tensors (from ``viz.trace``).
        inputs_of: ``node -> tuple`` of the op's input tensors (draws inputs that do not require
            grad, whose ``next_functions`` entry is ``(None, 0)``).
        backward: a ``BackwardRecord`` of a backward pass through this graph.
        max_nodes: collapse to at most this many nodes; ``None`` for no limit (still refused
            above 10 MB).
        max_bytes: shrink previews, then nodes, until the JSON is at most this many bytes.
        direction: ``"forward"`` (arrows input -> output) or ``"backward"`` (reversed).
        values: include torch-printed value previews.
        saved: include each function's saved tensors/values.
        title: free text stored as ``title``.

    Returns:
        The payload dict for MIME type ``application/vnd.jupyter-autograd.graph+json``.

    Raises:
        GraphTooLarge: with ``max_nodes=None``, when the payload would exceed 10 MB.
        ValueError: for a bad ``direction`` or ``max_nodes``.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import build_graph
        >>> w = torch.ones(2, requires_grad=True)
        >>> loss = (w * 3).sum()
        >>> g = build_graph([loss], names={"w": w, "loss": loss})
        >>> [n["label"] for n in g["nodes"]]
        ['loss\\n()', 'SumBackward0', 'MulBackward0', 'AccumulateGrad', 'w\\n(2,)']
    """
    if direction not in ("forward", "backward"):
        raise ValueError(f"direction must be 'forward' or 'backward', got {direction!r}")
    if max_nodes is not None and (not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"max_nodes must be a positive int or None, got {max_nodes!r}")
    names = dict(names or {})
    roots = list(roots)
    limit = None if max_nodes is not None else HARD_LIMIT_BYTES // _MIN_NODE_BYTES
    try:
        raw = _walk(roots, names, inputs_of, limit)
    except GraphTooLarge as e:
        raise GraphTooLarge(
            f"The autograd graph has more than {e.args[0]:,} nodes: its payload would exceed "
            f"{HARD_LIMIT_BYTES // 1_000_000} MB, so it is not displayed. Pass max_nodes=2000 "
            "(the default) to see it collapsed, or --max-nodes N in the magics."
        ) from None
    total = len(raw.kind)
    total_edges = len(raw.edges)
    truncated = False
    if max_nodes is not None and total > max_nodes:
        keep, groups, edges = _collapse(raw, max_nodes)
        truncated = True
    else:
        keep, groups, edges = list(range(total)), {}, raw.edges
    cap = _PREVIEW_CAP
    while True:
        payload = _serialize(
            raw, keep, groups, edges, names, source_of, backward, direction, values, saved, title,
            total, total_edges, truncated, cap,
        )
        if max_bytes is None:
            return payload
        size = len(to_json(payload))
        if max_nodes is None and size > HARD_LIMIT_BYTES:
            raise GraphTooLarge(
                f"The autograd graph ({total:,} nodes) would be a {size / 1e6:.1f} MB payload "
                f"(limit {HARD_LIMIT_BYTES // 1_000_000} MB), so it is not displayed. Pass "
                "max_nodes=2000 (the default) to see it collapsed."
            )
        if size <= max_bytes or (max_nodes is None and size <= HARD_LIMIT_BYTES):
            return payload
        # over budget: first shorter previews, then none, then fewer nodes
        if values and cap > 200:
            cap = 200
            continue
        if values or saved:
            values = saved = False
            continue
        new_max = max(1, len(keep) * max_bytes // size - 1)
        if new_max >= len(keep):
            return payload
        keep, groups, edges = _collapse(raw, new_max)
        truncated = True


def _serialize(raw, keep, groups, edges, names, source_of, backward, direction, values, saved,
               title, total, total_edges, truncated, cap) -> dict:
    kinds, objs = raw.kind, raw.obj
    name_of = {}
    for k, v in names.items():
        name_of.setdefault(id(v), k)
    ids = {r: f"n{i}" for i, r in enumerate(keep)}
    drawn_tensors = {id(objs[r]): ids[r] for r in keep if kinds[r] == "tensor"}
    roots = set(raw.roots)
    # backward order: index per raw node; a group takes its first executed member's step
    step_of = {}
    order_ids = []
    if backward is not None and backward.order:
        pos = {id(objs[r]): r for r in range(len(objs)) if kinds[r] != "tensor"}
        rep_of = {}
        for head, members in groups.items():
            for m in members:
                rep_of[m] = head
        for node in backward.order:
            r = pos.get(id(node))
            if r is None:
                continue
            r = rep_of.get(r, r)
            if r in ids and r not in step_of:
                step_of[r] = len(order_ids)
                order_ids.append(ids[r])
    bgrads = backward.grads if backward is not None else {}
    nodes = []
    for r in keep:
        obj = objs[r]
        kind = kinds[r]
        d: dict = {"id": ids[r]}
        members = groups.get(r)
        if members is not None:
            ops = [type(objs[m]).__name__ if kinds[m] != "tensor" else "Tensor" for m in members]
            uniq = list(dict.fromkeys(ops))
            head = uniq[0] if len(uniq) == 1 else f"{ops[0]} \u2026 {ops[-1]}"
            d["kind"] = "group"
            d["label"] = _clean(f"{head} \u00d7{len(members)}")
            d["op"] = None
            d["count"] = len(members)
            d["members"] = [_clean(o, 200) for o in _group_members(ops)]
            if r in step_of:
                d["backward_step"] = step_of[r]
            nodes.append(d)
            continue
        src = source_of(obj) if source_of is not None else None
        if kind == "tensor":
            t = obj
            name = name_of.get(id(t))
            shape = list(t._data.shape)
            d["kind"] = "tensor"
            d["label"] = _clean(f"{name}\n{_shape_label(shape)}" if name else _shape_label(shape))
            d["name"] = _clean(name) if name else None
            d["op"] = None
            d["shape"] = shape
            d["dtype"] = _dtype_name(t)
            d["requires_grad"] = bool(t._requires_grad)
            d["is_leaf"] = t.grad_fn is None
            d["retains_grad"] = bool(t._retains_grad)
            d["is_root"] = r in roots
            d["value"] = _preview(t, cap) if values else None
            d["grad"] = _preview(t._grad, cap) if values and t._grad is not None else None
        else:
            op = obj.name()
            if kind == "accumulate":
                op = "AccumulateGrad"
            d["kind"] = kind
            d["label"] = _clean(op)
            d["op"] = _clean(op)
            if r in roots:
                d["is_root"] = True
            if saved and kind == "function":
                d["saved"] = _saved_list(obj, drawn_tensors, values, cap)
            g = bgrads.get(obj)
            if g is not None and values:
                g = [x for x in g if x is not None]
                if g:
                    d["grad"] = _array_preview(g[0], cap)
            if r in step_of:
                d["backward_step"] = step_of[r]
        d["source"] = _source(src)
        nodes.append(d)
    out_edges = []
    edge_grad = {}
    if bgrads and values:
        for r in keep:
            g = bgrads.get(objs[r])
            if g is not None:
                edge_grad[r] = g
    for s, t, inp, out in edges:
        e = {"source": ids[s], "target": ids[t]}
        if inp is not None:
            e["input"] = inp
        if out is not None:
            e["output"] = out
        g = edge_grad.get(s)
        if g is not None:
            k = out or 0
            if k < len(g) and g[k] is not None:
                e["grad"] = _array_preview(g[k], cap)
        out_edges.append(e)
    payload = {
        "version": SCHEMA_VERSION,
        "direction": direction,
        "nodes": nodes,
        "edges": out_edges,
        "roots": [ids[r] for r in raw.roots if r in ids],
        "backward_order": order_ids,
        "truncated": truncated,
        "total_nodes": total,
        "total_edges": total_edges,
    }
    if title is not None:
        payload["title"] = _clean(title)
    return payload


def _source(src) -> dict | None:
    if not src:
        return None
    out = {"line": int(src.get("line", 0)), "code": _clean(src.get("code", ""))}
    if src.get("file"):
        out["file"] = _clean(src["file"])
    return out


def _array_preview(g, cap) -> str:
    from .tensor import Tensor  # noqa: PLC0415

    return _preview(g if isinstance(g, Tensor) else Tensor._wrap(g), cap)


def _saved_list(fn, drawn_tensors, values, cap) -> list:
    out = []
    for key in getattr(type(fn), "_saved_names", ()):
        name = "_saved_" + key
        item: dict = {"name": name}
        try:
            v = getattr(fn, name)
        except RuntimeError:
            item.update(shape=None, dtype=None, value="<freed by backward; use retain_graph=True>")
            out.append(item)
            continue
        except Exception:  # noqa: BLE001
            continue
        if _is_tensor(v):
            item["shape"] = list(v._data.shape)
            item["dtype"] = _dtype_name(v)
            if values:
                item["value"] = _preview(v, cap)
            tid = drawn_tensors.get(id(v))
            if tid is not None:
                item["tensor"] = tid
        else:
            item["shape"] = None
            item["dtype"] = None
            item["value"] = _value_preview(v, cap)
        out.append(item)
    return out


# ------------------------------------------------------------------ exports
def to_json(payload: dict, indent: int | None = None) -> str:
    """The payload as JSON text; ``</`` is escaped so it is safe inside an HTML ``<script>``.

    Example:
        >>> to_json({"label": "</script>"})
        '{"label":"<\\\\/script>"}'
    """
    sep = (",", ":") if indent is None else (",", ": ")
    s = json.dumps(payload, separators=sep, indent=indent, ensure_ascii=False, allow_nan=False)
    return s.replace("</", "<\\/")


def summary(payload: dict) -> str:
    """The one-line text/plain summary, ``AutogradGraph(nodes=..., edges=..., truncated=...)``."""
    return (
        f"AutogradGraph(nodes={payload['total_nodes']}, edges={payload.get('total_edges', len(payload['edges']))}, "
        f"truncated={payload['truncated']})"
    )


# What a terminal or a notebook would interpret rather than show: C0/C1 controls (ANSI escape
# sequences start with ESC or CSI), DEL, bidi marks, embeddings, overrides and isolates (U+202E
# reverses what follows), zero-width and line-separator characters, BOM, lone surrogates.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069"
    "\ufeff\ufff9-\ufffb\ud800-\udfff"
)
_UNSAFE_LINE = re.compile(f"[\t\n{_UNSAFE}]")
_UNSAFE_MULTILINE = re.compile(f"[{_UNSAFE}]")


def safe_text(s, *, multiline: bool = False) -> str:
    r"""Any user-controlled string made safe for plain text: unsafe characters as ``\uXXXX``.

    Control characters (the ESC of ANSI sequences included), bidi overrides and isolates,
    zero-width characters and lone surrogates are shown escaped, so a name can neither colour,
    move nor reorder the text around it. Tabs and newlines are escaped too unless
    ``multiline``. Every text output of the package (``%grad_fn``, text trees, DOT, SVG
    labels, reprs, widget labels) goes through this one function.

    Example:
        >>> safe_text("a\u202eb\x1b[31m")
        'a\\u202eb\\u001b[31m'
        >>> safe_text("two\nlines"), safe_text("two\nlines", multiline=True)
        ('two\\u000alines', 'two\nlines')
    """
    if not isinstance(s, str):
        s = str(s)
    pattern = _UNSAFE_MULTILINE if multiline else _UNSAFE_LINE
    return pattern.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


def _one_line(s: str, cap: int = 80) -> str:
    s = safe_text(" ".join(s.split()))
    return s if len(s) <= cap else s[: cap - 1] + "\u2026"


def to_text(payload: dict, max_lines: int = 500) -> str:
    """A plain-text tree from the roots towards the inputs (the backward direction).

    A node reached twice is printed once; later references say ``(see nK above)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import build_graph, to_text
        >>> w = torch.ones(2, requires_grad=True)
        >>> print(to_text(build_graph([(w * 2).sum()], names={"w": w})))
        (): tensor(4., grad_fn=<SumBackward0>)
        └── SumBackward0
            └── MulBackward0
                └── AccumulateGrad
                    └── w (2,): tensor([1., 1.], requires_grad=True)
    """
    byid = {n["id"]: n for n in payload["nodes"]}
    inputs: dict = {}
    for e in payload["edges"]:
        inputs.setdefault(e["target"], []).append(e)
    for v in inputs.values():
        v.sort(key=lambda e: (e.get("input", 0)))
    lines: list = []
    seen = set()
    stack = [(rid, "", "") for rid in reversed(payload["roots"])]
    while stack and len(lines) < max_lines:
        nid, prefix, child_prefix = stack.pop()
        n = byid.get(nid)
        if n is None:
            continue
        text = _node_text(n)
        if nid in seen:
            lines.append(f"{prefix}{text} (see {nid} above)")
            continue
        seen.add(nid)
        lines.append(prefix + text)
        kids = inputs.get(nid, [])
        for k, e in reversed(list(enumerate(kids))):
            last = k == len(kids) - 1
            stack.append((
                e["source"],
                child_prefix + ("\u2514\u2500\u2500 " if last else "\u251c\u2500\u2500 "),
                child_prefix + ("    " if last else "\u2502   "),
            ))
    if stack:
        lines.append(f"\u2026 ({len(payload['nodes']) - len(seen)} more nodes not shown)")
    if payload.get("truncated"):
        lines.append(
            f"[collapsed: {len(payload['nodes'])} of {payload['total_nodes']} nodes shown]"
        )
    return "\n".join(lines)


def _cap(s: str, cap: int) -> str:
    return s if len(s) <= cap else s[: cap - 1] + "\u2026"


def _label_line(n: dict) -> str:
    """A node's label on one line; a name's own control characters shown escaped."""
    if n["kind"] == "tensor" and n.get("shape") is not None:
        shape = _shape_label(n["shape"])
        return f"{safe_text(n['name'])} {shape}" if n.get("name") else shape
    return safe_text(n["label"])


def _label_lines(n: dict) -> list:
    """The lines of a node's label (name, shape), each neutralised, for the SVG and DOT."""
    if n["kind"] == "tensor" and n.get("shape") is not None:
        label = ([n["name"]] if n.get("name") else []) + [_shape_label(n["shape"])]
    else:
        label = [n["label"]]
    return [safe_text(x) for x in label]


def _node_text(n: dict) -> str:
    kind = n["kind"]
    if kind == "tensor":
        label = _cap(_label_line(n), 60)
        val = n.get("value")
        text = f"{label}: {_one_line(val, 80)}" if val else label
        if n.get("grad"):
            text += f"  grad={_one_line(n['grad'], 60)}"
        return text
    text = _cap(_label_line(n), 80)
    if n.get("backward_step") is not None:
        text += f"  [backward #{n['backward_step']}]"
    src = n.get("source")
    if src:
        text += f"  # line {src['line']}: {_one_line(src['code'], 60)}"
    return text


def grad_fn_tree(fn, names: Mapping[str, object] | None = None, max_lines: int = 500) -> str:
    """The ``grad_fn`` chain below ``fn`` as a text tree, with torch's node names.

    Leaves show as ``AccumulateGrad`` with their variable name when known; an input that needs
    no gradient shows as ``None``, as in ``next_functions``.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import grad_fn_tree
        >>> w = torch.ones(2, requires_grad=True)
        >>> print(grad_fn_tree((w * 2).sum().grad_fn, {"w": w}))
        SumBackward0
        └── MulBackward0
            ├── AccumulateGrad (w)
            └── None
    """
    if fn is None:
        return "None"
    name_of = {}
    for k, v in (names or {}).items():
        name_of.setdefault(id(v), k)
    lines: list = []
    seen = set()
    stack = [(fn, "", "")]
    while stack:
        if len(lines) >= max_lines:
            lines.append("\u2026")
            break
        node, prefix, child = stack.pop()
        if node is None:
            lines.append(prefix + "None")
            continue
        if isinstance(node, AccumulateGrad):
            nm = name_of.get(id(node.variable))
            lines.append(prefix + "AccumulateGrad" + (f" ({safe_text(nm)})" if nm else ""))
            continue
        text = safe_text(type(node).__name__)
        if id(node) in seen:
            lines.append(f"{prefix}{text} (see above)")
            continue
        seen.add(id(node))
        lines.append(prefix + text)
        nf = list(node.next_functions)
        for k in range(len(nf) - 1, -1, -1):
            last = k == len(nf) - 1
            stack.append((
                nf[k][0],
                child + ("\u2514\u2500\u2500 " if last else "\u251c\u2500\u2500 "),
                child + ("    " if last else "\u2502   "),
            ))
    return "\n".join(lines)


def to_dot(payload: dict) -> str:
    """Graphviz DOT source (for those who want to run ``dot`` themselves).

    Example:
        >>> to_dot({"nodes": [{"id": "n0", "kind": "tensor", "label": 'a"b'}], "edges": [],
        ...         "direction": "forward"}).splitlines()[3]
        '  n0 [label="a\\\\"b", shape=box, style="filled", fillcolor="#dbeafe"];'
    """
    out = [
        "digraph autograd {",
        f"  rankdir={'TB' if payload.get('direction', 'forward') == 'forward' else 'BT'};",
        '  node [fontname="monospace", fontsize=10];',
    ]
    for n in payload["nodes"]:
        label = "\\n".join(_dot_escape(x) for x in _label_lines(n))
        style = _STYLE[n["kind"]]
        shape = "box" if n["kind"] in ("tensor", "group") else "box, style=\"rounded,filled\""
        if n["kind"] in ("tensor", "group"):
            out.append(f'  {n["id"]} [label="{label}", shape={shape}, style="filled", fillcolor="{style[0]}"];')
        else:
            out.append(f'  {n["id"]} [label="{label}", shape={shape}, fillcolor="{style[0]}"];')
    for e in payload["edges"]:
        out.append(f'  {e["source"]} -> {e["target"]};')
    out.append("}")
    return "\n".join(out)


def _dot_escape(s: str) -> str:
    return safe_text(s).replace("\\", "\\\\").replace('"', '\\"')


# ------------------------------------------------------------------ SVG
# fill, stroke per kind
_STYLE = {
    "tensor": ("#dbeafe", "#1d4ed8"),
    "function": ("#fde7c7", "#b45309"),
    "accumulate": ("#d1fae5", "#047857"),
    "group": ("#ede9fe", "#6d28d9"),
}
_CHAR_W = 7.2  # 12px monospace advance
_LINE_H = 15.0
_PAD_X = 8.0
_PAD_Y = 6.0
_GAP = 24.0
_LAYER_GAP = 40.0
_MAX_LINE = 44
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(s: str) -> str:
    s = _XML_BAD.sub("\ufffd", s)
    return (
        s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#39;")
    )


def _cut(s: str, n: int = _MAX_LINE) -> str:
    s = s.replace("\t", " ")
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _box_lines(n: dict, show_saved: bool, show_values: bool) -> list:
    """(text, css class) lines drawn in a node's box."""
    kind = n["kind"]
    lines = [(_cut(x), "l") for x in _label_lines(n)]
    if kind == "tensor":
        if n.get("requires_grad") and n.get("is_leaf"):
            lines.append(("requires_grad", "m"))
        if show_values and n.get("value"):
            lines.append((_cut(" ".join(n["value"].split()), 36), "m"))
        if n.get("grad"):
            lines.append((_cut("grad " + " ".join(n["grad"].split()), 36), "g"))
    elif kind == "function":
        src = n.get("source")
        if src and src.get("code"):
            lines.append((_cut(f"L{src['line']}: {src['code'].strip()}"), "m"))
        if show_saved:
            for s in (n.get("saved") or [])[:6]:
                if s.get("shape") is not None:
                    desc = _shape_label(s["shape"])
                else:
                    desc = " ".join((s.get("value") or "").split())
                    if desc.startswith("<freed"):
                        desc = "freed"
                lines.append((_cut(f"{s['name']}: {desc}"), "m"))
    return lines


def _layout(nodes, edges, direction, rankdir):
    """Layered layout: rank by longest path to a sink, dummy nodes on long edges,
    barycentre ordering sweeps, greedy non-overlapping placement within each layer."""
    n = len(nodes)
    idx = {nd["id"]: i for i, nd in enumerate(nodes)}
    es = [(idx[e["source"]], idx[e["target"]]) for e in edges
          if e["source"] in idx and e["target"] in idx and e["source"] != e["target"]]
    outs = [[] for _ in range(n)]
    ins = [[] for _ in range(n)]
    for s, t in es:
        outs[s].append(t)
        ins[t].append(s)
    # rank = longest path to a sink (roots at 0), so inputs sit next to their consumer
    rank = [0] * n
    remaining = [len(o) for o in outs]
    queue = [i for i in range(n) if remaining[i] == 0]
    done = 0
    while queue:
        v = queue.pop()
        done += 1
        for u in ins[v]:
            if rank[v] + 1 > rank[u]:
                rank[u] = rank[v] + 1
            remaining[u] -= 1
            if remaining[u] == 0:
                queue.append(u)
    maxr = max(rank) if n else 0
    level = [maxr - r for r in rank] if direction == "forward" else rank[:]
    for i in range(n):
        if not ins[i] and not outs[i]:
            level[i] = 0  # an unconnected tensor reads as an input, at the start
    # dummy nodes for edges spanning several layers; paths[k] = list of vertex ids
    nv = n
    vlevel = level[:]
    paths = []
    for s, t in es:
        a, b = level[s], level[t]
        step = 1 if b > a else -1
        path = [s]
        for lv in range(a + step, b, step):
            vlevel.append(lv)
            path.append(nv)
            nv += 1
        path.append(t)
        paths.append(path)
    adj_up = [[] for _ in range(nv)]  # neighbours in the layer above
    adj_dn = [[] for _ in range(nv)]
    for path in paths:
        for u, v in zip(path, path[1:]):
            if vlevel[u] < vlevel[v]:
                adj_dn[u].append(v)
                adj_up[v].append(u)
            else:
                adj_dn[v].append(u)
                adj_up[u].append(v)
    nlev = (max(vlevel) + 1) if nv else 0
    layers = [[] for _ in range(nlev)]
    for v in range(nv):
        layers[vlevel[v]].append(v)
    # ordering: barycentre sweeps
    pos = [0.0] * nv
    for layer in layers:
        for k, v in enumerate(layer):
            pos[v] = k
    for sweep in range(4):
        rng = range(1, nlev) if sweep % 2 == 0 else range(nlev - 2, -1, -1)
        for lv in rng:
            layer = layers[lv]
            nb = adj_up if sweep % 2 == 0 else adj_dn
            keyed = []
            for k, v in enumerate(layer):
                ns = nb[v]
                keyed.append((sum(pos[u] for u in ns) / len(ns) if ns else pos[v], k, v))
            keyed.sort()
            layers[lv] = [v for _, _, v in keyed]
            for k, v in enumerate(layers[lv]):
                pos[v] = k
    # sizes (along the layer = "breadth", across = "depth")
    lr = rankdir == "LR"
    size = []
    for v in range(nv):
        if v < n:
            w, h = nodes[v]["_w"], nodes[v]["_h"]
            size.append((h, w) if lr else (w, h))
        else:
            size.append((2.0, 0.0))
    centre = [0.0] * nv
    for sweep in range(3):
        order = range(nlev) if sweep != 1 else range(nlev - 1, -1, -1)
        for lv in order:
            layer = layers[lv]
            end = -1e18
            for v in layer:
                nb = adj_up[v] if sweep != 1 else adj_dn[v]
                if sweep == 0 and lv == 0:
                    nb = ()
                want = sum(centre[u] for u in nb) / len(nb) if nb else (centre[v] if sweep else end)
                half = size[v][0] / 2
                c = max(want, end + _GAP + half) if end > -1e17 else max(want, half)
                centre[v] = c
                end = c + half
    # depth coordinate per layer
    depth = []
    y = 0.0
    for layer in layers:
        d = max((size[v][1] for v in layer), default=0.0)
        depth.append((y, d))
        y += d + _LAYER_GAP
    lo = min((centre[v] - size[v][0] / 2 for v in range(nv)), default=0.0)
    boxes = []
    for v in range(n):
        y0, d = depth[vlevel[v]]
        b0 = centre[v] - size[v][0] / 2 - lo
        dd = size[v][1]
        yy = y0 + (d - dd) / 2
        boxes.append((yy, b0, dd, size[v][0]) if lr else (b0, yy, size[v][0], dd))
    breadth = max((centre[v] + size[v][0] / 2 - lo for v in range(nv)), default=0.0)
    total_depth = y - _LAYER_GAP if nlev else 0.0
    vpts = {}
    for v in range(n, nv):
        y0, d = depth[vlevel[v]]
        c = centre[v] - lo
        vpts[v] = (y0 + d / 2, c) if lr else (c, y0 + d / 2)
    return boxes, paths, vpts, (total_depth, breadth) if lr else (breadth, total_depth), vlevel, depth


def to_svg(payload: dict, *, show_saved: bool = False, show_values: bool = False, rankdir: str = "TB") -> str:
    """A static SVG of the graph, laid out by our own layered layout (no Graphviz needed).

    Args:
        payload: a ``build_graph`` dict.
        show_saved: list saved tensors in function boxes.
        show_values: print value previews in tensor boxes.
        rankdir: ``"TB"`` (top to bottom) or ``"LR"`` (left to right).

    Returns:
        SVG text; every label is XML-escaped.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import build_graph, to_svg
        >>> w = torch.ones(2, requires_grad=True)
        >>> svg = to_svg(build_graph([w * 2], names={"<w>": w}))
        >>> "&lt;w&gt;" in svg, "<w>" in svg
        (True, False)
    """
    nodes = [dict(n) for n in payload["nodes"]]
    for n in nodes:
        n["_lines"] = _box_lines(n, show_saved, show_values)
        w = max(len(t) for t, _ in n["_lines"]) * _CHAR_W + 2 * _PAD_X
        n["_w"] = max(w, 48.0)
        n["_h"] = len(n["_lines"]) * _LINE_H + 2 * _PAD_Y
    direction = payload.get("direction", "forward")
    boxes, paths, vpts, (width, height), _, _ = _layout(nodes, payload["edges"], direction, rankdir)
    m = 12.0
    W, H = width + 2 * m, height + 2 * m
    digest = hashlib.sha1(
        ("|".join(n["id"] + n["label"] for n in nodes[:200])).encode("utf-8", "replace")
    ).hexdigest()[:8]
    arrow = f"ja-arrow-{digest}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:.0f}" height="{H:.0f}" '
        f'viewBox="0 0 {W:.0f} {H:.0f}" class="jp-AutogradGraph-svg" '
        'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="12">',
        f"<defs><marker id=\"{arrow}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
        "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
        "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>",
        f'<rect width="{W:.0f}" height="{H:.0f}" fill="#ffffff"/>',
        '<g class="edges" fill="none" stroke="#555" stroke-width="1.2">',
    ]
    lr = rankdir == "LR"

    def anchor(i, toward_next_level_down):
        x, y, w, h = boxes[i]
        if lr:
            return (x + w + m, y + h / 2 + m) if toward_next_level_down else (x + m, y + h / 2 + m)
        return (x + w / 2 + m, y + h + m) if toward_next_level_down else (x + w / 2 + m, y + m)

    for path in paths:
        s, t = path[0], path[-1]
        sdown = (boxes[s][0] < boxes[t][0]) if lr else (boxes[s][1] < boxes[t][1])
        pts = [anchor(s, sdown)]
        for v in path[1:-1]:
            a, b = vpts[v]
            pts.append((a + m, b + m))
        pts.append(anchor(t, not sdown))
        d = [f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"]
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
            if lr:
                mx = (x1 + x2) / 2
                d.append(f"C{mx:.1f},{y1:.1f} {mx:.1f},{y2:.1f} {x2:.1f},{y2:.1f}")
            else:
                my = (y1 + y2) / 2
                d.append(f"C{x1:.1f},{my:.1f} {x2:.1f},{my:.1f} {x2:.1f},{y2:.1f}")
        # arrows follow data flow (forward) or gradient flow (backward)
        end = "marker-end" if direction == "forward" else "marker-start"
        out.append(f'<path d="{" ".join(d)}" {end}="url(#{arrow})"/>')
    out.append("</g>")
    out.append('<g class="nodes">')
    for n, (x, y, w, h) in zip(nodes, boxes):
        kind = n["kind"]
        fill, stroke = _STYLE[kind]
        x += m
        y += m
        rx = 10 if kind in ("function", "accumulate") else 3
        sw = 2.2 if n.get("is_root") else 1.2
        dash = ' stroke-dasharray="5,3"' if kind == "group" or (kind == "tensor" and not n.get("requires_grad")) else ""
        tip = n["label"].replace("\n", " ")
        if n.get("source"):
            tip += f"\nline {n['source']['line']}: {n['source']['code']}"
        if n.get("value"):
            tip += "\n" + n["value"]
        tip = _xml(safe_text(tip[:2000], multiline=True))
        out.append(f'<g class="node {kind}"><title>{tip}</title>')
        out.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}"{dash}/>'
        )
        ty = y + _PAD_Y + 11.5
        for text, cls in n["_lines"]:
            color = {"l": "#111", "m": "#555", "g": "#b91c1c"}[cls]
            size = "" if cls == "l" else ' font-size="11"'
            out.append(
                f'<text x="{x + w / 2:.1f}" y="{ty:.1f}" text-anchor="middle" fill="{color}"{size}>'
                f"{_xml(text)}</text>"
            )
            ty += _LINE_H
        step = n.get("backward_step")
        if step is not None:
            out.append(
                f'<circle cx="{x + w:.1f}" cy="{y:.1f}" r="9" fill="#b91c1c"/>'
                f'<text x="{x + w:.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="#fff" '
                f'font-size="10">{step}</text>'
            )
        out.append("</g>")
    out.append("</g>")
    if payload.get("truncated"):
        total = payload["total_nodes"]
        out.append(
            f'<text x="{m:.0f}" y="{H - 2:.0f}" fill="#6d28d9" font-size="11">'
            f"{_xml(f'collapsed: {len(nodes)} of {total} nodes shown')}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)
