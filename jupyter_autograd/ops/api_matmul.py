"""Matrix products (``mm``, ``bmm``, ``matmul``, ``addmm``...) with torch's dtype and shape
checks and its folding of batched ``matmul`` into ``mm``."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from . import linalg as LA
from . import shape as SH
from ._api_base import _dot_out_rule, _mv_out_rule, check_tensor_args
from .api_arith import mul
from .api_layout import _expanded_shape, expand, reshape, squeeze, t, transpose, unsqueeze
from .dispatch import apply, apply1, apply2
from .out import out_call


# ---------------------------------------------------------------- linear algebra
def _mm_args(a, b, kind="mm", product=None):
    """torch's argument checks of a product; ``product`` (mm, mv, bmm, matmul) where torch
    checks the shapes before the dtypes."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(
            f"expected Tensor as element, got {type(b if isinstance(a, Tensor) else a).__name__}"
        )
    if a._data.dtype != b._data.dtype:
        if product is not None:  # (only on the way to an error) the shapes' error comes first
            product(a.detach().to(_dtype.float64), b.detach().to(_dtype.float64))
        raise RuntimeError(_MM_DTYPE_ERRORS[kind](a, b))


def scalar_type(t) -> str:
    """torch's ScalarType name of a tensor's dtype: Float, Double, Long..."""
    return _dtype.from_numpy_dtype(t._data.dtype)._legacy[: -len("Tensor")]


# each product names a dtype mismatch its own way in torch 2.13
_MM_DTYPE_ERRORS = {
    "mm": lambda a, b: (
        f"expected m1 and m2 to have the same dtype, but got: {_dname(a)} != {_dname(b)}"
    ),
    "dot": lambda a, b: (
        f"dot : expected both vectors to have same dtype, but found {scalar_type(a)} and {scalar_type(b)}"
    ),
    "mv": lambda a, b: (
        f"addmv input tensors must have the same dtype, but got {scalar_type(b)}, {scalar_type(a)}, "
        f"and {scalar_type(b)}"
    ),
    "bmm": lambda a, b: f"expected scalar type {scalar_type(a)} but found {scalar_type(b)}",
    "addmm": lambda a, b: (
        f"mat1 and mat2 must have the same dtype, but got {scalar_type(a)} and {scalar_type(b)}"
    ),
    "addmm_self": lambda a, b: (
        f"self and mat2 must have the same dtype, but got {scalar_type(a)} and {scalar_type(b)}"
    ),
}


_C_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _dname(t):
    return _C_NAMES.get(t.dtype.name, t.dtype.name)


def mm(input, mat2, *, out=None) -> Tensor:
    """Matrix product of two 2-D tensors (MmBackward0)."""
    if out is not None:
        return out_call("mm", mm, (input, mat2), {}, out, dtype_rule="expected")
    _mm_args(input, mat2, "mm", mm)
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"{'self' if input._data.ndim != 2 else 'mat2'} must be a matrix")
    return apply2(LA.MM, input, mat2)


def mv(input, vec, *, out=None) -> Tensor:
    if out is not None:
        return out_call("mv", mv, (input, vec), {}, out, dtype_rule=_mv_out_rule)
    _mm_args(input, vec, "mv", mv)
    if input._data.ndim == 0:  # torch sizes the result by input.size(0) first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input._data.ndim != 2 or vec._data.ndim != 1:
        # torch's message counts the result's rank first (mv is addmv into a fresh vector)
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}"
        )
    return apply2(LA.MV, input, vec)


def dot(input, tensor, *, out=None) -> Tensor:
    if out is not None:
        return out_call(
            "dot", dot, (input, tensor), {}, out, dtype_rule=_dot_out_rule, resize_first=True
        )
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors"
        )
    _mm_args(input, tensor, "dot")
    return apply2(LA.DOT, input, tensor)


def bmm(input, mat2, *, out=None) -> Tensor:
    if out is not None:
        return out_call("bmm", bmm, (input, mat2), {}, out, dtype_rule="expected")
    if (
        isinstance(input, Tensor)
        and isinstance(mat2, Tensor)
        and input._data.dtype != mat2._data.dtype
        and input._data.ndim == 3
        and mat2._data.ndim == 3
    ):
        (b1, n, k1), (b2, k2, m) = input._data.shape, mat2._data.shape
        if b1 == b2 and k1 == k2 and not (b1 * n * m and k1):
            # torch's bmm returns before its dtype check when there is nothing to multiply: an
            # empty result, or zeros, of batch2's dtype
            return apply(LA.BMM, (input.to(mat2.dtype), mat2), None, (input, mat2))
    _mm_args(input, mat2, "bmm", bmm)
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return apply2(LA.BMM, input, mat2)


