"""Bessel and Airy functions in NumPy (float64, elementwise), for ``torch.special``'s
bessel_j0/j1, bessel_y0/y1, modified_bessel_k0/k1 (and exponentially scaled), airy_ai and
spherical_bessel_j0.

Each function is split by argument size into pieces that are each accurate to about 1e-14:
power series near 0; integral representations evaluated by the trapezoidal rule where the
integrand is periodic or decays double-exponentially (the rule is then exponentially accurate),
by Gauss-Legendre otherwise; Hankel's asymptotic expansions beyond |x| = 25 (their terms keep
decreasing until about the 2|x|-th, far below double precision). Values at the edges follow
torch's kernels: nan at +-inf for J/Y (its asymptotic form takes cos(inf)), nan for Y and K
of a negative argument, -inf / inf at 0.
"""

from __future__ import annotations

import math

import numpy as np

_EULER = 0.57721566490153286061
_FAR = 25.0

# trapezoidal rule on [0, pi] (half a period of an even periodic integrand)
_THETA = np.pi * np.arange(257) / 256
_TRAP = np.full(257, np.pi / 256)
_TRAP[[0, -1]] *= 0.5
# Gauss-Legendre on [0, 1]
_GL_X, _GL_W = np.polynomial.legendre.leggauss(96)
_GL_X = (_GL_X + 1) / 2
_GL_W = _GL_W / 2
# trapezoidal rule on [0, 4] for integrands like e^{-z (cosh t - 1)} (z >= 1.8)
_TK = np.arange(161) * 0.025
_WK = np.full(161, 0.025)
_WK[0] *= 0.5


def _pieces(x, *parts):
    """Evaluate ``f`` only where ``mask`` holds, for each (mask, f), into one array (nan
    elsewhere): NumPy computes every branch of a where, so each piece gets safe arguments."""
    out = np.full(x.shape, np.nan)
    for mask, f in parts:
        if mask.any():
            out[mask] = f(x[mask])
    return out


def _hankel(n, x, kind):
    """J_n (kind 'j') or Y_n (kind 'y') for x > 25: sqrt(2/(pi x)) (P cos chi - Q sin chi),
    chi = x - (n/2 + 1/4) pi (computed as torch's kernel, x - 3pi/4 or x - pi/4)."""
    mu = 4.0 * n * n
    p = np.ones_like(x)
    q = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            q = q + (term if k % 4 == 1 else -term)
        else:
            p = p + (term if k % 4 == 0 else -term)
    chi = x - (0.75 * np.pi if n else 0.25 * np.pi)
    amp = np.sqrt(2.0 / np.pi) / np.sqrt(x)
    if kind == "j":
        return amp * (p * np.cos(chi) - q * np.sin(chi))
    return amp * (p * np.sin(chi) + q * np.cos(chi))


def _j_near(n, x):
    """J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt, |x| <= 25 (trapezoidal rule)."""
    vals = np.cos(n * _THETA - x[..., None] * np.sin(_THETA))
    return (vals * _TRAP).sum(-1) / np.pi


def bessel_j(n, x):
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    r = _pieces(a, (a <= _FAR, lambda v: _j_near(n, v)), (a > _FAR, lambda v: _hankel(n, v, "j")))
    return r * np.sign(x) if n else r  # J_1 is odd (J_1(-0) = -0)


def _y_series(n, x):
    """A&S 9.1.11 for small x: the log term with J_n, and the psi series."""
    z = x * x / 4
    term = np.ones_like(x) if n == 0 else x / 2
    psi_k, psi_nk = -_EULER, -_EULER + (1.0 if n else 0.0)
    total = (psi_k + psi_nk) * term
    for k in range(1, 40):
        term = term * -z / (k * (k + n))
        psi_k += 1.0 / k
        psi_nk += 1.0 / (k + n)
        total = total + (psi_k + psi_nk) * term
    r = (2 / np.pi) * np.log(x / 2) * bessel_j(n, x) - total / np.pi
    return r - 2 / (np.pi * x) if n else r


def _y_mid(n, x):
    """Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt
    - (1/pi) int_0^inf (e^{n t} + (-1)^n e^{-n t}) e^{-x sinh t} dt, 4 < x <= 25."""
    t = np.pi * _GL_X
    first = (np.sin(x[..., None] * np.sin(t) - n * t) * _GL_W).sum(-1)  # times pi / pi
    top = np.arcsinh(45.0 / x)
    s = top[..., None] * _GL_X
    g = (np.exp(n * s) + (-1) ** n * np.exp(-n * s)) * np.exp(-x[..., None] * np.sinh(s))
    second = (g * _GL_W).sum(-1) * top / np.pi
    return first - second


def bessel_y(n, x):
    x = np.asarray(x, dtype=np.float64)
    r = _pieces(
        x,
        (x == 0, lambda v: np.full(v.shape, -np.inf)),
        ((x > 0) & (x <= 4), lambda v: _y_series(n, v)),
        ((x > 4) & (x <= _FAR), lambda v: _y_mid(n, v)),
        ((x > _FAR) & np.isfinite(x), lambda v: _hankel(n, v, "y")),
    )
    return r


def _k_series(n, x):
    """A&S 9.6.11 for small x, e^x K_n(x)."""
    z = x * x / 4
    term = np.ones_like(x) if n == 0 else x / 2
    psi_k, psi_nk = -_EULER, -_EULER + (1.0 if n else 0.0)
    total = (psi_k + psi_nk) * term
    for k in range(1, 40):
        term = term * z / (k * (k + n))
        psi_k += 1.0 / k
        psi_nk += 1.0 / (k + n)
        total = total + (psi_k + psi_nk) * term
    from ._special_math import bessel_ie

    i_n = bessel_ie(n, x) * np.exp(x)
    if n == 0:
        r = -np.log(x / 2) * i_n + total / 2
    else:
        r = 1 / x + np.log(x / 2) * i_n - total / 2
    return r * np.exp(x)


