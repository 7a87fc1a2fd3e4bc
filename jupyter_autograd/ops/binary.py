"""Binary and ternary elementwise rows: atan2, hypot, copysign, fmax/fmin, fmod, logaddexp,
xlogy, lerp, addcmul, addcdiv (broadcasting; the engine reduces each gradient to its input)."""

from __future__ import annotations

import math

from .registry import (
    AUTO_ELEMENT_WISE,
    ELEMENTWISE,
    HOLOMORPHIC,
    NO_GRAD,
    Refuse,
    defop,
    kernel_refuses,
)
from .xp import isnan

_LN2 = math.log(2.0)


def _b(
    name,
    node,
    fwd,
    da,
    db,
    saved=("other", "self"),
    domain=(-3, 3),
    avoid=(),
    smooth=True,
    torch=None,
    inputs=("self", "other"),
    sample=None,
    complex=HOLOMORPHIC,
    vjp=None,
    reads=None,
    integral=None,
):
    """A two-input row with partial derivatives ``da``/``db(xp, a, b, out, p)`` (or NO_GRAD);
    ``vjp``: the rules composed otherwise than ``g * da`` (as torch's formula, whose double
    backward records its own graph)."""
    vjp_a = (lambda xp, g, a, b, out, p: g * da(xp, a, b, out, p)) if da is not NO_GRAD else NO_GRAD
    vjp_b = (lambda xp, g, a, b, out, p: g * db(xp, a, b, out, p)) if db is not NO_GRAD else NO_GRAD
    if vjp is not None:
        vjp_a, vjp_b = vjp

    def jvp(xp, t, x, out, p):
        r = 0
        if da is not NO_GRAD:
            r = t[0] * da(xp, x[0], x[1], out, p)
        if db is not NO_GRAD:
            r = r + t[1] * db(xp, x[0], x[1], out, p)
        return r

    return defop(
        name,
        node=node,
        inputs=inputs,
        saved=saved,
        fwd=fwd,
        vjp=(vjp_a, vjp_b),
        jvp=jvp,
        reads=reads,
        integral=integral,
        complex=complex,
        batch=ELEMENTWISE,
        smooth=smooth,
        sample=sample or {"domain": domain, "avoid": {1: avoid}},
        torch=torch or (lambda t, a, b, _n=name: getattr(t, _n)(a, b)),
    )


# atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2); torch's atan2_backward takes
# 1 / (a^2 + b^2) as 0 where it is infinite (the origin), so both gradients there are (signed)
# zeros, not 0/0: recip.masked_fill_(recip.isinf(), 0), then grad * other * recip
def _neg_self(a):
    """torch's ``-self`` in atan2_backward: a bool self (atan2 of a mask) refused as neg."""
    if a.dtype == bool:
        from .elementwise import ERR_BOOL_NEG

        raise RuntimeError(ERR_BOOL_NEG)
    return -a


def _atan2_recip(xp, a, b):
    r = xp.reciprocal(a * a + b * b)
    return xp.masked_fill(r, xp.isinf(r), 0.0)


ATAN2 = _b(
    "atan2",
    "Atan2Backward0",
    lambda xp, a, b, p: xp.arctan2(a, b),
    lambda xp, a, b, out, p: b * _atan2_recip(xp, a, b),
    lambda xp, a, b, out, p: -a * _atan2_recip(xp, a, b),
    avoid=(0.0,),
    vjp=(
        lambda xp, g, a, b, out, p: g * b * _atan2_recip(xp, a, b),
        lambda xp, g, a, b, out, p: g * _neg_self(a) * _atan2_recip(xp, a, b),
    ),
    complex=kernel_refuses("atan2_cpu"),
)
HYPOT = _b(
    "hypot",
    "HypotBackward0",
    lambda xp, a, b, p: xp.hypot(a, b),
    lambda xp, a, b, out, p: a / out,
    lambda xp, a, b, out, p: b / out,
    vjp=(
        lambda xp, g, a, b, out, p: g * a / out,  # torch: grad * self / result
        lambda xp, g, a, b, out, p: g * b / out,
    ),
    saved=("other", "result", "self"),
    avoid=(0.0,),
    complex=kernel_refuses("hypot_cpu"),
    integral=kernel_refuses("hypot_cpu"),
)