def outer(input, vec2) -> Tensor:
    """``input[:, None] * vec2`` of two 1-D tensors (torch's outer: a broadcast mul)."""
    for arg, v in (("self", input), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {arg}, but got {v._data.ndim}-D")
    return mul(reshape(input, (-1, 1)), vec2)


def ger(input, vec2) -> Tensor:
    return outer(input, vec2)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (AddmmBackward0), ``input`` broadcast to the
    product's shape.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.addmm(torch.ones(2), torch.eye(2), torch.ones(2, 2))
        tensor([[2., 2.],
                [2., 2.]])
    """
    if out is not None:
        return out_call(
            "addmm",
            addmm,
            (input, mat1, mat2),
            {"beta": beta, "alpha": alpha},
            out,
            dtype_rule="expected",
        )
    _mm_args(mat1, mat2, "addmm")
    _mm_args(input, mat2, "addmm_self")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m._data.ndim}-D tensor")
    _expanded_shape(input, (mat1._data.shape[0], mat2._data.shape[1]))
    k, dt = mat1._data.shape[1], input._data.dtype
    if (
        not k
        and dt.kind in "biu"
        and beta is not False
        and beta != 0
        and mat1._data.shape[0]
        and mat2._data.shape[1]
    ):
        # nothing to multiply: torch scales self in place by beta, a number of its own type
        rt = (
            _dtype.get_default_dtype().np
            if isinstance(beta, float)
            else np.dtype(np.int64)
            if dt.kind == "b" and type(beta) is int
            else None
        )
        if rt is not None:
            from .registry import _CPP_NAMES

            raise RuntimeError(
                f"result type {_CPP_NAMES[rt.name]} can't be cast to the desired "
                f"output type {_CPP_NAMES[dt.name]}"
            )
    p = None if alpha == 1 and beta == 1 else {"alpha": alpha, "beta": beta}
    return apply(LA.ADDMM, (input, mat1, mat2), p)


def _matmul_kind(a, b) -> str:
    """Which product torch's matmul reaches for these ranks (it names dtype errors after it)."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        return "mm"
    da, db = a._data.ndim, b._data.ndim
    if da == 1 and db == 1:
        return "dot"
    if db == 1:
        return "mv"
    return "bmm" if db >= 3 else "mm"


def matmul(input, other, *, out=None) -> Tensor:
    """Matrix product with torch's dispatch: dot (1-D·1-D), mv (2-D·1-D), unsqueeze→mm→squeeze
    (1-D·2-D), mm (2-D·2-D), and folded mm / bmm with broadcasting above that.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(5)
        >>> w = torch.ones(5, 3, requires_grad=True)
        >>> torch.matmul(x, w).grad_fn
        <SqueezeBackward4 object at 0x...>
    """
    # torch.matmul and Tensor.matmul are checked where they are bound (_aliases), but ``x @ y``
    # and torch.linalg.matmul reach this function directly
    check_tensor_args("matmul", ("input", "other"), (input, other))
    if out is not None:
        return out_call("matmul", matmul, (input, other), {}, out, dtype_rule="expected")
    if getattr(input, "_bt", False) or getattr(other, "_bt", False):  # inside vmap
        return (input if getattr(input, "_bt", False) else other)._vmap_fn("matmul", input, other)
    da, db = input._data.ndim, other._data.ndim
    if da == 2 and db == 2 and input._data.dtype == other._data.dtype:
        return apply2(LA.MM, input, other)  # the common case first: one MmBackward0 node
    # otherwise each product reached (dot, mv, mm on folded or transposed operands, bmm)
    # checks its own operands, as torch's, and names a dtype mismatch its own way
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        if input._data.shape[0] != other._data.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{input._data.shape[0]} and "
                f"{other._data.shape[0]}x{other._data.shape[1]})"
            )
        r = mm(unsqueeze(input, 0), other)
        return apply1(
            SH.SQUEEZE_INPLACE_DIM,
            r,
            {"dim": 0, "out_shape": r._data.shape[1:], "self_sym_sizes": r._data.shape},
        )
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 3 and db == 3 and (input._data.shape[0] == 1) != (other._data.shape[0] == 1):
        # a 3-D operand with a batch of one, against a real batch: when it requires grad torch
        # squeezes it, so that its gradient is one folded mm rather than a batch summed
        if input._data.shape[0] == 1 and input._requires_grad:
            return matmul(squeeze(input, 0), other)
        if other._data.shape[0] == 1 and other._requires_grad:
            return matmul(input, squeeze(other, 0))
    if _should_fold(input, other):
        return _matmul_folded(input, other, da, db)
    return _matmul_batched(input, other, da, db)


