"""Public products and combinators: addmv, addr, addbmm, baddbmm, vdot, inner, tensordot,
kron, cross, chain_matmul/multi_dot, block_diag, cartesian_prod, combinations, meshgrid."""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from .._size import _wrap_dim
from ..tensor import Tensor
from . import api as A
from . import products as PR
from .api_layout import _expanded_shape
from .api_math import promote
from .dispatch import apply
from .out import warn_once

__all__ = [
    "addbmm",
    "addmv",
    "addr",
    "baddbmm",
    "block_diag",
    "cartesian_prod",
    "chain_matmul",
    "combinations",
    "cross",
    "inner",
    "kron",
    "meshgrid",
    "tensordot",
    "vdot",
]


def _add(op, name, input, a, b, beta, alpha, checks):
    s, a, b = promote(input, a, b)
    checks(s, a, b)
    p = None if alpha == 1 and beta == 1 else {"alpha": alpha, "beta": beta}
    return apply(op, (s, a, b), p)


def _size(t, dim: int) -> int:
    """``t.size(dim)`` with torch's errors: the batched products read their operands' sizes
    before they check their ranks, so a wrong rank fails here first, as in torch."""
    if t.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return t.shape[_wrap_dim(dim, t.ndim)]


def _check_addmv(s, m, v):
    if m.ndim != 2 or v.ndim != 1 or s.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {s.ndim}, {m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0] or not (s.ndim == 0 or s.numel() == 1 or s.shape[0] == m.shape[0]):
        raise RuntimeError(
            f"size mismatch, got input ({s.shape[0] if s.ndim else 1}), mat ({m.shape[0]}x{m.shape[1]}), "
            f"vec ({v.shape[0]})"
        )


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * mat @ vec`` (AddmvBackward0)."""
    return _add(PR.ADDMV, "addmv", input, mat, vec, beta, alpha, _check_addmv)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)`` (AddrBackward0)."""

    def check(s, a, b):
        if a.ndim != 1 or b.ndim != 1:
            raise RuntimeError(
                f"addr: Expected 1-D argument vec1, but got {a.ndim}-D"
                if a.ndim != 1
                else f"addr: Expected 1-D argument vec2, but got {b.ndim}-D"
            )
        _expanded_shape(s, (a.shape[0], b.shape[0]))

    return _add(PR.ADDR, "addr", input, vec1, vec2, beta, alpha, check)


def _check_batched(s, a, b, sizes):
    _expanded_shape(s, sizes)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(
            "batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor"
        )


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * batch1 @ batch2`` batched (BaddbmmBackward0)."""

    def check(s, a, b):
        _check_batched(s, a, b, (_size(a, 0), _size(a, 1), _size(b, 2)))

    return _add(PR.BADDBMM, "baddbmm", input, batch1, batch2, beta, alpha, check)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (AddbmmBackward0)."""

    def check(s, a, b):
        _check_batched(s, a, b, (_size(a, 1), _size(b, 2)))

    return _add(PR.ADDBMM, "addbmm", input, batch1, batch2, beta, alpha, check)


def vdot(input, other, *, out=None) -> Tensor:
    """``sum(conj(input) * other)`` of two 1-D tensors (VdotBackward0)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"vdot : expected both vectors to have same dtype, but found {A.scalar_type(input)} "
            f"and {A.scalar_type(other)}"
        )
    return apply(PR.VDOT, (input, other))


def cross(input, other, dim=None, *, out=None) -> Tensor:
    """The cross product along ``dim`` (the first dim of size 3 when omitted)."""
    a, b = promote(input, other)
    if dim is None:
        warn_once(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
            "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
            "change to agree with that of linalg.cross in a future release."
        )
        # torch looks for the first size-3 dim of the input alone, before broadcasting
        dim = next((i for i, n in enumerate(a.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(a, b, dim=dim)


def linalg_cross(input, other, *, dim=-1) -> Tensor:
    """``torch.linalg.cross``: the cross product of 3-vectors along ``dim`` (broadcasting)."""
    a, b = promote(input, other)
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    nd = builtins.max(a.ndim, 1)
    d = _wrap_dim(dim, nd)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and {b.shape[d]}"
        )
    return apply(PR.CROSS, (a, b), {"dim": d - nd})


def inner(input, other, *, out=None) -> Tensor:
    """Sum of products over the last dims (``tensordot`` on them); a 0-d operand multiplies."""
    if input.ndim == 0 or other.ndim == 0:
        return A.mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


def tensordot(a, b, dims=2, out=None) -> Tensor:
    """Contract ``dims`` (a count of trailing/leading dims, or two lists) as one matrix product."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = (
            [dims[0]] if isinstance(dims[0], int) else list(dims[0]),
            [dims[1]] if isinstance(dims[1], int) else list(dims[1]),
        )
    da = [_wrap_dim(d, a.ndim) for d in da]
    db = [_wrap_dim(d, b.ndim) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] == b.shape[y]:
            continue
        if a.shape[x] == 1:  # torch sums the other side over a broadcast contracted dim
            b = A.sum(b, y, keepdim=True)
        elif b.shape[y] == 1:
            a = A.sum(a, x, keepdim=True)
        else:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                f"and second has size {b.shape[y]} in dim {y}"
            )
    fa = [d for d in range(a.ndim) if d not in da]
    fb = [d for d in range(b.ndim) if d not in db]
    k = int(np.prod([a.shape[d] for d in da])) if da else 1
    ma = A.reshape(A.permute(a, fa + da), (-1, k))
    mb = A.reshape(A.permute(b, db + fb), (k, -1))
    return A.reshape(A.mm(ma, mb), tuple(a.shape[d] for d in fa) + tuple(b.shape[d] for d in fb))


