"""Rows for rounding, remainders, rounded division and clamping, each with torch's node and
gradient, so that none of them drops ``requires_grad`` (``x.trunc()`` records TruncBackward0,
``x % 1.0`` RemainderBackward0, ``x // 2`` torch's NotImplemented node...).

Integer division and remainder by zero raise torch's ``RuntimeError: ZeroDivisionError``.
"""

from __future__ import annotations

import numpy as np

from ..autograd.engine import xp_of
from .arithmetic import zero_grad
from .elementwise import _CLAMP_REFUSED
from .registry import AUTO_ELEMENT_WISE, Refuse, defop, kernel_refuses

_zero = zero_grad


def _is_int(v) -> bool:
    dt = getattr(v, "dtype", None)
    return dt.kind in "iub" if dt is not None else isinstance(v, int)


def _check_int_divisor(a, b) -> None:
    """torch refuses integer division by zero (floating division gives inf/nan); an empty
    result runs no kernel, so nothing is divided and nothing is refused."""
    if _is_int(a) and _is_int(b) and (not (b != 0).all() if hasattr(b, "dtype") else b == 0):
        if 0 in np.broadcast_shapes(np.shape(a), np.shape(b)):
            return
        raise RuntimeError("ZeroDivisionError")


def _raw(xp, a, b):
    """The arrays behind a rule's operands, and their namespace: a quotient inside a gradient
    is piecewise constant, so under create_graph it is computed on the raw values."""
    if not xp.is_txp:
        return xp, a, b
    a = getattr(a, "_data", a)
    b = getattr(b, "_data", b)
    return xp_of(a if hasattr(a, "dtype") else b), a, b


def _trunc_div(xp, a, b):
    xp, a, b = _raw(xp, a, b)
    _check_int_divisor(a, b)
    if _is_int(a) and _is_int(b):
        q = xp.floor_divide(a, b)  # exact on integers: toward zero where the signs differ
        return q + ((q < 0) & (q * b != a))
    with np.errstate(all="ignore"):
        return xp.trunc(a / b)


def _floor_div(xp, a, b):
    """Python's floor division (NumPy's, as torch's div_floor: exact, not floor(a / b))."""
    xp, a, b = _raw(xp, a, b)
    _check_int_divisor(a, b)
    with np.errstate(all="ignore"):
        return xp.floor_divide(a, b)


def _remainder(xp, a, b):
    """torch's remainder: fmod, moved by ``b`` where its sign differs from ``b``'s (so an exact
    zero keeps fmod's sign: -3 % 1.5 is -0.0, as torch)."""
    _check_int_divisor(a, b)
    if _is_int(a) and _is_int(b):
        return xp.remainder(a, b)
    with np.errstate(all="ignore"):
        m = xp.fmod(a, b)
        return xp.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


def _fmod(xp, a, b):
    _check_int_divisor(a, b)
    with np.errstate(all="ignore"):
        return xp.fmod(a, b)


def _sample(values, other=None, params=None):
    """Cases away from the jumps (finite differences cannot cross them)."""

    def cases(rng):
        x = np.array(values, dtype=np.float64).reshape(2, 3)
        return [
            (x_fn, [x] + ([np.full((2, 3), other)] if other is not None else []), t_fn)
            for x_fn, t_fn in params(rng)
        ]

    return {"kind": "rounding", "cases": cases}


def _api():
    from . import api

    return api


_X = [1.3, -2.6, 0.4, 3.2, -0.7, 2.2]

TRUNC = defop(
    "trunc",
    node="TruncBackward0",
    inputs=("self",),
    saved=(),
    complex=Refuse(NotImplementedError, "trunc is not supported for complex inputs"),
    fwd=lambda xp, x, p: xp.trunc(x),
    vjp=_zero,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: _api().trunc(t), lambda tt, t: tt.trunc(t))]),
    torch=lambda torch, x: torch.trunc(x),
)
# frac = x - trunc(x): the gradient passes unchanged
FRAC = defop(
    "frac",
    node="FracBackward0",
    inputs=("self",),
    saved=(),
    complex=kernel_refuses("frac_cpu"),
    fwd=lambda xp, x, p: x - xp.trunc(x),
    vjp=lambda xp, g, x, out, p: g,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: _api().frac(t), lambda tt, t: tt.frac(t))]),
    torch=lambda torch, x: torch.frac(x),
)


