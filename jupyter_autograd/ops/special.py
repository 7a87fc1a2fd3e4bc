"""Special-function rows: erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, the modified
Bessel i0/i0e/i1/i1e, the normal distribution's ndtr/ndtri/log_ndtr, erfcx and entr, with
torch's derivatives; the values come from ``_special_math`` (NumPy only)."""

from __future__ import annotations

import math

import numpy as np

from . import _special_math as SM
from .registry import AUTO_ELEMENT_WISE, defop, kernel_refuses


def _np(f):
    """A NumPy kernel as a forward: computed in float64, returned in the input's dtype (and
    on its device)."""

    def on_host(xp, x, p):
        return np.asarray(f(x, p) if p is not None else f(x), dtype=x.dtype)

    def fwd(xp, x, p):
        if xp.is_txp:
            raise RuntimeError("special kernels run on arrays")
        return xp.on_host(on_host, (x, p))

    return fwd


def _kernel(xp, f, recorded, x):
    """``f`` on an array, ``recorded(api_special, x)`` on a Tensor (create_graph: the
    derivative is itself an op, so second derivatives exist)."""
    if xp.is_txp:
        from . import api_special

        return recorded(api_special, x)
    return _np(lambda a: f(a))(xp, x, None)


def sp(name, node, kernel, d, saved=("self",), domain=(-3, 3), complex=None, cases=None):
    """A special-function row: forward ``kernel(x[, p])``, derivative ``d(xp, x, out, p)``."""
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=_np(kernel),
        vjp=lambda xp, g, x, out, p: g * d(xp, x, out, p),
        jvp=AUTO_ELEMENT_WISE,
        complex=complex or kernel_refuses(f"{name.replace('special_', '')}_cpu"),
        sample={"cases": cases} if cases else {"domain": domain},
    )


def _case(call, lo, hi, shape=(3, 4)):
    return lambda rng: [(None, [rng.uniform(lo, hi, shape)], lambda tt, t: call(tt, t))]


_2_SQRTPI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2 * math.pi)

ERFC = sp(
    "erfc",
    "ErfcBackward0",
    SM.erfc,
    lambda xp, x, out, p: -_2_SQRTPI * xp.exp(-(x * x)),
    complex=kernel_refuses("erfc_vml_cpu"),
)
# d erfinv(y) = sqrt(pi)/2 exp(erfinv(y)^2): torch saves self only and recomputes erfinv(self)
# (a .data write into the result does not change the gradient)
ERFINV = sp(
    "erfinv",
    "ErfinvBackward0",
    SM.erfinv,
    lambda xp, x, out, p: (
        (0.5 * math.sqrt(math.pi))
        * xp.exp(_kernel(xp, SM.erfinv, lambda m, t: m.erfinv(t), x) ** 2)
    ),
    domain=(-0.9, 0.9),
    complex=kernel_refuses("erfinv_vml_cpu"),
)
LGAMMA = sp(
    "lgamma",
    "LgammaBackward0",
    SM.lgamma,
    lambda xp, x, out, p: _kernel(xp, SM.digamma, lambda m, t: m.digamma(t), x),
    domain=(0.2, 4),
    complex=kernel_refuses("lgamma_vml_cpu"),
)
DIGAMMA = sp(
    "digamma",
    "DigammaBackward0",
    SM.digamma,
    lambda xp, x, out, p: _kernel(
        xp, lambda a: SM.polygamma(1, a), lambda m, t: m.polygamma(1, t), x
    ),
    domain=(0.2, 4),
    complex=kernel_refuses("digamma"),
)


def _polygamma_next(xp, x, p):
    n = p["n"] + 1
    return _kernel(xp, lambda a: SM.polygamma(n, a), lambda m, t: m.polygamma(n, t), x)


POLYGAMMA = defop(
    "polygamma",
    node="PolygammaBackward0",
    inputs=("self",),
    saved=("n", "self"),
    fwd=_np(lambda x, p: SM.polygamma(p["n"], x)),
    vjp=lambda xp, g, x, out, p: g * _polygamma_next(xp, x, p),
    jvp=AUTO_ELEMENT_WISE,
    complex=kernel_refuses("polygamma"),
    sample={"cases": _case(lambda m, t: m.polygamma(2, t), 0.3, 3)},
)