def kron(input, other, *, out=None) -> Tensor:
    """The Kronecker product: blocks ``input[i] * other`` (composed as torch: views and a mul)."""
    nd = builtins.max(input.ndim, other.ndim)
    a = A.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = A.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    ai = A.reshape(a, tuple(x for s in a.shape for x in (s, 1)))
    bi = A.reshape(b, tuple(x for s in b.shape for x in (1, s)))
    return A.reshape(A.mul(ai, bi), tuple(x * y for x, y in zip(a.shape, b.shape)))


def chain_matmul(*matrices, out=None) -> Tensor:
    """The product of two or more matrices (deprecated in torch for ``linalg.multi_dot``)."""
    warn_once(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
        "multiple parameters."
    )
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return A.clone(matrices[0])
    return multi_dot(list(matrices))


def _check_multi_dot(ts) -> None:
    n = len(ts)
    for i, t in enumerate(ts):
        if i == 0 and t.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {t.ndim}D")
        if i == n - 1 and t.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {t.ndim}D")
        if 0 < i < n - 1 and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i in range(n - 1):
        a, b = ts[i], ts[i + 1]
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
                f"{list(b.shape)} cannot be multiplied"
            )


def multi_dot(tensors, *, out=None) -> Tensor:
    """``torch.linalg.multi_dot``: the product of a chain of matrices (1-D ends as vectors)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    _check_multi_dot(ts)
    first_vec, last_vec = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vec:
        ts[0] = A.unsqueeze(ts[0], 0)
    if last_vec:
        ts[-1] = A.unsqueeze(ts[-1], 1)
    r = ts[0]
    for t in ts[1:]:
        r = A.mm(r, t)
    if first_vec and last_vec:
        return A.reshape(r, ())
    if first_vec:
        return A.squeeze(r, 0)
    return A.squeeze(r, 1) if last_vec else r


def block_diag(*tensors) -> Tensor:
    """A block diagonal matrix of the inputs (0-d and 1-D ones as 1-row blocks)."""
    ts = promote(*tensors) if tensors else []
    if not ts:
        return Tensor._wrap(np.zeros((1, 0), np.float32))
    shapes = [tuple(t.shape) for t in ts]
    rows = [1 if len(s) < 2 else s[0] for s in shapes]
    cols = [1 if len(s) == 0 else s[-1] for s in shapes]
    for t in ts:
        if t.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has {t.ndim} dimensions"
            )
    return apply(
        PR.BLOCK_DIAG,
        tuple(ts),
        {"rows": rows, "cols": cols, "shapes": shapes, "dtype": ts[0]._data.dtype},
    )


def meshgrid(*tensors, indexing=None):
    """Coordinate grids (expanded views) from 1-D tensors; ``indexing`` 'ij' (default) or 'xy'."""
    ts = (
        list(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple))
        else list(tensors)
    )
    indexing = indexing or "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    ts = [A.reshape(t, (-1,)) if t.ndim == 0 else t for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    n = len(ts)
    out = [
        A.expand(A.reshape(t, (1,) * i + (-1,) + (1,) * (n - i - 1)), shape)
        for i, t in enumerate(ts)
    ]
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element per input, as rows."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return A.stack([A.reshape(g, (-1,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._wrap(np.zeros(0, input._data.dtype))
    n = input.shape[0]
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(make(range(n), r)), dtype=np.int64).reshape(-1, r)
    if idx.shape[0] == 0:
        return (
            A.reshape(input[:0], (0, r)) if n else Tensor._wrap(np.zeros((0, r), input._data.dtype))
        )
    cols = [A.index_select(input, 0, Tensor._wrap(idx[:, k].copy())) for k in range(r)]
    return A.stack(cols, 1)