# torch rounds x * 10^d (or x / 10^-d) to nearest-even and scales back
def _round_decimals(xp, x, p):
    d = p["decimals"]
    if d >= 0:
        f = 10.0**d
        return xp.round(x * f) / f
    f = 10.0**-d
    return xp.round(x / f) * f


ROUND_DECIMALS = defop(
    "round.decimals",
    node="RoundBackward1",
    inputs=("self",),
    saved=(),
    complex=kernel_refuses("round_cpu"),
    fwd=_round_decimals,
    vjp=_zero,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(
        [1.312, -2.637, 0.444, 3.219, -0.781, 2.222],
        params=lambda rng: [
            (lambda t: _api().round(t, decimals=1), lambda tt, t: tt.round(t, decimals=1))
        ],
    ),
    torch=lambda torch, x: torch.round(x, decimals=1),
)

# remainder / fmod by a number: the gradient passes unchanged (RemainderBackward0, FmodBackward0)
REMAINDER_SCALAR = defop(
    "remainder.Scalar",
    node="RemainderBackward0",
    inputs=("self",),
    saved=(),
    complex=kernel_refuses("remainder_cpu"),
    fwd=lambda xp, x, p: _remainder(xp, x, p["other"]),
    vjp=lambda xp, g, x, out, p: g,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: t % 1.5, lambda tt, t: t % 1.5)]),
    torch=lambda torch, x: torch.remainder(x, 1.5),
)
FMOD_SCALAR = defop(
    "fmod.Scalar",
    node="FmodBackward0",
    inputs=("self",),
    saved=(),
    complex=kernel_refuses("fmod_cpu"),
    fwd=lambda xp, x, p: _fmod(xp, x, p["other"]),
    vjp=lambda xp, g, x, out, p: g,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(
        _X, params=lambda rng: [(lambda t: _api().fmod(t, 1.5), lambda tt, t: tt.fmod(t, 1.5))]
    ),
    torch=lambda torch, x: torch.fmod(x, 1.5),
)
_FLOOR = {"rounding_mode": "floor"}
_TRUNC = {"rounding_mode": "trunc"}
# a - b * q(a / b): d/da = 1, d/db = -q with q = floor (remainder) or trunc (fmod)
REMAINDER = defop(
    "remainder.Tensor",
    node="RemainderBackward1",
    inputs=("self", "other"),
    saved=("other", "self"),
    complex=kernel_refuses("remainder_cpu"),
    fwd=lambda xp, a, b, p: _remainder(xp, a, b),
    vjp=(
        lambda xp, g, a, b, out, p: g,
        # torch: -grad * self.div(other, rounding_mode="floor") (DivBackward2)
        lambda xp, g, a, b, out, p: -g * xp.call(DIV_MODE, a, b, p=_FLOOR),
    ),
    jvp=lambda xp, t, x, out, p: t[0] - t[1] * _floor_div(xp, x[0], x[1]),
    smooth=False,
    sample=_sample(
        _X,
        other=1.5,
        params=lambda rng: [
            (lambda a, b: _api().remainder(a, b), lambda tt, a, b: tt.remainder(a, b))
        ],
    ),
    torch=lambda torch, a, b: torch.remainder(a, b),
)
FMOD = defop(
    "fmod.Tensor",
    node="FmodBackward1",
    inputs=("self", "other"),
    saved=("other", "self"),
    complex=kernel_refuses("fmod_cpu"),
    fwd=lambda xp, a, b, p: _fmod(xp, a, b),
    vjp=(
        lambda xp, g, a, b, out, p: g,
        lambda xp, g, a, b, out, p: -g * xp.call(DIV_MODE, a, b, p=_TRUNC),
    ),
    jvp=lambda xp, t, x, out, p: t[0] - t[1] * _trunc_div(xp, x[0], x[1]),
    smooth=False,
    sample=_sample(
        _X,
        other=1.5,
        params=lambda rng: [(lambda a, b: _api().fmod(a, b), lambda tt, a, b: tt.fmod(a, b))],
    ),
    torch=lambda torch, a, b: torch.fmod(a, b),
)
# div(rounding_mode='floor' | 'trunc'): piecewise constant, zero gradient for both inputs
DIV_MODE = defop(
    "div.Tensor_mode",
    node="DivBackward2",
    inputs=("self", "other"),
    saved=("other", "rounding_mode", "self"),
    complex=Refuse(
        NotImplementedError,
        lambda p, out: f"\"div_{p['rounding_mode']}_cpu\" not implemented for '{{dtype}}'",
    ),
    fwd=lambda xp, a, b, p: (_floor_div if p["rounding_mode"] == "floor" else _trunc_div)(xp, a, b),
    vjp=(_zero, _zero),
    # torch's formulas: self's reads other (div_tensor_self_backward), other's reads both
    reads=((1,), (0, 1)),
    jvp=lambda xp, t, x, out, p: t[0] * 0 + t[1] * 0,
    smooth=False,
    sample=_sample(
        _X,
        other=1.5,
        params=lambda rng: [
            (
                lambda a, b: _api().div(a, b, rounding_mode="floor"),
                lambda tt, a, b: tt.div(a, b, rounding_mode="floor"),
            ),
            (
                lambda a, b: _api().div(a, b, rounding_mode="trunc"),
                lambda tt, a, b: tt.div(a, b, rounding_mode="trunc"),
            ),
        ],
    ),
    torch=lambda torch, a, b: torch.div(a, b, rounding_mode="floor"),
)


