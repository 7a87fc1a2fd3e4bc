"""Special functions NumPy lacks, in float64 NumPy (no SciPy): the series, recurrences,
asymptotic expansions and rational approximations torch's ``aten/src/ATen/native/Math.h``
uses (digamma, trigamma, Hurwitz zeta, erfinv) and, for the Bessel family, quadratures of
their integral representations, accurate to a few ulp of float64 on the ranges tested."""

from __future__ import annotations

import math

import numpy as np

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _f64(x):
    x = np.asarray(x)
    # a complex input's row refuses it after the forward (torch's kernels have no complex loop);
    # meanwhile its real part spares NumPy's ComplexWarning about the cast
    return (x.real if x.dtype.kind == "c" else x).astype(np.float64, copy=False)


def erf(x):
    return _f64(_erf(_f64(x)))


def erfc(x):
    return _f64(_erfc(_f64(x)))


def _lgamma1(v):
    if v <= 0 and v == math.floor(v):
        return math.inf  # poles, as C's lgamma
    if math.isinf(v):
        return math.inf
    return v if math.isnan(v) else math.lgamma(v)


_lgamma = np.frompyfunc(_lgamma1, 1, 1)


def lgamma(x):
    """log|Gamma(x)| (C's lgamma, which torch calls)."""
    return _f64(_lgamma(_f64(x)))


_PSI_A = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)


def digamma(x):
    """psi(x): reflection below 0, the recurrence up to 10, then the asymptotic series."""
    x = _f64(x)
    with np.errstate(all="ignore"):
        neg = x < 0
        frac = x - np.trunc(x)
        y = np.where(neg, 1 - x, x)
        res = np.where(neg, -np.pi / np.tan(np.pi * frac), 0.0)
        for _ in range(10):
            small = y < 10
            res = res - np.where(small, 1 / np.where(small, y, 1), 0.0)
            y = np.where(small, y + 1, y)
        z = 1 / (y * y)
        poly = np.zeros_like(z)
        for c in _PSI_A:
            poly = poly * z + c
        out = res + np.log(y) - 0.5 / y - np.where(y < 1e17, z * poly, 0.0)
        out = np.where(x == 0, np.copysign(np.inf, -x), out)
        return np.where(neg & (x == np.trunc(x)), np.nan, out)


def trigamma(x):
    """psi'(x) as torch's trigamma: reflection below 1/2, six recurrence steps, asymptotics."""
    x = _f64(x)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        s = np.sin(np.pi * x)
        res = np.where(refl, -(np.pi * np.pi) / (s * s), 0.0)
        y = np.where(refl, 1 - x, x)
        for _ in range(6):
            res = res + 1 / (y * y)
            y = y + 1
        ixx = 1 / (y * y)
        res = res + (1 + 1 / (2 * y) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / y
        return np.where(refl, -res, res)


_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)


def _zeta1(x, q):
    """Hurwitz zeta(x, q) (the Euler-Maclaurin summation of Cephes' zeta)."""
    machep = 1.11022302462515654042e-16
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s = q**-x
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a**-x
        s += b
        if -machep * s < b < machep * s:
            return s
    w = a
    s += b * w / (x - 1)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for i in range(12):
        a *= x + k
        b /= w
        t = a * b / _ZETA_A[i]
        s += t
        if abs(t / s) < machep:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


_zeta = np.frompyfunc(lambda x, q: _zeta1(float(x), float(q)), 2, 1)


def zeta(x, q):
    return _f64(_zeta(_f64(x), _f64(q)))


def polygamma(n, x):
    """psi^(n)(x): digamma, trigamma, then (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.exp(math.lgamma(n + 1.0)) * zeta(n + 1.0, x)


def erfinv(y):
    """torch's calc_erfinv: a rational first guess, then two Newton steps on erf."""
    y = _f64(y)
    a = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
    b = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
    c = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
    d = (3.543889200, 1.637067800)
    with np.errstate(all="ignore"):
        ya = np.abs(y)
        z = y * y
        central = (
            y
            * (((a[3] * z + a[2]) * z + a[1]) * z + a[0])
            / ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0)
        )
        t = np.sqrt(-np.log((1.0 - ya) / 2.0))
        tail = np.copysign(((c[3] * t + c[2]) * t + c[1]) * t + c[0], y) / (
            (d[1] * t + d[0]) * t + 1.0
        )
        x = np.where(ya <= 0.7, central, tail)
        k = 2.0 / math.sqrt(math.pi)
        for _ in range(2):
            x = x - (erf(x) - y) / (k * np.exp(-x * x))
        x = np.where(ya == 1, np.copysign(np.inf, y), x)
        return np.where(ya > 1, np.nan, x)


def erfcx(x):
    """exp(x^2) erfc(x); an asymptotic series where erfc underflows."""
    x = _f64(x)
    with np.errstate(all="ignore"):
        direct = np.exp(x * x) * erfc(np.minimum(x, 26.0))
        big = np.where(x > 26, x, 30.0)
        i2 = 1 / (2 * big * big)
        series = 1 - i2 * (1 - 3 * i2 * (1 - 5 * i2 * (1 - 7 * i2 * (1 - 9 * i2))))
        asym = series / (big * math.sqrt(math.pi))
        return np.where(x > 26, asym, direct)


def ndtr(x):
    return 0.5 * erfc(-_f64(x) / math.sqrt(2))


