"""``torch.special``'s Bessel and Airy functions without derivatives (torch defines none:
their results never require grad): bessel_j0/j1, bessel_y0/y1, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, airy_ai, spherical_bessel_j0. Integer inputs are promoted to the
default dtype; values are computed in float64 (``_bessel_math``) and rounded to the input's.

Example:
    >>> import jupyter_autograd as torch
    >>> torch.special.bessel_j0(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 0.7652])
    >>> torch.special.airy_ai(torch.tensor([0.0]))
    tensor([0.3550])
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import _bessel_math as BM
from . import _special_math as SM

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
]


def _unary(kernel, name, overflow=None):
    def fn(input, *, out=None) -> Tensor:
        from .api import _float

        if out is not None:
            from .out import out_call

            return out_call(f"special_{name}", fn, (input,), {}, out)
        x = _float(input)
        d = np.asarray(x._data)
        with np.errstate(all="ignore"):
            r = kernel(d.astype(np.float64))
            if overflow is not None and d.dtype == np.float32:
                # torch's float32 kernel overflows in its exp(|x|) factor before the division
                r = np.where(np.abs(d) > overflow, np.copysign(np.inf, r), r)
        return Tensor._wrap(np.asarray(r, dtype=d.dtype))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}(input)`` elementwise (no derivative, as torch)."
    return fn


def _modified_i(n):
    # torch's kernel multiplies by exp(|x|) and divides by sqrt(|x|): nan at +-inf
    f = SM.i0 if n == 0 else SM.i1
    return lambda x: np.where(np.isinf(x), np.nan, f(np.where(np.isinf(x), 0.0, x)))


airy_ai = _unary(BM.airy_ai, "airy_ai")
bessel_j0 = _unary(lambda x: BM.bessel_j(0, x), "bessel_j0")
bessel_j1 = _unary(lambda x: BM.bessel_j(1, x), "bessel_j1")
bessel_y0 = _unary(lambda x: BM.bessel_y(0, x), "bessel_y0")
bessel_y1 = _unary(lambda x: BM.bessel_y(1, x), "bessel_y1")
_EXP_MAX32 = float(np.log(np.finfo(np.float32).max))
modified_bessel_i0 = _unary(_modified_i(0), "modified_bessel_i0", _EXP_MAX32)
modified_bessel_i1 = _unary(_modified_i(1), "modified_bessel_i1", _EXP_MAX32)
modified_bessel_k0 = _unary(lambda x: BM.bessel_k(0, x), "modified_bessel_k0")
modified_bessel_k1 = _unary(lambda x: BM.bessel_k(1, x), "modified_bessel_k1")
scaled_modified_bessel_k0 = _unary(lambda x: BM.bessel_ke(0, x), "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _unary(lambda x: BM.bessel_ke(1, x), "scaled_modified_bessel_k1")
spherical_bessel_j0 = _unary(BM.spherical_j0, "spherical_bessel_j0")
