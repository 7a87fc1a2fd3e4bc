"""The graph as data: a versioned, JSON-safe payload, bounded in nodes and bytes.

``build_graph`` walks ``grad_fn`` nodes from root tensors (or nodes) and returns a dict that
validates against ``schema/graph-v2.schema.json`` (the contract with the JupyterLab renderer).
Node ids are sequential (``n0, n1, ...``) in walk order, never addresses, so stored notebook
outputs are stable. Repeated structure (loop bodies, identical siblings) is listed in
``repeats``; a graph over ``max_nodes`` keeps one iteration of each run (edges from the others
bundled with a ``count``), then folds chains into ``×N`` groups and cuts, to at most
``max_nodes`` nodes and ``max_bytes`` of JSON, marked ``truncated``.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable

import numpy as np

from ..autograd.engine import FLAGS
from .common import PREVIEW_CAP
from .fold import find_repeats
from .names import Names, as_names
from .serialize import serialize
from .walk import GraphTooLarge, walk

MAX_NODES = 2000
MAX_BYTES = 1_000_000
# Above this even an explicit max_nodes=None is refused: a notebook output that large breaks
# the frontend and the .ipynb (test plan G2).
HARD_LIMIT_BYTES = 10_000_000
# The smallest a serialized node (plus its edge) can be; bounds the walk when refusing.
_MIN_NODE_BYTES = 100


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

    def __init__(self, keep_saved: bool = False) -> None:
        self.order: list = []
        self.grads: dict = {}
        # keep_saved: what each function had saved when backward ran it, for a graph drawn
        # after backward freed them (``%%autograd --backward loss --saved``)
        self.keep_saved = keep_saved
        self.saved: dict = {}

    def _on_node(self, node, grads) -> None:
        self.order.append(node)
        self.grads[node] = grads
        if self.keep_saved:
            kept = {}
            for key in getattr(type(node), "_saved_names", ()):
                try:
                    kept["_saved_" + key] = getattr(node, "_saved_" + key)
                except Exception:  # noqa: BLE001, S112 - already freed or unreadable: left out
                    continue
            if kept:
                self.saved[node] = kept

    def __enter__(self) -> BackwardRecord:  # noqa: PYI034 - typing.Self needs 3.11
        FLAGS.backward_tracers.append(self._on_node)
        return self

    def __exit__(self, *exc) -> None:
        try:
            FLAGS.backward_tracers.remove(self._on_node)
        except ValueError:
            pass


# ------------------------------------------------------------------ selection and folding
class _Selection:
    """Which raw nodes the payload keeps, and its edges (raw indices, bundled with counts)."""

    def __init__(self, order: list, edges: list, repeats: list, groups: dict) -> None:
        self.order = order  # kept raw indices, walk order
        self.edges = edges  # (src, dst, input, output, count)
        self.repeats = repeats  # (Repeat, listed iterations)
        self.groups = groups  # representative -> member raw indices (collapsed chains/cuts)


def _select_all(raw, repeats) -> _Selection:
    return _Selection(
        list(range(len(raw.kind))),
        _bundle((s, d, i, o) for s, d, i, o in raw.edges),
        [(r, r.iterations) for r in repeats],
        {},
    )


def _bundle(edges: Iterable) -> list:
    """Merge edges with the same ends and slots, counting them."""
    out: dict = {}
    for s, d, inp, o in edges:
        key = (s, d, inp, o)
        hit = out.get(key)
        out[key] = [s, d, inp, o, 1] if hit is None else hit[:4] + [hit[4] + 1]
    return [tuple(e) for e in out.values()]


def _select_folded(raw, repeats) -> _Selection:
    """Keep the first iteration of every run; edges into the others go to it, bundled."""
    n = len(raw.kind)
    rep = np.arange(n)  # raw index -> the node drawn for it
    run_of = np.full(n, -1, np.int64)
    iteration_of = np.full(n, -1, np.int64)
    for ri, r in enumerate(repeats):
        nodes = r.nodes  # (count, size): row j is iteration j, in the template's order
        run_of[nodes] = ri
        iteration_of[nodes] = np.arange(len(nodes))[:, None]
        rep[nodes[1:]] = nodes[0]
    kept = np.flatnonzero(rep == np.arange(n)).tolist()
    e = raw.array
    s, d = e[:, 0], e[:, 1]
    rs, rd = rep[s], rep[d]
    same_run = (run_of[s] >= 0) & (run_of[s] == run_of[d])
    # between iterations, or inside a dropped one: the block stands for it
    drop = same_run & ((iteration_of[s] != iteration_of[d]) | (iteration_of[s] > 0))
    outside = (run_of[s] < 0) & (run_of[d] < 0)
    keep = np.flatnonzero(~drop)
    # edges between nodes outside runs are bundled when they have the same ends and slots
    # (rarely), edges into or out of a run when they have the same drawn ends (one per
    # iteration): each bundle in the order of its first edge, with that edge's slots
    ko = keep[outside[keep]]
    bundled: dict = {}
    for k, s_, d_, inp, o in zip(
        ko.tolist(), s[ko].tolist(), d[ko].tolist(), e[ko, 2].tolist(), e[ko, 3].tolist()
    ):
        key = (s_, d_, inp, o)
        hit = bundled.get(key)
        if hit is None:
            bundled[key] = [k, s_, d_, inp, o, 1]
        else:
            hit[5] += 1
    groups = list(bundled.values())
    kr = keep[~outside[keep]]
    if len(kr):
        _, first, counts = np.unique(rs[kr] * n + rd[kr], return_index=True, return_counts=True)
        f = kr[first]
        groups += map(
            list,
            zip(
                f.tolist(),
                rs[f].tolist(),
                rd[f].tolist(),
                e[f, 2].tolist(),
                e[f, 3].tolist(),
                counts.tolist(),
            ),
        )
    groups.sort()
    edges = [
        (a, b, None if inp < 0 else inp, None if o < 0 else o, c) for _, a, b, inp, o, c in groups
    ]
    return _Selection(kept, edges, [(r, r.nodes[:1].tolist()) for r in repeats], {})


def _collapse(raw, sel: _Selection, max_nodes: int) -> _Selection:
    """Group chains of single-input/single-consumer function nodes; cut the rest if needed."""
    order = sel.order
    pred: dict = {}
    succ: dict = {}
    indeg: dict = {}
    outdeg: dict = {}
    for s, d, _, _, _ in sel.edges:
        outdeg[s] = outdeg.get(s, 0) + 1
        indeg[d] = indeg.get(d, 0) + 1
        pred[d] = s
        succ[s] = d
    roots = set(raw.roots)
    kinds = raw.kind
    cand = {
        v
        for v in order
        if kinds[v] == "function" and indeg.get(v) == 1 and outdeg.get(v) == 1 and v not in roots
    }
    rep = {v: v for v in order}
    groups: dict = {}
    for v in order:
        if v not in cand or (pred[v] in cand and succ.get(pred[v]) == v):
            continue
        chain = [v]
        j = succ.get(v, -1)
        while j in cand and pred[j] == chain[-1]:
            chain.append(j)
            j = succ.get(j, -1)
        if len(chain) >= 3:
            for c in chain:
                rep[c] = v
            groups[v] = chain
    keep = [v for v in order if rep[v] == v]
    edges = [(rep[s], rep[d], inp, o, c) for s, d, inp, o, c in sel.edges if rep[s] != rep[d]]
    if len(keep) > max_nodes:
        # still too big (a wide graph): keep the first nodes of the walk, one group for the rest
        kept = set(keep[: max_nodes - 1])
        rest = keep[max_nodes - 1 :]
        cut = rest[0]
        members = []
        for r in rest:
            members.extend(groups.pop(r, [r]))
        groups[cut] = members
        keep = keep[: max_nodes - 1] + [cut]
        merged: dict = {}
        for s, d, inp, o, c in edges:
            s2 = s if s in kept else cut
            d2 = d if d in kept else cut
            if s2 == d2 == cut:
                continue
            key = (s2, d2, inp) if cut in (s2, d2) else (s, d, inp, o)
            hit = merged.get(key)
            merged[key] = (s2, d2, inp, o, c) if hit is None else hit[:4] + (hit[4] + c,)
        edges = list(merged.values())
    grouped = {m for ms in groups.values() for m in ms}
    repeats = [
        (r, its) for r, its in sel.repeats if not any(v in grouped for it in its for v in it)
    ]
    return _Selection(keep, edges, repeats, groups)


# ------------------------------------------------------------------ build
def build_graph(
    roots: Iterable,
    *,
    names=None,
    source_of: Callable[[object], dict | None] | None = None,
    inputs_of: Callable[[object], tuple | None] | None = None,
    modules_of: Callable[[object], tuple] | None = None,
    backward: BackwardRecord | None = None,
    max_nodes: int | None = MAX_NODES,
    max_bytes: int | None = MAX_BYTES,
    direction: str = "forward",
    values: bool = True,
    saved: bool = True,
    show_saved: bool = False,
    replay_step: int | None = None,
    replay_controls: bool = True,
    title: str | None = None,
) -> dict:
    """Describe the graph behind ``roots`` as a JSON-safe dict (schema version 2).

    Args:
        roots: tensors and/or ``grad_fn`` nodes; each is marked ``is_root``.
        names: a :class:`~jupyter_autograd.graph.names.Names`, or a mapping name -> tensor or
            module; tensors are labelled with their first name (a variable, else a parameter
            or buffer path), named non-leaf tensors are inserted between their ``grad_fn``
            and its consumers.
        source_of: ``obj -> {"line": int, "code": str}`` for nodes/tensors (from ``viz.trace``).
        inputs_of: ``node -> tuple`` of the op's input tensors (draws inputs that do not require
            grad, whose ``next_functions`` entry is ``(None, 0)``).
        modules_of: ``node -> (outermost, ..., innermost)`` modules whose ``forward`` made it.
        backward: a ``BackwardRecord`` of a backward pass through this graph.
        max_nodes: at most this many nodes; ``None`` for no limit (still refused above 10 MB).
        max_bytes: shrink previews, then nodes, until the JSON is at most this many bytes.
        direction: ``"forward"`` (arrows input -> output) or ``"backward"`` (reversed).
        values: include torch-printed value previews.
        saved: include each function's saved tensors/values.
        show_saved: ask the renderer to draw saved tensors as nodes beside their function.
        replay_step: open the backward replay after this many steps (default: all of them).
        replay_controls: whether the renderer shows its own replay controls.
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
    names = as_names(names)
    roots = list(roots)
    # the walk makes ~10^5 small objects; the cyclic GC would rescan the live graph for them
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        return _build(
            roots,
            names,
            source_of,
            inputs_of,
            modules_of,
            backward,
            max_nodes,
            max_bytes,
            direction,
            values,
            saved,
            show_saved,
            replay_step,
            replay_controls,
            title,
        )
    finally:
        if gc_was_on:
            gc.enable()


