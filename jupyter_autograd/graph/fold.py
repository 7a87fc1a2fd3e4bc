"""Repeated structure: loop bodies, RNN steps and identical siblings, found in linear time.

A graph built by a loop (``for _ in range(100): y = torch.tanh(y * w)``) is a run of
structurally identical *iterations* along its longest path (the spine); ``torch.stack(xs)`` or a
sum over a list has identical *siblings* under one node. :func:`find_repeats` finds both, so the
payload, SVG and text can fold each run into one ``×k`` block. Two iterations are identical when
their nodes have the same ops (or tensor shapes), wired the same way, to the same shared nodes
(a weight used by every step) and at the same offsets along the spine.

Everything is iterative and linear in the graph's size (period detection is vectorised), so a
100 000-node graph is analysed in a fraction of a second.
"""

from __future__ import annotations

import numpy as np

from .common import op_name

MIN_COUNT = 3  # fewer repetitions are left as they are
MAX_PERIOD = 16  # spine steps per iteration at most
_SHARED = -2


class Repeat:
    """A run of ``count`` identical iterations; ``nodes[j]`` lists the raw node indices of
    iteration ``j`` in a canonical order, so ``nodes[j][m]`` plays the part of ``nodes[0][m]``
    (identical iterations have the same size, so ``nodes`` is a (count, size) int array)."""

    __slots__ = ("_iterations", "kind", "nodes", "ops")

    def __init__(self, nodes, kind: str = "loop", ops: list | None = None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64).reshape(len(nodes), -1)
        self.kind = kind  # "loop" (along the spine) or "siblings" (inputs of one node)
        self.ops = ops or []  # op names of one iteration, for a caption
        self._iterations = None

    @property
    def iterations(self) -> list:
        """``nodes`` as lists of Python ints."""
        if self._iterations is None:
            self._iterations = self.nodes.tolist()
        return self._iterations

    @property
    def count(self) -> int:
        return len(self.nodes)


class _Adjacency:
    """Inputs of every raw node (data flow: the inputs feed ``v``) sorted by input index, and
    each node's consumers, as flat lists with offsets (built with NumPy from the edge array)."""

    def __init__(self, n: int, edges: np.ndarray) -> None:
        src, dst, inp, out = edges[:, 0], edges[:, 1], edges[:, 2], np.maximum(edges[:, 3], 0)
        order = np.lexsort((out, src, inp, dst))
        counts = np.bincount(dst, minlength=n)
        ptr = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=ptr[1:])
        self.n = n
        self.in_ptr = ptr
        self.in_src = src[order]
        self.in_inp = inp[order]
        self.in_out = out[order]
        self.in_dst = dst[order]
        self.indeg = counts
        self.outdeg_arr = np.bincount(src, minlength=n)
        self.outdeg = self.outdeg_arr.tolist()
        self.ptr = ptr.tolist()
        self.src = self.in_src.tolist()
        self._inp = self.in_inp.tolist()
        self._out = self.in_out.tolist()
        corder = np.argsort(src, kind="stable")
        cptr = np.zeros(n + 1, np.int64)
        np.cumsum(self.outdeg_arr, out=cptr[1:])
        self.cons = dst[corder].tolist()
        self.cptr = cptr.tolist()

    def ins(self, v: int) -> list:
        """(input, node, output) of each input of ``v``, sorted."""
        a, b = self.ptr[v], self.ptr[v + 1]
        return list(zip(self._inp[a:b], self.src[a:b], self._out[a:b]))


def _heights(n: int, adj: _Adjacency) -> list:
    """Longest path from any source (a node without inputs) to each node (Kahn's order)."""
    cons, cptr = adj.cons, adj.cptr
    pending = adj.indeg.tolist()
    height = [0] * n
    queue = np.flatnonzero(adj.indeg == 0).tolist()
    append = queue.append
    for u in queue:  # the list grows while iterated: a breadth-first Kahn order
        a, b = cptr[u], cptr[u + 1]
        if a == b:
            continue
        hu = height[u] + 1
        if b - a == 1:
            v = cons[a]
            if hu > height[v]:  # noqa: PLR1730 - cheaper than max() in this loop
                height[v] = hu
            p = pending[v] - 1
            pending[v] = p
            if not p:
                append(v)
            continue
        for v in cons[a:b]:
            if hu > height[v]:  # noqa: PLR1730
                height[v] = hu
            pending[v] -= 1
            if pending[v] == 0:
                append(v)
    return height


def _token(kind: str, obj) -> tuple:
    if kind == "tensor":
        data = obj._data
        return ("T", data.shape, data.dtype.char, bool(obj._requires_grad))
    if kind == "accumulate":
        return ("A",)
    return ("F", type(obj).__name__)


