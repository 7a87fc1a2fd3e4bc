"""Tensor methods and operators: one-line aliases onto the op functions, plus indexing and the
in-place forms (``add_``, ``x[i] = v``...), bound onto Tensor here; the in-place machinery they
are made with is :mod:`._tensor_inplace`."""

from __future__ import annotations

import numpy as np

from . import _dtype, _errors
from ._tensor_inplace import _copy_, _inplace
from .ops import api as F
from .ops import elementwise as EW
from .ops import shape as SH
from .ops.arithmetic import ADD, MUL, SUB
from .ops.compare_inplace import inplace_compare as _inplace_compare
from .ops.dispatch import apply1, binary_method, unary_method
from .tensor import Tensor

# ---------------------------------------------------------------- operators (hot path)
_add = binary_method(ADD)
# torch's sub_check (no bool operand) on the slow path: the fast one has a float tensor and a float
_sub = binary_method(SUB, check=F.sub_check)

_mul = binary_method(MUL)

Tensor.__add__ = Tensor.__radd__ = _add
Tensor.__sub__ = _sub
Tensor.__rsub__ = lambda self, other: F.rsub(self, other)
Tensor.__mul__ = Tensor.__rmul__ = _mul
Tensor.__truediv__ = lambda self, other: F.div(self, other)
Tensor.__rtruediv__ = lambda self, other: (
    F.mul(F.reciprocal(self), other) if not isinstance(other, Tensor) else F.div(other, self)
)
Tensor.__floordiv__ = lambda self, other: F.floor_divide(self, other)
Tensor.__rfloordiv__ = lambda self, other: F.floor_divide(other, self)
Tensor.__mod__ = lambda self, other: F.remainder(self, other)
Tensor.__rmod__ = lambda self, other: F.remainder(other, self)
Tensor.__neg__ = lambda self: apply1(EW.NEG, self)


def _pos(self):
    if self._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


Tensor.__pos__ = _pos
Tensor.__abs__ = lambda self: F.abs(self)
Tensor.__pow__ = lambda self, exponent: F.pow(self, exponent)
Tensor.__rpow__ = lambda self, base: F.pow(base, self)
# a Python number has no @ with a Tensor (torch: Python's own TypeError)
Tensor.__matmul__ = lambda self, other: (
    NotImplemented if isinstance(other, (int, float, complex)) else F.matmul(self, other)
)
Tensor.__rmatmul__ = lambda self, other: (
    NotImplemented
    if isinstance(other, (int, float, complex, bool))
    else F.matmul(F._t(other, self), self)
)
Tensor.__eq__ = lambda self, other: F.eq(self, other)
Tensor.__ne__ = lambda self, other: F.ne(self, other)
Tensor.__lt__ = lambda self, other: F.lt(self, other)
Tensor.__le__ = lambda self, other: F.le(self, other)
Tensor.__gt__ = lambda self, other: F.gt(self, other)
Tensor.__ge__ = lambda self, other: F.ge(self, other)
Tensor.__and__ = lambda self, other: F.bitwise_and(self, other)
Tensor.__or__ = lambda self, other: F.bitwise_or(self, other)
Tensor.__xor__ = lambda self, other: F.bitwise_xor(self, other)
Tensor.__rand__ = lambda self, other: F.bitwise_and(other, self)
Tensor.__ror__ = lambda self, other: F.bitwise_or(other, self)
Tensor.__rxor__ = lambda self, other: F.bitwise_xor(other, self)
Tensor.__lshift__ = lambda self, other: F.bitwise_left_shift(self, other)
Tensor.__rshift__ = lambda self, other: F.bitwise_right_shift(self, other)
Tensor.__rlshift__ = lambda self, other: F.bitwise_left_shift(other, self)
Tensor.__rrshift__ = lambda self, other: F.bitwise_right_shift(other, self)


def _invert(self):
    if self._data.dtype.kind not in "iub":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return F.bitwise_not(self)


Tensor.__invert__ = _invert
# __hash__ stays tensor.py's object.__hash__ (identity, in C): __eq__ set here does not reset it


