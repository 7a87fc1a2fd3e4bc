"""Comparisons, logical ops and tests (``eq``, ``isclose``, ``all``...): no gradient, torch's
promotion and messages."""

from __future__ import annotations

import numpy as np

from .._errors import broadcast_error as _broadcast_error
from ..autograd.engine import device_mismatch, same_device
from ..tensor import Tensor
from ._api_base import _SCALARS, _dims, _t, _xp
from .dispatch import as_operand
from .out import out_call


# ---------------------------------------------------------------- comparisons (no grad)
def _host0(t: Tensor) -> Tensor:
    return Tensor._wrap(np.asarray(t._data)) if isinstance(t._data, np.generic) else t


def _operands(input, other):
    """The arrays of a comparison's operands on one device: a 0-d cpu tensor meets a device
    tensor as a number (torch allows it); other mixes raise torch's device error."""
    if not isinstance(input, Tensor):
        b, a = (
            _operands(other, input)
            if isinstance(other, Tensor)
            else (np.asarray(other), np.asarray(input))
        )
        return a, b
    a = input._data
    if isinstance(other, Tensor):
        b = other._data
        if not same_device(a, b):
            # (a 0-d result may still be held as a NumPy scalar: a host value too)
            if isinstance(a, np.generic) or isinstance(b, np.generic):
                return _operands(_host0(input), _host0(other))
            if not b.ndim and b.__class__ is np.ndarray:
                return a, b.item()
            if not a.ndim and a.__class__ is np.ndarray:
                return a.item(), b
            raise device_mismatch([input, other])
        return a, b
    if isinstance(other, _SCALARS):
        return a, other
    o = as_operand(other, input)
    return a, (o._data if isinstance(o, Tensor) else o)


def _is_complex(v) -> bool:
    """A complex operand: a Python complex or a complex array (plain numbers skip NumPy)."""
    return v.__class__ is complex or (v.__class__ not in _SCALARS_T and v.dtype.kind == "c")


_SCALARS_T = (int, float, bool)


def _result_type(a, b) -> np.dtype:
    """torch's promotion of two comparison operands (a Python complex with an integral tensor
    is the default complex dtype, not NumPy's complex128)."""
    from .._dtype import result_type

    arrays = [(np.ndim(v), v.dtype) for v in (a, b) if hasattr(v, "dtype")]
    return result_type(arrays, [v for v in (a, b) if not hasattr(v, "dtype")])


def _cmp(f, name, tensors_only=False):
    """``tensors_only``: torch has no Scalar overload (logical_*); the refusal of a non-Tensor
    is made where the function is bound (_aliases.check_tensor_params)."""

    def fn(input, other, *, out=None) -> Tensor:
        if not tensors_only and not isinstance(input, Tensor):  # torch's overloads: Tensor first
            from ._api_base import invalid_combination

            raise invalid_combination(
                name,
                (input, other),
                {},
                (
                    (("Tensor", "input"), ("Tensor", "other")),
                    (("Tensor", "input"), ("Number", "other")),
                ),
            )
        if out is not None:
            return out_call(
                name, fn, (input, other), {}, out, differentiable=False, dtype_rule="any"
            )
        a, b = _operands(input, other)
        if ordering and (_is_complex(a) or _is_complex(b)):
            try:  # torch broadcasts before it dispatches on the dtype
                np.broadcast_shapes(np.shape(a), np.shape(b))
            except ValueError:
                _broadcast_error(np.shape(a), np.shape(b))
            from .registry import kernel_refuses

            raise kernel_refuses(f"{name}_cpu").error(None, np.empty(0, _result_type(a, b)))
        try:
            r = f(a, b)
        except ValueError:
            _broadcast_error(a.shape, np.shape(b))
        return Tensor._wrap(
            np.asarray(r) if not hasattr(r, "shape") or r.__class__ is np.bool_ else r
        )

    ordering = name in ("lt", "le", "gt", "ge")  # complex numbers have no order
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` comparison; returns a bool tensor (no gradient)."
    return fn


eq = _cmp(np.equal, "eq")
ne = _cmp(np.not_equal, "ne")
lt = _cmp(np.less, "lt")
le = _cmp(np.less_equal, "le")
gt = _cmp(np.greater, "gt")
ge = _cmp(np.greater_equal, "ge")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and = _cmp(np.logical_and, "logical_and", tensors_only=True)
logical_or = _cmp(np.logical_or, "logical_or", tensors_only=True)
logical_xor = _cmp(np.logical_xor, "logical_xor", tensors_only=True)


def logical_not(input) -> Tensor:
    return Tensor._wrap(np.asarray(np.logical_not(input._data)))


def isnan(input) -> Tensor:
    return Tensor._wrap(np.asarray(np.isnan(input._data)))


def isinf(input) -> Tensor:
    return Tensor._wrap(np.asarray(np.isinf(input._data)))


def isfinite(input) -> Tensor:
    return Tensor._wrap(np.asarray(np.isfinite(input._data)))


def equal(input, other) -> bool:
    """Same shape and same values (torch's device error for tensors on two devices)."""
    a, b = _operands(input, other)
    return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    a, b = _operands(input, _t(other, input))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    a, b = _operands(input, _t(other, input))
    return Tensor._wrap(np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def all(input, dim=None, keepdim=False) -> Tensor:
    return _logical_reduction(
        input, np.all(input._data, axis=_dims(dim, input._data.ndim), keepdims=keepdim)
    )


def any(input, dim=None, keepdim=False) -> Tensor:
    return _logical_reduction(
        input, np.any(input._data, axis=_dims(dim, input._data.ndim), keepdims=keepdim)
    )


def _logical_reduction(input, r) -> Tensor:
    """all/any's result: bool, but uint8 for a uint8 input (torch keeps that legacy)."""
    r = _xp(input).asarray(r)
    return Tensor._wrap(r.astype(np.uint8) if input._data.dtype == np.uint8 else r)
