"""Reductions (``sum``, ``mean``, ``max``, ``var``, ``norm``, ``softmax``...) in torch's
signatures, each one registry row or a composition of rows."""

from __future__ import annotations

import builtins
from collections import namedtuple

import numpy as np

from .. import _dtype
from .._size import _wrap_dim
from ..tensor import Tensor
from . import reduction as RD
from . import reduction_basic as RB
from . import shape as SH
from ._api_base import _dims, _float, _out_dtype, _xp
from .api_arith import maximum, minimum
from .api_matmul import scalar_type
from .dispatch import apply1
from .out import out_call


# ---------------------------------------------------------------- reductions
def _check_float_reduce(input, name):
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype._legacy[:-6]}"
        )


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.ones(2, 3).sum(0)
        tensor([2., 2., 2.])
    """
    if out is not None:
        return out_call(
            "sum",
            sum,
            (input, dim, keepdim),
            {"dtype": dtype or _out_dtype(out)},
            out,
            dtype_rule="any",
        )
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "ib" or input._data.dtype.kind == "u":
        input = input.to(_dtype.int64) if input._data.dtype != np.int64 else input
    if dim is None:
        return apply1(RB.SUM, input, {"shape": input._data.shape})
    dims = _dims(dim, input._data.ndim)
    return apply1(RB.SUM_DIM, input, {"dim": dims, "keepdim": keepdim, "shape": input._data.shape})


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    """Mean of all elements (MeanBackward0) or over ``dim`` (MeanBackward1)."""
    if out is not None:
        return out_call("mean", mean, (input, dim, keepdim), {"dtype": dtype}, out)
    if dtype is not None:
        input = input.to(dtype)
    _check_float_reduce(input, "mean")
    if dim is None:
        return apply1(RB.MEAN, input, {"shape": input._data.shape, "numel": input._data.size})
    return apply1(
        RB.MEAN_DIM,
        input,
        {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim, "shape": input._data.shape},
    )


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    if out is not None:
        return out_call(
            "prod",
            prod,
            (input, dim, keepdim),
            {"dtype": dtype or _out_dtype(out)},
            out,
            dtype_rule="any",
        )
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "biu":  # torch's integral products are int64
        input = input.to(_dtype.int64)
    if dim is None:
        return apply1(RB.PROD, input, {"shape": input._data.shape})
    return apply1(
        RB.PROD_DIM,
        input,
        {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim, "shape": input._data.shape},
    )


def _return_type(name):
    """torch.return_types.<name>: a (values, indices) named tuple printed as torch prints it."""
    base = namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
    cls.__module__ = "torch.return_types"
    return cls


class _ReturnTypes:
    max = _return_type("max")
    min = _return_type("min")


def _minmax_dim(input, dim, keepdim, op, argf, kind):
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:  # the row on its one element (MaxBackward0, as torch)
        if input._data.dtype.kind == "c":
            raise op.cx.error({}, input._data)
        idx = _xp(input).zeros((), np.int64)
        vals = apply1(
            op, input, {"dim": 0, "keepdim": keepdim, "indices": idx, "out_shape": (), "shape": ()}
        )
        return getattr(_ReturnTypes, kind)(vals, Tensor._wrap(idx.copy()))
    if input._data.shape[d] == 0:
        raise IndexError(f"{kind}(): Expected reduction dim {d} to have non-zero size.")
    idx = argf(input._data, axis=d, keepdims=True)
    out_shape = (
        tuple(s for i, s in enumerate(input._data.shape) if i != d) if not keepdim else idx.shape
    )
    idx_k = idx if keepdim else idx.reshape(out_shape)
    vals = apply1(
        op,
        input,
        {
            "dim": d,
            "keepdim": keepdim,
            "indices": idx_k,
            "out_shape": out_shape,
            "shape": input._data.shape,
        },
    )
    return getattr(_ReturnTypes, kind)(vals, Tensor._wrap(idx_k.astype(np.int64)))


def max(input, dim=None, keepdim=False, *, other=None):
    """Max of all elements (MaxBackward1); with ``dim`` a (values, indices) pair (MaxBackward0);
    with a tensor ``dim`` the elementwise maximum."""
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        return apply1(RB.MAX, input)
    return _minmax_dim(input, dim, keepdim, RB.MAX_DIM, np.argmax, "max")


def min(input, dim=None, keepdim=False):
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    if dim is None:
        return apply1(RB.MIN, input)
    return _minmax_dim(input, dim, keepdim, RB.MIN_DIM, np.argmin, "min")


def _extremum_dims(input, dim, name):
    """amax/amin's reduced dims, with torch's errors where an empty one has no identity."""
    d = input._data
    if dim in ((), []):
        if d.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                "the reduction dim with the 'dim' argument."
            )
        return tuple(range(d.ndim))
    dims = _dims(dim, d.ndim)
    if d.size == 0:
        for given in dim if isinstance(dim, (list, tuple)) else (dim,):
            if d.shape[_wrap_dim(given, d.ndim)] == 0 and d.ndim:
                raise IndexError(f"{name}(): Expected reduction dim {given} to have non-zero size.")
    return dims


def amax(input, dim=(), keepdim=False) -> Tensor:
    return apply1(RB.AMAX, input, {"dim": _extremum_dims(input, dim, "amax"), "keepdim": keepdim})


def amin(input, dim=(), keepdim=False) -> Tensor:
    return apply1(RB.AMIN, input, {"dim": _extremum_dims(input, dim, "amin"), "keepdim": keepdim})


def _arg_extremum(input, dim, keepdim, f, name) -> Tensor:
    d = input._data
    if d.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")
    if d.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if d.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        return Tensor._wrap(_xp(input).asarray(f(d), dtype=np.int64))
    ax = _wrap_dim(dim, d.ndim)
    if d.size == 0 and d.ndim and d.shape[ax] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {ax} to have non-zero size.")
    if d.ndim == 0:
        return Tensor._wrap(_xp(input).zeros((), np.int64))
    return Tensor._wrap(f(d, axis=ax, keepdims=keepdim).astype(np.int64))


def argmax(input, dim=None, keepdim=False) -> Tensor:
    """Index of the largest element (of all, or along ``dim``); no gradient."""
    return _arg_extremum(input, dim, keepdim, np.argmax, "argmax")


def argmin(input, dim=None, keepdim=False) -> Tensor:
    """Index of the smallest element (of all, or along ``dim``); no gradient."""
    return _arg_extremum(input, dim, keepdim, np.argmin, "argmin")


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def _var_params(input, dim, unbiased, keepdim, correction, name) -> dict:
    """var/std's row parameters; torch's warning where the degrees of freedom are <= 0."""
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    # a 0-d input reduces its one element whatever dim says (torch's var_backward takes the
    # no-dim formula for it too)
    dims = _dims(dim, input._data.ndim) if input._data.ndim else None
    c = _correction(unbiased, correction)
    shape = input._data.shape
    # torch's reduction factor: input numel / output numel (0 for an empty input)
    out_numel = (
        RB._count(shape, tuple(i for i in range(len(shape)) if i not in dims))
        if dims is not None
        else 1
    )
    if input._data.size // builtins.max(out_numel, 1) - c <= 0:
        import warnings

        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return {"dim": dims, "correction": c, "keepdim": keepdim}


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor:
    """Variance with Bessel's correction by default (VarBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([1., 2., 3.]).var()
        tensor(1.)
    """
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return apply1(RD.VAR, input, _var_params(input, dim, unbiased, keepdim, correction, "var"))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor:
    """Standard deviation (StdBackward0); its gradient is zero where it is zero (a constant
    slice), as torch's.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(3, requires_grad=True)
        >>> x.std().backward()
        >>> x.grad
        tensor([0., 0., 0.])
    """
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return apply1(RD.STD, input, _var_params(input, dim, unbiased, keepdim, correction, "std"))


def logsumexp(input, dim, keepdim=False) -> Tensor:
    """log(sum(exp(x))) over ``dim``, stable for large inputs (LogsumexpBackward0)."""
    return apply1(
        RD.LOGSUMEXP, _float(input), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim}
    )


def norm(input, p="fro", dim=None, keepdim=False, dtype=None) -> Tensor:
    """Vector p-norm (LinalgVectorNormBackward0); ``'fro'`` is the 2-norm of all elements.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([3., 4.]).norm()
        tensor(5.)
    """
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("norm(p='nuc') is not supported")
    return _vector_norm(input, p, dim, keepdim)


def _vector_norm(x, ord, dim, keepdim) -> Tensor:
    d = x._data
    if d.dtype.kind not in "fc":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_type(x)}"
        )
    dims = _dims(dim, d.ndim)
    o = ord if ord in (1, 2) else float(ord)
    if (o < 0 or o == float("inf")) and d.size == 0:
        # max |x| and the norms of negative order have no identity: torch refuses an empty
        # tensor, or an empty reduced dimension (named as given)
        if dims is None:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {o:g} norm on an empty tensor because the "
                "operation does not have an identity"
            )
        for i in dim if isinstance(dim, (list, tuple)) else (dim,):
            if d.ndim and d.shape[i] == 0:  # a 0-d tensor has no empty dim
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {o:g} norm on the dimension {i}because "
                    "this dimension is empty and the operation does not have an identity"
                )
    return apply1(RD.NORM0 if o == 0 else RD.NORM, x, {"ord": o, "dim": dims, "keepdim": keepdim})


_REQUIRED = object()


def _softmax_args(input, dim, dtype, name):
    if dim is _REQUIRED:  # torch.softmax(x) / x.softmax(): only nn.functional picks a dim
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if dtype is not None:
        input = input.to(dtype)
    d = input._data
    dim = _wrap_dim(dim, d.ndim)
    if d.dtype.kind not in "fc" and d.size == 0:  # torch returns before its dtype dispatch
        return Tensor._wrap(d.copy()), None
    if d.dtype.kind not in "fc":
        kernel = "lastdim_kernel_impl" if dim == d.ndim - 1 or d.ndim == 0 else "kernel_impl"
        raise NotImplementedError(f"\"{name}_{kernel}\" not implemented for '{scalar_type(input)}'")
    return input, dim


def softmax(input, dim=_REQUIRED, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` (SoftmaxBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.softmax(torch.tensor([0., 0.]), 0)
        tensor([0.5000, 0.5000])
    """
    input, dim = _softmax_args(input, dim, dtype, "softmax")
    return apply1(RD.SOFTMAX, input, {"dim": dim}) if dim is not None else input


def log_softmax(input, dim=_REQUIRED, dtype=None) -> Tensor:
    """log(softmax(x)) computed stably (LogSoftmaxBackward0)."""
    input, dim = _softmax_args(input, dim, dtype, "log_softmax")
    return apply1(RD.LOG_SOFTMAX, input, {"dim": dim}) if dim is not None else input


def trace(input) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    n = builtins.min(input._data.shape)
    idx = np.arange(n)
    return sum(
        apply1(
            SH.INDEX,
            input,
            {"key": (idx, idx), "indices": None, "self_sym_sizes": input._data.shape},
        )
    )
