"""The public op functions (``jupyter_autograd.exp``, ``.matmul``...): argument handling in
torch's signatures, then one registry row (or a composition of rows) each."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from . import api_rounding as AR
from . import arithmetic as ARITH
from . import elementwise as EW
from . import rounding as RO
from ._api_base import (
    _clamp_out_rule,
    _float,
    _promote_all,
    _scalar_tensor,
    _t,
)
from .dispatch import apply, apply1, apply2
from .out import out_call


# ---------------------------------------------------------------- arithmetic
def add(input, other, *, alpha=1, out=None) -> Tensor:
    """``input + alpha * other`` with broadcasting (AddBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.add(torch.tensor([1., 2.]), 1)
        tensor([2., 3.])
    """
    if out is not None:
        return out_call("add", add, (input, other), {"alpha": alpha}, out)
    if not isinstance(input, Tensor):
        return (
            add(_t(other), input, alpha=1)
            if alpha == 1
            else add(_t(input, other), other, alpha=alpha)
        )
    return apply2(ARITH.ADD, input, other, None if alpha == 1 else {"alpha": alpha})


def sub(input, other, *, alpha=1, out=None) -> Tensor:
    """``input - alpha * other`` (SubBackward0)."""
    if out is not None:
        return out_call("sub", sub, (input, other), {"alpha": alpha}, out)
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    sub_check(input, other)
    return apply2(ARITH.SUB, input, other, None if alpha == 1 else {"alpha": alpha})


def _is_bool(v) -> bool:
    return v.__class__ is bool or (isinstance(v, Tensor) and v._data.dtype.kind == "b")


def sub_check(a, b) -> None:
    """torch's sub_check: no subtraction with a bool operand (a Python bool counts)."""
    if _is_bool(a) or _is_bool(b):
        if _is_bool(a) and _is_bool(b):
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead."
            )
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )


def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input`` (RsubBackward1 when other is a number)."""
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    sub_check(other, input)
    a, _ = _promote_scalar(input, other)
    p = {"other": other}
    if alpha != 1:
        p["alpha"] = alpha
    return apply1(ARITH.RSUB, a, p)


def _promote_scalar(t: Tensor, s):
    from .dispatch import promote2

    return promote2(t, s)


def mul(input, other, *, out=None) -> Tensor:
    """Elementwise product (MulBackward0)."""
    if out is not None:
        return out_call("mul", mul, (input, other), {}, out)
    if not isinstance(input, Tensor):
        return apply2(ARITH.MUL, other, input)
    return apply2(ARITH.MUL, input, other)


def div(input, other, *, rounding_mode=None, out=None) -> Tensor:
    """True division (DivBackward0); ``rounding_mode='floor'|'trunc'`` rounds the quotient
    (DivBackward2, zero gradient; integers stay integers and refuse a zero divisor)."""
    if out is not None:
        return out_call("div", div, (input, other), {"rounding_mode": rounding_mode}, out)
    if rounding_mode is not None:
        return AR.div_rounded(input, other, rounding_mode)
    if not isinstance(input, Tensor):
        input = _t(input, other)
    if (
        input._data.dtype.kind in "iub"
        and (not isinstance(other, Tensor) or other._data.dtype.kind in "iub")
        and not isinstance(other, float)
    ):
        input = input.to(_dtype.get_default_dtype())
    return apply2(ARITH.DIV, input, other)


true_divide = divide = div
multiply = mul
subtract = sub


def reciprocal(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("reciprocal", reciprocal, (input,), {}, out)
    return apply1(EW.RECIPROCAL, _float(input))


def neg(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("neg", neg, (input,), {}, out, dtype_rule="found")
    return apply1(EW.NEG, input)


negative = neg


def pow(input, exponent, *, out=None) -> Tensor:
    """``input ** exponent``: PowBackward0 (scalar exponent), PowBackward1 (tensor), PowBackward2
    (scalar base).

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> x.pow(2)
        tensor([1., 4.], grad_fn=<PowBackward0>)
    """
    if out is not None:
        return out_call("pow", pow, (input, exponent), {}, out)
    if not isinstance(input, Tensor):
        e = _t(exponent)
        if e._data.dtype.kind in "iub" and isinstance(input, float):
            e = e.to(_dtype.get_default_dtype())
        elif e._data.dtype.kind in "iub" and isinstance(input, complex):
            e = e.to(_default_complex())  # complex64 where the default dtype is float32
        elif e._data.dtype.kind == "c" and isinstance(input, (int, float)):
            input = complex(
                input
            )  # torch's pow_backward_exponent takes the complex log of the base
        return apply1(ARITH.POW_ST, e, {"self": input})
    if isinstance(exponent, Tensor):
        return apply2(ARITH.POW_TT, input, exponent)
    if isinstance(exponent, np.generic):
        exponent = exponent.item()
    a = input
    k = a._data.dtype.kind
    if isinstance(exponent, float) and k in "iub":
        a = a.to(_dtype.get_default_dtype())
    elif isinstance(exponent, complex) and k in "iub":
        a = a.to(_default_complex())
    elif k in "iub" and exponent.__class__ is int:
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if k == "b":  # bool ** int is computed in torch's result type, int64
            a = a.to(_dtype.int64)
    return apply1(ARITH.POW, a, {"exponent": exponent})


def _default_complex():
    """The complex dtype of the default floating one (torch's default complex dtype)."""
    return _dtype.complex128 if _dtype.get_default_dtype() == _dtype.float64 else _dtype.complex64


def square(input) -> Tensor:
    return pow(input, 2)


def float_power(input, exponent) -> Tensor:
    """``input ** exponent`` in double precision: float64, or complex128 if either is complex."""
    complex_ = builtins.any(
        isinstance(v, complex) or (isinstance(v, Tensor) and v._data.dtype.kind == "c")
        for v in (input, exponent)
    )
    dt = _dtype.complex128 if complex_ else _dtype.float64
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dt)
    return pow(_t(input).to(dt), exponent)


