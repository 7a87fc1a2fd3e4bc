"""Elementwise rows: unary math (exp, log, sqrt, trigonometric, sigmoid, relu, abs, sign,
floor/ceil/round, clamp...).

The binary arithmetic rows of the family (add, sub, mul, div, pow, maximum/minimum, where) are
:mod:`.arithmetic`, imported first (the registry order); import them from there."""

from __future__ import annotations

import numpy as np

from .arithmetic import zero_grad
from .backward_rows import SIGMOID_BACKWARD, TANH_BACKWARD, THRESHOLD_BACKWARD, on_result
from .registry import (
    AS_WRITTEN,
    AUTO_ELEMENT_WISE,
    ELEMENTWISE,
    HOLOMORPHIC,
    Refuse,
    defop,
    kernel_refuses,
)

# ---------------------------------------------------------------- unary math


def _unary(
    name,
    node,
    fwd,
    vjp,
    saved,
    domain=(-3, 3),
    avoid=(),
    smooth=True,
    torch=None,
    complex=HOLOMORPHIC,
    bools=None,
    jvp=AUTO_ELEMENT_WISE,
):
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=fwd,
        vjp=vjp,
        jvp=jvp,
        smooth=smooth,
        sample={"domain": domain, "avoid": {0: avoid}},
        torch=torch or (lambda t, x, _n=name: getattr(t, _n)(x)),
        complex=complex,
        bools=bools,
        batch=ELEMENTWISE,
    )


_CLAMP_REFUSED = Refuse(NotImplementedError, "clamp is not supported for complex types")