def log_ndtr(x):
    """log Phi(x), as torch: through erfcx below -1, log1p(-erfc/2) above."""
    x = _f64(x)
    t = x * math.sqrt(0.5)
    with np.errstate(all="ignore"):
        low = np.log(erfcx(-t) / 2) - t * t
        high = np.log1p(-erfc(t) / 2)
        return np.where(x < -1.0, low, high)


def ndtri(p):
    """The inverse of Phi: erfinv's guess, refined by Newton steps on log Phi (exact in the tails)."""
    p = _f64(p)
    with np.errstate(all="ignore"):
        x = math.sqrt(2) * erfinv(2 * p - 1)
        tiny = p < 1e-12
        guess = -np.sqrt(-2 * np.log(np.where(tiny, p, 0.5)))
        x = np.where(tiny, guess, x)
        inside = (p > 0) & (p < 1)
        for _ in range(4):
            xs = np.where(inside, x, 0.0)
            # Newton on f(x) = log Phi(x) - log p: f' = phi(x) / Phi(x)
            lp = log_ndtr(xs)
            step = (lp - np.log(np.where(inside, p, 0.5))) / np.exp(
                -0.5 * xs * xs - lp - 0.5 * math.log(2 * math.pi)
            )
            x = np.where(inside & np.isfinite(step), xs - step, x)
        x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
        return np.where((p < 0) | (p > 1), np.nan, x)


def entr(x):
    x = _f64(x)
    with np.errstate(all="ignore"):
        return np.where(
            x > 0,
            -x * np.log(np.where(x > 0, x, 1.0)),
            np.where(x == 0, 0.0, np.where(np.isnan(x), np.nan, -np.inf)),
        )


# ---------------------------------------------------------------- incomplete gamma
def _igam1(a, x):
    if x < 0 or a < 0 or (a == 0 and x == 0) or math.isnan(a) or math.isnan(x):
        return math.nan
    if a == 0:
        return 1.0
    if x == 0:
        return 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else 0.0
    if math.isinf(x):
        return 1.0
    if x > 1.0 and x > a:
        return 1.0 - _igamc1(a, x)
    logax = a * math.log(x) - x - math.lgamma(a)
    if logax < -709.78:
        return 0.0
    r, c, ans = a, 1.0, 1.0
    while True:
        r += 1.0
        c *= x / r
        ans += c
        if c / ans <= 1.11e-16:
            break
    return ans * math.exp(logax) / a


def _igamc1(a, x):
    if x < 0 or a < 0 or (a == 0 and x == 0) or math.isnan(a) or math.isnan(x):
        return math.nan
    if a == 0:
        return 0.0
    if x == 0:
        return 1.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else 1.0
    if math.isinf(x):
        return 0.0
    if x < 1.0 or x < a:
        return 1.0 - _igam1(a, x)
    logax = a * math.log(x) - x - math.lgamma(a)
    if logax < -709.78:
        return 0.0
    # the continued fraction (Cephes igamc)
    y = 1.0 - a
    z = x + y + 1.0
    c = 0.0
    pkm2, qkm2 = 1.0, x
    pkm1, qkm1 = x + 1.0, z * x
    ans = pkm1 / qkm1
    big, biginv = 4.503599627370496e15, 2.22044604925031308085e-16
    for _ in range(2000):
        c += 1.0
        y += 1.0
        z += 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        if qk != 0:
            r = pk / qk
            t = abs((ans - r) / r)
            ans = r
        else:
            t = 1.0
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        if abs(pk) > big:
            pkm2 *= biginv
            pkm1 *= biginv
            qkm2 *= biginv
            qkm1 *= biginv
        if t <= 1.11e-16:
            break
    return ans * math.exp(logax)


_igam = np.frompyfunc(lambda a, x: _igam1(float(a), float(x)), 2, 1)
_igamc = np.frompyfunc(lambda a, x: _igamc1(float(a), float(x)), 2, 1)


def igamma(a, x):
    return _f64(_igam(_f64(a), _f64(x)))


def igammac(a, x):
    return _f64(_igamc(_f64(a), _f64(x)))


# ---------------------------------------------------------------- Bessel functions of the first kind
_THETA = np.pi * np.arange(129) / 128
_TRAP = np.full(129, np.pi / 128)
_TRAP[[0, -1]] *= 0.5


def _ie_asym(n, x):
    """I_n(x) e^-x for large x: the asymptotic series."""
    mu = 4.0 * n * n
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, 30):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total = total + term
    return total / np.sqrt(2 * np.pi * x)


def bessel_ie(n, x):
    """The exponentially scaled I_n(x) e^-|x| (n = 0, 1): the trapezoidal rule on
    (1/pi) int_0^pi e^{|x|(cos t - 1)} cos(n t) dt (exponentially accurate for a periodic
    integrand), the asymptotic series beyond |x| = 50."""
    x = _f64(x)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        near = np.where(a <= 50, a, 0.0)
        vals = np.exp(near[..., None] * (np.cos(_THETA) - 1)) * np.cos(n * _THETA)
        small = (vals * _TRAP).sum(-1) / np.pi
        far = _ie_asym(n, np.where(a > 50, a, 100.0))
        r = np.where(a <= 50, small, far)
        r = np.where(np.isinf(a), 0.0, r)
    sign = np.sign(x) if n % 2 else 1.0
    return np.where(np.isnan(x), np.nan, r * sign)


def i0e(x):
    return bessel_ie(0, x)


def i1e(x):
    return bessel_ie(1, x)


def i0(x):
    with np.errstate(all="ignore"):  # np.i0 is NumPy's Python code: its warnings are NumPy's
        return np.i0(_f64(x))


def i1(x):
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return bessel_ie(1, x) * np.exp(np.abs(x))