def _ke_mid(nu, z):
    """e^z K_nu(z) = int_0^inf e^{-z (cosh t - 1)} cosh(nu t) dt for z >= 1.8 (trapezoidal
    rule, exponentially accurate: the integrand is even and decays double-exponentially)."""
    g = np.exp(-z[..., None] * (np.cosh(_TK) - 1)) * np.cosh(nu * _TK)
    return (g * _WK).sum(-1)


def _ke_far(nu, z):
    """e^z K_nu(z) for z > 25: sqrt(pi / (2 z)) sum_k a_k(nu) / z^k."""
    mu = 4.0 * nu * nu
    term = np.ones_like(z)
    total = np.ones_like(z)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * z)
        total = total + term
    return np.sqrt(np.pi / (2 * z)) * total


def bessel_ke(n, x):
    """e^x K_n(x) (n = 0, 1): inf at 0, nan below, 0 at inf."""
    x = np.asarray(x, dtype=np.float64)
    return _pieces(
        x,
        (x == 0, lambda v: np.full(v.shape, np.inf)),
        ((x > 0) & (x <= 2), lambda v: _k_series(n, v)),
        ((x > 2) & (x <= _FAR), lambda v: _ke_mid(n, v)),
        ((x > _FAR) & np.isfinite(x), lambda v: _ke_far(n, v)),
        (x == np.inf, lambda v: np.zeros(v.shape)),
    )


def bessel_k(n, x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = bessel_ke(n, x) * np.exp(-np.where(x > 0, x, 0.0))
    return np.where(x == np.inf, 0.0, r)


def spherical_j0(x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.sin(x) / x
    return np.where(x == 0, 1.0, np.where(np.isinf(x), 0.0, r))


# ---------------------------------------------------------------- Airy Ai
_AI0 = 0.355028053887817239260  # Ai(0)
_AIP0 = 0.258819403792806798405  # -Ai'(0)


def _airy_series(x):
    """Ai(x) = Ai(0) f(x) + Ai'(0) g(x), the Maclaurin series (|x| <= 4)."""
    x3 = x**3
    f = np.ones_like(x)
    g = x.copy()
    tf = np.ones_like(x)
    tg = x.copy()
    for k in range(1, 60):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f = f + tf
        g = g + tg
    return _AI0 * f - _AIP0 * g


def _airy_u(k_max):
    u = [1.0]
    for k in range(1, k_max):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    return u


_U = _airy_u(40)


def _airy_pos(x):
    """x > 4: Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi, zeta = 2/3 x^{3/2}; beyond zeta = 25
    the asymptotic series e^-zeta / (2 sqrt(pi) x^{1/4}) sum (-1)^k u_k / zeta^k."""
    zeta = 2.0 / 3.0 * x**1.5
    near = zeta <= _FAR
    out = np.empty_like(x)
    if near.any():
        z = zeta[near]
        out[near] = np.sqrt(x[near] / 3) * _ke_mid(1.0 / 3.0, z) * np.exp(-z) / np.pi
    far = ~near
    if far.any():
        z = zeta[far]
        s = np.zeros_like(z)
        term = np.ones_like(z)
        for k, u in enumerate(_U):
            s = s + (-1) ** k * u * term
            term = term / z
        with np.errstate(under="ignore"):
            out[far] = np.exp(-z) / (2 * np.sqrt(np.pi) * x[far] ** 0.25) * s
    return out


def _j_frac(nu, z):
    """J_nu(z), z > 0, non-integer nu: (1/pi) int_0^pi cos(nu t - z sin t) dt
    - (sin(nu pi)/pi) int_0^inf e^{-z sinh t - nu t} dt (Gauss-Legendre)."""
    t = np.pi * _GL_X
    first = (np.cos(nu * t - z[..., None] * np.sin(t)) * _GL_W).sum(-1)
    top = np.arcsinh(45.0 / z) + 1.0
    s = top[..., None] * _GL_X
    second = (np.exp(-z[..., None] * np.sinh(s) - nu * s) * _GL_W).sum(-1) * top
    return first - math.sin(nu * math.pi) / math.pi * second


def _airy_neg(x):
    """x < -4: Ai(x) = (sqrt|x| / 3)(J_{1/3}(zeta) + J_{-1/3}(zeta)); beyond zeta = 25 the
    asymptotic form with cos/sin(zeta - pi/4)."""
    a = -x
    zeta = 2.0 / 3.0 * a**1.5
    near = zeta <= _FAR
    out = np.empty_like(x)
    if near.any():
        z = zeta[near]
        out[near] = np.sqrt(a[near]) / 3 * (_j_frac(1.0 / 3.0, z) + _j_frac(-1.0 / 3.0, z))
    far = ~near
    if far.any():
        z = zeta[far]
        even = np.zeros_like(z)
        odd = np.zeros_like(z)
        term = np.ones_like(z)
        for k, u in enumerate(_U):
            sign = -1.0 if (k // 2) % 2 else 1.0
            if k % 2:
                odd = odd + sign * u * term
            else:
                even = even + sign * u * term
            term = term / z
        phase = z - np.pi / 4
        out[far] = (np.cos(phase) * even + np.sin(phase) * odd) / (np.sqrt(np.pi) * a[far] ** 0.25)
    return out


def airy_ai(x):
    x = np.asarray(x, dtype=np.float64)
    return _pieces(
        x,
        ((x >= -4) & (x <= 4), _airy_series),
        ((x > 4) & np.isfinite(x), _airy_pos),
        ((x < -4) & np.isfinite(x), _airy_neg),
    )
