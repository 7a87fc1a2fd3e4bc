"""Orthogonal polynomials of ``torch.special`` (Chebyshev T/U/V/W and their shifted forms,
Hermite H/He, Laguerre L, Legendre P): ``f(x, n)``, evaluated as torch's kernels do.

torch gives these functions no derivative (their results never require grad), so they are
plain functions rather than registry rows. ``n`` is truncated to an integer; a negative degree
gives 0. The value is the three-term recurrence run in the input's dtype (so float32 rounds as
torch's float32 kernel), except where torch's kernel takes a closed form: on |x| = 1 (x = 0, 1
for the shifted forms), and for large degrees inside the interval (Chebyshev T above degree 6,
U/V/W above 8) the trigonometric form, e.g. T_n(x) = cos(n acos x).

Example:
    >>> import jupyter_autograd as torch
    >>> torch.special.chebyshev_polynomial_t(torch.tensor([0.5, 2.0]), 3)
    tensor([-1., 26.])
    >>> torch.special.hermite_polynomial_h(torch.tensor([1.0]), torch.tensor([0.0, 1.0, 2.0]))
    tensor([1., 2., 2.])
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
]


def _fms(a, b, c):
    """a * b - c rounded once, as torch's CPU kernels compute it (compiled with FMA): exact for
    float32 through float64; float64 rounds twice (NumPy has no fused multiply-add)."""
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) - c.astype(np.float64)).astype(
            np.float32
        )
    return a * b - c


def _recurrence(x, n, q1, step, first=2):
    """Degree n of the sequence p_0 = 1, p_1 = q1, p_j = step(j, p_{j-1}, p_{j-2}) (j >= first),
    for every element (n an int64 array broadcast with x)."""
    one = np.ones_like(x)
    out = np.where(n == 0, one, np.where(n == 1, q1, np.zeros_like(x)))
    top = int(n.max()) if n.size else 0
    p, q = one, q1
    for j in range(first, top + 1):
        r = step(j, q, p)
        out = np.where(n == j, r, out)
        p, q = q, r
    return out


def _degrees(n):
    """torch casts the degree to int64 (truncation)."""
    with np.errstate(invalid="ignore"):
        return np.trunc(n).astype(np.int64) if n.dtype.kind == "f" else n.astype(np.int64)


def _chebyshev(x, n, q1, edge, trig, trig_from):
    """A Chebyshev-type polynomial: ``edge(x, n)`` on |x| = 1, ``trig(x, n)`` inside the interval
    above degree ``trig_from``, the recurrence (2x) p_{j-1} - p_{j-2} elsewhere."""
    two_x = x + x
    with np.errstate(all="ignore"):
        rec = _recurrence(
            x,
            np.where((n > trig_from) & (np.abs(x) < 1), 0, n),
            q1,
            lambda j, q, p: _fms(two_x, q, p),
        )
        inside = (n > trig_from) & (np.abs(x) < 1)
        out = np.where(inside, trig(np.where(inside, x, np.zeros_like(x)), n.astype(x.dtype)), rec)
        out = np.where(np.abs(x) == 1, edge(x, n), out)
    return np.where(n < 0, np.zeros_like(x), out)


def _sign_n(n, dtype):
    return np.where(n % 2 == 0, 1, -1).astype(dtype)


def _t(x, n, trig_from=6):
    return _chebyshev(
        x,
        n,
        x,
        lambda x, n: np.where(x > 0, 1, _sign_n(n, x.dtype)).astype(x.dtype),
        lambda x, n: np.cos(n * np.arccos(x)),
        trig_from,
    )


def _u_trig(x, n):
    a = np.arccos(x)
    s = np.sin(a)
    return np.where(
        s != 0, np.sin((n + 1) * a) / np.where(s != 0, s, 1), (n + 1) * np.cos((n + 1) * a) / x
    )


def _u(x, n, trig_from=8):
    m = (n + 1).astype(x.dtype)
    return _chebyshev(
        x, n, x + x, lambda x, n: np.where(x > 0, m, _sign_n(n, x.dtype) * m), _u_trig, trig_from
    )


def _v_trig(x, n):
    a = np.arccos(x)
    h = a / 2
    odd = (n + n + 1) * _sign_n(n, x.dtype)
    return np.where(np.sin(h) != 1, np.cos((n + 0.5) * a) / np.cos(h), odd)


def _v(x, n, trig_from=8):
    m = (n + n + 1).astype(x.dtype)
    return _chebyshev(
        x,
        n,
        x + x - 1,
        lambda x, n: np.where(x > 0, 1, _sign_n(n, x.dtype) * m).astype(x.dtype),
        _v_trig,
        trig_from,
    )


def _w_trig(x, n):
    a = np.arccos(x)
    h = a / 2
    edge = np.where(x > 0, n + n + 1, _sign_n(n, x.dtype))
    return np.where(np.cos(h) != 1, np.sin((n + 0.5) * a) / np.sin(h), edge)


def _w(x, n, trig_from=8):
    m = (n + n + 1).astype(x.dtype)
    return _chebyshev(
        x, n, x + x + 1, lambda x, n: np.where(x > 0, m, _sign_n(n, x.dtype)), _w_trig, trig_from
    )


def _shifted(kernel, trig_from, at_one, at_zero):
    """The shifted polynomial f*(x) = f(2x - 1): torch's kernel runs the recurrence on y = 2x - 1
    (written (y + y) p - q), with its own values at x = 1 and x = 0."""

    def f(x, n):
        with np.errstate(all="ignore"):
            y = x + x - 1
            out = kernel(y, n, trig_from)
            out = np.where(x == 1, at_one(n, x.dtype), out)
            out = np.where(x == 0, at_zero(n, x.dtype), out)
        return np.where(n < 0, np.zeros_like(x), out)

    return f


def _odd(n, dt):
    return (n + n + 1).astype(dt)


_SHIFTED_T = _shifted(_t, 6, lambda n, dt: np.ones(n.shape, dt), _sign_n)
_SHIFTED_U = _shifted(
    _u, 6, lambda n, dt: (n + 1).astype(dt), lambda n, dt: _sign_n(n, dt) * (n + 1)
)
_SHIFTED_V = _shifted(
    _v, 6, lambda n, dt: np.ones(n.shape, dt), lambda n, dt: _sign_n(n, dt) * _odd(n, dt)
)
_SHIFTED_W = _shifted(_w, 4, _odd, _sign_n)


def _hermite_h(x, n):
    two_x = x + x
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, two_x, lambda j, q, p: _fms(two_x, q, (2 * (j - 1)) * p))
    return np.where(n < 0, np.zeros_like(x), out)


def _hermite_he(x, n):
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, x, lambda j, q, p: _fms(x, q, (j - 1) * p))
    return np.where(n < 0, np.zeros_like(x), out)


def _laguerre(x, n):
    with np.errstate(all="ignore"):
        out = _recurrence(
            x, n, 1 - x, lambda j, q, p: _fms((2 * (j - 1)) + (1 - x), q, (j - 1) * p) / j
        )
        out = np.where(x == 0, np.ones_like(x), out)
    return np.where(n < 0, np.zeros_like(x), out)


def _legendre(x, n):
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, x, lambda j, q, p: _fms((2 * j - 1) * x, q, (j - 1) * p) / j)
        out = np.where(np.abs(x) == 1, np.where(x > 0, 1, _sign_n(n, x.dtype)).astype(x.dtype), out)
    return np.where(n < 0, np.zeros_like(x), out)


def _polynomial(kernel, name):
    def fn(input, n, *, out=None) -> Tensor:
        from .api_math import promote

        if out is not None:
            from .out import out_call

            return out_call(f"special_{name}", fn, (input, n), {}, out)
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(
                f"special_{name}() received an invalid combination of arguments - got "
                f"({type(input).__name__}, {type(n).__name__}), but expected one of:\n"
                " * (Tensor x, Tensor n, *, Tensor out = None)\n"
                " * (Number x, Tensor n, *, Tensor out = None)\n"
                " * (Tensor x, Number n, *, Tensor out = None)\n"
            )
        x, k = promote(input, n, floating=True)
        xd, kd = np.broadcast_arrays(np.asarray(x._data), _degrees(np.asarray(k._data)))
        return Tensor._wrap(np.asarray(kernel(np.array(xd), np.array(kd)), dtype=xd.dtype))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}(input, n)`` elementwise (no derivative, as torch)."
    return fn


chebyshev_polynomial_t = _polynomial(_t, "chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial(_u, "chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial(_v, "chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial(_w, "chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial(_SHIFTED_T, "shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial(_SHIFTED_U, "shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial(_SHIFTED_V, "shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial(_SHIFTED_W, "shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial(_hermite_h, "hermite_polynomial_h")
hermite_polynomial_he = _polynomial(_hermite_he, "hermite_polynomial_he")
laguerre_polynomial_l = _polynomial(_laguerre, "laguerre_polynomial_l")
legendre_polynomial_p = _polynomial(_legendre, "legendre_polynomial_p")
