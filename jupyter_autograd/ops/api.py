"""The public op functions (``jupyter_autograd.exp``, ``.matmul``...): argument handling in
torch's signatures, then one registry row (or a composition of rows) each."""

from __future__ import annotations

import builtins
from collections import namedtuple

import numpy as np

from .. import _dtype
from ..grad_mode import STATE
from ..tensor import Tensor, _wrap_dim
from . import elementwise as EW
from . import linalg as LA
from . import loss as LS
from . import reduction as RD
from . import rounding as RO
from . import shape as SH
from .dispatch import apply, apply1, apply2, as_operand
from .out import out_call


def _xp(t):
    """The array namespace of a tensor's device (NumPy, CuPy)."""
    from ..autograd.engine import xp_of  # noqa: PLC0415

    return xp_of(t._data)

_SCALARS = (int, float, bool, complex)


def _t(x, like=None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if like is not None:
        return as_operand(x, like) if not isinstance(x, _SCALARS) else _scalar_tensor(x, like)
    from ..factories import tensor  # noqa: PLC0415

    return tensor(x)


def _scalar_tensor(v, like: Tensor) -> Tensor:
    from ..factories import tensor  # noqa: PLC0415

    return tensor(v, device=like.device)


def _dims(dim, ndim: int):
    """``dim`` as a sorted tuple of wrapped dims (None: all). A 0-d tensor accepts dim 0 and
    -1, as torch does, and has nothing to reduce over: ()."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
    else:
        dims = (_wrap_dim(dim, ndim),)
    return dims if ndim else ()


def tensor_args(*names):
    """torch's signature takes Tensors for ``names`` (no Python numbers): its TypeError, at
    each argument's position (a Tensor method's ``self`` is not counted: see _tensor_methods)."""
    def deco(fn):
        fn._tensor_args = names
        return fn
    return deco


def check_tensor_args(name, names, args, first=1) -> None:
    for i, (n, v) in enumerate(zip(names, args)):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{name}(): argument '{n}' (position {i + first}) must be Tensor, not {type(v).__name__}")


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
        return add(_t(other), input, alpha=1) if alpha == 1 else add(_t(input, other), other, alpha=alpha)
    return apply2(EW.ADD, input, other, None if alpha == 1 else {"alpha": alpha})


def sub(input, other, *, alpha=1, out=None) -> Tensor:
    """``input - alpha * other`` (SubBackward0)."""
    if out is not None:
        return out_call("sub", sub, (input, other), {"alpha": alpha}, out)
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    sub_check(input, other)
    return apply2(EW.SUB, input, other, None if alpha == 1 else {"alpha": alpha})


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
    return apply1(EW.RSUB, a, p)


def _promote_scalar(t: Tensor, s):
    from .dispatch import promote2  # noqa: PLC0415

    return promote2(t, s)


def mul(input, other, *, out=None) -> Tensor:
    """Elementwise product (MulBackward0)."""
    if out is not None:
        return out_call("mul", mul, (input, other), {}, out)
    if not isinstance(input, Tensor):
        return apply2(EW.MUL, other, input)
    return apply2(EW.MUL, input, other)


def div(input, other, *, rounding_mode=None, out=None) -> Tensor:
    """True division (DivBackward0); ``rounding_mode='floor'|'trunc'`` rounds the quotient
    (DivBackward2, zero gradient; integers stay integers and refuse a zero divisor)."""
    if out is not None:
        return out_call("div", div, (input, other), {"rounding_mode": rounding_mode}, out)
    if rounding_mode is not None:
        return RO.div_rounded(input, other, rounding_mode)
    if not isinstance(input, Tensor):
        input = _t(input, other)
    if input._data.dtype.kind in "iub" and (not isinstance(other, Tensor) or other._data.dtype.kind in "iub") and not isinstance(other, float):
        input = input.to(_dtype.get_default_dtype())
    return apply2(EW.DIV, input, other)


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


def pow(input, exponent, *, out=None) -> Tensor:  # noqa: A001 - torch's name
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
        elif e._data.dtype.kind == "c" and isinstance(input, (int, float)):
            input = complex(input)  # torch's pow_backward_exponent takes the complex log of the base
        return apply1(EW.POW_ST, e, {"self": input})
    if isinstance(exponent, Tensor):
        return apply2(EW.POW_TT, input, exponent)
    if isinstance(exponent, np.generic):
        exponent = exponent.item()
    a = input
    k = a._data.dtype.kind
    if isinstance(exponent, float) and k in "iub":
        a = a.to(_dtype.get_default_dtype())
    elif k in "iub" and exponent.__class__ is int:
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if k == "b":  # bool ** int is computed in torch's result type, int64
            a = a.to(_dtype.int64)
    return apply1(EW.POW, a, {"exponent": exponent})


def square(input) -> Tensor:
    return pow(input, 2)


def float_power(input, exponent) -> Tensor:
    """``input ** exponent`` in double precision: float64, or complex128 if either is complex."""
    complex_ = builtins.any(isinstance(v, complex) or (isinstance(v, Tensor) and v._data.dtype.kind == "c")
                   for v in (input, exponent))
    dt = _dtype.complex128 if complex_ else _dtype.float64
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dt)
    return pow(_t(input).to(dt), exponent)


def _float(x: Tensor) -> Tensor:
    """Integer inputs of float functions (exp, sqrt...) are promoted to the default dtype."""
    if x._data.dtype.kind in "iub":
        return x.to(_dtype.get_default_dtype())
    return x


def _unary_fn(op, name):
    def fn(input, *, out=None) -> Tensor:
        if out is not None:
            return out_call(name, fn, (input,), {}, out)
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


def abs(input, *, out=None) -> Tensor:  # noqa: A001
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
    return RO._unary_rounding(EW.FLOOR, "floor_vml", input)


def ceil(input, *, out=None) -> Tensor:
    if out is not None:
        return out_call("ceil", ceil, (input,), {}, out, dtype_rule="found")
    return RO._unary_rounding(EW.CEIL, "ceil_vml", input)


_NO_DECIMALS = object()


def round(input, *, decimals=_NO_DECIMALS, out=None) -> Tensor:  # noqa: A001
    """Round half to even (RoundBackward0); with ``decimals`` (even 0), torch's other overload
    (RoundBackward1). The gradient is zero."""
    if out is not None:
        return out_call("round", round, (input,), {"decimals": decimals}, out, dtype_rule="found")
    if decimals is not _NO_DECIMALS:
        return RO.round_decimals(input, decimals)
    return RO._unary_rounding(EW.ROUND, "round_vml", input)


trunc, fix, frac = RO.trunc, RO.fix, RO.frac
remainder, fmod, floor_divide = RO.remainder, RO.fmod, RO.floor_divide
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = RO.bitwise_and, RO.bitwise_or, RO.bitwise_xor, RO.bitwise_not
bitwise_left_shift, bitwise_right_shift = RO.bitwise_left_shift, RO.bitwise_right_shift


def clamp(input, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002
    """Clip to [min, max]: ClampBackward1 for numbers, ClampBackward0 when a bound is a tensor
    (then the bounds get gradients too, as torch's clamp_backward_min_max).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([-2., 0.5, 3.], requires_grad=True).clamp(-1, 1)
        tensor([-1.0000,  0.5000,  1.0000], grad_fn=<ClampBackward1>)
    """
    if out is not None:
        return out_call("clamp", clamp, (input, min, max), {}, out, dtype_rule=_clamp_out_rule(min, max))
    return _clamp(input, (), {"min": min, "max": max}, "clamp", False)


def clip(input, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002
    if out is not None:
        return out_call("clamp", clip, (input, min, max), {}, out, dtype_rule=_clamp_out_rule(min, max))
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
        if builtins.all(_bound_is_number(b) for b in tensors):  # a 0-d tensor with a number: numbers
            lo, hi = (b.item() if isinstance(b, Tensor) else b for b in (lo, hi))
            tensors = []
        else:
            raise TypeError(_clamp_signature_error(name, method, args, kwargs))
    if tensors:
        ts = [input] + [b if b is None or isinstance(b, Tensor) else _scalar_tensor(b, input) for b in (lo, hi) if b is not None]
        rt = _dtype.result_type([(x._data.ndim, x._data.dtype) for x in ts])
        ts = [x if x._data.dtype == rt else x.to(_dtype.from_numpy_dtype(rt)) for x in ts]
        it = iter(ts[1:])
        lo, hi = (None if b is None else next(it) for b in (lo, hi))
        return apply(RO.CLAMP_T, (ts[0], lo, hi))
    a = input
    if (isinstance(lo, float) or isinstance(hi, float)) and a._data.dtype.kind in "iub":
        a = a.to(_dtype.get_default_dtype())
    return apply1(EW.CLAMP, a, {"min": lo, "max": hi})


def _clamp_signature_error(name, method, args, kwargs) -> str:
    """torch's arg-parser message for clamp bounds mixing a tensor and a number."""
    def tname(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    got_pos = [tname(a) for a in args]
    got_kw = [f"{k}={tname(v)}" for k, v in sorted(kwargs.items())]
    head = f"{name}() received an invalid combination of arguments - got ("
    if not method:
        got = ", ".join(["Tensor"] + got_pos + got_kw)
        return (head + got + "), but expected one of:\n"
                " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    if kwargs:
        got = ", ".join(got_pos + got_kw) if got_pos else "".join(k + ", " for k in got_kw)
        why = "some of the keywords were incorrect: " + ", ".join(sorted(kwargs))
    else:
        got = ", ".join(got_pos)
        why = "some of the arguments have invalid types: (" + ", ".join(f"!{t}!" for t in got_pos) + ")"
    return (head + got + "), but expected one of:\n"
            f" * (Tensor min = None, Tensor max = None)\n      didn't match because {why}\n"
            f" * (Number min = None, Number max = None)\n      didn't match because {why}\n")


def clamp_min(input, min, *, out=None):  # noqa: A002
    """``max(input, min)`` (ClampMinBackward0; ClampMinBackward1 for a tensor bound)."""
    if out is not None:
        return out_call("clamp_min", clamp_min, (input, min), {}, out, dtype_rule=_clamp_out_rule(min, None))
    return _clamp_one(input, min, RO.CLAMP_MIN, RO.CLAMP_MIN_T, "min")


def clamp_max(input, max, *, out=None):  # noqa: A002
    """``min(input, max)`` (ClampMaxBackward0; ClampMaxBackward1 for a tensor bound)."""
    if out is not None:
        return out_call("clamp_max", clamp_max, (input, max), {}, out, dtype_rule=_clamp_out_rule(None, max))
    return _clamp_one(input, max, RO.CLAMP_MAX, RO.CLAMP_MAX_T, "max")


def _clamp_one(input, bound, row, tensor_row, name):
    if isinstance(bound, Tensor):
        a, b = _promote_all([input, bound])
        return apply(tensor_row, (a, b))
    a = input
    if isinstance(bound, float) and a._data.dtype.kind in "iub":
        a = a.to(_dtype.get_default_dtype())
    return apply1(row, a, {name: bound})


@tensor_args("input", "other")
def maximum(input, other, *, out=None) -> Tensor:
    check_tensor_args("maximum", ("input", "other"), (input, other))
    if out is not None:
        return out_call("maximum", maximum, (input, other), {}, out)
    return apply2(EW.MAXIMUM, input, _t(other, input))


@tensor_args("input", "other")
def minimum(input, other, *, out=None) -> Tensor:
    check_tensor_args("minimum", ("input", "other"), (input, other))
    if out is not None:
        return out_call("minimum", minimum, (input, other), {}, out)
    return apply2(EW.MINIMUM, input, _t(other, input))


def where(condition, input=None, other=None) -> Tensor:
    """``input`` where ``condition`` else ``other`` (WhereBackward0); one argument gives
    ``condition.nonzero(as_tuple=True)``."""
    condition = _t(condition)
    if input is None and other is None:
        return tuple(Tensor._wrap(i) for i in np.nonzero(condition._data))
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = _t(input)
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype != other._data.dtype:
        from .dispatch import promote2  # noqa: PLC0415

        input, other = promote2(input, other)
    elif isinstance(input, Tensor) and not isinstance(other, Tensor):
        input, other = _promote_scalar(input, other)
    elif isinstance(other, Tensor) and not isinstance(input, Tensor):
        other, input = _promote_scalar(other, input)
    if condition._data.dtype.kind != "b":
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype.name.capitalize()}"
        )
    return apply(EW.WHERE, (condition, input, other))


# ---------------------------------------------------------------- comparisons (no grad)
def _host0(t: Tensor) -> Tensor:
    return Tensor._wrap(np.asarray(t._data)) if isinstance(t._data, np.generic) else t


def _operands(input, other):
    """The arrays of a comparison's operands on one device: a 0-d cpu tensor meets a device
    tensor as a number (torch allows it); other mixes raise torch's device error."""
    if not isinstance(input, Tensor):
        b, a = _operands(other, input) if isinstance(other, Tensor) else (np.asarray(other), np.asarray(input))
        return a, b
    a = input._data
    if isinstance(other, Tensor):
        b = other._data
        if b.__class__ is not a.__class__:
            # (a 0-d result may still be held as a NumPy scalar: a host value too)
            if isinstance(a, np.generic) or isinstance(b, np.generic):
                return _operands(_host0(input), _host0(other))
            if not b.ndim and b.__class__ is np.ndarray:
                return a, b.item()
            if not a.ndim and a.__class__ is np.ndarray:
                return a.item(), b
            from ..autograd.engine import device_mismatch  # noqa: PLC0415

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


def _cmp(f, name, tensors_only=False):
    @tensor_args(*(("input", "other") if tensors_only else ()))
    def fn(input, other, *, out=None) -> Tensor:
        if tensors_only:
            check_tensor_args(name, ("input", "other"), (input, other))
        if out is not None:
            return out_call(name, fn, (input, other), {}, out, differentiable=False, dtype_rule="any")
        a, b = _operands(input, other)
        if ordering and (_is_complex(a) or _is_complex(b)):
            try:  # torch broadcasts before it dispatches on the dtype
                np.broadcast_shapes(np.shape(a), np.shape(b))
            except ValueError:
                _broadcast_error(np.shape(a), np.shape(b))
            from .registry import kernel_refuses

            raise kernel_refuses(f"{name}_cpu").error(None, np.empty(0, np.result_type(a, b)))
        try:
            r = f(a, b)
        except ValueError:
            _broadcast_error(a.shape, np.shape(b))
        return Tensor._wrap(np.asarray(r) if not hasattr(r, "shape") or r.__class__ is np.bool_ else r)

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


def all(input, dim=None, keepdim=False) -> Tensor:  # noqa: A001
    return _logical_reduction(input, np.all(input._data, axis=_dims(dim, input._data.ndim), keepdims=keepdim))


def any(input, dim=None, keepdim=False) -> Tensor:  # noqa: A001
    return _logical_reduction(input, np.any(input._data, axis=_dims(dim, input._data.ndim), keepdims=keepdim))


def _logical_reduction(input, r) -> Tensor:
    """all/any's result: bool, but uint8 for a uint8 input (torch keeps that legacy)."""
    r = _xp(input).asarray(r)
    return Tensor._wrap(r.astype(np.uint8) if input._data.dtype == np.uint8 else r)


def _broadcast_error(s1, s2):
    n = builtins.max(len(s1), len(s2))
    a = (1,) * (n - len(s1)) + tuple(s1)
    b = (1,) * (n - len(s2)) + tuple(s2)
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                f"non-singleton dimension {i}"
            )
    raise RuntimeError(f"shapes {list(s1)} and {list(s2)} are not broadcastable")