# ---------------------------------------------------------------- method aliases
def _method(fn, name):
    """A function as a Tensor method: torch's methods have no ``out=`` (only the functions do).
    (torch's Tensor-only parameters are checked where the method is bound:
    _aliases.check_tensor_params, positions counted after ``self``.)"""
    if (
        "out"
        not in fn.__code__.co_varnames[: fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount]
    ):
        return fn

    def method(self, *args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn  # the signature seen by _aliases (NumPy keyword names)
    return method


# One line per method, its in-place form beside it: ``_method`` gives back the op function
# itself unless it takes ``out=`` or Tensor-only arguments; ``unary_method`` is the floating
# fast entry that runs the row inline (the hot elementwise math). Public methods are then
# wrapped once more, at the end of the package's import, by ``_aliases.install`` (NumPy keyword
# names) and ``_aliases.check_tensor_params`` (torch's Tensor-only parameters).
Tensor.add = _method(F.add, "add")
Tensor.add_ = _inplace(F.add)
Tensor.sub = _method(F.sub, "sub")
Tensor.sub_ = _inplace(F.sub)
Tensor.mul = _method(F.mul, "mul")
Tensor.mul_ = _inplace(F.mul)
Tensor.div = _method(F.div, "div")
Tensor.div_ = _inplace(F.div)
Tensor.true_divide = _method(F.true_divide, "true_divide")
Tensor.true_divide_ = _inplace(F.true_divide)
Tensor.divide = _method(F.divide, "divide")
Tensor.divide_ = _inplace(F.divide)
Tensor.multiply = _method(F.multiply, "multiply")
Tensor.multiply_ = _inplace(F.multiply)
Tensor.subtract = _method(F.subtract, "subtract")
Tensor.subtract_ = _inplace(F.subtract)
Tensor.pow = _method(F.pow, "pow")
Tensor.pow_ = _inplace(F.pow)
Tensor.neg = _method(F.neg, "neg")
Tensor.neg_ = _inplace(F.neg)
Tensor.exp = unary_method(EW.EXP, F.exp)
Tensor.exp_ = _inplace(F.exp)
Tensor.log = unary_method(EW.LOG, F.log)
Tensor.log_ = _inplace(F.log)
Tensor.log1p = unary_method(EW.LOG1P, F.log1p)
Tensor.log1p_ = _inplace(F.log1p)
Tensor.expm1 = unary_method(EW.EXPM1, F.expm1)
Tensor.expm1_ = _inplace(F.expm1)
Tensor.sqrt = unary_method(EW.SQRT, F.sqrt)
Tensor.sqrt_ = _inplace(F.sqrt)
Tensor.rsqrt = unary_method(EW.RSQRT, F.rsqrt)
Tensor.rsqrt_ = _inplace(F.rsqrt)
Tensor.reciprocal = _method(F.reciprocal, "reciprocal")
Tensor.reciprocal_ = _inplace(F.reciprocal)
Tensor.abs = _method(F.abs, "abs")
Tensor.sign = _method(F.sign, "sign")
Tensor.sign_ = _inplace(F.sign)
Tensor.sin = unary_method(EW.SIN, F.sin)
Tensor.sin_ = _inplace(F.sin)
Tensor.cos = unary_method(EW.COS, F.cos)
Tensor.cos_ = _inplace(F.cos)
Tensor.tan = unary_method(EW.TAN, F.tan)
Tensor.tan_ = _inplace(F.tan)
Tensor.tanh = unary_method(EW.TANH, F.tanh)
Tensor.tanh_ = _inplace(F.tanh)
Tensor.sigmoid = unary_method(EW.SIGMOID, F.sigmoid)
Tensor.sigmoid_ = _inplace(F.sigmoid)
Tensor.relu = unary_method(EW.RELU, F.relu)
Tensor.relu_ = _inplace(F.relu)
Tensor.floor = _method(F.floor, "floor")
Tensor.floor_ = _inplace(F.floor)
Tensor.ceil = _method(F.ceil, "ceil")
Tensor.ceil_ = _inplace(F.ceil)
Tensor.round = _method(F.round, "round")
Tensor.round_ = _inplace(F.round)
Tensor.clamp_min = _method(F.clamp_min, "clamp_min")
Tensor.clamp_min_ = _inplace(F.clamp_min, cpp_names=True)
Tensor.clamp_max = _method(F.clamp_max, "clamp_max")
Tensor.clamp_max_ = _inplace(F.clamp_max, cpp_names=True)
Tensor.maximum = _method(F.maximum, "maximum")
Tensor.minimum = _method(F.minimum, "minimum")
Tensor.square = _method(F.square, "square")
Tensor.square_ = _inplace(F.square)
Tensor.eq = _method(F.eq, "eq")
Tensor.eq_ = _inplace_compare("eq", F.eq)
Tensor.ne = _method(F.ne, "ne")
Tensor.ne_ = _inplace_compare("ne", F.ne)
Tensor.lt = _method(F.lt, "lt")
Tensor.lt_ = _inplace_compare("lt", F.lt)
Tensor.le = _method(F.le, "le")
Tensor.le_ = _inplace_compare("le", F.le)
Tensor.gt = _method(F.gt, "gt")
Tensor.gt_ = _inplace_compare("gt", F.gt)
Tensor.ge = _method(F.ge, "ge")
Tensor.ge_ = _inplace_compare("ge", F.ge)
Tensor.logical_and = _method(F.logical_and, "logical_and")
Tensor.logical_and_ = _inplace(F.logical_and, differentiable=False)
Tensor.logical_or = _method(F.logical_or, "logical_or")
Tensor.logical_or_ = _inplace(F.logical_or, differentiable=False)
Tensor.logical_not = _method(F.logical_not, "logical_not")
Tensor.logical_not_ = _inplace(F.logical_not, differentiable=False)
Tensor.logical_xor = _method(F.logical_xor, "logical_xor")
Tensor.logical_xor_ = _inplace(F.logical_xor, differentiable=False)
Tensor.isnan = _method(F.isnan, "isnan")
Tensor.isinf = _method(F.isinf, "isinf")
Tensor.isfinite = _method(F.isfinite, "isfinite")
Tensor.equal = _method(F.equal, "equal")
Tensor.allclose = _method(F.allclose, "allclose")
Tensor.isclose = _method(F.isclose, "isclose")
Tensor.all = _method(F.all, "all")
Tensor.any = _method(F.any, "any")
Tensor.sum = _method(F.sum, "sum")
Tensor.mean = _method(F.mean, "mean")
Tensor.prod = _method(F.prod, "prod")
Tensor.max = _method(F.max, "max")
Tensor.min = _method(F.min, "min")
Tensor.amax = _method(F.amax, "amax")
Tensor.amin = _method(F.amin, "amin")
Tensor.argmax = _method(F.argmax, "argmax")
Tensor.argmin = _method(F.argmin, "argmin")
Tensor.var = _method(F.var, "var")
Tensor.std = _method(F.std, "std")
Tensor.logsumexp = _method(F.logsumexp, "logsumexp")
Tensor.softmax = _method(F.softmax, "softmax")
Tensor.log_softmax = _method(F.log_softmax, "log_softmax")
Tensor.matmul = _method(F.matmul, "matmul")
Tensor.mm = _method(F.mm, "mm")
Tensor.mv = _method(F.mv, "mv")
Tensor.dot = _method(F.dot, "dot")
Tensor.bmm = _method(F.bmm, "bmm")
Tensor.outer = _method(F.outer, "outer")
Tensor.ger = _method(F.ger, "ger")
Tensor.addmm = _method(F.addmm, "addmm")
_addmm_ = _inplace(F.addmm)


def _addmm_inplace(self, mat1, mat2, *, beta=1, alpha=1):
    out = (mat1.shape[0], mat2.shape[-1]) if mat1.dim() == 2 and mat2.dim() == 2 else None
    if out is not None and tuple(self.shape) != out and mat1.shape[1] == mat2.shape[0]:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(self.shape)} and output tensor size "
            f"{list(out)} should match"
        )
    return _addmm_(self, mat1, mat2, beta=beta, alpha=alpha)


