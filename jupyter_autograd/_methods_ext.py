"""Tensor methods and in-place forms for the op functions beyond ``ops/api.py`` (each a
one-line alias, as in ``_tensor_methods``), plus method aliases torch has (``absolute_``,
``greater_equal``...)."""

from __future__ import annotations

from . import _dtype as _dtypes
from ._tensor_inplace import _inplace
from ._tensor_methods import _method
from .ops import api as F
from .ops import api_index as IX
from .ops import api_linalg as LA
from .ops import api_math as M
from .ops import api_misc as MI
from .ops import api_products as P
from .ops import api_reduce as R
from .ops import api_shape as S
from .ops import api_special as SP
from .ops import api_stats as ST
from .ops import as_strided as AS
from .ops import cplx as _cplx
from .ops import trig as TR
from .ops.dispatch import unary_method
from .tensor import Tensor

# name -> function; every name also becomes ``name_`` where listed in _INPLACE
_FUNCS = {n: getattr(M, n) for n in M.__all__ if n != "isin"}
_FUNCS.update(
    {
        "absolute": F.abs,
        "negative": F.neg,
        "greater_equal": F.ge,
        "greater": F.gt,
        "less": F.lt,
        "less_equal": F.le,
        "not_equal": F.ne,
    }
)
_INPLACE = [
    "acos",
    "arccos",
    "asin",
    "arcsin",
    "atan",
    "arctan",
    "acosh",
    "arccosh",
    "asinh",
    "arcsinh",
    "atanh",
    "arctanh",
    "sinh",
    "cosh",
    "log2",
    "log10",
    "exp2",
    "deg2rad",
    "rad2deg",
    "sinc",
    "nan_to_num",
    "logit",
    "atan2",
    "arctan2",
    "hypot",
    "copysign",
    "xlogy",
    "lerp",
    "addcmul",
    "addcdiv",
    "heaviside",
    "gcd",
    "lcm",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "nextafter",
    "ldexp",
    "absolute",
    "negative",
    "greater_equal",
    "greater",
    "less",
    "less_equal",
    "not_equal",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
]
# floating tensors run these rows inline (no promotion needed), as Tensor.exp does
_FAST = {
    "acos": TR.ACOS,
    "asin": TR.ASIN,
    "atan": TR.ATAN,
    "acosh": TR.ACOSH,
    "asinh": TR.ASINH,
    "atanh": TR.ATANH,
    "sinh": TR.SINH,
    "cosh": TR.COSH,
    "log2": TR.LOG2,
    "log10": TR.LOG10,
    "exp2": TR.EXP2,
}

_FUNCS.update(
    {
        n: getattr(S, n)
        for n in (
            "roll",
            "rot90",
            "diagonal",
            "diag_embed",
            "diag",
            "tril",
            "triu",
            "tile",
            "movedim",
            "moveaxis",
            "ravel",
            "fliplr",
            "flipud",
            "tensor_split",
            "hsplit",
            "vsplit",
            "dsplit",
            "unsafe_chunk",
            "unsafe_split",
            "split_with_sizes",
            "narrow_copy",
            "diagflat",
        )
    }
)
_FUNCS.update({"unfold": S.unfold, "sum_to_size": S.sum_to_size})
_INPLACE += ["tril", "triu"]
_FUNCS.update(
    {
        n: getattr(R, n)
        for n in R.__all__
        if n not in ("histogramdd", "searchsorted", "bucketize", "var_mean", "std_mean")
    }
)
_INPLACE += ["cumprod", "addbmm", "addmv", "addr", "baddbmm", "renorm"]
_FUNCS.update({n: getattr(IX, n) for n in IX.__all__ if n not in ("tril_indices", "triu_indices")})
_INPLACE += [
    "index_add",
    "index_copy",
    "index_fill",
    "index_reduce",
    "masked_scatter",  # index_put_: _tensor_setitem
    "put",
    "scatter",
    "scatter_add",
    "scatter_reduce",
]
_FUNCS.update({n: getattr(ST, n) for n in ("corrcoef", "cov", "diff", "dist", "renorm")})
_FUNCS.update(
    {
        n: getattr(P, n)
        for n in ("addbmm", "addmv", "addr", "baddbmm", "cross", "inner", "kron", "vdot")
    }
)

_FUNCS.update(
    {
        n: LA.TOP[n]
        for n in (
            "inverse",
            "det",
            "logdet",
            "slogdet",
            "cholesky",
            "cholesky_solve",
            "cholesky_inverse",
            "svd",
            "qr",
            "lu",
            "lu_solve",
            "triangular_solve",
            "matrix_exp",
            "pinverse",
            "matrix_power",
            "geqrf",
            "ormqr",
            "orgqr",
            "norm",
        )
    }
)

