"""Structural signatures of subgraphs, for :mod:`.fold`: two subgraphs get equal ids exactly
when they have the same ops (or tensor shapes), wired the same way to the same outside nodes.

:class:`_Signer` signs one subgraph at a time (a breadth-first walk in Python);
:func:`_sign_all` signs many at once with NumPy, level by level, and gives the same equalities,
so a 100,000-step loop or a stack of 50,000 leaves is signed in a few NumPy passes.
"""

from __future__ import annotations

from itertools import pairwise
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .fold import _Adjacency


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
        ptr, src, inps, outs, token = (
            self.adj.ptr,
            self.adj.src,
            self.adj._inp,
            self.adj._out,
            self.token,
        )
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


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, e)`` for each pair, vectorised."""
    lengths = ends - starts
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, np.int64)
    offs = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return np.arange(total) + offs


class _Tokens:
    """Token ids of nodes as a NumPy array, interned on first use (equal ids: equal tokens;
    function nodes share a token per class name, tensors per shape, dtype and requires_grad)."""

    def __init__(self, kinds, objs) -> None:
        self.kinds, self.objs = kinds, objs
        self.arr = None
        self.ids: dict = {}

    def of(self, nodes: np.ndarray) -> np.ndarray:
        """The token ids of ``nodes`` (an int array); the first call interns every node's
        (nearly all are signed when one is)."""
        if self.arr is None:
            self.arr = self._intern()
        return self.arr[nodes]

    def _intern(self) -> np.ndarray:
        # one token per class, looked up once and checked against each node's kind; tensors
        # one by one, but through C-level map/zip (a stack of 10^5 leaves has 10^5 tensors)
        ids, objs, kinds = self.ids, self.objs, self.kinds
        n = len(objs)
        types = list(map(type, objs))
        code = dict.fromkeys(types)
        class_tok, class_kind = [], []
        for k, cls in enumerate(code):
            code[cls] = k
            kind = kinds[types.index(cls)]
            class_kind.append(_KIND_CODE[kind])
            token = ("F", cls.__name__) if kind == "function" else ("A",)
            class_tok.append(-1 if kind == "tensor" else ids.setdefault(token, len(ids)))
        codes = np.fromiter(map(code.__getitem__, types), np.int64, n)
        tok = np.asarray(class_tok, np.int64)[codes]
        node_kind = np.fromiter(map(_KIND_CODE.__getitem__, kinds), np.int64, n)
        if not np.array_equal(node_kind, np.asarray(class_kind, np.int64)[codes]):
            # a class seen with two kinds (an AccumulateGrad subclass drawn as a root)
            pairs = dict.fromkeys(zip(types, kinds))
            for cls, kind in pairs:
                token = ("F", cls.__name__) if kind == "function" else ("A",)
                pairs[cls, kind] = -1 if kind == "tensor" else ids.setdefault(token, len(ids))
            tok = np.fromiter(map(pairs.__getitem__, zip(types, kinds)), np.int64, n)
        tensors = np.flatnonzero(tok < 0).tolist()
        if tensors:
            ts = [objs[k] for k in tensors]
            datas = list(map(_get_data, ts))
            keys = list(
                zip(map(_get_shape, datas), map(_get_char, datas), map(bool, map(_get_rg, ts)))
            )
            uniq = dict.fromkeys(keys)
            for k in uniq:
                uniq[k] = ids.setdefault(("T", *k), len(ids))
            tok[tensors] = list(map(uniq.__getitem__, keys))
        return tok


_KIND_CODE = {"tensor": 0, "function": 1, "accumulate": 2}
_get_data, _get_shape = attrgetter("_data"), attrgetter("shape")
_get_char, _get_rg = attrgetter("dtype.char"), attrgetter("_requires_grad")

_MAX_LEVELS = 32  # deeper step subgraphs are signed one by one (each level costs NumPy calls)
_L, _S, _X, _H = 0, 1, 2, 3  # reference kinds: inside (local index), spine offset, named, outside


def _sign_all(starts, adj: _Adjacency, tokens: _Tokens, classify, local):
    """Signatures of many subgraphs at once, equal exactly when :meth:`_Signer.sign` gives
    equal keys: subgraph ``k`` is what ``starts[k]`` reaches through nodes ``classify`` calls
    inside, visited breadth-first as ``sign`` does (level by level, every subgraph at once).

    ``classify(u, k)`` gives, for input nodes ``u`` of subgraph ``k``, (kind, value, inside)
    arrays; ``local`` is an all -1 int array over the raw nodes (left all -1 again).
    Returns (ids, nodes in canonical order grouped by subgraph, where each subgraph's nodes
    start), or None when some subgraph is deeper than ``_MAX_LEVELS``.
    """
    m = len(starts)
    in_ptr, in_src = adj.in_ptr, adj.in_src
    count = np.ones(m, np.int64)
    front, steps = starts, np.arange(m)
    local[starts] = 0
    seen_nodes, seen_steps, seen_edges, seen_kinds, seen_vals = [starts], [steps], [], [], []
    try:
        for _ in range(_MAX_LEVELS + 1):
            a, b = in_ptr[front], in_ptr[front + 1]
            e = _ranges(a, b)
            if not len(e):
                break
            es = np.repeat(steps, b - a)
            u = in_src[e]
            kind, val, inside = classify(u, es)
            new = inside & (local[u] < 0)
            if new.any():
                nu, ns = u[new], es[new]
                _, first = np.unique(nu, return_index=True)
                first.sort()
                nu, ns = nu[first], ns[first]  # discovery order: grouped by subgraph
                rank = np.arange(len(ns)) - np.searchsorted(ns, ns, "left")
                local[nu] = count[ns] + rank
                count += np.bincount(ns, minlength=m)
                front, steps = nu, ns
                seen_nodes.append(nu)
                seen_steps.append(ns)
            else:
                front = None
            val = np.where(inside, local[u], val)
            kind = np.where(inside, _L, kind)
            seen_edges.append(e)
            seen_kinds.append(kind)
            seen_vals.append(val)
            if front is None:
                break
        else:
            return None
        nodes = np.concatenate(seen_nodes)
        sub = np.concatenate(seen_steps)
        order = np.lexsort((local[nodes], sub))
    finally:
        for f in seen_nodes:
            local[f] = -1
    nodes, sub = nodes[order], sub[order]
    deg = adj.indeg[nodes]
    rowlen = 2 + 4 * deg
    rowstart = np.zeros(len(nodes) + 1, np.int64)
    np.cumsum(rowlen, out=rowstart[1:])
    flat = np.empty(int(rowstart[-1]), np.int64)
    flat[rowstart[:-1]] = tokens.of(nodes)
    flat[rowstart[:-1] + 1] = deg
    if seen_edges:
        e = np.concatenate(seen_edges)
        # each edge's slot: its node's row, then four ints per input in input order
        rank = local  # borrowed as node -> row, reset below
        rank[nodes] = np.arange(len(nodes))
        dst = adj.in_dst[e]
        base = rowstart[rank[dst]] + 2 + 4 * (e - in_ptr[dst])
        rank[nodes] = -1
        flat[base] = adj.in_inp[e]
        flat[base + 1] = np.concatenate(seen_kinds)
        flat[base + 2] = np.concatenate(seen_vals)
        flat[base + 3] = adj.in_out[e]
    node_start = np.zeros(m + 1, np.int64)
    np.cumsum(np.bincount(sub, minlength=m), out=node_start[1:])
    return _intern_rows(flat, rowstart[node_start]), nodes, node_start


def _intern_rows(flat: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Small ints, equal exactly where the int rows ``flat[bounds[k]:bounds[k + 1]]`` are
    (rows are hashed, then each checked equal to the first row of its hash)."""
    m = len(bounds) - 1
    lengths = np.diff(bounds)
    pos = np.arange(len(flat)) - np.repeat(bounds[:-1], lengths)
    with np.errstate(over="ignore"):
        # splitmix64 of (value, position), summed over the row
        z = flat.view(np.uint64) ^ (pos.astype(np.uint64) * np.uint64(0xD1B54A32D192ED03))
        z += np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
        h = np.add.reduceat(z, bounds[:-1]) + lengths.astype(np.uint64)
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    rep = first[inv]
    if np.array_equal(lengths, lengths[rep]) and np.array_equal(
        flat, flat[pos + np.repeat(bounds[:-1][rep], lengths)]
    ):
        return inv
    # a hash collision: intern the rows' bytes
    data = flat.tobytes()
    b = (bounds * 8).tolist()
    rows = [data[x:y] for x, y in pairwise(b)]
    ids = dict.fromkeys(rows)
    for k, key in enumerate(ids):
        ids[key] = k
    return np.fromiter(map(ids.__getitem__, rows), np.int64, m)