Tensor.addmm_ = _addmm_inplace
Tensor.reshape = _method(F.reshape, "reshape")
Tensor.flatten = _method(F.flatten, "flatten")
Tensor.unflatten = _method(F.unflatten, "unflatten")
Tensor.transpose = _method(F.transpose, "transpose")
Tensor.swapaxes = _method(F.swapaxes, "swapaxes")
Tensor.swapdims = _method(F.swapdims, "swapdims")
Tensor.t = _method(F.t, "t")
Tensor.permute = _method(F.permute, "permute")
Tensor.squeeze = _method(F.squeeze, "squeeze")
Tensor.unsqueeze = _method(F.unsqueeze, "unsqueeze")
Tensor.expand = _method(F.expand, "expand")
Tensor.expand_as = _method(F.expand_as, "expand_as")
Tensor.repeat = _method(F.repeat, "repeat")
Tensor.flip = _method(F.flip, "flip")
Tensor.clone = _method(F.clone, "clone")
Tensor.split = _method(F.split, "split")
Tensor.chunk = _method(F.chunk, "chunk")
Tensor.unbind = _method(F.unbind, "unbind")
Tensor.narrow = _method(F.narrow, "narrow")
Tensor.select = _method(F.select, "select")
Tensor.gather = _method(F.gather, "gather")
Tensor.masked_fill = _method(F.masked_fill, "masked_fill")
Tensor.masked_fill_ = _inplace(F.masked_fill, "masked_fill_")
Tensor.index_select = _method(F.index_select, "index_select")
Tensor.trace = _method(F.trace, "trace")
Tensor.float_power = _method(F.float_power, "float_power")
_float_power_ = _inplace(F.float_power)


