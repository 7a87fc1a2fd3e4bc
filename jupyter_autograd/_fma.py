"""Fused multiply-add and the float32 math of torch's AVX2 normal sampler, in NumPy.

torch's CPU kernels are compiled with FMA contraction on x86 builds with AVX2 or AVX-512, so
``x * (to - from) + from`` is one rounding there, not two. ``fma`` reproduces that exactly: a
float32 FMA is the exact float64 product plus the addend rounded to odd, then to float32; a
float64 FMA is Boldo and Melquiond's emulation (an exact product by Dekker's splitting, exact
sums, one rounding to odd). ``log256_ps``/``sincos256_ps`` are the cephes-based AVX routines
(``avx_mathfun.h``) torch's ``normal_fill_AVX2`` uses, written as the same float32 operations
in the same order, with the multiply-adds GCC fuses, so float32 ``randn`` matches bit for bit.

Example:
    >>> import numpy as np
    >>> from jupyter_autograd._fma import fma
    >>> a = np.array([1 + 2.0**-30]); bool(fma(a, a, np.array([-1.0]))[0] == 2.0**-29 + 2.0**-60)
    True
"""

from __future__ import annotations

import numpy as np

_f32 = np.float32
_f64 = np.float64


def _two_sum(a, b):
    """s, e with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_odd(s, e):
    """Round-to-odd of s + e (s = fl(s + e)): the bracketing float with an odd last bit."""
    fix = (e != 0) & ((np.asarray(s).view(np.int64) & 1) == 0)
    if not fix.any():
        return s
    return np.where(fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _split(a):
    t = 134217729.0 * a  # 2**27 + 1: Veltkamp's splitting constant for 53-bit doubles
    hi = t - (t - a)
    return hi, a - hi


def _fma64(a, b, c):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + pe = a*b exactly (Dekker)
    th, tl = _two_sum(c, p)
    s, e = _two_sum(tl, pe)
    return th + _round_odd(s, e)


def fma(a, b, c):
    """``a * b + c`` with one rounding, elementwise, in the arrays' dtype (float32 or float64).

    Example:
        >>> import numpy as np
        >>> x = np.float32([0.1]); bool(fma(x, np.float32([10]), np.float32([-1]))[0] == x[0] * 10 - 1)
        False
    """
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    if b.ndim == 0 and c.ndim == 0 and b == 1 and c == 0:
        return a.copy()  # a * 1 + 0 is exact
    if np.result_type(a, b, c) == _f32:
        return _fma32(a, b, c)
    a, b, c = np.broadcast_arrays(a.astype(_f64), b.astype(_f64), c.astype(_f64))
    return _fma64(a, b, c)


def _fma32(a, b, c):
    """float32 fma: the product is exact in float64, so one float64 addition rounds once; a
    second rounding to float32 can only go wrong when the first lands on a float32 midpoint
    (29 low bits 1000...0), and those rare elements are redone with a sum rounded to odd."""
    x = np.asarray(a, _f64) * np.asarray(b, _f64)
    s = x + np.asarray(c, _f64)
    out = s.astype(_f32)
    tie = (s.view(np.int64) & 0x1FFFFFFF) == 0x10000000
    if tie.any():
        cc = np.broadcast_to(np.asarray(c, _f64), s.shape)[tie]
        s2, e = _two_sum(np.broadcast_to(x, s.shape)[tie], cc)
        out[tie] = np.asarray(_round_odd(s2, e)).astype(_f32)
    return out


# ---------------------------------------------------------------------------- avx_mathfun
_LOG_P = tuple(
    _f32(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
_LOG_Q1, _LOG_Q2 = _f32(-2.12194440e-4), _f32(0.693359375)
_SQRTHF = _f32(0.707106781186547524)
_DP = (_f32(-0.78515625), _f32(-2.4187564849853515625e-4), _f32(-3.77489497744594108e-8))
_SINCOF = (_f32(-1.9515295891e-4), _f32(8.3321608736e-3), _f32(-1.6666654611e-1))
_COSCOF = (
    _f32(2.443315711809948e-005),
    _f32(-1.388731625493765e-003),
    _f32(4.166664568298827e-002),
)
_FOPI = _f32(1.27323954473516)  # 4 / pi
_ONE, _HALF = _f32(1.0), _f32(0.5)


def log256_ps(x: np.ndarray) -> np.ndarray:
    """avx_mathfun's ``log256_ps`` for positive float32 ``x`` (cephes logf, GCC-fused)."""
    x = np.maximum(x, np.array(0x00800000, np.int32).view(_f32))  # no denormals
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_f32) + _ONE
    x = ((bits & ~0x7F800000) | np.array(_HALF).view(np.int32)).view(_f32)  # mantissa in [.5, 1)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _f32(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _f32(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma32(y, x, p)
    y = y * x
    y = _fma32(y, z, e * _LOG_Q1)
    y = _fma32(z, -_HALF, y)
    return _fma32(e, _LOG_Q2, x + y)


def sincos256_ps(x: np.ndarray):
    """avx_mathfun's ``sincos256_ps`` for float32 ``x`` (cephes sinf/cosf, GCC-fused)."""
    sign_sin = x.view(np.int32) & np.int32(-(1 << 31))
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)  # cvttps: truncation
    j = (j + 1) & ~1
    y = j.astype(_f32)
    sign_sin = sign_sin ^ ((j & 4) << 29)
    poly = (j & 2) == 0
    sign_cos = (~(j - 2) & 4) << 29
    for dp in _DP:  # extended-precision reduction, each step one fused multiply-add
        x = _fma32(y, dp, x)
    z = x * x
    yc = _fma32(z, _COSCOF[0], _COSCOF[1])
    yc = _fma32(yc, z, _COSCOF[2])
    yc = _fma32(yc * z, z, -(z * _HALF))
    yc = yc + _ONE
    ys = _fma32(z, _SINCOF[0], _SINCOF[1])
    ys = _fma32(ys, z, _SINCOF[2])
    ys = _fma32(ys * z, x, x)
    s = np.where(poly, ys, yc)
    c = np.where(poly, yc, ys)
    return (s.view(np.int32) ^ sign_sin).view(_f32), (c.view(np.int32) ^ sign_cos).view(_f32)