# copysign: |a| with b's sign; d/da = result / a (0 where a == 0: torch's ratio.masked_fill_),
# b gets a zero gradient
def _copysign_da(xp, a, b, out, p):
    return xp.masked_fill(out / a, a == 0, 0.0)


COPYSIGN = _b(
    "copysign",
    "CopysignBackward0",
    lambda xp, a, b, p: xp.copysign(a, b),
    _copysign_da,
    lambda xp, a, b, out, p: 0.0,
    saved=("self", "result"),
    reads=((0, -1), ()),
    # torch's other: zeros_like(other), not grad * 0 (a nan or inf grad gives zeros too)
    vjp=(
        lambda xp, g, a, b, out, p: g * _copysign_da(xp, a, b, out, p),
        lambda xp, g, a, b, out, p: xp.zeros_like(g),
    ),
    avoid=(0.0,),
    smooth=False,
    complex=kernel_refuses("copysign_cpu"),
)


# copysign.Scalar: a number's sign, torch's other overload (CopysignBackward1, same formula)
COPYSIGN_SCALAR = defop(
    "copysign.Scalar",
    node="CopysignBackward1",
    inputs=("self",),
    saved=("self", "result"),
    fwd=lambda xp, a, p: xp.copysign(a, p["other"]),
    vjp=lambda xp, g, a, out, p: g * _copysign_da(xp, a, None, out, p),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    complex=kernel_refuses("copysign_cpu"),
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(0.1, 3, (3, 4)) * rng.choice([-1, 1], (3, 4))], f)
            for f in (lambda tt, t: tt.copysign(t, -2.0), lambda tt, t: tt.copysign(t, 1))
        ]
    },
)


# fmax/fmin ignore NaN: the gradient goes to the argument that was taken (a on ties)
def _fmax_a(xp, a, b, out, p):
    return (a >= b) | isnan(b)


def _fmin_a(xp, a, b, out, p):
    return (a <= b) | isnan(b)


FMAX = _b(
    "fmax",
    "FmaxBackward0",
    lambda xp, a, b, p: xp.fmax(a, b),
    _fmax_a,
    lambda xp, a, b, out, p: ~_fmax_a(xp, a, b, out, p),
    smooth=False,
    complex=Refuse(RuntimeError, "fmax not implemented for complex tensors.", first=True),
    # torch's grad.masked_fill(not taken, 0): zeros there even for an inf or nan gradient
    vjp=(
        lambda xp, g, a, b, out, p: xp.masked_fill(g, ~_fmax_a(xp, a, b, out, p), 0.0),
        lambda xp, g, a, b, out, p: xp.masked_fill(g, _fmax_a(xp, a, b, out, p), 0.0),
    ),
)
FMIN = _b(
    "fmin",
    "FminBackward0",
    lambda xp, a, b, p: xp.fmin(a, b),
    _fmin_a,
    lambda xp, a, b, out, p: ~_fmin_a(xp, a, b, out, p),
    smooth=False,
    complex=Refuse(RuntimeError, "fmin not implemented for complex tensors.", first=True),
    # torch's grad.masked_fill(not taken, 0): zeros there even for an inf or nan gradient
    vjp=(
        lambda xp, g, a, b, out, p: xp.masked_fill(g, ~_fmin_a(xp, a, b, out, p), 0.0),
        lambda xp, g, a, b, out, p: xp.masked_fill(g, _fmin_a(xp, a, b, out, p), 0.0),
    ),
)