# ---------------------------------------------------------------- reductions
def _check_float_reduce(input, name):
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype._legacy[:-6]}"
        )


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:  # noqa: A001
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.ones(2, 3).sum(0)
        tensor([2., 2., 2.])
    """
    if out is not None:
        return out_call("sum", sum, (input, dim, keepdim), {"dtype": dtype or _out_dtype(out)}, out, dtype_rule="any")
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "ib" or input._data.dtype.kind == "u":
        input = input.to(_dtype.int64) if input._data.dtype != np.int64 else input
    if dim is None:
        return apply1(RD.SUM, input, {"shape": input._data.shape})
    dims = _dims(dim, input._data.ndim)
    return apply1(RD.SUM_DIM, input, {"dim": dims, "keepdim": keepdim, "shape": input._data.shape})


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    """Mean of all elements (MeanBackward0) or over ``dim`` (MeanBackward1)."""
    if out is not None:
        return out_call("mean", mean, (input, dim, keepdim), {"dtype": dtype}, out)
    if dtype is not None:
        input = input.to(dtype)
    _check_float_reduce(input, "mean")
    if dim is None:
        return apply1(RD.MEAN, input, {"shape": input._data.shape, "numel": input._data.size})
    return apply1(RD.MEAN_DIM, input, {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim, "shape": input._data.shape})


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    if out is not None:
        return out_call("prod", prod, (input, dim, keepdim), {"dtype": dtype or _out_dtype(out)}, out, dtype_rule="any")
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "biu":  # torch's integral products are int64
        input = input.to(_dtype.int64)
    if dim is None:
        return apply1(RD.PROD, input, {"shape": input._data.shape})
    return apply1(RD.PROD_DIM, input, {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim, "shape": input._data.shape})


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
        vals = apply1(op, input, {"dim": 0, "keepdim": keepdim, "indices": idx, "out_shape": (), "shape": ()})
        return getattr(_ReturnTypes, kind)(vals, Tensor._wrap(idx.copy()))
    if input._data.shape[d] == 0:
        raise IndexError(
            f"{kind}(): Expected reduction dim {d} to have non-zero size."
        )
    idx = argf(input._data, axis=d, keepdims=True)
    out_shape = tuple(s for i, s in enumerate(input._data.shape) if i != d) if not keepdim else idx.shape
    idx_k = idx if keepdim else idx.reshape(out_shape)
    vals = apply1(op, input, {"dim": d, "keepdim": keepdim, "indices": idx_k, "out_shape": out_shape, "shape": input._data.shape})
    return getattr(_ReturnTypes, kind)(vals, Tensor._wrap(idx_k.astype(np.int64)))


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Max of all elements (MaxBackward1); with ``dim`` a (values, indices) pair (MaxBackward0);
    with a tensor ``dim`` the elementwise maximum."""
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        return apply1(RD.MAX, input)
    return _minmax_dim(input, dim, keepdim, RD.MAX_DIM, np.argmax, "max")


