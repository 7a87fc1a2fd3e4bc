"""Rows for rounding, remainders, rounded division and clamping, each with torch's node and
gradient, so that none of them drops ``requires_grad`` (``x.trunc()`` records TruncBackward0,
``x % 1.0`` RemainderBackward0, ``x // 2`` torch's NotImplemented node...).

Integer division and remainder by zero raise torch's ``RuntimeError: ZeroDivisionError``.
"""

from __future__ import annotations

import numpy as np

from ..autograd.engine import xp_of
from .elementwise import _CLAMP_REFUSED, zero_grad, zero_tangent
from .out import out_call
from .registry import Refuse, defop, kernel_refuses

_zero, _zero_jvp = zero_grad, zero_tangent


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
        return [(x_fn, [x] + ([np.full((2, 3), other)] if other is not None else []), t_fn)
                for x_fn, t_fn in params(rng)]

    return {"kind": "rounding", "cases": cases}


def _api():
    from . import api

    return api


_X = [1.3, -2.6, 0.4, 3.2, -0.7, 2.2]

TRUNC = defop(
    "trunc", node="TruncBackward0", inputs=("self",), saved=(),
    complex=Refuse(NotImplementedError, "trunc is not supported for complex inputs"),
    fwd=lambda xp, x, p: xp.trunc(x), vjp=_zero, jvp=_zero_jvp, smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: _api().trunc(t), lambda tt, t: tt.trunc(t))]),
    torch=lambda torch, x: torch.trunc(x),
)
# frac = x - trunc(x): the gradient passes unchanged
FRAC = defop(
    "frac", node="FracBackward0", inputs=("self",), saved=(),
    complex=kernel_refuses("frac_cpu"),
    fwd=lambda xp, x, p: x - xp.trunc(x), vjp=lambda xp, g, x, out, p: g,
    jvp=lambda xp, t, x, out, p: t[0], smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: _api().frac(t), lambda tt, t: tt.frac(t))]),
    torch=lambda torch, x: torch.frac(x),
)


# torch rounds x * 10^d (or x / 10^-d) to nearest-even and scales back
def _round_decimals(xp, x, p):
    d = p["decimals"]
    if d >= 0:
        f = 10.0 ** d
        return xp.round(x * f) / f
    f = 10.0 ** -d
    return xp.round(x / f) * f


ROUND_DECIMALS = defop(
    "round.decimals", node="RoundBackward1", inputs=("self",), saved=(),
    complex=kernel_refuses("round_cpu"),
    fwd=_round_decimals, vjp=_zero, jvp=_zero_jvp, smooth=False,
    sample=_sample([1.312, -2.637, 0.444, 3.219, -0.781, 2.222], params=lambda rng: [
        (lambda t: _api().round(t, decimals=1), lambda tt, t: tt.round(t, decimals=1))]),
    torch=lambda torch, x: torch.round(x, decimals=1),
)