def _build(
    roots,
    names,
    source_of,
    inputs_of,
    modules_of,
    backward,
    max_nodes,
    max_bytes,
    direction,
    values,
    saved,
    show_saved,
    replay_step,
    replay_controls,
    title,
) -> dict:
    limit = None if max_nodes is not None else HARD_LIMIT_BYTES // _MIN_NODE_BYTES
    try:
        raw = walk(roots, names.tensors(), inputs_of, limit)
    except GraphTooLarge as e:
        raise GraphTooLarge(
            f"The autograd graph has more than {e.args[0]:,} nodes: its payload would exceed "
            f"{HARD_LIMIT_BYTES // 1_000_000} MB, so it is not displayed. Pass max_nodes=2000 "
            "(the default) to see it collapsed, or --max-nodes N in the magics."
        ) from None
    total = len(raw.kind)
    repeats = find_repeats(raw.kind, raw.obj, raw.array, raw.roots)
    truncated = max_nodes is not None and total > max_nodes
    if truncated:
        sel = _select_folded(raw, repeats)
        if len(sel.order) > max_nodes:
            sel = _collapse(raw, sel, max_nodes)
    else:
        sel = _select_all(raw, repeats)
    ctx = _Context(raw, names, source_of, modules_of, backward, direction, saved)
    cap = PREVIEW_CAP
    extra = {
        "show_saved": bool(show_saved),
        "title": title,
        "replay": {"step": replay_step, "controls": bool(replay_controls)},
    }
    while True:
        payload = serialize(ctx, sel, values, saved, total, truncated, cap, extra)
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
        new_max = max(1, len(sel.order) * max_bytes // size - 1)
        if new_max >= len(sel.order):
            return payload
        sel = _collapse(raw, _select_folded(raw, repeats), new_max)
        truncated = True


class _Context:
    """What serialization needs besides the selection."""

    def __init__(self, raw, names: Names, source_of, modules_of, backward, direction, saved):
        self.raw = raw
        self.names = names
        self.source_of = source_of
        self.modules_of = modules_of
        self.backward = backward
        self.direction = direction


def to_json(payload: dict, indent: int | None = None) -> str:
    """The payload as JSON text; ``</`` is escaped so it is safe inside an HTML ``<script>``.

    Example:
        >>> to_json({"label": "</script>"})
        '{"label":"<\\\\/script>"}'
    """
    sep = (",", ":") if indent is None else (",", ": ")
    s = json.dumps(payload, separators=sep, indent=indent, ensure_ascii=False, allow_nan=False)
    return s.replace("</", "<\\/")