def min(input, dim=None, keepdim=False):  # noqa: A001
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    if dim is None:
        return apply1(RD.MIN, input)
    return _minmax_dim(input, dim, keepdim, RD.MIN_DIM, np.argmin, "min")


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
        for given in (dim if isinstance(dim, (list, tuple)) else (dim,)):
            if d.shape[_wrap_dim(given, d.ndim)] == 0 and d.ndim:
                raise IndexError(f"{name}(): Expected reduction dim {given} to have non-zero size.")
    return dims


def amax(input, dim=(), keepdim=False) -> Tensor:
    return apply1(RD.AMAX, input, {"dim": _extremum_dims(input, dim, "amax"), "keepdim": keepdim})


def amin(input, dim=(), keepdim=False) -> Tensor:
    return apply1(RD.AMIN, input, {"dim": _extremum_dims(input, dim, "amin"), "keepdim": keepdim})


def _arg_extremum(input, dim, keepdim, f, name) -> Tensor:
    d = input._data
    if d.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")
    if d.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if d.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
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
    out_numel = RD._count(shape, tuple(i for i in range(len(shape)) if i not in dims)) if dims is not None else 1
    if input._data.size // builtins.max(out_numel, 1) - c <= 0:
        import warnings  # noqa: PLC0415

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
    return apply1(RD.LOGSUMEXP, _float(input), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim})


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