def _not_implemented(aten):
    """A rule for an op torch records but cannot differentiate (its ``NotImplemented`` node)."""

    def rule(*_):
        raise RuntimeError(f"derivative for aten::{aten} is not implemented")

    return rule


# x // y and 5.0 % x: torch records a NotImplemented node; backward through it raises
FLOOR_DIVIDE = defop(
    "floor_divide",
    node="NotImplemented",
    inputs=("self", "other"),
    saved=(),
    complex=kernel_refuses("div_floor_cpu"),
    fwd=lambda xp, a, b, p: _floor_div(xp, a, b),
    vjp=(_not_implemented("floor_divide"), _not_implemented("floor_divide")),
    jvp=_not_implemented("floor_divide"),
    smooth=False,
    sample={"kind": "not_differentiable"},
)
FLOOR_DIVIDE_ = defop(
    "floor_divide_",
    node="NotImplemented",
    inputs=("self", "other"),
    saved=(),
    complex=kernel_refuses("div_floor_cpu"),
    fwd=lambda xp, a, b, p: _floor_div(xp, a, b),
    vjp=(_not_implemented("floor_divide_"), _not_implemented("floor_divide_")),
    jvp=_not_implemented("floor_divide_"),
    smooth=False,
    sample={"kind": "not_differentiable"},
)
REMAINDER_SCALAR_TENSOR = defop(
    "remainder.Scalar_Tensor",
    node="NotImplemented",
    inputs=("self", "other"),
    saved=(),
    complex=kernel_refuses("remainder_cpu"),
    fwd=lambda xp, a, b, p: _remainder(xp, a, b),
    vjp=(_not_implemented("remainder"), _not_implemented("remainder")),
    jvp=_not_implemented("remainder"),
    smooth=False,
    sample={"kind": "not_differentiable"},
)


# ---------------------------------------------------------------- clamp with tensor bounds
def _clamp_t_fwd(xp, x, lo, hi, p):
    if lo is not None:
        x = xp.maximum(x, lo)
    return x if hi is None else xp.minimum(x, hi)


# torch's clamp_backward_min_max: x gets g inside [min, max]; min gets g where x < min < max;
# max gets g where x > max or max < min (there the result is max)
def _clamp_t_self(xp, g, x, lo, hi, out, p):
    m = None if lo is None else x >= lo
    if hi is not None:
        m = (x <= hi) if m is None else m & (x <= hi)
    return xp.where(m, g, 0.0)


def _clamp_t_min(xp, g, x, lo, hi, out, p):
    m = x < lo
    if hi is not None:
        m = m & (lo < hi)
    return xp.where(m, g, 0.0)


def _clamp_t_max(xp, g, x, lo, hi, out, p):
    m = x > hi
    if lo is not None:
        m = m | (hi < lo)
    return xp.where(m, g, 0.0)


def _clamp_t_jvp(xp, t, x, out, p):
    r = _clamp_t_self(xp, t[0], x[0], x[1], x[2], out, p)
    if x[1] is not None:
        r = r + _clamp_t_min(xp, t[1], x[0], x[1], x[2], out, p)
    if x[2] is not None:
        r = r + _clamp_t_max(xp, t[2], x[0], x[1], x[2], out, p)
    return r


