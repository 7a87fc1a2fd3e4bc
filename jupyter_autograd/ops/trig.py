"""Unary elementwise rows beyond the basics: inverse and hyperbolic trigonometry, logarithms and
exponentials in other bases, angle conversions and the rounding relatives.

Each row is declared by its forward and its derivative ``d(xp, x, out)``: the VJP is
``g * d`` and the JVP ``t * d`` (:func:`ew`)."""

from __future__ import annotations

import math

import numpy as np

from .registry import (
    AS_WRITTEN,
    AUTO_ELEMENT_WISE,
    ELEMENTWISE,
    HOLOMORPHIC,
    Refuse,
    defop,
    kernel_refuses,
    no_complex_autograd,
)

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _is_complex(x) -> bool:
    return getattr(x.dtype, "kind", None) == "c" or getattr(x.dtype, "is_complex", False)


def _conj(xp, d):
    if xp.is_txp:  # graph tensors (create_graph): conj of a real tensor is itself
        return xp.conj(d)
    return xp.conj(d) if d.dtype.kind == "c" else d


def ew(
    name,
    node,
    fwd,
    d,
    saved=("self",),
    domain=(-3, 3),
    avoid=(),
    smooth=True,
    torch=None,
    complex=HOLOMORPHIC,
    cut=False,
    den=False,
    vjp=None,
):
    """One elementwise row: ``fwd(xp, x, p)``; its derivative ``d(xp, x, out, p)``, composed as
    torch's formula so that a create_graph gradient records torch's graph (the Scalar overloads
    ``xp.add_scalar``...): the VJP is ``g * d`` (``g / d`` with ``den``: d is the denominator of
    torch's ``grad / (...)``), or ``vjp`` where torch's formula has another shape. ``cut``: the
    derivative recomputes a square root of the input, whose branch cut breaks the complex twin's
    reflection (on the cut ``d(conj z) != conj(d(z))`` by the sign of a zero): the VJP is written
    with torch's conjugate instead."""
    if vjp is not None:
        pass
    elif cut:

        def vjp(xp, g, x, out, p):
            return g * _conj(xp, d(xp, x, out, p))

        complex = AS_WRITTEN
    elif den:

        def vjp(xp, g, x, out, p):
            return g / d(xp, x, out, p)
    else:

        def vjp(xp, g, x, out, p):
            return g * d(xp, x, out, p)

    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=fwd,
        vjp=vjp,
        jvp=AUTO_ELEMENT_WISE,
        smooth=smooth,
        sample={"domain": domain, "avoid": {0: avoid}},
        complex=complex,
        torch=torch or (lambda t, x, _n=name: getattr(t, _n)(x)),
        batch=ELEMENTWISE,
    )