def _vector_norm(x, ord, dim, keepdim) -> Tensor:  # noqa: A002 - torch's name
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
        for i in (dim if isinstance(dim, (list, tuple)) else (dim,)):
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
        raise NotImplementedError(f'"{name}_{kernel}" not implemented for \'{scalar_type(input)}\'')
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


# ---------------------------------------------------------------- linear algebra
def _mm_args(a, b, kind="mm"):
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"expected Tensor as element, got {type(b if isinstance(a, Tensor) else a).__name__}")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(_MM_DTYPE_ERRORS[kind](a, b))


def scalar_type(t) -> str:
    """torch's ScalarType name of a tensor's dtype: Float, Double, Long..."""
    return _dtype.from_numpy_dtype(t._data.dtype)._legacy[: -len("Tensor")]


# each product names a dtype mismatch its own way in torch 2.13
_MM_DTYPE_ERRORS = {
    "mm": lambda a, b: f"expected m1 and m2 to have the same dtype, but got: {_dname(a)} != {_dname(b)}",
    "dot": lambda a, b: (
        f"dot : expected both vectors to have same dtype, but found {scalar_type(a)} and {scalar_type(b)}"),
    "mv": lambda a, b: (
        f"addmv input tensors must have the same dtype, but got {scalar_type(b)}, {scalar_type(a)}, "
        f"and {scalar_type(b)}"),
    "bmm": lambda a, b: f"expected scalar type {scalar_type(a)} but found {scalar_type(b)}",
    "addmm": lambda a, b: (
        f"mat1 and mat2 must have the same dtype, but got {scalar_type(a)} and {scalar_type(b)}"),
    "addmm_self": lambda a, b: (
        f"self and mat2 must have the same dtype, but got {scalar_type(a)} and {scalar_type(b)}"),
}


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _dname(t):
    return _C_NAMES.get(t.dtype.name, t.dtype.name)