def _clamp_cases(rng):
    x = rng.uniform(-3, 3, (3, 4))
    lo = rng.uniform(-2, 0, (3, 4))
    hi = rng.uniform(0, 2, (4,))
    x = np.where(np.abs(x - lo) < 0.05, x + 0.1, x)
    x = np.where(np.abs(x - hi) < 0.05, x + 0.1, x)
    return [
        (
            lambda a, b, c: _api().clamp(a, b, c),
            [x, lo, np.broadcast_to(hi, (3, 4)).copy()],
            lambda tt, a, b, c: tt.clamp(a, b, c),
        )
    ]


CLAMP_T = defop(
    "clamp.Tensor",
    node="ClampBackward0",
    inputs=("self", "min", "max"),
    saved=("max", "min", "self"),
    complex=_CLAMP_REFUSED,
    # torch's clamp kernel (both bounds) has no bool loop; one bound is maximum/minimum's
    bools=kernel_refuses(
        "clamp_cpu", when=lambda args, p: args[1] is not None and args[2] is not None
    ),
    fwd=_clamp_t_fwd,
    vjp=(_clamp_t_self, _clamp_t_min, _clamp_t_max),
    jvp=_clamp_t_jvp,
    smooth=False,
    sample={"kind": "clamp_tensor", "cases": _clamp_cases},
    torch=lambda torch, x, lo, hi: torch.clamp(x, lo, hi),
)
CLAMP_MIN = defop(
    "clamp_min",
    node="ClampMinBackward0",
    inputs=("self",),
    saved=("min", "self"),
    complex=_CLAMP_REFUSED,
    fwd=lambda xp, x, p: xp.maximum(x, p["min"]),
    vjp=lambda xp, g, x, out, p: xp.where(x >= p["min"], g, 0.0),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(
        _X, params=lambda rng: [(lambda t: t.clamp_min(0.5), lambda tt, t: t.clamp_min(0.5))]
    ),
    torch=lambda torch, x: x.clamp_min(0.5),
)
CLAMP_MAX = defop(
    "clamp_max",
    node="ClampMaxBackward0",
    inputs=("self",),
    saved=("max", "self"),
    complex=_CLAMP_REFUSED,
    fwd=lambda xp, x, p: xp.minimum(x, p["max"]),
    vjp=lambda xp, g, x, out, p: xp.where(x <= p["max"], g, 0.0),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample=_sample(
        _X, params=lambda rng: [(lambda t: t.clamp_max(0.5), lambda tt, t: t.clamp_max(0.5))]
    ),
    torch=lambda torch, x: x.clamp_max(0.5),
)
CLAMP_MIN_T = defop(
    "clamp_min.Tensor",
    node="ClampMinBackward1",
    inputs=("self", "min"),
    saved=("min", "self"),
    complex=kernel_refuses("maximum_cpu"),
    fwd=lambda xp, x, lo, p: xp.maximum(x, lo),
    vjp=(
        lambda xp, g, x, lo, out, p: xp.where(x >= lo, g, 0.0),
        lambda xp, g, x, lo, out, p: xp.where(x < lo, g, 0.0),
    ),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] >= x[1], t[0], t[1]),
    smooth=False,
    sample=_sample(
        _X,
        other=0.5,
        params=lambda rng: [(lambda a, b: a.clamp_min(b), lambda tt, a, b: a.clamp_min(b))],
    ),
    torch=lambda torch, x, lo: x.clamp_min(lo),
)
CLAMP_MAX_T = defop(
    "clamp_max.Tensor",
    node="ClampMaxBackward1",
    inputs=("self", "max"),
    saved=("max", "self"),
    complex=kernel_refuses("minimum_cpu"),
    fwd=lambda xp, x, hi, p: xp.minimum(x, hi),
    vjp=(
        lambda xp, g, x, hi, out, p: xp.where(x <= hi, g, 0.0),
        lambda xp, g, x, hi, out, p: xp.where(x > hi, g, 0.0),
    ),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] <= x[1], t[0], t[1]),
    smooth=False,
    sample=_sample(
        _X,
        other=0.5,
        params=lambda rng: [(lambda a, b: a.clamp_max(b), lambda tt, a, b: a.clamp_max(b))],
    ),
    torch=lambda torch, x, hi: x.clamp_max(hi),
)
