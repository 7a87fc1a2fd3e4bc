"""``torch.masked``: reductions and normalizations over the elements a boolean ``mask`` keeps.
Masked-out elements are replaced by the operation's identity (0 for sums, 1 for products,
-inf for maxima...) and the ordinary operation runs, as torch.masked does for strided tensors.

Example:
    >>> import jupyter_autograd as torch
    >>> x = torch.tensor([1.0, 5.0, 3.0])
    >>> torch.masked.amax(x, mask=torch.tensor([True, False, True]))
    tensor(3.)
"""

from __future__ import annotations

import functools
import types

import numpy as np

from . import _dtype
from .tensor import Tensor

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]


@functools.cache
def _ja():
    """The torch.* functions called here, from the modules defining them (the package root only
    re-exports them, and it sits above this module)."""
    from . import factories, linalg, nn
    from .ops import api, api_math, api_reduce

    names = (
        "amax",
        "amin",
        "argmax",
        "argmin",
        "broadcast_to",
        "cumsum",
        "div",
        "isnan",
        "log_softmax",
        "logsumexp",
        "maximum",
        "softmax",
        "sqrt",
        "sub",
        "sum",
        "where",
    )
    return types.SimpleNamespace(
        **{n: getattr(api, n) for n in names},
        cumprod=api_reduce.cumprod,
        logaddexp=api_math.logaddexp,
        nanmedian=api_reduce.nanmedian,
        ones=factories.ones,
        linalg=linalg,
        nn=nn,
    )


def _canonical_dim(dim, ndim):
    if dim == () or dim is None:
        return tuple(range(ndim))
    n = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= n or d < -n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        dims.append(d % n)
    return tuple(sorted(dims))


def _identity(op, input, ord=2):
    dt = input._data.dtype
    if op in ("sum", "cumsum", "norm") and not (op == "norm" and ord == float("-inf")):
        return 0
    if op in ("prod", "cumprod"):
        return 1
    if op in ("amax", "argmax", "logaddexp", "logsumexp"):
        return -np.inf if dt.kind in "fc" else np.iinfo(dt).min
    if op in ("amin", "argmin") or op == "norm":
        return np.inf if dt.kind in "fc" else np.iinfo(dt).max
    if op == "median":
        return np.nan
    raise NotImplementedError(f"identity of {op} on {input.dtype} input")


