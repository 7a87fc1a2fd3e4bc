"""Tensor methods and operators: one-line aliases onto the op functions, plus indexing and the
in-place forms (``add_``, ``x[i] = v``...), bound onto Tensor here; the in-place machinery they
are made with is :mod:`._tensor_inplace`."""

from __future__ import annotations

import numpy as np

from . import _dtype, _errors
from ._tensor_inplace import (
    _copy_,
    _fill_,
    _inplace,
    _zero_,
)
from .ops import api as F
from .ops import elementwise as EW
from .ops import shape as SH
from .ops.dispatch import apply1, binary_method, unary_method
from .tensor import Tensor

ADD, SUB, MUL, DIV = EW.ADD, EW.SUB, EW.MUL, EW.DIV


# ---------------------------------------------------------------- operators (hot path)
_add = binary_method(ADD)
_sub_rows = binary_method(SUB)


def _sub(self, other):
    if other.__class__ is not float or self._data.dtype.kind == "b":
        F.sub_check(self, other)
    return _sub_rows(self, other)


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
_METHODS = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "divide",
    "multiply",
    "subtract",
    "pow",
    "neg",
    "negative",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "abs",
    "absolute",
    "sign",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "floor",
    "ceil",
    "round",
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    "maximum",
    "minimum",
    "square",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "isnan",
    "isinf",
    "isfinite",
    "equal",
    "allclose",
    "isclose",
    "all",
    "any",
    "sum",
    "mean",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "var",
    "std",
    "logsumexp",
    "norm",
    "softmax",
    "log_softmax",
    "matmul",
    "mm",
    "mv",
    "dot",
    "bmm",
    "outer",
    "ger",
    "addmm",
    "reshape",
    "view",
    "flatten",
    "unflatten",
    "transpose",
    "swapaxes",
    "swapdims",
    "t",
    "permute",
    "squeeze",
    "unsqueeze",
    "expand",
    "expand_as",
    "repeat",
    "flip",
    "clone",
    "split",
    "chunk",
    "unbind",
    "narrow",
    "select",
    "gather",
    "masked_fill",
    "index_select",
    "trace",
    "diag",
    "where",
    "float_power",
    "broadcast_to",
    "erf",
    "cumsum",
    "trunc",
    "fix",
    "frac",
    "remainder",
    "fmod",
    "floor_divide",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
]


def _method(fn, name):
    """A function as a Tensor method: torch's methods have no ``out=`` (only the functions do),
    and count positions after ``self`` in their argument errors."""
    tensors = getattr(fn, "_tensor_args", ())[1:]
    if tensors:

        def checked(self, *args, **kwargs):
            F.check_tensor_args(name, tensors, args)
            if "out" in kwargs:
                raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
            return fn(self, *args, **kwargs)

        checked.__name__ = checked.__qualname__ = name
        checked.__doc__ = fn.__doc__
        return checked
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


for _name in _METHODS:
    setattr(Tensor, _name, _method(getattr(F, _name), _name))
# the elementwise math methods run their row inline for floating tensors (the hot path)
for _name, _op in (
    ("exp", EW.EXP),
    ("log", EW.LOG),
    ("log1p", EW.LOG1P),
    ("expm1", EW.EXPM1),
    ("sqrt", EW.SQRT),
    ("rsqrt", EW.RSQRT),
    ("sin", EW.SIN),
    ("cos", EW.COS),
    ("tan", EW.TAN),
    ("tanh", EW.TANH),
    ("sigmoid", EW.SIGMOID),
    ("relu", EW.RELU),
):
    setattr(Tensor, _name, unary_method(_op, getattr(F, _name)))
Tensor.greater = F.gt
Tensor.less = F.lt
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


for _name in [
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "neg",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "abs",
    "sign",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "floor",
    "ceil",
    "round",
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    "square",
    "masked_fill",
    "true_divide",
    "multiply",
    "subtract",
    "divide",
    "erf",
    "trunc",
    "fix",
    "frac",
    "remainder",
    "fmod",
    "floor_divide",
]:
    setattr(
        Tensor,
        _name + "_",
        _inplace(
            getattr(F, _name),
            _name + "_" if _name == "masked_fill" else "error",
            _name in ("clamp", "clip", "clamp_min", "clamp_max"),
        ),
    )
Tensor.clamp_ = _inplace(F.clamp_call("clamp_", True), cpp_names=True)
_abs_inplace = Tensor.abs_


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


Tensor.zero_ = _zero_
Tensor.fill_ = _fill_
Tensor.copy_ = _copy_