ERR_BOOL_NEG = (
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
NEG = _unary(
    "neg",
    "NegBackward0",
    lambda xp, x, p: -x,
    lambda xp, g, x, out, p: -g,
    (),
    complex=AS_WRITTEN,
    bools=Refuse(RuntimeError, ERR_BOOL_NEG),
)
EXP = _unary(
    "exp",
    "ExpBackward0",
    lambda xp, x, p: xp.exp(x),
    lambda xp, g, x, out, p: g * out,
    ("result",),
)
LOG = _unary(
    "log",
    "LogBackward0",
    lambda xp, x, p: xp.log(x),
    lambda xp, g, x, out, p: g / x,
    ("self",),
    domain=(0.1, 5),
)
LOG1P = _unary(
    "log1p",
    "Log1PBackward0",
    lambda xp, x, p: xp.log1p(x),
    # torch's log1p_backward: grad / (self + 1)
    lambda xp, g, x, out, p: g / xp.add_scalar(x, 1),
    ("self",),
    domain=(-0.9, 5),
)
EXPM1 = _unary(
    "expm1",
    "Expm1Backward0",
    lambda xp, x, p: xp.expm1(x),
    # torch: grad * (result.conj() + 1)
    lambda xp, g, x, out, p: g * xp.add_scalar(xp.cj(out), 1),
    ("result",),
)
SQRT = _unary(
    "sqrt",
    "SqrtBackward0",
    lambda xp, x, p: xp.sqrt(x),
    lambda xp, g, x, out, p: g / xp.mul_scalar(xp.cj(out), 2),  # grad / (2 * result.conj())
    ("result",),
    domain=(0.1, 5),
)
# d/dx x^(-1/2) = -1/2 x^(-3/2) = -1/2 out^3
RSQRT = _unary(
    "rsqrt",
    "RsqrtBackward0",
    lambda xp, x, p: 1 / xp.sqrt(x),
    # torch: -0.5 * grad * result.pow(3)
    lambda xp, g, x, out, p: xp.mul_scalar(g, -0.5) * xp.pow_scalar(out, 3),
    ("result",),
    domain=(0.1, 5),
)
RECIPROCAL = _unary(
    "reciprocal",
    "ReciprocalBackward0",
    lambda xp, x, p: 1 / x,
    lambda xp, g, x, out, p: -g * (out * out),  # torch: -grad * (result * result)
    ("result",),
    domain=(-3, 3),
    avoid=(0.0,),
)


# abs: grad * sgn(x) for real and complex alike (sgn = x / |x|, 0 at 0); a complex input's
# tangent is Re(conj(t) sgn(x)), torch's handle_r_to_c(result, t.conj() * sgn(x))
def _abs_jvp(xp, t, x, out, p):
    t, x = t[0], x[0]
    if x.dtype.kind == "c":
        return xp.real(xp.conj(t) * xp.sgn(x))
    return t * xp.sign(x)


ABS = _unary(
    "abs",
    "AbsBackward0",
    lambda xp, x, p: xp.abs(x),
    lambda xp, g, x, out, p: g * xp.sgn(x),
    ("self",),
    jvp=_abs_jvp,
    avoid=(0.0,),
    smooth=False,
    complex=AS_WRITTEN,
    bools=kernel_refuses("abs_cpu"),
)
SIGN = _unary(
    "sign",
    "SignBackward0",
    lambda xp, x, p: xp.sgn(x),
    zero_grad,
    (),
    avoid=(0.0,),
    smooth=False,
    complex=Refuse(
        NotImplementedError,
        "Unlike NumPy, torch.sign is not intended to support "
        "complex numbers. Please use torch.sgn instead.",
    ),
)
SIN = _unary(
    "sin",
    "SinBackward0",
    lambda xp, x, p: xp.sin(x),
    lambda xp, g, x, out, p: g * xp.cos(x),
    ("self",),
)
COS = _unary(
    "cos",
    "CosBackward0",
    lambda xp, x, p: xp.cos(x),
    # grad * -self.sin().conj(), composed as torch's formula (its double backward
    # records Neg)
    lambda xp, g, x, out, p: g * -xp.cj(xp.sin(x)),
    ("self",),
)
# d/dx tan x = 1 + tan^2 x
TAN = _unary(
    "tan",
    "TanBackward0",
    lambda xp, x, p: xp.tan(x),
    lambda xp, g, x, out, p: g * xp.add_scalar(xp.pow_scalar(out, 2), 1),
    ("result",),
    domain=(-1.2, 1.2),
)
# torch: tanh_backward(grad, result), sigmoid_backward(grad, result), threshold_backward(grad,
# result, 0) for relu: ops with their own double backward (see backward_rows)
TANH = _unary(
    "tanh",
    "TanhBackward0",
    lambda xp, x, p: xp.tanh(x),
    on_result(TANH_BACKWARD),
    ("result",),
    complex=AS_WRITTEN,
)


# torch's 1 / (1 + exp(-x)): exact in the negative tail (sigmoid(-40) = 4.25e-18, where
# 0.5 tanh(x/2) + 0.5 cancels to 0), and 0 where exp(-x) overflows, silently, as torch
def _sigmoid(xp, x, p):
    with np.errstate(over="ignore"):
        return 1 / (1 + xp.exp(-x))


def _log_sigmoid(xp, x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): finite for every x (test plan A7)."""
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


SIGMOID = _unary(
    "sigmoid",
    "SigmoidBackward0",
    _sigmoid,
    on_result(SIGMOID_BACKWARD),
    ("result",),
    complex=AS_WRITTEN,
)
_RELU_THRESHOLD = {"threshold": 0}
# torch's threshold_backward: the gradient is cut where result <= 0 and passes elsewhere, NaN
# too; cut by a mask, not a product, so an inf/nan gradient there gives 0 (0 * inf is nan)
RELU = _unary(
    "relu",
    "ReluBackward0",
    lambda xp, x, p: xp.maximum(x, 0),
    on_result(THRESHOLD_BACKWARD, _RELU_THRESHOLD),
    ("result",),
    avoid=(0.0,),
    smooth=False,
    complex=_CLAMP_REFUSED,
    bools=Refuse(RuntimeError, "Boolean inputs not supported for relu"),
)
FLOOR = _unary(
    "floor",
    "FloorBackward0",
    lambda xp, x, p: xp.floor(x),
    zero_grad,
    (),
    avoid=tuple(float(i) for i in range(-3, 4)),
    smooth=False,
    complex=Refuse(NotImplementedError, "floor is not supported for complex inputs"),
)
CEIL = _unary(
    "ceil",
    "CeilBackward0",
    lambda xp, x, p: xp.ceil(x),
    zero_grad,
    (),
    avoid=tuple(float(i) for i in range(-3, 4)),
    smooth=False,
    complex=Refuse(NotImplementedError, "ceil is not supported for complex inputs"),
)
ROUND = _unary(
    "round",
    "RoundBackward0",
    lambda xp, x, p: xp.round(x),
    zero_grad,
    (),
    avoid=tuple(i + 0.5 for i in range(-4, 4)),
    smooth=False,
    complex=kernel_refuses("round_vml_cpu"),
)


def _clamp_fwd(xp, x, p):
    lo, hi = p["min"], p["max"]
    if lo is not None and hi is not None:
        return xp.minimum(xp.maximum(x, lo), hi)
    if lo is not None:
        return xp.maximum(x, lo)
    return xp.minimum(x, hi)


# the gradient passes where min <= x <= max, as torch's clamp_backward: a where, so that an
# inf/nan gradient outside gives 0 (a product with the mask would give nan)
def _clamp_vjp(xp, g, x, out, p):
    lo, hi = p["min"], p["max"]
    if lo is not None and hi is not None:
        return xp.where((x >= lo) & (x <= hi), g, 0)
    if lo is not None:
        return xp.where(x >= lo, g, 0)
    return xp.where(x <= hi, g, 0)


CLAMP = defop(
    "clamp",
    node="ClampBackward1",
    inputs=("self",),
    saved=("max", "min", "self"),
    batch=ELEMENTWISE,
    fwd=_clamp_fwd,
    vjp=_clamp_vjp,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    complex=_CLAMP_REFUSED,
    sample={"domain": (-3, 3), "params": {"min": -1.0, "max": 1.0}, "avoid": {0: (-1.0, 1.0)}},
    torch=lambda torch, x, min, max: torch.clamp(x, min, max),
)