def mm(input, mat2, *, out=None) -> Tensor:
    """Matrix product of two 2-D tensors (MmBackward0)."""
    if out is not None:
        return out_call("mm", mm, (input, mat2), {}, out, dtype_rule="expected")
    _mm_args(input, mat2)
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"{'self' if input._data.ndim != 2 else 'mat2'} must be a matrix")
    return apply2(LA.MM, input, mat2)


def mv(input, vec, *, out=None) -> Tensor:
    if out is not None:
        return out_call("mv", mv, (input, vec), {}, out, dtype_rule=_mv_out_rule)
    _mm_args(input, vec, "mv")
    return apply2(LA.MV, input, vec)


def dot(input, tensor, *, out=None) -> Tensor:
    if out is not None:
        return out_call("dot", dot, (input, tensor), {}, out, dtype_rule=_dot_out_rule, resize_first=True)
    _mm_args(input, tensor, "dot")
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors"
        )
    return apply2(LA.DOT, input, tensor)


def bmm(input, mat2, *, out=None) -> Tensor:
    if out is not None:
        return out_call("bmm", bmm, (input, mat2), {}, out, dtype_rule="expected")
    _mm_args(input, mat2, "bmm")
    if input._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    return apply2(LA.BMM, input, mat2)


@tensor_args("input", "vec2")
def outer(input, vec2, *, _name="outer") -> Tensor:
    """``input[:, None] * vec2`` of two 1-D tensors (torch's outer: a broadcast mul)."""
    check_tensor_args(_name, ("input", "vec2"), (input, vec2))
    for arg, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {arg}, but got {t._data.ndim}-D")
    return mul(reshape(input, (-1, 1)), vec2)


@tensor_args("input", "vec2")
def ger(input, vec2) -> Tensor:
    return outer(input, vec2, _name="ger")


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
        return out_call("addmm", addmm, (input, mat1, mat2), {"beta": beta, "alpha": alpha}, out, dtype_rule="expected")
    _mm_args(mat1, mat2, "addmm")
    _mm_args(input, mat2, "addmm_self")
    if mat1._data.ndim == 2 and mat2._data.ndim == 2:
        _expanded_shape(input, (mat1._data.shape[0], mat2._data.shape[1]))
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


@tensor_args("input", "other")
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
    check_tensor_args("matmul", ("input", "other"), (input, other))
    if out is not None:
        return out_call("matmul", matmul, (input, other), {}, out, dtype_rule="expected")
    if not isinstance(input, Tensor) or not isinstance(other, Tensor) or input._data.dtype != other._data.dtype:
        _mm_args(input, other, _matmul_kind(input, other))
    da, db = input._data.ndim, other._data.ndim
    if da == 2 and db == 2:  # the common case first: one MmBackward0 node
        return apply2(LA.MM, input, other)
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
        return apply1(SH.SQUEEZE_INPLACE_DIM, r, {"dim": 0, "out_shape": r._data.shape[1:], "self_sym_sizes": r._data.shape})
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
        out = apply1(SH.UNSAFE_VIEW, r, {"size": out_shape + (t2._data.shape[1],), "self_sym_sizes": r._data.shape})
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
    batch = tuple(_broadcast_sizes(sa[:da - 2] if da > 2 else (), sb[:db - 2] if db > 2 else ()))
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