_FUNCS.update(
    {
        n: getattr(SP, n)
        for n in ("digamma", "erfc", "erfinv", "i0", "igamma", "igammac", "lgamma", "mvlgamma")
    }
)
_INPLACE += [
    "digamma",
    "erfc",
    "erfinv",
    "i0",
    "igamma",
    "igammac",
    "lgamma",
    "mvlgamma",
    "polygamma",
]
_FUNCS["polygamma"] = lambda self, n: SP.polygamma(n, self)
_FUNCS.update(
    {"repeat_interleave": MI.repeat_interleave, "resize_": MI.resize_, "resize_as_": MI.resize_as_}
)
_FUNCS.update({n: getattr(AS, n) for n in ("as_strided", "as_strided_scatter")})


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, **kw):
    return MI.empty_strided(
        size,
        stride,
        dtype=dtype or self.dtype,
        device=device or self.device,
        requires_grad=requires_grad,
    )


Tensor.new_empty_strided = _new_empty_strided

for _name, _fn in _FUNCS.items():
    setattr(
        Tensor, _name, unary_method(_FAST[_name], _fn) if _name in _FAST else _method(_fn, _name)
    )
for _name in _INPLACE:
    setattr(Tensor, _name + "_", _inplace(getattr(F, _name, None) or _FUNCS[_name]))
# lerp parses its overloads itself: the method forms name themselves and leave self out
Tensor.lerp = M.lerp_method
Tensor.lerp_ = _inplace(M._lerp_inplace)


def _rdiv(self, other):
    return F.div(F._t(other, self), self)


Tensor.__rdiv__ = _rdiv

# ---------------------------------------------------------------- conversions
_to_base = Tensor.to


def _to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device, dtype)``, ``to(other)``, each with torch's ``non_blocking``,
    ``copy`` and ``memory_format`` arguments (ToCopyBackward0; ``copy=True`` always copies)."""
    kwargs.pop("memory_format", None)
    args = list(args)
    flags = []
    while args and isinstance(args[-1], bool):  # trailing non_blocking, copy
        flags.insert(0, args.pop())
    if len(flags) == 2:
        kwargs.setdefault("non_blocking", flags[0])
        kwargs.setdefault("copy", flags[1])
    elif flags:
        kwargs.setdefault("non_blocking", flags[0])
    return _to_base(self, *args, **kwargs)


def _conversion(dt):
    def convert(self, memory_format=None):
        return _to(self, dt)

    return convert


Tensor.to = _to
for _name, _dt in (
    ("float", "float32"),
    ("double", "float64"),
    ("half", "float16"),
    ("long", "int64"),
    ("int", "int32"),
    ("short", "int16"),
    ("char", "int8"),
    ("byte", "uint8"),
    ("bool", "bool"),
    ("cfloat", "complex64"),
    ("cdouble", "complex128"),
):
    setattr(Tensor, _name, _conversion(getattr(_dtypes, _dt)))


# ---------------------------------------------------------------- in-place metadata changes
def _metadata_inplace(fn):
    """``x.t_()`` and friends: the tensor takes the result's shape, data and history."""

    def method(self, *args):
        self._check_inplace()
        res = fn(self, *args)
        self._data = res._data
        if res._requires_grad:
            self.grad_fn, self._output_nr, self._requires_grad = res.grad_fn, res._output_nr, True
        self._bump_version()
        return self

    return method


for _name in (
    "transpose",
    "swapdims",
    "swapaxes",
    "t",
):  # squeeze_/unsqueeze_: rows (ops.inplace_view)
    setattr(Tensor, _name + "_", _metadata_inplace(getattr(F, _name)))

_zero_base, _fill_base = Tensor.zero_, Tensor.fill_


def _clear_tangent(self):
    if self._fw:  # the values are constants now: their forward-mode tangent is zero
        self._fw = {k: Tensor._wrap(v._data * 0) for k, v in self._fw.items()}


def _zero_(self):
    _zero_base(self)
    _clear_tangent(self)
    return self


def _fill_(self, value):
    _fill_base(self, value)
    if not isinstance(value, Tensor):  # fill_.Tensor carries the value's tangent (its row)
        _clear_tangent(self)
    return self


Tensor.zero_ = _zero_
Tensor.fill_ = _fill_
Tensor.sgn_ = _inplace(_cplx.sgn)
