"""Tensor methods and in-place forms for the op functions beyond ``ops/api.py`` (each a
one-line alias, as in ``_tensor_methods``), plus method aliases torch has (``absolute_``,
``greater_equal``...)."""

from __future__ import annotations

from . import _dtype as _dtypes
from ._tensor_conversions import _to as _to_base
from ._tensor_inplace import _fill_ as _fill_base
from ._tensor_inplace import _inplace
from ._tensor_inplace import _zero_ as _zero_base
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
from .ops.compare_inplace import inplace_compare as _inplace_compare
from .ops.dispatch import unary_method
from .tensor import Tensor

# ---------------------------------------------------------------- ops/api_math
Tensor.acos = unary_method(TR.ACOS, M.acos)
Tensor.acos_ = _inplace(M.acos)
Tensor.acosh = unary_method(TR.ACOSH, M.acosh)
Tensor.acosh_ = _inplace(M.acosh)
Tensor.addcdiv = _method(M.addcdiv, "addcdiv")
Tensor.addcdiv_ = _inplace(M.addcdiv)
Tensor.addcmul = _method(M.addcmul, "addcmul")
Tensor.addcmul_ = _inplace(M.addcmul)
Tensor.arccos = _method(M.arccos, "arccos")
Tensor.arccos_ = _inplace(M.arccos)
Tensor.arccosh = _method(M.arccosh, "arccosh")
Tensor.arccosh_ = _inplace(M.arccosh)
Tensor.arcsin = _method(M.arcsin, "arcsin")
Tensor.arcsin_ = _inplace(M.arcsin)
Tensor.arcsinh = _method(M.arcsinh, "arcsinh")
Tensor.arcsinh_ = _inplace(M.arcsinh)
Tensor.arctan = _method(M.arctan, "arctan")
Tensor.arctan_ = _inplace(M.arctan)
Tensor.arctan2 = _method(M.arctan2, "arctan2")
Tensor.arctan2_ = _inplace(M.arctan2)
Tensor.arctanh = _method(M.arctanh, "arctanh")
Tensor.arctanh_ = _inplace(M.arctanh)
Tensor.asin = unary_method(TR.ASIN, M.asin)
Tensor.asin_ = _inplace(M.asin)
Tensor.asinh = unary_method(TR.ASINH, M.asinh)
Tensor.asinh_ = _inplace(M.asinh)
Tensor.atan = unary_method(TR.ATAN, M.atan)
Tensor.atan_ = _inplace(M.atan)
Tensor.atan2 = _method(M.atan2, "atan2")
Tensor.atan2_ = _inplace(M.atan2)
Tensor.atanh = unary_method(TR.ATANH, M.atanh)
Tensor.atanh_ = _inplace(M.atanh)
Tensor.copysign = _method(M.copysign, "copysign")
Tensor.copysign_ = _inplace(M.copysign)
Tensor.cosh = unary_method(TR.COSH, M.cosh)
Tensor.cosh_ = _inplace(M.cosh)
Tensor.deg2rad = _method(M.deg2rad, "deg2rad")
Tensor.deg2rad_ = _inplace(M.deg2rad)
Tensor.exp2 = unary_method(TR.EXP2, M.exp2)
Tensor.exp2_ = _inplace(M.exp2)
Tensor.fmax = _method(M.fmax, "fmax")
Tensor.fmin = _method(M.fmin, "fmin")
Tensor.frexp = _method(M.frexp, "frexp")
Tensor.gcd = _method(M.gcd, "gcd")
Tensor.gcd_ = _inplace(M.gcd)
Tensor.heaviside = _method(M.heaviside, "heaviside")
Tensor.heaviside_ = _inplace(M.heaviside)
Tensor.hypot = _method(M.hypot, "hypot")
Tensor.hypot_ = _inplace(M.hypot)
Tensor.isneginf = _method(M.isneginf, "isneginf")
Tensor.isposinf = _method(M.isposinf, "isposinf")
Tensor.isreal = _method(M.isreal, "isreal")
Tensor.lcm = _method(M.lcm, "lcm")
Tensor.lcm_ = _inplace(M.lcm)
Tensor.ldexp = _method(M.ldexp, "ldexp")
Tensor.ldexp_ = _inplace(M.ldexp)
# lerp parses its overloads itself: the method forms name themselves and leave self out
Tensor.lerp = M.lerp_method
Tensor.lerp_ = _inplace(M._lerp_inplace)
Tensor.log2 = unary_method(TR.LOG2, M.log2)
Tensor.log2_ = _inplace(M.log2)
Tensor.log10 = unary_method(TR.LOG10, M.log10)
Tensor.log10_ = _inplace(M.log10)
Tensor.logaddexp = _method(M.logaddexp, "logaddexp")
Tensor.logaddexp2 = _method(M.logaddexp2, "logaddexp2")
Tensor.logit = _method(M.logit, "logit")
Tensor.logit_ = _inplace(M.logit)
Tensor.nan_to_num = _method(M.nan_to_num, "nan_to_num")
Tensor.nan_to_num_ = _inplace(M.nan_to_num)
Tensor.nextafter = _method(M.nextafter, "nextafter")
Tensor.nextafter_ = _inplace(M.nextafter)
Tensor.positive = _method(M.positive, "positive")
Tensor.rad2deg = _method(M.rad2deg, "rad2deg")
Tensor.rad2deg_ = _inplace(M.rad2deg)
Tensor.signbit = _method(M.signbit, "signbit")
Tensor.sinc = _method(M.sinc, "sinc")
Tensor.sinc_ = _inplace(M.sinc)
Tensor.sinh = unary_method(TR.SINH, M.sinh)
Tensor.sinh_ = _inplace(M.sinh)
Tensor.xlogy = _method(M.xlogy, "xlogy")
Tensor.xlogy_ = _inplace(M.xlogy)
# ---------------------------------------------------------------- torch's other names
Tensor.absolute = _method(F.abs, "absolute")
Tensor.absolute_ = _inplace(F.absolute)
Tensor.negative = _method(F.neg, "negative")
Tensor.negative_ = _inplace(F.negative)
Tensor.greater_equal = _method(F.ge, "greater_equal")
Tensor.greater_equal_ = _inplace_compare("ge", F.greater_equal)
Tensor.greater = _method(F.gt, "greater")
Tensor.greater_ = _inplace_compare("gt", F.greater)
Tensor.less = _method(F.lt, "less")
Tensor.less_ = _inplace_compare("lt", F.less)
Tensor.less_equal = _method(F.le, "less_equal")
Tensor.less_equal_ = _inplace_compare("le", F.less_equal)
Tensor.not_equal = _method(F.ne, "not_equal")
Tensor.not_equal_ = _inplace_compare("ne", F.not_equal)
# ---------------------------------------------------------------- ops/api_shape
Tensor.roll = _method(S.roll, "roll")
Tensor.rot90 = _method(S.rot90, "rot90")
Tensor.diagonal = _method(S.diagonal, "diagonal")
Tensor.diag_embed = _method(S.diag_embed, "diag_embed")
Tensor.diag = _method(S.diag, "diag")
Tensor.tril = _method(S.tril, "tril")
Tensor.tril_ = _inplace(S.tril)
Tensor.triu = _method(S.triu, "triu")
Tensor.triu_ = _inplace(S.triu)
Tensor.tile = _method(S.tile, "tile")
Tensor.movedim = _method(S.movedim, "movedim")
Tensor.moveaxis = _method(S.moveaxis, "moveaxis")
Tensor.ravel = _method(S.ravel, "ravel")
Tensor.fliplr = _method(S.fliplr, "fliplr")
Tensor.flipud = _method(S.flipud, "flipud")
Tensor.tensor_split = _method(S.tensor_split, "tensor_split")
Tensor.hsplit = _method(S.hsplit, "hsplit")
Tensor.vsplit = _method(S.vsplit, "vsplit")
Tensor.dsplit = _method(S.dsplit, "dsplit")
Tensor.unsafe_chunk = _method(S.unsafe_chunk, "unsafe_chunk")
Tensor.unsafe_split = _method(S.unsafe_split, "unsafe_split")
Tensor.split_with_sizes = _method(S.split_with_sizes, "split_with_sizes")
Tensor.narrow_copy = _method(S.narrow_copy, "narrow_copy")
Tensor.diagflat = _method(S.diagflat, "diagflat")
Tensor.unfold = _method(S.unfold, "unfold")
Tensor.sum_to_size = _method(S.sum_to_size, "sum_to_size")
# ---------------------------------------------------------------- ops/api_reduce
Tensor.aminmax = _method(R.aminmax, "aminmax")
Tensor.argsort = _method(R.argsort, "argsort")
Tensor.argwhere = _method(R.argwhere, "argwhere")
Tensor.bincount = _method(R.bincount, "bincount")
Tensor.count_nonzero = _method(R.count_nonzero, "count_nonzero")
Tensor.cummax = _method(R.cummax, "cummax")
Tensor.cummin = _method(R.cummin, "cummin")
Tensor.cumprod = _method(R.cumprod, "cumprod")
Tensor.cumprod_ = _inplace(R.cumprod)
Tensor.histc = _method(R.histc, "histc")
Tensor.histogram = _method(R.histogram, "histogram")
Tensor.kthvalue = _method(R.kthvalue, "kthvalue")
Tensor.logcumsumexp = _method(R.logcumsumexp, "logcumsumexp")
Tensor.median = _method(R.median, "median")
Tensor.mode = _method(R.mode, "mode")
Tensor.msort = _method(R.msort, "msort")
Tensor.nanmean = _method(R.nanmean, "nanmean")
Tensor.nanmedian = _method(R.nanmedian, "nanmedian")
Tensor.nanquantile = _method(R.nanquantile, "nanquantile")
Tensor.nansum = _method(R.nansum, "nansum")
Tensor.nonzero = _method(R.nonzero, "nonzero")
Tensor.quantile = _method(R.quantile, "quantile")
Tensor.sort = _method(R.sort, "sort")
Tensor.topk = _method(R.topk, "topk")
Tensor.unique = _method(R.unique, "unique")
Tensor.unique_consecutive = _method(R.unique_consecutive, "unique_consecutive")
# ---------------------------------------------------------------- ops/api_index
Tensor.diagonal_scatter = _method(IX.diagonal_scatter, "diagonal_scatter")
Tensor.index_add = _method(IX.index_add, "index_add")
Tensor.index_add_ = _inplace(IX.index_add)
Tensor.index_copy = _method(IX.index_copy, "index_copy")
Tensor.index_copy_ = _inplace(IX.index_copy)
Tensor.index_fill = _method(IX.index_fill, "index_fill")
Tensor.index_fill_ = _inplace(IX.index_fill)
Tensor.index_put = _method(IX.index_put, "index_put")
Tensor.index_reduce = _method(IX.index_reduce, "index_reduce")
Tensor.index_reduce_ = _inplace(IX.index_reduce)
Tensor.masked_scatter = _method(IX.masked_scatter, "masked_scatter")
Tensor.masked_scatter_ = _inplace(IX.masked_scatter)
Tensor.masked_select = _method(IX.masked_select, "masked_select")
Tensor.nonzero_static = _method(IX.nonzero_static, "nonzero_static")
Tensor.put = _method(IX.put, "put")
Tensor.put_ = _inplace(IX.put)
Tensor.scatter = _method(IX.scatter, "scatter")
Tensor.scatter_ = _inplace(IX.scatter)
Tensor.scatter_add = _method(IX.scatter_add, "scatter_add")
Tensor.scatter_add_ = _inplace(IX.scatter_add)
Tensor.scatter_reduce = _method(IX.scatter_reduce, "scatter_reduce")
Tensor.scatter_reduce_ = _inplace(IX.scatter_reduce)
Tensor.select_scatter = _method(IX.select_scatter, "select_scatter")
Tensor.slice_scatter = _method(IX.slice_scatter, "slice_scatter")
Tensor.take = _method(IX.take, "take")
Tensor.take_along_dim = _method(IX.take_along_dim, "take_along_dim")
# ---------------------------------------------------------------- ops/api_stats
Tensor.corrcoef = _method(ST.corrcoef, "corrcoef")
Tensor.cov = _method(ST.cov, "cov")
Tensor.diff = _method(ST.diff, "diff")
Tensor.dist = _method(ST.dist, "dist")
Tensor.renorm = _method(ST.renorm, "renorm")
Tensor.renorm_ = _inplace(ST.renorm)
# ---------------------------------------------------------------- ops/api_products
Tensor.addbmm = _method(P.addbmm, "addbmm")
Tensor.addbmm_ = _inplace(P.addbmm)
Tensor.addmv = _method(P.addmv, "addmv")
Tensor.addmv_ = _inplace(P.addmv)
Tensor.addr = _method(P.addr, "addr")
Tensor.addr_ = _inplace(P.addr)
Tensor.baddbmm = _method(P.baddbmm, "baddbmm")
Tensor.baddbmm_ = _inplace(P.baddbmm)
Tensor.cross = _method(P.cross, "cross")
Tensor.inner = _method(P.inner, "inner")
Tensor.kron = _method(P.kron, "kron")
Tensor.vdot = _method(P.vdot, "vdot")
# ---------------------------------------------------------------- torch.linalg's legacy names
Tensor.inverse = _method(LA.TOP["inverse"], "inverse")
Tensor.det = _method(LA.TOP["det"], "det")
Tensor.logdet = _method(LA.TOP["logdet"], "logdet")
Tensor.slogdet = _method(LA.TOP["slogdet"], "slogdet")
Tensor.cholesky = _method(LA.TOP["cholesky"], "cholesky")
Tensor.cholesky_solve = _method(LA.TOP["cholesky_solve"], "cholesky_solve")
Tensor.cholesky_inverse = _method(LA.TOP["cholesky_inverse"], "cholesky_inverse")
Tensor.svd = _method(LA.TOP["svd"], "svd")
Tensor.qr = _method(LA.TOP["qr"], "qr")
Tensor.lu = _method(LA.TOP["lu"], "lu")
Tensor.lu_solve = _method(LA.TOP["lu_solve"], "lu_solve")
Tensor.triangular_solve = _method(LA.TOP["triangular_solve"], "triangular_solve")
Tensor.matrix_exp = _method(LA.TOP["matrix_exp"], "matrix_exp")
Tensor.pinverse = _method(LA.TOP["pinverse"], "pinverse")
Tensor.matrix_power = _method(LA.TOP["matrix_power"], "matrix_power")
Tensor.geqrf = _method(LA.TOP["geqrf"], "geqrf")
Tensor.ormqr = _method(LA.TOP["ormqr"], "ormqr")
Tensor.orgqr = _method(LA.TOP["orgqr"], "orgqr")
Tensor.norm = _method(LA.TOP["norm"], "norm")
# ---------------------------------------------------------------- ops/api_special
Tensor.digamma = _method(SP.digamma, "digamma")
Tensor.digamma_ = _inplace(SP.digamma)
Tensor.erfc = _method(SP.erfc, "erfc")
Tensor.erfc_ = _inplace(SP.erfc)
Tensor.erfinv = _method(SP.erfinv, "erfinv")
Tensor.erfinv_ = _inplace(SP.erfinv)
Tensor.i0 = _method(SP.i0, "i0")
Tensor.i0_ = _inplace(SP.i0)
Tensor.igamma = _method(SP.igamma, "igamma")
Tensor.igamma_ = _inplace(SP.igamma)
Tensor.igammac = _method(SP.igammac, "igammac")
Tensor.igammac_ = _inplace(SP.igammac)
Tensor.lgamma = _method(SP.lgamma, "lgamma")
Tensor.lgamma_ = _inplace(SP.lgamma)
Tensor.mvlgamma = _method(SP.mvlgamma, "mvlgamma")
Tensor.mvlgamma_ = _inplace(SP.mvlgamma)
# torch.polygamma(n, input) takes the order first; the methods are input.polygamma(n)
Tensor.polygamma = _method(lambda self, n: SP.polygamma(n, self), "polygamma")
Tensor.polygamma_ = _inplace(lambda self, n: SP.polygamma(n, self))
# ---------------------------------------------------------------- ops/api_misc, ops/as_strided
Tensor.repeat_interleave = _method(MI.repeat_interleave, "repeat_interleave")
Tensor.resize_ = _method(MI.resize_, "resize_")
Tensor.resize_as_ = _method(MI.resize_as_, "resize_as_")
Tensor.as_strided = _method(AS.as_strided, "as_strided")
Tensor.as_strided_scatter = _method(AS.as_strided_scatter, "as_strided_scatter")


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, **kw):
    return MI.empty_strided(
        size,
        stride,
        dtype=dtype or self.dtype,
        device=device or self.device,
        requires_grad=requires_grad,
    )


Tensor.new_empty_strided = _new_empty_strided


def _rdiv(self, other):
    return F.div(F._t(other, self), self)


Tensor.__rdiv__ = _rdiv

# ---------------------------------------------------------------- conversions


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
Tensor.float = _conversion(_dtypes.float32)
Tensor.double = _conversion(_dtypes.float64)
Tensor.half = _conversion(_dtypes.float16)
Tensor.long = _conversion(_dtypes.int64)
Tensor.int = _conversion(_dtypes.int32)
Tensor.short = _conversion(_dtypes.int16)
Tensor.char = _conversion(_dtypes.int8)
Tensor.byte = _conversion(_dtypes.uint8)
Tensor.bool = _conversion(_dtypes.bool)
Tensor.cfloat = _conversion(_dtypes.complex64)
Tensor.cdouble = _conversion(_dtypes.complex128)


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


# squeeze_/unsqueeze_ are rows (ops.inplace_view)
Tensor.transpose_ = _metadata_inplace(F.transpose)
Tensor.swapdims_ = _metadata_inplace(F.swapdims)
Tensor.swapaxes_ = _metadata_inplace(F.swapaxes)
Tensor.t_ = _metadata_inplace(F.t)


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