# remainder / fmod by a number: the gradient passes unchanged (RemainderBackward0, FmodBackward0)
REMAINDER_SCALAR = defop(
    "remainder.Scalar", node="RemainderBackward0", inputs=("self",), saved=(),
    complex=kernel_refuses("remainder_cpu"),
    fwd=lambda xp, x, p: _remainder(xp, x, p["other"]),
    vjp=lambda xp, g, x, out, p: g, jvp=lambda xp, t, x, out, p: t[0], smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: t % 1.5, lambda tt, t: t % 1.5)]),
    torch=lambda torch, x: torch.remainder(x, 1.5),
)
FMOD_SCALAR = defop(
    "fmod.Scalar", node="FmodBackward0", inputs=("self",), saved=(),
    complex=kernel_refuses("fmod_cpu"),
    fwd=lambda xp, x, p: _fmod(xp, x, p["other"]),
    vjp=lambda xp, g, x, out, p: g, jvp=lambda xp, t, x, out, p: t[0], smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: _api().fmod(t, 1.5), lambda tt, t: tt.fmod(t, 1.5))]),
    torch=lambda torch, x: torch.fmod(x, 1.5),
)
_FLOOR = {"rounding_mode": "floor"}
_TRUNC = {"rounding_mode": "trunc"}
# a - b * q(a / b): d/da = 1, d/db = -q with q = floor (remainder) or trunc (fmod)
REMAINDER = defop(
    "remainder.Tensor", node="RemainderBackward1", inputs=("self", "other"), saved=("other", "self"),
    complex=kernel_refuses("remainder_cpu"),
    fwd=lambda xp, a, b, p: _remainder(xp, a, b),
    vjp=(lambda xp, g, a, b, out, p: g,
         # torch: -grad * self.div(other, rounding_mode="floor") (DivBackward2)
         lambda xp, g, a, b, out, p: -g * xp.call(DIV_MODE, a, b, p=_FLOOR)),
    jvp=lambda xp, t, x, out, p: t[0] - t[1] * _floor_div(xp, x[0], x[1]), smooth=False,
    sample=_sample(_X, other=1.5, params=lambda rng: [
        (lambda a, b: _api().remainder(a, b), lambda tt, a, b: tt.remainder(a, b))]),
    torch=lambda torch, a, b: torch.remainder(a, b),
)
FMOD = defop(
    "fmod.Tensor", node="FmodBackward1", inputs=("self", "other"), saved=("other", "self"),
    complex=kernel_refuses("fmod_cpu"),
    fwd=lambda xp, a, b, p: _fmod(xp, a, b),
    vjp=(lambda xp, g, a, b, out, p: g,
         lambda xp, g, a, b, out, p: -g * xp.call(DIV_MODE, a, b, p=_TRUNC)),
    jvp=lambda xp, t, x, out, p: t[0] - t[1] * _trunc_div(xp, x[0], x[1]), smooth=False,
    sample=_sample(_X, other=1.5, params=lambda rng: [
        (lambda a, b: _api().fmod(a, b), lambda tt, a, b: tt.fmod(a, b))]),
    torch=lambda torch, a, b: torch.fmod(a, b),
)
# div(rounding_mode='floor' | 'trunc'): piecewise constant, zero gradient for both inputs
DIV_MODE = defop(
    "div.Tensor_mode", node="DivBackward2", inputs=("self", "other"),
    saved=("other", "rounding_mode", "self"),
    complex=Refuse(NotImplementedError, lambda p, out: f'"div_{p["rounding_mode"]}_cpu" not implemented for \'{{dtype}}\''),
    fwd=lambda xp, a, b, p: (_floor_div if p["rounding_mode"] == "floor" else _trunc_div)(xp, a, b),
    vjp=(_zero, _zero), jvp=lambda xp, t, x, out, p: t[0] * 0 + t[1] * 0, smooth=False,
    sample=_sample(_X, other=1.5, params=lambda rng: [
        (lambda a, b: _api().div(a, b, rounding_mode="floor"), lambda tt, a, b: tt.div(a, b, rounding_mode="floor")),
        (lambda a, b: _api().div(a, b, rounding_mode="trunc"), lambda tt, a, b: tt.div(a, b, rounding_mode="trunc"))]),
    torch=lambda torch, a, b: torch.div(a, b, rounding_mode="floor"),
)


def _not_implemented(aten):
    """A rule for an op torch records but cannot differentiate (its ``NotImplemented`` node)."""
    def rule(*_):
        raise RuntimeError(f"derivative for aten::{aten} is not implemented")

    return rule


