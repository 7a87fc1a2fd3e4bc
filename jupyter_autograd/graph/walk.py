"""Walking ``grad_fn`` nodes from roots into a raw graph (no recursion, one pass)."""

from __future__ import annotations

from ..autograd.node import AccumulateGrad, Node


class GraphTooLarge(ValueError):
    """The graph is too large to serialize with the requested limits."""


class Raw:
    """The uncollapsed graph: parallel lists indexed by int, edges in data-flow direction."""

    __slots__ = ("edges", "index", "kind", "obj", "roots", "tensor_of_edge")

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


def walk(roots, names, inputs_of, limit) -> Raw:
    """The graph behind ``roots``, depth-first, input 0 first (ids read top-down like code).

    Args:
        roots: tensors and/or ``grad_fn`` nodes.
        names: named tensors (an iterable); named non-leaf tensors are inserted between their
            ``grad_fn`` and its consumers.
        inputs_of: ``node -> tuple`` of traced inputs, to draw inputs that need no grad.
        limit: raise :class:`GraphTooLarge` beyond this many nodes (None: no limit).
    """
    raw = Raw()
    named_edge = {}  # (id(fn), nr) -> named non-leaf tensor
    for t in names:
        if t.grad_fn is not None:
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