# nextafter: torch passes the gradient to self where self != other (0 on ties: nextafter(a, a)
# is a) and none to other: zeros, also where the gradient is inf or nan (fuzz seed 309386: g * 0
# gave nan there)
NEXTAFTER = _b(
    "nextafter",
    "NextafterBackward0",
    lambda xp, a, b, p: xp.nextafter(a, b),
    lambda xp, a, b, out, p: a != b,
    lambda xp, a, b, out, p: 0.0,
    vjp=(
        lambda xp, g, a, b, out, p: xp.where(a == b, 0.0, g),
        lambda xp, g, a, b, out, p: g.new_zeros(g.shape) if xp.is_txp else xp.zeros_like(g),
    ),
    smooth=False,
    reads=((0, 1), ()),
    complex=kernel_refuses("nextafter_cpu"),
    integral=kernel_refuses("nextafter_cpu"),
)


# logaddexp(a, b) = log(e^a + e^b): d/da = 1 / (1 + e^(b - a))
def _logaddexp(xp, a, b, p):
    if a.dtype.kind != "c":
        return xp.logaddexp(a, b)
    # complex: the operand with the larger real part factored out, as torch's _log_add_exp_helper
    m = xp.where(a.real >= b.real, a, b)
    n = xp.where(a.real >= b.real, b, a)
    return m + xp.log1p(xp.exp(n - m))


def _logaddexp2(xp, a, b, p):
    """torch's CPU kernel: ``m + log1p(exp2(-|a - b|)) / ln 2`` with a fused multiply-add (the
    float32 product and sum rounded once: computed in float64 here; logaddexp2(-1, -1) is
    -1.06e-8 in torch, 0 in NumPy's), and ``a`` where both are the same infinity."""
    m = xp.maximum(a, b)
    y = xp.log1p(xp.exp2(-xp.abs(a - b)))
    k = a.dtype.type(_INV_LN2)  # 1 / ln 2 in the operands' dtype, as the kernel holds it
    if a.dtype.itemsize == 4:  # float32: one rounding of the exact product and sum
        r = (y.astype("float64") * float(k) + m).astype(a.dtype)
    else:
        r = m + y * k
    return xp.where(xp.isinf(a) & (a == b), a, r)


_INV_LN2 = 1.0 / math.log(2.0)


# torch: grad / (1 + exp(other - self)), grad / (1 + pow(2, other - self))
LOGADDEXP = _b(
    "logaddexp",
    "LogaddexpBackward0",
    _logaddexp,
    lambda xp, a, b, out, p: 1 / (1 + xp.exp(b - a)),
    lambda xp, a, b, out, p: 1 / (1 + xp.exp(a - b)),
    vjp=(
        lambda xp, g, a, b, out, p: g / xp.add_scalar(xp.exp(b - a), 1),
        lambda xp, g, a, b, out, p: g / xp.add_scalar(xp.exp(a - b), 1),
    ),
    integral=kernel_refuses("logaddexp_cpu"),
)
LOGADDEXP2 = _b(
    "logaddexp2",
    "Logaddexp2Backward0",
    _logaddexp2,
    lambda xp, a, b, out, p: 1 / (1 + xp.exp2(b - a)),
    lambda xp, a, b, out, p: 1 / (1 + xp.exp2(a - b)),
    vjp=(
        lambda xp, g, a, b, out, p: g / xp.add_scalar(xp.scalar_pow(2.0, b - a), 1),
        lambda xp, g, a, b, out, p: g / xp.add_scalar(xp.scalar_pow(2.0, a - b), 1),
    ),
    complex=kernel_refuses("logaddexp2_cpu"),
    integral=kernel_refuses("logaddexp2_cpu"),
)


# xlogy(a, b) = a log(b), 0 where a == 0 (unless b is NaN). torch's d/da is xlogy(grad, b), set to
# 0 where a == 0 and b <= 0: log(b) is taken at a == 0 too (the one-sided derivative), and a zero
# incoming gradient gives 0 even where log(b) is infinite. d/db = a / b.
def _xlogy(xp, a, b, p):
    return xp.where((a == 0) & ~xp.isnan(b), 0.0, a * xp.log(b)).astype(a.dtype)