def _should_fold(t1, t2) -> bool:
    """torch's should_fold: a >=3-D operand times a 1-D/2-D one runs as one mm/mv over the
    larger operand's batch folded into rows, when the smaller one requires grad (its gradient is
    then one mm, not a batch summed) or when the fold needs no copy (strides)."""
    larger_first = t1._data.ndim >= t2._data.ndim
    big = t1._data if larger_first else np.swapaxes(t2._data, -1, -2)
    small = t2 if larger_first else t1
    if not (big.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if t1._data.ndim == 2:
        return False
    if big.size == 0:
        return True
    st, sh = big.strides, big.shape
    for i in range(big.ndim - 2):  # (this module's all() is torch.all)
        if st[i] != st[i + 1] * sh[i + 1]:
            return False
    return True


def _matmul_folded(input, other, da, db) -> Tensor:
    """(..., n, k) @ (k, m) as one mm on the folded rows (a 2-D @ >=3-D product through the
    transposes), viewed back: torch's nodes (UnsafeView over Mm/Mv over the reshape)."""
    swap = db > da
    t1 = transpose(other, -2, -1) if swap else input
    t2 = (t(input) if da == 2 else input) if swap else other
    sizes1 = t1._data.shape
    out_shape = sizes1[:-1]
    folded = reshape(t1, (int(np.prod(out_shape)), sizes1[-1]))
    if t2._data.ndim == 2:
        r = mm(folded, t2)
        out = apply1(
            SH.UNSAFE_VIEW,
            r,
            {"size": out_shape + (t2._data.shape[1],), "self_sym_sizes": r._data.shape},
        )
        return transpose(out, -2, -1).contiguous() if swap else out
    r = mv(folded, t2)
    return apply1(SH.UNSAFE_VIEW, r, {"size": out_shape, "self_sym_sizes": r._data.shape})


def _matmul_batched(input, other, da, db) -> Tensor:
    """Both operands expanded to the broadcast batch, folded to 3-D and multiplied with bmm,
    viewed back, as torch's matmul (Expand, View/UnsafeView, Bmm, UnsafeView nodes)."""
    sa, sb = input._data.shape, other._data.shape
    n = sa[-2] if da > 1 else 1
    m1 = sa[-1]
    m2 = sb[-2] if db > 1 else sb[0]
    p = sb[-1] if db > 1 else 1
    batch = tuple(_broadcast_sizes(sa[: da - 2] if da > 2 else (), sb[: db - 2] if db > 2 else ()))
    nb = int(np.prod(batch))
    a = reshape(expand(input, *(batch + (n, m1))), (nb, n, m1))
    vector_rhs = db == 1
    if vector_rhs:
        b = unsqueeze(reshape(expand(other, *(batch + (m2,))), (nb, m2)), 2)
    else:
        b = reshape(expand(other, *(batch + (m2, p))), (nb, m2, p))
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    r = bmm(a, b)
    if vector_rhs:
        r = squeeze(r, -1)
    return apply1(SH.UNSAFE_VIEW, r, {"size": out_shape, "self_sym_sizes": r._data.shape})


def _broadcast_sizes(s1, s2):
    """torch's infer_size over two batch shapes, with its message."""
    n = len(s1) if len(s1) > len(s2) else len(s2)  # noqa: FURB136 (max is torch.max here)
    out = []
    for i in range(n):
        a = s1[len(s1) - n + i] if len(s1) - n + i >= 0 else 1
        b = s2[len(s2) - n + i] if len(s2) - n + i >= 0 else 1
        if a != b and a != 1 and b != 1:
            raise RuntimeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                f"non-singleton dimension {i}"
            )
        out.append(b if a == 1 else a)
    return out