# ---------------------------------------------------------------- shapes
def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Tensor.__mro__[0].__class__)) and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 and numel == 0:  # torch's infer_size: any size would do
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def reshape(input, *shape) -> Tensor:
    """Same data in a new shape; one dimension may be -1. A view (ViewBackward0) where the
    strides allow one, else a copy (UnsafeViewBackward0 over CloneBackward0), as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(2, 3, requires_grad=True)
        >>> x.reshape(-1).grad_fn, x.t().reshape(-1).grad_fn
        (<ViewBackward0 object at 0x...>, <UnsafeViewBackward0 object at 0x...>)
    """
    d = input._data
    shape = _infer_shape(_shape_arg(shape), d.size)
    if _viewable(d, shape):
        row = SH.VIEW if d.flags.c_contiguous or d.__class__ is not np.ndarray else SH.RESHAPE_ALIAS
        return apply1(row, input, {"size": shape, "self_sym_sizes": d.shape})
    copy = apply1(SH.CLONE, input)
    return apply1(SH.UNSAFE_VIEW, copy, {"size": shape, "self_sym_sizes": d.shape})


def view(input, *shape) -> Tensor:
    """The same memory in a new shape (ViewBackward0); torch's error where no view can exist."""
    d = input._data
    shape = _infer_shape(_shape_arg(shape), d.size)
    if not _viewable(d, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return apply1(SH.VIEW, input, {"size": shape, "self_sym_sizes": d.shape})


def _viewable(d, shape) -> bool:
    """Whether ``d`` can take ``shape`` without copying (torch's computeStride criterion)."""
    if d.flags.c_contiguous or d.size <= 1:
        return True
    if d.__class__ is np.ndarray:
        try:
            np.reshape(d, shape, copy=False)
        except ValueError:
            return False
        return True
    return d.reshape(shape).base is not None  # other array libraries: did it view?


def flatten(input, start_dim=0, end_dim=-1) -> Tensor:
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s = _wrap_dim(start_dim, nd)
    e = _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    return reshape(input, shp[:s] + (-1,) + shp[e + 1:])


def unflatten(input, dim, sizes) -> Tensor:
    """Dimension ``dim`` as ``sizes`` (one may be -1), with torch's unflatten messages."""
    d = _wrap_dim(dim, input._data.ndim)
    shp = input._data.shape
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        sizes = _infer_shape(sizes, shp[d])
    except RuntimeError as e:
        if "can be any value" in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({shp[d]}) in the input tensor") from None
    return reshape(input, shp[:d] + sizes + shp[d + 1:])


def transpose(input, dim0, dim1) -> Tensor:
    nd = input._data.ndim
    return apply1(SH.TRANSPOSE, input, {"dim0": _wrap_dim(dim0, nd), "dim1": _wrap_dim(dim1, nd)})


swapaxes = swapdims = transpose


def t(input) -> Tensor:
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return apply1(SH.T, input)


def permute(input, *dims) -> Tensor:
    dims = _shape_arg(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    return apply1(SH.PERMUTE, input, {"dims": tuple(_wrap_dim(d, nd) for d in dims)})


def squeeze(input, dim=None) -> Tensor:
    shp = input._data.shape
    if dim is None:
        return apply1(SH.SQUEEZE, input, {"self_sym_sizes": shp})
    if not shp:
        _dims(dim, 0)
        if isinstance(dim, (list, tuple)):  # squeeze.dims (SqueezeBackward2), even on 0-d
            return apply1(SH.SQUEEZE_DIMS, input, {"dim": (0,) * len(dim), "out_shape": (), "self_sym_sizes": shp})
        return apply1(SH.SQUEEZE_DIM, input, {"dim": 0, "out_shape": (), "self_sym_sizes": shp})
    dims = _dims(dim, input._data.ndim)
    out_shape = tuple(s for i, s in enumerate(shp) if not (i in dims and s == 1))
    op = SH.SQUEEZE_DIM if not isinstance(dim, (list, tuple)) else SH.SQUEEZE_DIMS
    return apply1(op, input, {"dim": dims[0] if op is SH.SQUEEZE_DIM else dims, "out_shape": out_shape, "self_sym_sizes": shp})


def unsqueeze(input, dim) -> Tensor:
    return apply1(SH.UNSQUEEZE, input, {"dim": _wrap_dim(dim, input._data.ndim + 1)})


def expand(input, *sizes) -> Tensor:
    """Broadcast to a larger shape without copying (ExpandBackward0); -1 keeps a dimension."""
    sizes = _shape_arg(sizes)
    shp = input._data.shape
    full = _expanded_shape(input, sizes)
    return apply1(SH.EXPAND, input, {"size": full, "self_sym_sizes": shp})


def _expanded_shape(input, sizes) -> tuple:
    """The shape ``input.expand(*sizes)`` has, or torch's error for sizes it cannot take."""
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(
            f"expand({input.type()}{{{list(shp)}}}, size={list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(shp)})"
        )
    lead = len(sizes) - len(shp)
    full = []
    for i, s in enumerate(sizes):
        if s == -1:
            if i < lead:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )
            s = shp[i - lead]
        elif i >= lead and shp[i - lead] != s and shp[i - lead] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size "
                f"({shp[i - lead]}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                f"Tensor sizes: {list(shp)}"
            )
        full.append(s)
    return tuple(full)


def expand_as(input, other) -> Tensor:
    return expand(input, other._data.shape)


def broadcast_to(input, shape) -> Tensor:
    return expand(input, tuple(shape))


def repeat(input, *sizes) -> Tensor:
    sizes = _shape_arg(sizes)
    if len(sizes) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    return apply1(SH.REPEAT, input, {"repeats": sizes, "self_sym_sizes": input._data.shape})