class _Signer:
    """Structural signatures of subgraphs, interned as small ints."""

    def __init__(self, kinds, objs, adj: _Adjacency) -> None:
        self.kinds, self.objs, self.adj = kinds, objs, adj
        self.tokens: dict = {}
        self.ids: dict = {}

    def token(self, v: int) -> tuple:
        kind, obj = self.kinds[v], self.objs[v]
        if kind == "function":  # one token per node class
            key = type(obj)
            t = self.tokens.get(key)
            if t is None:
                t = self.tokens[key] = ("F", key.__name__)
            return t
        return _token(kind, obj)

    def sign(self, starts, external) -> tuple[int, list]:
        """Signature of the subgraph reached from ``starts`` through nodes ``external`` does
        not name; ``external(u)`` gives a reference for a node outside it, or None for inside.
        Returns (interned id, the nodes inside in canonical order)."""
        local: dict = {}
        order: list = []
        parts: list = []
        ptr, src, inps, outs, token = self.adj.ptr, self.adj.src, self.adj._inp, self.adj._out, self.token
        for s in starts:
            if s in local:
                parts.append(("=", local[s]))
                continue
            local[s] = len(order)
            order.append(s)
            k = len(order) - 1
            while k < len(order):  # breadth-first over the inside, in canonical order
                v = order[k]
                refs = []
                for e in range(ptr[v], ptr[v + 1]):
                    u = src[e]
                    ref = external(u)
                    if ref is None:
                        j = local.get(u)
                        if j is None:
                            j = local[u] = len(order)
                            order.append(u)
                        ref = j
                    refs.append((inps[e], ref, outs[e]))
                parts.append((token(v), tuple(refs)))
                k += 1
        key = tuple(parts)
        sid = self.ids.get(key)
        if sid is None:
            sid = self.ids[key] = len(self.ids)
        return sid, order


def _best_inputs(adj: _Adjacency, height: list) -> list:
    """Each node's deepest input, preferring one this node alone uses (a weight every step
    shares is not the loop's carry, even when it is deeper than the first input); -1 for none.
    Ties go to the first input in input order."""
    n = adj.n
    if not len(adj.in_src):
        return [-1] * n
    h = np.asarray(height, np.int64)[adj.in_src]
    key = (adj.outdeg_arr[adj.in_src] <= 2).astype(np.int64) * (n + 1) + h
    pos = np.arange(len(key))
    order = np.lexsort((pos, -key, adj.in_dst))
    best = np.full(n, -1, np.int64)
    has = np.flatnonzero(adj.indeg > 0)
    # order is grouped by destination like in_src; the first of each group is the best
    best[has] = adj.in_src[order[adj.in_ptr[has]]]
    return best.tolist()


def _spine(root: int, best: list, on_spine: list) -> list:
    """The longest input path down from ``root``, stopping at nodes already on a spine."""
    path = []
    append = path.append
    v = root
    while v >= 0 and not on_spine[v]:
        on_spine[v] = True
        append(v)
        v = best[v]
    return path