# x // y and 5.0 % x: torch records a NotImplemented node; backward through it raises
FLOOR_DIVIDE = defop(
    "floor_divide", node="NotImplemented", inputs=("self", "other"), saved=(),
    complex=kernel_refuses("div_floor_cpu"),
    fwd=lambda xp, a, b, p: _floor_div(xp, a, b),
    vjp=(_not_implemented("floor_divide"), _not_implemented("floor_divide")),
    jvp=_not_implemented("floor_divide"), smooth=False,
    sample={"kind": "not_differentiable"},
)
FLOOR_DIVIDE_ = defop(
    "floor_divide_", node="NotImplemented", inputs=("self", "other"), saved=(),
    complex=kernel_refuses("div_floor_cpu"),
    fwd=lambda xp, a, b, p: _floor_div(xp, a, b),
    vjp=(_not_implemented("floor_divide_"), _not_implemented("floor_divide_")),
    jvp=_not_implemented("floor_divide_"), smooth=False,
    sample={"kind": "not_differentiable"},
)
REMAINDER_SCALAR_TENSOR = defop(
    "remainder.Scalar_Tensor", node="NotImplemented", inputs=("self", "other"), saved=(),
    complex=kernel_refuses("remainder_cpu"),
    fwd=lambda xp, a, b, p: _remainder(xp, a, b),
    vjp=(_not_implemented("remainder"), _not_implemented("remainder")),
    jvp=_not_implemented("remainder"), smooth=False,
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
    return [(lambda a, b, c: _api().clamp(a, b, c), [x, lo, np.broadcast_to(hi, (3, 4)).copy()],
             lambda tt, a, b, c: tt.clamp(a, b, c))]


CLAMP_T = defop(
    "clamp.Tensor", node="ClampBackward0", inputs=("self", "min", "max"), saved=("max", "min", "self"),
    complex=_CLAMP_REFUSED,
    # torch's clamp kernel (both bounds) has no bool loop; one bound is maximum/minimum's
    bools=kernel_refuses("clamp_cpu", when=lambda args, p: args[1] is not None and args[2] is not None),
    fwd=_clamp_t_fwd, vjp=(_clamp_t_self, _clamp_t_min, _clamp_t_max), jvp=_clamp_t_jvp,
    smooth=False, sample={"kind": "clamp_tensor", "cases": _clamp_cases},
    torch=lambda torch, x, lo, hi: torch.clamp(x, lo, hi),
)
CLAMP_MIN = defop(
    "clamp_min", node="ClampMinBackward0", inputs=("self",), saved=("min", "self"),
    complex=_CLAMP_REFUSED,
    fwd=lambda xp, x, p: xp.maximum(x, p["min"]),
    vjp=lambda xp, g, x, out, p: xp.where(x >= p["min"], g, 0.0),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] >= p["min"], t[0], 0.0), smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: t.clamp_min(0.5), lambda tt, t: t.clamp_min(0.5))]),
    torch=lambda torch, x: x.clamp_min(0.5),
)
CLAMP_MAX = defop(
    "clamp_max", node="ClampMaxBackward0", inputs=("self",), saved=("max", "self"),
    complex=_CLAMP_REFUSED,
    fwd=lambda xp, x, p: xp.minimum(x, p["max"]),
    vjp=lambda xp, g, x, out, p: xp.where(x <= p["max"], g, 0.0),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] <= p["max"], t[0], 0.0), smooth=False,
    sample=_sample(_X, params=lambda rng: [(lambda t: t.clamp_max(0.5), lambda tt, t: t.clamp_max(0.5))]),
    torch=lambda torch, x: x.clamp_max(0.5),
)
CLAMP_MIN_T = defop(
    "clamp_min.Tensor", node="ClampMinBackward1", inputs=("self", "min"), saved=("min", "self"),
    complex=kernel_refuses("maximum_cpu"),
    fwd=lambda xp, x, lo, p: xp.maximum(x, lo),
    vjp=(lambda xp, g, x, lo, out, p: xp.where(x >= lo, g, 0.0),
         lambda xp, g, x, lo, out, p: xp.where(x < lo, g, 0.0)),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] >= x[1], t[0], t[1]), smooth=False,
    sample=_sample(_X, other=0.5, params=lambda rng: [
        (lambda a, b: a.clamp_min(b), lambda tt, a, b: a.clamp_min(b))]),
    torch=lambda torch, x, lo: x.clamp_min(lo),
)
CLAMP_MAX_T = defop(
    "clamp_max.Tensor", node="ClampMaxBackward1", inputs=("self", "max"), saved=("max", "self"),
    complex=kernel_refuses("minimum_cpu"),
    fwd=lambda xp, x, hi, p: xp.minimum(x, hi),
    vjp=(lambda xp, g, x, hi, out, p: xp.where(x <= hi, g, 0.0),
         lambda xp, g, x, hi, out, p: xp.where(x > hi, g, 0.0)),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] <= x[1], t[0], t[1]), smooth=False,
    sample=_sample(_X, other=0.5, params=lambda rng: [
        (lambda a, b: a.clamp_max(b), lambda tt, a, b: a.clamp_max(b))]),
    torch=lambda torch, x, hi: x.clamp_max(hi),
)