def _input_mask(input, *args, mask=None, **kwargs):
    """The mask broadcast to ``input``'s shape, as bools (torch.masked's helper)."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    m = mask
    if tuple(m.shape) != tuple(input.shape):
        if m.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality "
                "higher than of the input)"
            )
        m = _ja().broadcast_to(m, tuple(input.shape))
    return m.to(_dtype.bool)


def _combine(op, input, mask, ord=2):
    if mask is None:
        return input
    m = _input_mask(input, mask=mask)
    fill = Tensor._wrap(np.asarray(_identity(op, input, ord), dtype=input._data.dtype))
    return _ja().where(m, input, fill)


def _int_to_long(input, dtype):
    if dtype is not None:
        return dtype
    return (
        _dtype.int64
        if input._data.dtype.kind in "biu" and input.dtype != _dtype.int64
        else input.dtype
    )


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return _ja().sum(
        _combine("sum", input, mask),
        _canonical_dim(dim, input.ndim),
        bool(keepdim),
        dtype=_int_to_long(input, dtype),
    )


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    r = _combine("prod", input, mask).to(_int_to_long(input, dtype))
    for d in reversed(_canonical_dim(dim, input.ndim)):
        r = r.prod(dim=d, keepdim=bool(keepdim))
    return r


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = dtype or input.dtype
    return (
        _ja()
        .cumsum(_combine("sum", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dtype)
        .to(dtype)
    )


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = dtype or input.dtype
    return (
        _ja()
        .cumprod(_combine("prod", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dtype)
        .to(dtype)
    )


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x = _combine("amax", input, mask)
    return _ja().amax(x, _canonical_dim(dim, x.ndim), bool(keepdim)).to(dtype or input.dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x = _combine("amin", input, mask)
    return _ja().amin(x, _canonical_dim(dim, x.ndim), bool(keepdim)).to(dtype or input.dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return (
        _ja().argmax(_combine("argmax", input, mask), dim, bool(keepdim)).to(dtype or input.dtype)
    )


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return (
        _ja().argmin(_combine("argmin", input, mask), dim, bool(keepdim)).to(dtype or input.dtype)
    )


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    source = "Optional" if dtype is not None else "Input"
    dtype = dtype or input.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
            f"point or complex dtype. Got: {dtype}"
        )
    ja = _ja()
    if mask is None:
        count = sum(ja.ones(tuple(input.shape), dtype=_dtype.int64), dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=_canonical_dim(dim, input.ndim), keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    dtype = dtype or input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.is_floating_point()
    x = input if is_float else input.to(_dtype.float32)
    out = _ja().nanmedian(_combine("median", x, mask), d, keepdim).values
    if is_float:
        return out
    if not bool(_ja().isnan(out).any()):
        return out.to(dtype)
    raise ValueError(
        "masked median expects no fully masked out rows if dtype is not floating point"
    )


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    x = _combine("norm", input, mask, ord)
    return _ja().linalg.vector_norm(
        x, ord, _canonical_dim(dim, input.ndim), bool(keepdim), dtype=dtype or input.dtype
    )


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, sqrt):
    ja = _ja()
    c = 1.0
    if unbiased is not None:
        c = 1.0 if unbiased else 0.0
    if correction is not None:
        c = float(correction)
    if dtype is None:
        dtype = (
            input.dtype
            if (input.dtype.is_floating_point or input.dtype.is_complex)
            else _dtype.float32
        )
    compute = dtype if (dtype.is_floating_point or dtype.is_complex) else _dtype.float32
    if mask is None:
        count = sum(ja.ones(tuple(input.shape), dtype=_dtype.int64), dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
        inmask = None
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=_canonical_dim(dim, input.ndim), keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    x = ja.sub(input, ja.div(sample_total, count))
    total = sum(
        x * (x.conj() if x.is_complex() else x), dim, keepdim=keepdim, dtype=compute, mask=inmask
    )
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if c != 0:
        real = compute.to_real() if compute.is_complex else compute
        count = ja.sub(count.to(real), c)
        count = ja.maximum(count, count.new_zeros([]))
    out = ja.div(total, count).to(dtype)
    return ja.sqrt(out) if sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input, dim, *, dtype=None, mask=None):
    return _ja().softmax(
        _combine("amax", input, mask),
        _canonical_dim(dim, input.ndim)[0],
        dtype=dtype or input.dtype,
    )


def log_softmax(input, dim, *, dtype=None, mask=None):
    return _ja().log_softmax(
        _combine("amax", input, mask),
        _canonical_dim(dim, input.ndim)[0],
        dtype=dtype or input.dtype,
    )


def softmin(input, dim, *, dtype=None, mask=None):
    return _ja().nn.functional.softmin(
        _combine("amin", input, mask),
        _canonical_dim(dim, input.ndim)[0],
        dtype=dtype or input.dtype,
    )


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    ja = _ja()
    x = _combine("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype or input.dtype, mask=mask)
    return ja.div(x, ja.maximum(nrm, nrm.new_full([], eps)))


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    return (
        _ja()
        .logaddexp(
            _combine("logaddexp", input, input_mask), _combine("logaddexp", other, other_mask)
        )
        .to(dtype or input.dtype)
    )


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return (
        _ja()
        .logsumexp(
            _combine("logsumexp", input, mask), _canonical_dim(dim, input.ndim), keepdim=keepdim
        )
        .to(dtype or input.dtype)
    )


_REDUCTIONS = {
    "sum",
    "prod",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "mean",
    "median",
    "norm",
    "var",
    "std",
    "logsumexp",
}
_NORMALIZATIONS = {"softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"}


def _output_mask(op, input, *args, **kwargs):
    """Which output elements a masked operation defines (torch.masked's helper): the reduced
    mask (any) for reductions, the input mask for normalizations."""
    name = op.__name__
    if name in _REDUCTIONS:
        if name == "norm" and args:
            args = args[1:]
        dim = args[0] if args else kwargs.get("dim")
        outmask = _input_mask(input, mask=kwargs.get("mask"))
        return (
            outmask.any(_canonical_dim(dim, input.ndim), bool(kwargs.get("keepdim", False)))
            if input.ndim
            else outmask
        )
    if name in _NORMALIZATIONS:
        return _input_mask(input, mask=kwargs.get("mask"))
    raise ValueError(
        f"_output_mask expected masked operation (got callable {op.__module__}.{name})"
    )