def _xlog_partials(log, pole, row):
    """d/da of ``a * log(b)`` (log or log1p) as torch: ``xlogy(g, b)`` (``xlog1py``, the row
    itself, ``row()``) set to 0 where a == 0 and b is at or past the log's pole (masked_fill);
    the factor and the VJP."""

    def da(xp, a, b, out, p):
        return xp.where((a == 0) & (b <= pole), 0.0, log(xp, b))

    def vjp(xp, g, a, b, out, p):
        return xp.masked_fill(xp.call(row(), g, b), (a == 0) & (b <= pole), 0.0)

    return da, vjp


_xlogy_da, _xlogy_vjp_a = _xlog_partials(lambda xp, b: xp.log(b), 0, lambda: XLOGY)
_xlog1py_da, _xlog1py_vjp_a = _xlog_partials(lambda xp, b: xp.log1p(b), -1, lambda: XLOG1PY)


XLOGY = _b(
    "xlogy",
    "XlogyBackward0",
    _xlogy,
    _xlogy_da,
    lambda xp, a, b, out, p: a / b,
    domain=(0.1, 3),
    complex=kernel_refuses("xlogy_cpu"),
    vjp=(_xlogy_vjp_a, lambda xp, g, a, b, out, p: g * a / b),
)


def _xlog1py(xp, a, b, p):
    return xp.where((a == 0) & ~xp.isnan(b), 0.0, a * xp.log1p(b)).astype(a.dtype)


XLOG1PY = _b(
    "special_xlog1py",
    "SpecialXlog1PyBackward0",
    _xlog1py,
    _xlog1py_da,
    lambda xp, a, b, out, p: a / (b + 1),
    complex=kernel_refuses("xlog1py_cpu"),
    vjp=(_xlog1py_vjp_a, lambda xp, g, a, b, out, p: g * a / xp.add_scalar(b, 1)),
    torch=lambda torch, a, b: torch.special.xlog1py(a, b),
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-3, 3, (3, 4)), rng.uniform(0.1, 3, (4,))],
                lambda tt, a, b: tt.special.xlog1py(a, b),
            )
        ]
    },
)


# lerp(a, b, w) = a + w (b - a), computed from the nearer end as torch does (exact at w = 1)
def _lerp(xp, a, b, w):
    return xp.where(abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


LERP = _b(
    "lerp.Scalar",
    "LerpBackward0",
    lambda xp, a, b, p: _lerp(xp, a, b, p["weight"]),
    lambda xp, a, b, out, p: 1 - p["weight"],
    lambda xp, a, b, out, p: p["weight"],
    saved=("weight",),
    inputs=("self", "end"),
    # torch's grad * (1 - weight) and grad * weight: Scalar products (MulBackward1 recorded)
    vjp=(
        lambda xp, g, a, b, out, p: xp.mul_scalar(g, 1 - p["weight"]),
        lambda xp, g, a, b, out, p: xp.mul_scalar(g, p["weight"]),
    ),
    torch=lambda torch, a, b: torch.lerp(a, b, 0.3),
    sample={
        "cases": lambda rng: [
            (
                lambda a, b: a.lerp(b, 0.3),
                [rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, (4,))],
                lambda tt, a, b: a.lerp(b, 0.3),
            )
        ]
    },
)


def _lerp_jvp(xp, t, x, out, p):
    a, b, w = x
    return t[0] * (1 - w) + t[1] * w + t[2] * (b - a)