# ---------------------------------------------------------------- the public functions
def _kernel_error(name: str, t) -> NotImplementedError:
    from .api import scalar_type

    dev = "cpu" if t._data.__class__ is np.ndarray else "cuda"
    return NotImplementedError(f'"{name}_{dev}" not implemented for \'{scalar_type(t)}\'')


def _orig(orig, promoted):
    """The inputs a promoted op records: the originals where a cast was made (torch promotes
    inside the kernel: no ToCopyBackward0), None where none was."""
    return None if all(o is q for o, q in zip(orig, promoted)) else orig


def _promoted(a, b):
    """Both operands in torch's result type (a Tensor first; ``b`` a Tensor or a number)."""
    from ..tensor import Tensor
    from .dispatch import as_operand, promote_data

    if not isinstance(b, Tensor) and not isinstance(b, (int, float, bool)):
        b = as_operand(b, a)
    if isinstance(b, Tensor) and a._data.shape != b._data.shape:
        # torch's kernels broadcast before they dispatch on the dtype: its shape error first
        try:
            np.broadcast_shapes(a._data.shape, b._data.shape)
        except ValueError:
            from .api_compare import _broadcast_error

            _broadcast_error(a._data.shape, b._data.shape)
    return promote_data(a, b)


def _binary(name, a, b, scalar_row, tensor_row, kernel):
    """remainder / fmod: a number divisor keeps the one-input row (torch's Scalar overload)."""
    from ..tensor import Tensor
    from .dispatch import apply, apply1

    if not isinstance(a, Tensor):
        return _reversed(name, a, b)
    orig = (a, b)
    a, b = _promoted(a, b)
    if a._data.dtype.kind == "b":
        raise _kernel_error(kernel, a)
    if isinstance(b, Tensor):
        return apply(tensor_row, (a, b), None, _orig(orig, (a, b)))
    return apply1(scalar_row, a, {"other": b})


def _reversed(name, a, b):
    """``5.0 % x``: torch's remainder(Scalar, Tensor), recorded but not differentiable."""
    from .dispatch import apply

    orig = (a, b)
    b, a = _promoted(b, a)
    if name != "remainder":
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")
    return apply(REMAINDER_SCALAR_TENSOR, (a, b), None, _orig(orig, (a, b)))


def remainder(input, other, *, out=None):
    """Python's modulus, with the sign of the divisor (RemainderBackward0 for a number
    divisor, RemainderBackward1 for a tensor); integer division by zero raises.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([-2.5, 1.5], requires_grad=True)
        >>> x % 1.0
        tensor([0.5000, 0.5000], grad_fn=<RemainderBackward0>)
    """
    if out is not None:
        return out_call("remainder", remainder, (input, other), {}, out)
    return _binary("remainder", input, other, REMAINDER_SCALAR, REMAINDER, "remainder")


def fmod(input, other, *, out=None):
    """C's fmod, with the sign of the dividend (FmodBackward0 / FmodBackward1)."""
    if out is not None:
        return out_call("fmod", fmod, (input, other), {}, out)
    return _binary("fmod", input, other, FMOD_SCALAR, FMOD, "fmod")


def floor_divide_inplace(input, other):
    """``x.floor_divide_(y)`` / ``x //= y``: torch names the in-place op in its error."""
    return floor_divide(input, other, _row=FLOOR_DIVIDE_)


def floor_divide(input, other, *, out=None, _row=None):
    """``input // other``, rounded toward minus infinity. Torch records a ``NotImplemented``
    node: backward through it raises ``derivative for aten::floor_divide is not implemented``."""
    from ..tensor import Tensor
    from .dispatch import apply

    if out is not None:
        return out_call("aten::floor_divide", floor_divide, (input, other), {}, out)
    if isinstance(input, Tensor):
        a, b = _promoted(input, other)
    else:
        b, a = _promoted(other, input)
    t = a if isinstance(a, Tensor) else b  # promoted: its dtype is the result's
    if t._data.dtype.kind == "b":
        raise _kernel_error("div_floor", t)
    return apply(_row or FLOOR_DIVIDE, (a, b), None, _orig((input, other), (a, b)))