# d/dx acos x = -1/sqrt(1 - x^2); asin: +1/sqrt(1 - x^2); torch: (-self * self + 1).rsqrt()
ACOS = ew(
    "acos",
    "AcosBackward0",
    lambda xp, x, p: xp.arccos(x),
    lambda xp, x, out, p: -xp.rsqrt(xp.add_scalar(-x * x, 1)),
    domain=(-0.95, 0.95),
    cut=True,
    complex=AS_WRITTEN,
    # torch: grad * -((-self * self + 1).rsqrt()).conj(): the conjugate under the negation
    vjp=lambda xp, g, x, out, p: g * -_conj(xp, xp.rsqrt(xp.add_scalar(-x * x, 1))),
)
ASIN = ew(
    "asin",
    "AsinBackward0",
    lambda xp, x, p: xp.arcsin(x),
    lambda xp, x, out, p: xp.rsqrt(xp.add_scalar(-x * x, 1)),
    domain=(-0.95, 0.95),
    cut=True,
)
# torch: grad / (self * self + 1)
ATAN = ew(
    "atan",
    "AtanBackward0",
    lambda xp, x, p: xp.arctan(x),
    lambda xp, x, out, p: xp.add_scalar(x * x, 1),
    den=True,
)
# torch: grad * (self^2 - 1).rsqrt() for real inputs, ((self + 1).rsqrt() * (self - 1).rsqrt())
# for complex ones (the split roots follow acosh's branch), and grad * (self^2 + 1).rsqrt()
ACOSH = ew(
    "acosh",
    "AcoshBackward0",
    lambda xp, x, p: xp.arccosh(x),
    lambda xp, x, out, p: (
        xp.rsqrt(xp.add_scalar(x, 1)) * xp.rsqrt(xp.sub_scalar(x, 1))
        if _is_complex(x)
        else xp.rsqrt(xp.sub_scalar(x * x, 1))
    ),
    domain=(1.1, 4),
    cut=True,
)
ASINH = ew(
    "asinh",
    "AsinhBackward0",
    lambda xp, x, p: xp.arcsinh(x),
    lambda xp, x, out, p: xp.rsqrt(xp.add_scalar(xp.pow_scalar(x, 2), 1)),
    cut=True,
)
# torch: grad * 1 / (1 - self.pow(2))
ATANH = ew(
    "atanh",
    "AtanhBackward0",
    lambda xp, x, p: xp.arctanh(x),
    lambda xp, x, out, p: xp.scalar_sub(1, xp.pow_scalar(x, 2)),
    domain=(-0.9, 0.9),
    den=True,
    vjp=lambda xp, g, x, out, p: xp.mul_scalar(g, 1) / xp.scalar_sub(1, xp.pow_scalar(x, 2)),
)
SINH = ew("sinh", "SinhBackward0", lambda xp, x, p: xp.sinh(x), lambda xp, x, out, p: xp.cosh(x))
COSH = ew("cosh", "CoshBackward0", lambda xp, x, p: xp.cosh(x), lambda xp, x, out, p: xp.sinh(x))
# torch: grad / (self * ln 2), grad * result * ln 2
LOG2 = ew(
    "log2",
    "Log2Backward0",
    lambda xp, x, p: xp.log2(x),
    lambda xp, x, out, p: xp.mul_scalar(xp.cj(x), _LN2),
    domain=(0.1, 5),
    den=True,
)
LOG10 = ew(
    "log10",
    "Log10Backward0",
    lambda xp, x, p: xp.log10(x),
    lambda xp, x, out, p: xp.mul_scalar(xp.cj(x), _LN10),
    domain=(0.1, 5),
    den=True,
)
EXP2 = ew(
    "exp2",
    "Exp2Backward0",
    lambda xp, x, p: xp.exp2(x),
    lambda xp, x, out, p: out * _LN2,
    saved=("result",),
    vjp=lambda xp, g, x, out, p: xp.mul_scalar(g * out, _LN2),
)
DEG2RAD = ew(
    "deg2rad",
    "Deg2RadBackward0",
    lambda xp, x, p: x * (math.pi / 180),
    lambda xp, x, out, p: math.pi / 180,
    saved=(),
    complex=Refuse(RuntimeError, "deg2rad is not supported for complex tensors."),
)
RAD2DEG = ew(
    "rad2deg",
    "Rad2DegBackward0",
    lambda xp, x, p: x * (180 / math.pi),
    lambda xp, x, out, p: 180 / math.pi,
    saved=(),
    complex=Refuse(RuntimeError, "rad2deg is not supported for complex tensors."),
)


# sinc x = sin(pi x) / (pi x), 1 at 0; d/dx = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0
def _sinc_d(xp, x, out, p):
    px = x * math.pi
    safe = xp.where(x == 0, 1.0, x)
    return xp.where(x == 0, 0.0, (xp.cos(px) * math.pi * x - xp.sin(px)) / (safe * safe * math.pi))


def _sinc_vjp(xp, g, x, out, p):
    """torch's sinc_backward: where(self * self * pi == 0, 0,
    grad * ((self_pi * self_pi.cos() - self_pi.sin()) / (self * self * pi)))."""
    px = xp.mul_scalar(x, math.pi)
    sq = xp.mul_scalar(x * x, math.pi)
    return xp.where(sq == 0, 0.0, g * ((px * xp.cos(px) - xp.sin(px)) / sq))