def _float_power_inplace(self, exponent):
    cx = self.is_complex() or (
        exponent.is_complex() if isinstance(exponent, Tensor) else isinstance(exponent, complex)
    )
    want = "ComplexDouble" if cx else "Double"
    if self.dtype != (_dtype.complex128 if cx else _dtype.float64):
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self.dtype._legacy[: -len('Tensor')]} "
            f"but the operation's result requires dtype {want}"
        )
    return _float_power_(self, exponent)


Tensor.float_power_ = _float_power_inplace
Tensor.broadcast_to = _method(F.broadcast_to, "broadcast_to")
Tensor.erf = _method(F.erf, "erf")
Tensor.erf_ = _inplace(F.erf)
Tensor.cumsum = _method(F.cumsum, "cumsum")
Tensor.cumsum_ = _inplace(F.cumsum)
Tensor.trunc = _method(F.trunc, "trunc")
Tensor.trunc_ = _inplace(F.trunc)
Tensor.fix = _method(F.fix, "fix")
Tensor.fix_ = _inplace(F.fix)
Tensor.frac = _method(F.frac, "frac")
Tensor.frac_ = _inplace(F.frac)
Tensor.remainder = _method(F.remainder, "remainder")
Tensor.remainder_ = _inplace(F.remainder)
Tensor.fmod = _method(F.fmod, "fmod")
Tensor.fmod_ = _inplace(F.fmod)
Tensor.floor_divide = _method(F.floor_divide, "floor_divide")
Tensor.bitwise_and = _method(F.bitwise_and, "bitwise_and")
Tensor.bitwise_and_ = _inplace(F.bitwise_and)
Tensor.bitwise_or = _method(F.bitwise_or, "bitwise_or")
Tensor.bitwise_or_ = _inplace(F.bitwise_or)
Tensor.bitwise_xor = _method(F.bitwise_xor, "bitwise_xor")
Tensor.bitwise_xor_ = _inplace(F.bitwise_xor)
Tensor.bitwise_not = _method(F.bitwise_not, "bitwise_not")
Tensor.bitwise_not_ = _inplace(F.bitwise_not)
Tensor.bitwise_left_shift = _method(F.bitwise_left_shift, "bitwise_left_shift")
Tensor.bitwise_left_shift_ = _inplace(F.bitwise_left_shift)
Tensor.bitwise_right_shift = _method(F.bitwise_right_shift, "bitwise_right_shift")
Tensor.bitwise_right_shift_ = _inplace(F.bitwise_right_shift)
Tensor.clamp = F.clamp_call("clamp", True)
Tensor.clip = F.clamp_call("clip", True)


def _where_method(self, condition, other):
    return F.where(condition, self, other)


Tensor.where = _where_method