def _unary_fn(op, name):
    def fn(input, *, out=None) -> Tensor:
        if out is not None:
            return out_call(name, fn, (input,), {}, out)
        if input.__class__ is not Tensor and getattr(input, "_bt", False):  # inside vmap
            return input._vmap_fn(name, input)
        if input._data.dtype.kind in "iub":
            input = input.to(_dtype.get_default_dtype())
        return apply1(op, input)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` ({op.node_name}), as ``torch.{name}``."
    return fn


exp = _unary_fn(EW.EXP, "exp")
log = _unary_fn(EW.LOG, "log")
log1p = _unary_fn(EW.LOG1P, "log1p")
expm1 = _unary_fn(EW.EXPM1, "expm1")
sqrt = _unary_fn(EW.SQRT, "sqrt")
rsqrt = _unary_fn(EW.RSQRT, "rsqrt")
sin = _unary_fn(EW.SIN, "sin")
cos = _unary_fn(EW.COS, "cos")
tan = _unary_fn(EW.TAN, "tan")
tanh = _unary_fn(EW.TANH, "tanh")
sigmoid = _unary_fn(EW.SIGMOID, "sigmoid")


def abs(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("abs", abs, (input,), {}, out, dtype_rule="found")
    return apply1(EW.ABS, input)


absolute = abs


def sign(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("sign", sign, (input,), {}, out, dtype_rule="found")
    return apply1(EW.SIGN, input)


def relu(input, inplace: bool = False) -> Tensor:
    """max(x, 0) (ReluBackward0); ``inplace=True`` writes into ``input`` (``input.relu_()``)."""
    if inplace:
        return input.relu_()
    return apply1(EW.RELU, input)


def floor(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("floor", floor, (input,), {}, out, dtype_rule="found")
    return AR._unary_rounding(EW.FLOOR, "floor_vml", input)


def ceil(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("ceil", ceil, (input,), {}, out, dtype_rule="found")
    return AR._unary_rounding(EW.CEIL, "ceil_vml", input)


_NO_DECIMALS = object()


def round(input, *, decimals=_NO_DECIMALS, out=None) -> Tensor:
    """Round half to even (RoundBackward0); with ``decimals`` (even 0), torch's other overload
    (RoundBackward1). The gradient is zero."""
    if out is not None:
        return out_call("round", round, (input,), {"decimals": decimals}, out, dtype_rule="found")
    if decimals is not _NO_DECIMALS:
        return AR.round_decimals(input, decimals)
    return AR._unary_rounding(EW.ROUND, "round_vml", input)


trunc, fix, frac = AR.trunc, AR.fix, AR.frac
remainder, fmod, floor_divide = AR.remainder, AR.fmod, AR.floor_divide
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = (
    AR.bitwise_and,
    AR.bitwise_or,
    AR.bitwise_xor,
    AR.bitwise_not,
)
bitwise_left_shift, bitwise_right_shift = AR.bitwise_left_shift, AR.bitwise_right_shift


def clamp(input, min=None, max=None, *, out=None) -> Tensor:
    """Clip to [min, max]: ClampBackward1 for numbers, ClampBackward0 when a bound is a tensor
    (then the bounds get gradients too, as torch's clamp_backward_min_max).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([-2., 0.5, 3.], requires_grad=True).clamp(-1, 1)
        tensor([-1.0000,  0.5000,  1.0000], grad_fn=<ClampBackward1>)
    """
    if out is not None:
        return out_call(
            "clamp", clamp, (input, min, max), {}, out, dtype_rule=_clamp_out_rule(min, max)
        )
    return _clamp(input, (), {"min": min, "max": max}, "clamp", False)


def clip(input, min=None, max=None, *, out=None) -> Tensor:
    if out is not None:
        return out_call(
            "clamp", clip, (input, min, max), {}, out, dtype_rule=_clamp_out_rule(min, max)
        )
    return _clamp(input, (), {"min": min, "max": max}, "clip", False)


def clamp_call(name, method):
    """``clamp``/``clip`` as called (positionally or by keyword): torch's argument parser
    names the arguments as given when the bounds mix a tensor with a number."""

    def fn(input, *args, **kwargs):
        return _clamp(input, args, kwargs, name, method)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = clamp.__doc__
    return fn


def _bound_is_number(b) -> bool:
    """torch's parser takes a 0-d tensor that does not require grad as a Number."""
    return not isinstance(b, Tensor) or (b._data.ndim == 0 and not b._requires_grad)


def _clamp(input, args, kwargs, name, method):
    names = ("min", "max")
    if len(args) > 2:  # (the API binding words it as torch's parser)
        raise TypeError(
            f"{name}() takes from 1 to 3 positional arguments but {len(args) + 1} were given"
        )
    for k in kwargs:
        if k not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
    bounds = dict(zip(names, args))
    bounds.update(kwargs)
    lo, hi = bounds.get("min"), bounds.get("max")
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = [b for b in (lo, hi) if isinstance(b, Tensor)]
    if tensors and not (lo is None or hi is None or len(tensors) == 2):
        if builtins.all(
            _bound_is_number(b) for b in tensors
        ):  # a 0-d tensor with a number: numbers
            lo, hi = (b.item() if isinstance(b, Tensor) else b for b in (lo, hi))
            tensors = []
        else:
            raise TypeError(_clamp_signature_error(name, method, args, kwargs))
    if tensors:
        ts = [input] + [
            b if b is None or isinstance(b, Tensor) else _scalar_tensor(b, input)
            for b in (lo, hi)
            if b is not None
        ]
        rt = _dtype.result_type([(x._data.ndim, x._data.dtype) for x in ts])
        ts = [x if x._data.dtype == rt else x.to(_dtype.from_numpy_dtype(rt)) for x in ts]
        it = iter(ts[1:])
        lo, hi = (None if b is None else next(it) for b in (lo, hi))
        return apply(RO.CLAMP_T, (ts[0], lo, hi))
    a = input
    if lo.__class__ is complex or hi.__class__ is complex:
        lo, hi = _complex_bounds(a, lo, hi, name)
    if (isinstance(lo, float) or isinstance(hi, float)) and a._data.dtype.kind in "iub":
        a = a.to(_dtype.get_default_dtype())
    elif a._data.dtype.kind in "iub":
        kernel = (
            "clamp"
            if lo is not None and hi is not None
            else "clamp_min"
            if hi is None
            else "clamp_max"
        )
        bools = a._data.dtype.kind == "b" and builtins.all(
            b is None or b.__class__ is bool for b in (lo, hi)
        )
        lo, hi = _int_bound(a, lo, kernel, bools), _int_bound(a, hi, kernel, bools)
    return apply1(EW.CLAMP, a, {"min": lo, "max": hi})


def _complex_bounds(a, lo, hi, name):
    """Complex number bounds, as torch's clamp: a floating tensor takes them as real numbers
    (refused unless the imaginary part is 0), an in-place clamp of an integral one refuses the
    complex result type first; anything else is clamp's complex refusal (in the row)."""
    k = a._data.dtype.kind
    if k == "f":
        for b in (lo, hi):
            if b.__class__ is complex and b.imag:
                raise RuntimeError("value cannot be converted to type double without overflow")
        return (b.real if b.__class__ is complex else b for b in (lo, hi))
    if k in "iub" and name.endswith("_"):
        raise RuntimeError(
            "result type ComplexFloat can't be cast to the desired output type "
            + _dtype.cpp_name(a._data.dtype)
        )
    return lo, hi


def _int_bound(a, b, kernel, bools):
    """A number bound of an integral/bool tensor as torch's kernel converts it: a bool tensor
    with bool bounds (``bools``) is refused (no bool kernel), an int must fit the dtype (c10's
    checked conversion; an unsigned dtype takes a negative number that fits, wrapped)."""
    k = a._data.dtype.kind
    if k == "b":
        if bools:
            raise NotImplementedError(f"\"{kernel}_scalar_cpu\" not implemented for 'Bool'")
        return b
    if b.__class__ is not int:
        return b
    info = np.iinfo(a._data.dtype)
    if b > info.max or b < (-info.max if k == "u" else info.min):
        name = "int" if info.bits == 32 else a._data.dtype.name + "_t"
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return b % (info.max + 1) if b < 0 and k == "u" else b


def _clamp_signature_error(name, method, args, kwargs) -> str:
    """torch's arg-parser message for clamp bounds mixing a tensor and a number."""

    def tname(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    got_pos = [tname(a) for a in args]
    got_kw = [f"{k}={tname(v)}" for k, v in sorted(kwargs.items())]
    head = f"{name}() received an invalid combination of arguments - got ("
    if not method:
        got = ", ".join(["Tensor"] + got_pos + got_kw)
        return (
            head + got + "), but expected one of:\n"
            " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
        )
    if kwargs:
        got = ", ".join(got_pos + got_kw) if got_pos else "".join(k + ", " for k in got_kw)
        why = "some of the keywords were incorrect: " + ", ".join(sorted(kwargs))
    else:
        got = ", ".join(got_pos)
        why = (
            "some of the arguments have invalid types: ("
            + ", ".join(f"!{t}!" for t in got_pos)
            + ")"
        )
    return (
        head + got + "), but expected one of:\n"
        f" * (Tensor min = None, Tensor max = None)\n      didn't match because {why}\n"
        f" * (Number min = None, Number max = None)\n      didn't match because {why}\n"
    )


def clamp_min(input, min, *, out=None):
    """``max(input, min)`` (ClampMinBackward0; ClampMinBackward1 for a tensor bound)."""
    if out is not None:
        return out_call(
            "clamp_min", clamp_min, (input, min), {}, out, dtype_rule=_clamp_out_rule(min, None)
        )
    return _clamp_one(input, min, RO.CLAMP_MIN, RO.CLAMP_MIN_T, "min")


def clamp_max(input, max, *, out=None):
    """``min(input, max)`` (ClampMaxBackward0; ClampMaxBackward1 for a tensor bound)."""
    if out is not None:
        return out_call(
            "clamp_max", clamp_max, (input, max), {}, out, dtype_rule=_clamp_out_rule(None, max)
        )
    return _clamp_one(input, max, RO.CLAMP_MAX, RO.CLAMP_MAX_T, "max")


def _clamp_one(input, bound, row, tensor_row, name):
    if isinstance(bound, Tensor):
        a, b = _promote_all([input, bound])
        return apply(tensor_row, (a, b))
    a = input
    if isinstance(bound, float) and a._data.dtype.kind in "iub":
        a = a.to(_dtype.get_default_dtype())
    elif a._data.dtype.kind in "iub":
        bound = _int_bound(a, bound, "clamp_" + name, bound.__class__ is bool)
    return apply1(row, a, {name: bound})


def maximum(input, other, *, out=None) -> Tensor:
    if out is not None:
        return out_call("maximum", maximum, (input, other), {}, out)
    return apply2(ARITH.MAXIMUM, input, _t(other, input))


def minimum(input, other, *, out=None) -> Tensor:
    if out is not None:
        return out_call("minimum", minimum, (input, other), {}, out)
    return apply2(ARITH.MINIMUM, input, _t(other, input))


def where(condition, input=None, other=None) -> Tensor:
    """``input`` where ``condition`` else ``other`` (WhereBackward0); one argument gives
    ``condition.nonzero(as_tuple=True)``."""
    condition = _t(condition)
    if input is None and other is None:
        return tuple(Tensor._wrap(i) for i in np.nonzero(condition._data))
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = _t(input)
    orig = None
    if (
        isinstance(input, Tensor)
        and isinstance(other, Tensor)
        and input._data.dtype != other._data.dtype
    ):
        from .dispatch import promote_data

        orig = (condition, input, other)  # promoted inside the op, as torch
        input, other = promote_data(input, other)
    elif isinstance(input, Tensor) and not isinstance(other, Tensor):
        input, other = _promote_scalar(input, other)
    elif isinstance(other, Tensor) and not isinstance(input, Tensor):
        other, input = _promote_scalar(other, input)
    cd = condition._data.dtype
    if cd.kind != "b":
        if cd != np.uint8:
            from .registry import _CPP_NAMES

            raise RuntimeError(
                "where expected condition to be a boolean tensor, but got a tensor "
                f"with dtype {_CPP_NAMES.get(cd.name, cd.name)}"
            )
        import warnings

        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and "
            "will be removed in a future version of PyTorch. Use a boolean condition "
            "instead.",
            UserWarning,
            stacklevel=2,
        )
        condition = Tensor._wrap(condition._data != 0)
    return apply(ARITH.WHERE, (condition, input, other), None, orig)