def flip(input, dims) -> Tensor:
    if isinstance(dims, int):
        dims = (dims,)
    return apply1(SH.FLIP, input, {"dims": tuple(_wrap_dim(d, input._data.ndim) for d in dims)})


def clone(input, *, memory_format=None) -> Tensor:
    return apply1(SH.CLONE, input)


def cat(tensors, dim=0, *, out=None) -> Tensor:
    """Concatenate along ``dim`` (CatBackward0)."""
    if out is not None:
        return out_call("cat", cat, (tensors, dim), {}, out, dtype_rule=_cat_out_rule)
    tensors = [_t(x) for x in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    # torch skips legacy empty 1-D tensors of shape (0,) (they stay inputs of the node)
    skip = {i for i, x in enumerate(tensors) if x._data.ndim == 1 and x._data.shape[0] == 0}
    ts = [x for i, x in enumerate(tensors) if i not in skip]
    if not ts:  # all legacy empty: the first one's values, every one an input of the node
        ts, skip = [tensors[0]], set(range(1, len(tensors))) or None
    elif not skip:
        skip = None
    nd = ts[0]._data.ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, nd)
    ref = ts[0]._data.shape
    for i, x in enumerate(ts):
        s = x._data.shape
        if len(s) != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {len(s)}"
            )
        for j in range(nd):
            if j != d and s[j] != ref[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref[j]} "
                    f"but got size {s[j]} for tensor number {i} in the list."
                )
    if skip is None:
        # the result type counts the skipped empty tensors too (torch: bool with complex (0,) is complex)
        ts = _promote_all(ts, tensors)
        return apply(SH.CAT, tuple(ts), {"dim": d, "sizes": [x._data.shape[d] for x in ts]})
    ts = _promote_all(tensors)
    sizes = [0 if i in skip else x._data.shape[d] for i, x in enumerate(ts)]
    return apply(SH.CAT, tuple(ts), {"dim": d, "sizes": sizes, "skip": frozenset(skip)})


concat = concatenate = cat


def _out_dtype(out):
    """sum/prod into ``out`` accumulate in out's dtype, as torch's (a float input summed into a
    Long out is truncated first)."""
    return out.dtype if isinstance(out, Tensor) else None


def _cat_out_rule(r, o, inputs):
    from .out import can_cast  # noqa: PLC0415

    if can_cast(r.dtype, o.dtype):
        return None
    return TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                     f"{_dtype.from_numpy_dtype(o.dtype)._legacy[:-6]}")


def _mv_out_rule(r, o, inputs):
    if r.dtype == o.dtype:
        return None
    from .out import _dtype_error  # noqa: PLC0415

    if r.shape != o.shape:
        return _dtype_error("expected", r, o, inputs)
    names = [_dtype.from_numpy_dtype(d)._legacy[:-6] for d in (o.dtype, inputs[0]._data.dtype, inputs[1]._data.dtype)]
    return RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and {names[2]}")


def _dot_out_rule(r, o, inputs):
    if r.dtype == o.dtype:
        return None
    return RuntimeError(f"result dtype {_dtype.from_numpy_dtype(o.dtype)._legacy[:-6]} does not match "
                        f"input dtype {_dtype.from_numpy_dtype(r.dtype)._legacy[:-6]}")


def _clamp_out_rule(lo, hi):
    """clamp with number bounds wants the result's dtype exactly; with tensor bounds it casts."""
    return "cast" if isinstance(lo, Tensor) or isinstance(hi, Tensor) else "found"


def _promote_all(ts, among=None):
    """``ts`` in the result type of ``among`` (default: ``ts``)."""
    among = ts if among is None else among
    dts = {x._data.dtype for x in among}
    if len(dts) == 1:
        return ts
    rt = _dtype.result_type([(1, x._data.dtype) for x in among])
    return [x if x._data.dtype == rt else x.to(_dtype.from_numpy_dtype(rt)) for x in ts]


def stack(tensors, dim=0, *, out=None) -> Tensor:
    """Stack along a new dimension (StackBackward0)."""
    if out is not None:
        return out_call("stack", stack, (tensors, dim), {}, out, dtype_rule=_cat_out_rule, resize_first=True)
    tensors = [_t(x) for x in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._data.shape
    for i, x in enumerate(tensors):
        if x._data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                f"{list(x._data.shape)} at entry {i}"
            )
    d = _wrap_dim(dim, len(ref) + 1)
    return apply(SH.STACK, tuple(_promote_all(tensors)), {"dim": d})