def _owners(path: list, adj: _Adjacency, on_spine: list, n: int) -> list:
    """Which spine step each side node belongs to; _SHARED for nodes several steps reach."""
    owner = [-1] * n
    ptr, src = adj.ptr, adj.src
    # only steps with an input off the spine reach side nodes
    path_arr = np.asarray(path, np.int64)
    on = np.asarray(on_spine, bool)
    starts = np.asarray(adj.in_ptr)[path_arr]
    ends = np.asarray(adj.in_ptr)[path_arr + 1]
    steps = np.repeat(np.arange(len(path)), ends - starts)
    if not len(steps):
        return owner
    idx = _ranges(starts, ends)
    side = ~on[adj.in_src[idx]]
    shared: list = []
    for i, e in zip(steps[side].tolist(), idx[side].tolist()):
        stack = [src[e]]
        while stack:
            u = stack.pop()
            if on_spine[u]:
                continue
            o = owner[u]
            if o == -1:
                owner[u] = i
                stack.extend(src[ptr[u]:ptr[u + 1]])
            elif o != i and o != _SHARED:
                owner[u] = _SHARED
                shared.append(u)
    # whatever a shared node depends on is shared too
    while shared:
        u = shared.pop()
        for w in src[ptr[u]:ptr[u + 1]]:
            if not on_spine[w] and owner[w] != _SHARED:
                owner[w] = _SHARED
                shared.append(w)
    return owner


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, e)`` for each pair, vectorised."""
    lengths = ends - starts
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, np.int64)
    offs = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return np.arange(total) + offs


def _runs(ids: np.ndarray, max_period: int, min_count: int) -> list:
    """Non-overlapping (start, period, count) runs of a repeated block in ``ids``, greedy by
    how many positions they cover (shorter periods first on ties)."""
    n = len(ids)
    cands = []
    for p in range(1, min(max_period, n // min_count) + 1):
        eq = ids[:-p] == ids[p:]
        if not eq.any():
            continue
        padded = np.concatenate(([False], eq, [False]))
        d = np.flatnonzero(padded[1:] != padded[:-1])
        for a, b in zip(d[::2], d[1::2]):  # eq[a:b] all True
            count = (b - a) // p + 1
            if count >= min_count:
                cands.append((count * p, p, int(a), count))
    cands.sort(key=lambda c: (-c[0], c[1], c[2]))
    taken = np.zeros(n, bool)
    out = []
    for _, p, a, count in cands:
        end = a + count * p
        if taken[a:end].any():
            # keep the part of the run before the first taken position, if long enough
            free = np.flatnonzero(taken[a:end])
            count = int(free[0]) // p
            end = a + count * p
            if count < min_count:
                continue
        taken[a:end] = True
        out.append((a, p, count))
    out.sort()
    return out


def find_repeats(kinds, objs, edges, roots, *, min_count: int = MIN_COUNT,
                 max_period: int = MAX_PERIOD) -> list:
    """Runs of identical iterations in a raw graph (parallel ``kinds``/``objs``, data-flow
    ``edges`` as an (m, 4) int array of (source, target, input, output), -1 for no slot),
    loops first, then siblings.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph.walk import walk
        >>> w = torch.ones(2, requires_grad=True)
        >>> y = torch.ones(2)
        >>> for _ in range(5):
        ...     y = torch.tanh(y * w)
        >>> raw = walk([y], [], None, None)
        >>> runs = find_repeats(raw.kind, raw.obj, raw.array, raw.roots)
        >>> [(r.kind, r.count, r.ops) for r in runs]
        [('loop', 4, ['TanhBackward0', 'MulBackward0'])]

    The first ``y * w`` has one input that needs grad, so four of the five steps match; drawn
    from a traced cell, ``y``'s first value is an input too and all five match.
    """
    n = len(kinds)
    if n < 2 * min_count:
        return []
    adj = _Adjacency(n, np.asarray(edges, np.int64).reshape(-1, 4))
    height = _heights(n, adj)
    best = _best_inputs(adj, height)
    signer = _Signer(kinds, objs, adj)
    on_spine = [False] * n
    in_repeat = [False] * n
    repeats: list = []
    paths = []
    for r in roots:
        path = _spine(r, best, on_spine)
        if len(path) >= min_count:
            paths.append(path)
    outdeg, token, ids = adj.outdeg, signer.token, signer.ids
    ptr, src, inps, outs = adj.ptr, adj.src, adj._inp, adj._out
    for path in paths:
        pos = {v: i for i, v in enumerate(path)}
        owner = _owners(path, adj, on_spine, n)
        sigs = np.empty(len(path), np.int64)
        members = []
        for i, p in enumerate(path):

            def external(u, i=i, pos=pos, owner=owner):
                if on_spine[u]:
                    j = pos.get(u)
                    # a spine node many steps use (a weight the walk went down to) is named,
                    # one or two steps use (the loop's carry, a residual) by its offset
                    near = j is not None and outdeg[u] <= 2
                    return ("S", j - i) if near else ("X", u)
                return ("H", u) if owner[u] != i else None

            # fast path, most steps: every input is outside the step (spine or shared)
            refs = []
            for e in range(ptr[p], ptr[p + 1]):
                u = src[e]
                if on_spine[u]:
                    j = pos.get(u)
                    ref = ("S", j - i) if j is not None and outdeg[u] <= 2 else ("X", u)
                elif owner[u] == i:
                    break
                else:
                    ref = ("H", u)
                refs.append((inps[e], ref, outs[e]))
            else:
                key = ((token(p), tuple(refs)),)
                sid = ids.get(key)
                if sid is None:
                    sid = ids[key] = len(ids)
                sigs[i] = sid
                members.append((p,))
                continue
            sid, order = signer.sign([p], external)
            sigs[i] = sid
            members.append(order)
        for a, p, count in _runs(sigs, max_period, min_count):
            its = [[v for i in range(a + j * p, a + (j + 1) * p) for v in members[i]]
                   for j in range(count)]
            ops = [op_name(kinds[path[i]], objs[path[i]]) for i in range(a, a + p)]
            if any(in_repeat[v] for it in its for v in it):
                continue  # already in a run of another root's spine
            repeats.append(Repeat(its, "loop", ops))
            for it in its:
                for v in it:
                    in_repeat[v] = True
    repeats.extend(_sibling_repeats(n, adj, signer, in_repeat, min_count))
    return repeats


def _sibling_repeats(n, adj: _Adjacency, signer: _Signer, in_repeat, min_count) -> list:
    """Identical input subtrees of one node (``torch.stack(xs)``, ``torch.cat``): each input
    with the nodes only it feeds (out-degree 1), in input order."""
    out = []
    outdeg = adj.outdeg
    for v in np.flatnonzero(adj.indeg >= min_count).tolist():
        if in_repeat[v]:
            continue
        ins = adj.ins(v)

        def external(u):
            return ("H", u) if outdeg[u] != 1 or in_repeat[u] else None

        run: list = []
        run_sig = None
        for _, u, _ in ins + [(None, -1, 0)]:
            if u >= 0 and outdeg[u] == 1 and not in_repeat[u]:
                sid, order = signer.sign([u], external)
            else:
                sid, order = None, None
            if sid is not None and sid == run_sig:
                run.append(order)
                continue
            if len(run) >= min_count:
                first = run[0][0]
                op = op_name(signer.kinds[first], signer.objs[first])
                out.append(Repeat(run, "siblings", [op]))
                for it in run:
                    for w in it:
                        in_repeat[w] = True
            run, run_sig = ([order], sid) if sid is not None else ([], None)
    return out