def _view(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return Tensor._wrap(self._data.view(shape[0].np))
    return F.view(self, *shape)


Tensor.view = _view
Tensor.view_as = lambda self, other: F.view(self, other.shape)
Tensor.reshape_as = lambda self, other: F.reshape(self, other.shape)
Tensor.type_as = lambda self, other: self.to(other.dtype)


def _T(self):
    """The dimensions reversed (PermuteBackward0, a view); torch warns once (deprecated) where
    the tensor is not 2-D."""
    nd = self._data.ndim
    if nd != 2:
        if nd:
            _errors.warn_once(_errors.WARN_T_NOT_2D)
        else:
            _errors.warn_zero_dim("Tensor.T", "identity")
    return F.permute(self, tuple(range(nd - 1, -1, -1)))


Tensor.T = property(_T)


def _mT(self):
    """The last two dimensions swapped; torch: an error for 1-D, the identity (warned) for 0-d."""
    nd = self._data.ndim
    if nd == 0:
        _errors.warn_zero_dim("Tensor.mT", "identity")
        return self
    if nd == 1:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return F.transpose(self, -2, -1)


Tensor.mT = property(_mT)


def _contiguous(self, memory_format=None):
    return self if self._data.flags.c_contiguous else F.clone(self)


Tensor.contiguous = _contiguous


# ---------------------------------------------------------------- indexing
def _is_basic(k):
    return k is None or k is Ellipsis or isinstance(k, (int, slice)) and not isinstance(k, bool)


def _norm_key(key):
    if isinstance(key, Tensor):
        key = key._data
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            k = k._data if k._data.ndim else (k.item() if k._data.dtype.kind in "iu" else k._data)
        elif isinstance(k, list):
            k = np.asarray([x.item() if isinstance(x, Tensor) else x for x in k])
        elif isinstance(k, np.integer):
            k = int(k)
        out.append(k)
    return tuple(out)


def _index_devices(self, key) -> None:
    """torch takes index tensors on the cpu or on the indexed tensor's device, nowhere else."""
    ks = key if isinstance(key, tuple) else (key,)
    cls = self._data.__class__
    for k in ks:
        if (
            isinstance(k, Tensor)
            and k._data.__class__ is not cls
            and k._data.__class__ is not np.ndarray
        ):
            raise IndexError(
                f"indices should be either on cpu or on the same device as the indexed tensor ({self.device})"
            )


def _getitem(self, key):
    """Indexing as torch records it: SelectBackward0 (int), SliceBackward0 (slice),
    UnsqueezeBackward0 (None), IndexBackward0 (integer arrays, masks)."""
    if isinstance(key, (Tensor, tuple)):
        _index_devices(self, key)
    # a lone slice is always recorded, even over the whole dimension (torch's getitem)
    whole = key.__class__ is slice
    key = _norm_key(key)
    if not all(_is_basic(k) for k in key):
        try:
            probe = self._data[key]
        except IndexError as e:
            raise index_error(e) from None
        return (
            apply1(
                SH.INDEX,
                self,
                {"key": key, "indices": [k for k in key], "self_sym_sizes": self._data.shape},
            )
            if probe is not None
            else None
        )
    r = _basic_index(self, key, whole)
    return apply1(SH.ALIAS, self) if r is self else r


def _basic_index(self, key, whole=False):
    """``self[key]`` for a tuple of ints, slices, None and Ellipsis: the views torch records,
    or ``self`` itself when the key changes nothing (slices over a whole dimension are skipped
    unless ``whole``)."""
    nd = self._data.ndim
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if not nd and len(key) == 1:  # torch's messages for a lone int / slice on a 0-d tensor
        if key[0].__class__ is int:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        if key[0].__class__ is slice:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if n_real > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    if key.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded = []
    where = []  # each index's position in the key (torch's messages name it as the dimension)
    for i, k in enumerate(key):
        if k is Ellipsis:
            expanded.extend([slice(None)] * (nd - n_real))
            where.extend([i] * (nd - n_real))
        else:
            expanded.append(k)
            where.append(i)
    r = self
    dim = 0
    for k, pos in zip(expanded, where):
        if k is None:
            r = F.unsqueeze(r, dim)
            dim += 1
        elif isinstance(k, int):
            size = r._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {size}")
            r = apply1(
                SH.SELECT, r, {"dim": dim, "index": k % size, "self_sym_sizes": r._data.shape}
            )
        else:
            size = r._data.shape[dim]
            start, stop, step = k.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if whole or not (start == 0 and stop >= size and step == 1):
                stop = max(stop, start)
                r = apply1(
                    SH.SLICE,
                    r,
                    {
                        "dim": dim,
                        "start": start,
                        "end": stop,
                        "step": step,
                        "self_sym_sizes": r._data.shape,
                    },
                )
            dim += 1
    return r


def index_error(e: IndexError) -> IndexError:
    """NumPy's out-of-bounds message in torch's words (dimension, not axis)."""
    m = str(e)
    if m.startswith("index ") and " for axis " in m:
        if m.endswith("with size 0"):
            return IndexError("index is out of bounds for dimension with size 0")
        return IndexError(m.replace(" for axis ", " for dimension "))
    return IndexError(m)


Tensor.__getitem__ = _getitem
Tensor._is_view = lambda self: self._base is not None


Tensor.clamp_ = _inplace(F.clamp_call("clamp_", True), cpp_names=True)
_abs_inplace = _inplace(F.abs)


def _abs_(self):
    """``x.abs_()``: torch has no in-place complex abs (its result would be real)."""
    self._check_inplace()  # torch's leaf check comes first
    if self._data.dtype.kind == "c":
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _abs_inplace(self)


Tensor.abs_ = _abs_
Tensor.clip_ = _inplace(F.clamp_call("clip_", True), cpp_names=True)
Tensor.floor_divide_ = _inplace(F.AR.floor_divide_inplace)

Tensor.__iadd__ = Tensor.add_
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_
Tensor.__ipow__ = Tensor.pow_
Tensor.__imod__ = Tensor.remainder_
Tensor.__ifloordiv__ = Tensor.floor_divide_


Tensor.copy_ = _copy_  # zero_ and fill_: _methods_ext (they also clear forward tangents)
