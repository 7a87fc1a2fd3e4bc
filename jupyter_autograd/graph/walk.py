"""Walking ``grad_fn`` nodes from roots into a raw graph (no recursion, one pass)."""

from __future__ import annotations

import numpy as np

from ..autograd.node import AccumulateGrad, Node


class GraphTooLarge(ValueError):
    """The graph is too large to serialize with the requested limits."""


TENSOR, FUNCTION, ACCUMULATE = "tensor", "function", "accumulate"


class Raw:
    """The uncollapsed graph: parallel lists indexed by int, edges in data-flow direction.

    Edges are kept flat, four ints each (source, target, input, output; -1 where a slot does
    not apply): a 100,000-node graph is then one list, and one NumPy array for the analysis.
    """

    __slots__ = ("_array", "_edges", "flat", "index", "kind", "obj", "roots")

    def __init__(self) -> None:
        self.kind: list = []  # TENSOR | FUNCTION | ACCUMULATE
        self.obj: list = []
        self.flat: list = []  # s0, d0, i0, o0, s1, d1, ...
        self.index: dict = {}  # id(obj) -> idx
        self.roots: list = []
        self._array = None
        self._edges = None

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

    @property
    def n_edges(self) -> int:
        return len(self.flat) // 4

    @property
    def array(self) -> np.ndarray:
        """The edges as an (m, 4) int64 array (-1: no input/output slot)."""
        if self._array is None:
            self._array = np.array(self.flat, dtype=np.int64).reshape(-1, 4)
        return self._array

    @property
    def edges(self) -> list:
        """The edges as (source, target, input, output) tuples, None where a slot is absent."""
        if self._edges is None:
            f = self.flat
            self._edges = [
                (
                    f[k],
                    f[k + 1],
                    None if f[k + 2] < 0 else f[k + 2],
                    None if f[k + 3] < 0 else f[k + 3],
                )
                for k in range(0, len(f), 4)
            ]
        return self._edges


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
    flat = raw.flat

    def tensor_node(t) -> int:
        """Add a tensor; queue its producer (grad_fn, or the leaf's AccumulateGrad is not drawn)."""
        i, new = raw.add(TENSOR, t)
        if new and t.grad_fn is not None:
            fi, fnew = raw.add(FUNCTION, t.grad_fn)
            flat.extend((fi, i, -1, t._output_nr))
            if fnew:
                stack.append(fi)
        return i

    for r in roots:
        if isinstance(r, Node):
            i, new = raw.add(ACCUMULATE if isinstance(r, AccumulateGrad) else FUNCTION, r)
            if new:
                stack.append(i)
        else:
            i = tensor_node(r)
        if i not in raw.roots:
            raw.roots.append(i)
    # DFS, input 0 first, so ids read top-down like the code
    stack.reverse()
    if inputs_of is not None or named_edge:
        _walk_general(raw, stack, named_edge, inputs_of, limit)
    else:
        _walk_fast(raw, stack, limit)
    return raw


def _walk_fast(raw: Raw, stack: list, limit) -> None:
    """The walk of a plain graph (no traced inputs, no named non-leaf tensors): the loop runs
    once per node of graphs up to ~10^5 nodes, so it reads the engine's edge tuples directly
    and adds nodes inline."""
    kinds, objs, index, flat = raw.kind, raw.obj, raw.index, raw.flat
    kinds_append, objs_append, extend = kinds.append, objs.append, flat.extend
    index_get = index.get
    pop, push = stack.pop, stack.append
    acc_cls = AccumulateGrad
    limit = -1 if limit is None else limit
    while stack:
        fi = pop()
        fn = objs[fi]
        if fn.__class__ is acc_cls:
            t = fn.variable
            key = id(t)
            ti = index_get(key)
            if ti is None:
                ti = len(kinds)
                index[key] = ti
                kinds_append(TENSOR)
                objs_append(t)
            extend((ti, fi, 0, -1))
            continue
        fns = fn._fns
        if len(fns) == 1:  # most nodes of a long graph: no pending list
            nxt = fns[0]
            if nxt is None:
                continue
            key = id(nxt)
            ni = index_get(key)
            if ni is None:
                ni = len(kinds)
                if ni == limit:
                    raise GraphTooLarge(ni)
                index[key] = ni
                kinds_append(ACCUMULATE if nxt.__class__ is acc_cls else FUNCTION)
                objs_append(nxt)
                push(ni)
            nr = fn._nrs[0]
            extend((ni, fi, 0, nr if nr else -1))
            continue
        pending = None
        for k, nxt in enumerate(fns):
            if nxt is None:
                continue
            key = id(nxt)
            ni = index_get(key)
            if ni is None:
                ni = len(kinds)
                if ni == limit:
                    raise GraphTooLarge(ni)
                index[key] = ni
                kinds_append(ACCUMULATE if nxt.__class__ is acc_cls else FUNCTION)
                objs_append(nxt)
                if pending is None:
                    pending = [ni]
                else:
                    pending.append(ni)
            nr = fn._nrs[k]
            extend((ni, fi, k, nr if nr else -1))
        if pending is not None:
            if len(pending) == 1:
                push(pending[0])
            else:
                stack.extend(reversed(pending))
    if limit >= 0 and len(kinds) > limit:
        raise GraphTooLarge(len(kinds))


def _walk_general(raw: Raw, stack: list, named_edge: dict, inputs_of, limit) -> None:
    """The walk that also draws traced inputs needing no grad and named non-leaf tensors."""
    kinds, objs, add, index, flat = raw.kind, raw.obj, raw.add, raw.index, raw.flat
    extend = flat.extend
    acc_cls = AccumulateGrad
    while stack:
        if limit is not None and len(kinds) > limit:
            raise GraphTooLarge(len(kinds))
        fi = stack.pop()
        fn = objs[fi]
        if kinds[fi] == ACCUMULATE:
            ti, _ = add(TENSOR, fn.variable)
            extend((ti, fi, 0, -1))
            continue
        traced = inputs_of(fn) if inputs_of is not None else None
        pending = None
        for k, (nxt, nr) in enumerate(zip(fn._fns, fn._nrs)):
            if nxt is None:
                t = traced[k] if traced is not None and k < len(traced) else None
                if t is not None:
                    ti, _ = add(TENSOR, t)
                    extend((ti, fi, k, -1))
                continue
            if named_edge:
                t = named_edge.get((id(nxt), nr))
                if t is not None:
                    ti, new = add(TENSOR, t)
                    extend((ti, fi, k, -1))
                    if new:
                        ni, nnew = add(FUNCTION, nxt)
                        extend((ni, ti, -1, nr))
                        if nnew:
                            if pending is None:
                                pending = []
                            pending.append(ni)
                    continue
            key = id(nxt)
            ni = index.get(key)
            if ni is None:
                ni = len(kinds)
                index[key] = ni
                kinds.append(ACCUMULATE if nxt.__class__ is acc_cls else FUNCTION)
                objs.append(nxt)
                if pending is None:
                    pending = []
                pending.append(ni)
            extend((ni, fi, k, nr if nr else -1))
        if pending is not None:
            if len(pending) == 1:
                stack.append(pending[0])
            else:
                stack.extend(reversed(pending))
    if limit is not None and len(kinds) > limit:
        raise GraphTooLarge(len(kinds))