def _mvlgamma(x, p):
    j = np.arange(p["p"]).reshape((-1,) + (1,) * x.ndim) / 2.0
    return SM.lgamma(x[None] - j).sum(0) + p["p"] * (p["p"] - 1) / 4 * math.log(math.pi)


def _mvlgamma_d(xp, x, out, p):
    return sum(
        _kernel(xp, SM.digamma, lambda m, t: m.digamma(t), x - j / 2.0) for j in range(p["p"])
    )


MVLGAMMA = sp(
    "mvlgamma",
    "MvlgammaBackward0",
    _mvlgamma,
    _mvlgamma_d,
    saved=("p", "self"),
    complex=kernel_refuses("arange_cpu"),
    cases=_case(lambda m, t: m.mvlgamma(t, 3), 1.5, 4),
)
I0 = sp(
    "i0",
    "I0Backward0",
    SM.i0,
    lambda xp, x, out, p: _kernel(xp, SM.i1, lambda m, t: m.i1(t), x),
    complex=kernel_refuses("i0_cpu"),
)
# d i0e = i1e - sign(x) i0e
SPECIAL_I0E = sp(
    "special_i0e",
    "SpecialI0EBackward0",
    SM.i0e,
    lambda xp, x, out, p: _kernel(xp, SM.i1e, lambda m, t: m.i1e(t), x) - xp.sign(x) * out,
    saved=("self", "result"),
    cases=_case(lambda m, t: m.special.i0e(t), -3, 3),
)


# d i1 = i0 - i1 / x (1/2 at 0); d i1e = i0e - i1e (sign(x) + 1/x)
def _i1_d(xp, x, out, p):
    safe = xp.where(x == 0, 1.0, x)
    return xp.where(x == 0, 0.5, _kernel(xp, SM.i0, lambda m, t: m.i0(t), x) - out / safe)


def _i1e_d(xp, x, out, p):
    safe = xp.where(x == 0, 1.0, x)
    return xp.where(
        x == 0, 0.5, _kernel(xp, SM.i0e, lambda m, t: m.i0e(t), x) - out * (xp.sign(x) + 1 / safe)
    )


SPECIAL_I1 = sp(
    "special_i1",
    "SpecialI1Backward0",
    SM.i1,
    _i1_d,
    saved=("self", "result"),
    cases=_case(lambda m, t: m.special.i1(t), -3, 3),
)
SPECIAL_I1E = sp(
    "special_i1e",
    "SpecialI1EBackward0",
    SM.i1e,
    _i1e_d,
    saved=("self", "result"),
    cases=_case(lambda m, t: m.special.i1e(t), -3, 3),
)
SPECIAL_NDTRI = sp(
    "special_ndtri",
    "SpecialNdtriBackward0",
    SM.ndtri,
    lambda xp, x, out, p: math.sqrt(2 * math.pi) * xp.exp(0.5 * out * out),
    saved=("result",),
    cases=_case(lambda m, t: m.special.ndtri(t), 0.05, 0.95),
)
SPECIAL_LOG_NDTR = sp(
    "special_log_ndtr",
    "SpecialLogNdtrBackward0",
    SM.log_ndtr,
    lambda xp, x, out, p: _INV_SQRT_2PI * xp.exp(-0.5 * x * x - out),
    saved=("self", "result"),
    cases=_case(lambda m, t: m.special.log_ndtr(t), -3, 3),
)
SPECIAL_ERFCX = sp(
    "special_erfcx",
    "SpecialErfcxBackward0",
    SM.erfcx,
    lambda xp, x, out, p: 2 * x * out - _2_SQRTPI,
    saved=("self", "result"),
    cases=_case(lambda m, t: m.special.erfcx(t), -2, 3),
)
# entr = -x log x: d = -(1 + log x)
SPECIAL_ENTR = sp(
    "special_entr",
    "SpecialEntrBackward0",
    SM.entr,
    lambda xp, x, out, p: -(1 + xp.log(x)),
    cases=_case(lambda m, t: m.special.entr(t), 0.1, 3),
)