def div_rounded(input, other, rounding_mode):
    """``div(..., rounding_mode='floor' | 'trunc')`` (DivBackward2, zero gradient)."""
    from ..tensor import Tensor
    from .dispatch import apply

    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    if not isinstance(input, Tensor):
        b, a = _promoted(other, input)
    else:
        a, b = _promoted(input, other)
    t = a if isinstance(a, Tensor) else b
    if t._data.dtype.kind == "b":
        raise _kernel_error(f"div_{rounding_mode}", t)
    return apply(DIV_MODE, (a, b), {"rounding_mode": rounding_mode}, _orig((input, other), (a, b)))


def _unary_rounding(row, name, input, int_ok=True):
    from .dispatch import apply1

    kind = input._data.dtype.kind
    if kind == "b":
        raise _kernel_error(name, input)
    if kind in "iu":
        if not int_ok:
            raise _kernel_error(name, input)
        return input.clone()
    return apply1(row, input)


def trunc(input, *, out=None):
    """Round toward zero (TruncBackward0: zero gradient).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([1.5, -2.5], requires_grad=True).trunc()
        tensor([ 1., -2.], grad_fn=<TruncBackward0>)
    """
    if out is not None:
        return out_call("trunc", trunc, (input,), {}, out, dtype_rule="found")
    return _unary_rounding(TRUNC, "trunc_vml", input)


fix = trunc


def frac(input, *, out=None):
    """``input - trunc(input)`` (FracBackward0: the gradient passes unchanged)."""
    if out is not None:
        return out_call("frac", frac, (input,), {}, out, dtype_rule="found")
    return _unary_rounding(FRAC, "frac", input, int_ok=False)


def round_decimals(input, decimals):
    """``round(x, decimals=d)`` (RoundBackward1)."""
    from .dispatch import apply1

    if input._data.dtype.kind not in "fc":
        raise _kernel_error("round", input)
    return apply1(ROUND_DECIMALS, input, {"decimals": int(decimals)})


# ---------------------------------------------------------------- bitwise (integers and bools)
def _bitwise(fn, name, kinds="iub"):
    def op(input, other, *, out=None):
        from ..tensor import Tensor

        if out is not None:
            if not isinstance(other, Tensor) and out._data.size and isinstance(input, Tensor) \
                    and out._data.shape != input._data.shape:
                _warn_resize_twice(out, input)
            return out_call(f"aten::{name}", op, (input, other), {}, out)
        if isinstance(input, Tensor):
            a, b = _promoted(input, other)
        else:
            b, a = _promoted(other, input)
        t = a if isinstance(a, Tensor) else b
        if t._data.dtype.kind not in kinds:
            raise _kernel_error(name, t)
        from .api import _operands

        ad, bd = _operands(a, b)
        r = fn(ad, bd)
        return Tensor._wrap(r if hasattr(r, "shape") and r.__class__ is not np.bool_ else np.asarray(r, t._data.dtype))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of integer or bool tensors (no gradient), as torch."
    return op


def _warn_resize_twice(out, input):
    """torch's Scalar overloads of the bitwise ops resize ``out`` through two kernels: its
    resize warning shows twice. The first one here, the second from out_call."""
    import warnings

    from .out import _RESIZED

    warnings.warn(_RESIZED.format(old=list(out._data.shape), new=list(input._data.shape)),
                  UserWarning, stacklevel=4)


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise(np.left_shift, "lshift", "iu")  # the shifts have no bool loop
bitwise_right_shift = _bitwise(np.right_shift, "rshift", "iu")


def bitwise_not(input, *, out=None):
    """``~input`` for integer and bool tensors."""
    from ..tensor import Tensor

    if out is not None:
        return out_call("aten::bitwise_not", bitwise_not, (input,), {}, out, dtype_rule="found")
    if input._data.dtype.kind not in "iub":
        raise _kernel_error("bitwise_not", input)
    return Tensor._wrap(np.invert(input._data))
