"""Public special functions (``torch.erfc``, ``torch.lgamma``, ``torch.special.*``...): float
promotion and torch's argument checks, then a row of ``ops/special.py``."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import _special_math as SM
from . import special as S
from .api import _float
from .api_math import promote
from .dispatch import apply1

__all__ = [
    "digamma",
    "erfc",
    "erfinv",
    "i0",
    "igamma",
    "igammac",
    "lgamma",
    "mvlgamma",
    "polygamma",
]


def _unary(op, name):
    def fn(input, *, out=None) -> Tensor:
        return apply1(op, _float(input))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` elementwise ({op.node_name}), as ``torch.{name}``."
    return fn


erfc = _unary(S.ERFC, "erfc")
erfinv = _unary(S.ERFINV, "erfinv")
lgamma = _unary(S.LGAMMA, "lgamma")
digamma = _unary(S.DIGAMMA, "digamma")
i0 = _unary(S.I0, "i0")
i0e = _unary(S.SPECIAL_I0E, "i0e")
i1 = _unary(S.SPECIAL_I1, "i1")
i1e = _unary(S.SPECIAL_I1E, "i1e")
ndtri = _unary(S.SPECIAL_NDTRI, "ndtri")
log_ndtr = _unary(S.SPECIAL_LOG_NDTR, "log_ndtr")
erfcx = _unary(S.SPECIAL_ERFCX, "erfcx")
entr = _unary(S.SPECIAL_ENTR, "entr")


def ndtr(input, *, out=None) -> Tensor:
    """The standard normal CDF, composed as torch's special_ndtr: (1 + erf(x / sqrt 2)) * 0.5
    (its nodes: MulBackward1, ErfBackward0, AddBackward1, MulBackward1)."""
    if out is not None:
        from .out import out_call

        return out_call("special_ndtr", ndtr, (input,), {}, out)
    from . import arithmetic as ARITH
    from .api import erf

    x = apply1(ARITH.MUL_SCALAR, _float(input), {"other": 0.7071067811865476})
    return apply1(ARITH.MUL_SCALAR, apply1(ARITH.ADD_SCALAR, erf(x), {"other": 1}), {"other": 0.5})


def polygamma(n, input, *, out=None) -> Tensor:
    """The n-th derivative of digamma (PolygammaBackward0)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply1(S.POLYGAMMA, _float(input), {"n": int(n)})


def mvlgamma(input, p, *, out=None) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _float(input)
    if x.numel() and not bool((x._data > (p - 1) / 2).all()):
        raise RuntimeError("All elements must be greater than (p-1)/2")
    return apply1(S.MVLGAMMA, x, {"p": int(p)})


def _binary_nograd(f, name):
    def fn(input, other, *, out=None) -> Tensor:
        a, b = promote(input, other, floating=True)
        r = np.asarray(f(a._data, b._data), dtype=a._data.dtype)
        return Tensor._wrap(r)

    fn.__name__ = fn.__qualname__ = name
    return fn


igamma = _binary_nograd(SM.igamma, "igamma")
igammac = _binary_nograd(SM.igammac, "igammac")
zeta = _binary_nograd(SM.zeta, "zeta")