def hstack(tensors):
    tensors = [_t(x) for x in tensors]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    return cat([x if x._data.ndim > 1 else reshape(x, (1, -1)) for x in map(_t, tensors)], 0)


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size, or of the given sizes (one multi-output node)."""
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n > 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        # torch: one piece (of size 0) for an empty dimension
        sizes = ([s] * (n // s) + ([n % s] if n % s else [])) if s > 0 and n else [0]
        node = "SplitBackward0"
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                f"dimension {d}), but got split_sizes={sizes}"
            )
        node = "SplitWithSizesBackward0"
    res = apply(SH.SPLIT, (tensor,), {"dim": d, "sizes": sizes, "split_sizes": sizes, "self_sym_sizes": tensor._data.shape})
    if node == "SplitBackward0" and res and res[0].grad_fn is not None:
        _rename_node(res[0].grad_fn, _SPLIT_NODE)
    return res


def _rename_node(node, cls):
    node.__class__ = cls


_SPLIT_NODE = type("SplitBackward0", (SH.SPLIT.node_cls,), {})
_SPLIT_NODE.__module__ = "builtins"


def chunk(input, chunks, dim=0):
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if n == 0:  # torch: ``chunks`` empty pieces (split_with_sizes)
        return split(input, [0] * chunks, d)
    return split(input, -(-n // chunks), d)


def _no_scalar_dim(input, dim) -> None:
    """torch's maybe_wrap_dim without wrap_scalar (unbind, roll): a 0-d tensor has no dims."""
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def unbind(input, dim=0):
    _no_scalar_dim(input, dim)
    d = _wrap_dim(dim, input._data.ndim)
    return apply(SH.UNBIND, (input,), {"dim": d})


def narrow(input, dim, start, length) -> Tensor:
    """torch's narrow: its checks, then always a slice (SliceBackward0, even over the whole
    dimension)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        start = int(start.item())
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size})."
        )
    return apply1(SH.SLICE, input, {"dim": d, "start": start, "end": start + length, "step": 1,
                                    "self_sym_sizes": input._data.shape})


def select(input, dim, index) -> Tensor:
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at dimension {d}")
    return apply1(SH.SELECT, input, {"dim": d, "index": index % n, "self_sym_sizes": input._data.shape})


def gather(input, dim, index, *, sparse_grad=False) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.size == 0 and idx.ndim != input._data.ndim:  # torch allows any empty index
        return reshape(reshape(input, (-1,))[:0], idx.shape)
    if input._data.ndim == 0:
        return reshape(gather(reshape(input, (1,)), 0, Tensor._wrap(idx.reshape(-1))), idx.shape)
    return apply1(SH.TAKE_ALONG, input, {"dim": d, "index": idx, "self_sym_sizes": input._data.shape})


def masked_fill(input, mask, value) -> Tensor:
    """``value`` where ``mask`` is True (MaskedFillBackward0); a tensor value goes through where."""
    mask = _t(mask)
    if isinstance(value, Tensor):
        if value._requires_grad or value._data.ndim or value._fw:
            return where(mask, value, input)
        value = value.item()
    if mask._data.dtype.kind != "b":
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    return apply1(SH.MASKED_FILL, input, {"mask": mask._data, "value": value})


def index_select(input, dim, index) -> Tensor:
    """Rows (along ``dim``) picked by an integer index (IndexSelectBackward0)."""
    d = _wrap_dim(dim, input._data.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if input._data.ndim == 0:  # torch: a 0-d tensor indexed by a one-element index
        return reshape(apply1(SH.INDEX_SELECT, reshape(input, (1,)), {"dim": 0, "index": idx.reshape(-1), "self_sym_sizes": (1,)}), ())
    return apply1(SH.INDEX_SELECT, input, {"dim": d, "index": idx, "self_sym_sizes": input._data.shape})


def trace(input) -> Tensor:
    n = builtins.min(input._data.shape)
    idx = np.arange(n)
    return sum(apply1(SH.INDEX, input, {"key": (idx, idx), "indices": None, "self_sym_sizes": input._data.shape}))


def cumsum(input, dim, *, dtype=None) -> Tensor:
    """Cumulative sum along ``dim`` (CumsumBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.cumsum(torch.tensor([1., 2., 3.]), 0)
        tensor([1., 3., 6.])
    """
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "iub" and input._data.dtype != np.int64:
        input = input.to(_dtype.int64)
    return apply1(RD.CUMSUM, input, {"dim": _wrap_dim(dim, input._data.ndim)})


def diag(input, diagonal=0) -> Tensor:
    if input._data.ndim == 1:
        n = input._data.shape[0]
        from ..factories import zeros  # noqa: PLC0415

        z = zeros(n, n, dtype=input.dtype)
        idx = np.arange(n)
        return apply(SH.INDEX_PUT, (z, input), {"key": (idx, idx), "shape": (n, n)})
    n = builtins.min(input._data.shape)
    idx = np.arange(n)
    return apply1(SH.INDEX, input, {"key": (idx, idx), "indices": None, "self_sym_sizes": input._data.shape})


def broadcast_tensors(*tensors):
    """Expand tensors to their common broadcast shape."""
    ts = [_t(x) for x in tensors]
    try:
        shape = np.broadcast_shapes(*[x._data.shape for x in ts])
    except ValueError:
        _broadcast_error(ts[0]._data.shape, ts[1]._data.shape)
    return tuple(x if x._data.shape == shape else expand(x, shape) for x in ts)


def broadcast_shapes(*shapes):
    from ..tensor import Size  # noqa: PLC0415

    return Size(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def erf(input, *, out=None) -> Tensor:
    """The error function (ErfBackward0), as ``torch.erf``."""
    if out is not None:
        return out_call("erf", erf, (input,), {}, out)
    from . import nn_ops  # noqa: PLC0415 - nn_ops imports this module

    return apply1(nn_ops.ERF, _float(input))