def _sinc(xp, x, p):
    with np.errstate(all="ignore"):  # np.sinc is NumPy's Python code: its warnings are NumPy's
        return xp.sinc(x)


SINC = ew("sinc", "SincBackward0", _sinc, _sinc_d, vjp=_sinc_vjp)


# nan_to_num: finite values pass their gradient, replaced ones get none
def _nan_to_num_fwd(xp, x, p):
    if x.dtype.kind == "c":  # each part on its own
        return (_nan_to_num_fwd(xp, x.real, p) + 1j * _nan_to_num_fwd(xp, x.imag, p)).astype(
            x.dtype
        )
    big = np.finfo(x.dtype).max if x.dtype.kind == "f" else None
    nan, pos, neg = p["nan"], p["posinf"], p["neginf"]
    r = xp.where(xp.isnan(x), nan, x)
    r = xp.where(xp.isposinf(x), big if pos is None else pos, r)
    return xp.where(xp.isneginf(x), -big if neg is None else neg, r).astype(x.dtype)


NAN_TO_NUM = defop(
    "nan_to_num",
    node="NanToNumBackward0",
    inputs=("self",),
    saved=("self",),
    complex=no_complex_autograd("nan_to_num"),
    fwd=_nan_to_num_fwd,
    # x - x is 0 exactly where x is finite (NaN at inf and NaN): a device-agnostic isfinite
    vjp=lambda xp, g, x, out, p: g * ((x - x) == 0),
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "domain": (-3, 3),
        "cases": lambda rng: [
            (lambda t: t.nan_to_num(), [rng.uniform(-3, 3, (3, 4))], lambda tt, t: t.nan_to_num())
        ],
    },
)


# logit(x, eps): log(x / (1 - x)) on x clamped to [eps, 1 - eps]; the gradient 1/(x(1-x))
# is zero outside the clamp, NaN outside [0, 1] when eps is None (torch's logit_backward)
def _logit_fwd(xp, x, p):
    eps = p["eps"]
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    return xp.log(x / (1 - x))


def _logit_d(xp, x, out, p):
    eps = p["eps"]
    d = 1 / (x * (1 - x))
    if eps is None:
        return xp.where((x < 0) | (x > 1), float("nan"), d)
    return xp.where((x < eps) | (x > 1 - eps), 0.0, d)


LOGIT = defop(
    "logit",
    node="LogitBackward0",
    inputs=("self",),
    saved=("eps", "self"),
    complex=kernel_refuses("logit_cpu"),
    fwd=_logit_fwd,
    vjp=lambda xp, g, x, out, p: g * _logit_d(xp, x, out, p),
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "cases": lambda rng: [
            (lambda t: t.logit(), [rng.uniform(0.1, 0.9, (3, 4))], lambda tt, t: t.logit()),
            (lambda t: t.logit(0.2), [rng.uniform(0.25, 0.75, (3, 4))], lambda tt, t: t.logit(0.2)),
        ]
    },
)


# frexp's mantissa x / 2^e (the exponent e is fixed by x): d/dx = 2^-e
FREXP = defop(
    "frexp",
    node="FrexpBackward0",
    inputs=("self",),
    saved=("exponent",),
    saved_outputs=("exponent",),
    complex=Refuse(RuntimeError, "torch.frexp() only supports floating-point dtypes"),
    fwd=lambda xp, x, p: xp.ldexp(x, -p["exponent"]).astype(x.dtype),
    vjp=lambda xp, g, x, out, p: g * xp.exp2(-p["exponent"].astype(g.dtype)),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample={
        "cases": lambda rng: [(None, [rng.uniform(-3, 3, (3, 4))], lambda tt, t: tt.frexp(t)[0])]
    },
)