LERP_TENSOR = defop(
    "lerp.Tensor",
    node="LerpBackward1",
    inputs=("self", "end", "weight"),
    complex=HOLOMORPHIC,
    saved=("end", "self", "weight"),
    fwd=lambda xp, a, b, w, p: _lerp(xp, a, b, w),
    vjp=(
        lambda xp, g, a, b, w, out, p: g * (1 - w),
        lambda xp, g, a, b, w, out, p: g * w,
        lambda xp, g, a, b, w, out, p: g * (b - a),
    ),
    jvp=_lerp_jvp,
    sample={
        "cases": lambda rng: [
            (
                lambda a, b, w: a.lerp(b, w),
                [
                    rng.uniform(-3, 3, (3, 4)),
                    rng.uniform(-3, 3, (4,)),
                    rng.uniform(0.1, 0.4, (3, 1)),
                ],
                lambda tt, a, b, w: a.lerp(b, w),
            )
        ]
    },
)


def _value(p):
    return 1 if p is None else p["value"]


# addcmul(s, t1, t2, value) = s + value t1 t2; addcdiv = s + value t1 / t2
ADDCMUL = defop(
    "addcmul",
    node="AddcmulBackward0",
    inputs=("self", "tensor1", "tensor2"),
    complex=HOLOMORPHIC,
    saved=("tensor1", "tensor2", "value"),
    fwd=lambda xp, s, a, b, p: s + _value(p) * a * b,
    vjp=(
        lambda xp, g, s, a, b, out, p: g,
        lambda xp, g, s, a, b, out, p: g * b * _value(p),
        lambda xp, g, s, a, b, out, p: g * a * _value(p),
    ),
    jvp=lambda xp, t, x, out, p: t[0] + _value(p) * (t[1] * x[2] + x[1] * t[2]),
    sample={
        "cases": lambda rng: [
            (
                lambda s, a, b: s.addcmul(a, b, value=0.5),
                [rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, (4,)), rng.uniform(-3, 3, (3, 1))],
                lambda tt, s, a, b: s.addcmul(a, b, value=0.5),
            )
        ]
    },
)
ADDCDIV = defop(
    "addcdiv",
    node="AddcdivBackward0",
    inputs=("self", "tensor1", "tensor2"),
    complex=HOLOMORPHIC,
    saved=("tensor1", "tensor2", "value"),
    fwd=lambda xp, s, a, b, p: s + _value(p) * (a / b),
    vjp=(
        lambda xp, g, s, a, b, out, p: g,
        lambda xp, g, s, a, b, out, p: g * _value(p) / b,
        lambda xp, g, s, a, b, out, p: -g * _value(p) * a / (b * b),
    ),
    jvp=lambda xp, t, x, out, p: t[0] + _value(p) * (t[1] / x[2] - t[2] * x[1] / (x[2] * x[2])),
    sample={
        "cases": lambda rng: [
            (
                lambda s, a, b: s.addcdiv(a, b, value=0.5),
                [rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, (4,)), rng.uniform(1, 3, (3, 1))],
                lambda tt, s, a, b: s.addcdiv(a, b, value=0.5),
            )
        ]
    },
)


# ldexp: self * 2 ** other, torch's own node (LdexpBackward0 saves other and the result); the
# value is made by the caller (pow then mul, as torch's kernel) and handed in as _res
def _ldexp_self(xp, g, a, b, out, p):
    if xp.is_txp:  # torch's formula, grad * pow(2, other): its double backward records them
        from .api import mul, pow

        return mul(g, pow(2.0, b))
    return g * (2.0**b).astype(g.dtype)


LDEXP = defop(
    "ldexp.Tensor",
    node="LdexpBackward0",
    inputs=("self", "other"),
    saved=("other", "result"),
    fwd=lambda xp, a, b, p: p["_res"],
    vjp=(_ldexp_self, lambda xp, g, a, b, out, p: g * out * math.log(2.0)),
    reads=((1,), (-1,)),
    jvp=lambda xp, t, x, out, p: t[0] * 2.0 ** x[1] + t[1] * out * math.log(2.0),
    complex=HOLOMORPHIC,
    sample={
        "kind": "cases",
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))],
                lambda tt, a, b: tt.ldexp(a, b),
            )
        ],
    },
)
