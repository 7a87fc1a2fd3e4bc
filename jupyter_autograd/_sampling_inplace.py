"""The in-place samplers with torch's values, checks and messages: ``uniform_``, ``normal_``,
``bernoulli_``, ``random_``, ``exponential_``, ``cauchy_``, ``log_normal_``, ``geometric_`` (bound
as Tensor methods here), and :func:`_fill`, which writes a host draw into a tensor in torch's order
(memory order of the written tensor) and records the sampler's node when the tensor is in a graph.

The factories built on them (``rand``, ``randn``, ``normal``, ``bernoulli``...) are
:mod:`._sampling`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import _distributions as D
from . import _dtype
from ._tensor_inplace import _commit_inplace, _snapshot
from .backend import move_array
from .grad_mode import STATE
from .ops import random_ops as RO
from .ops.dispatch import apply
from .random import _get
from .tensor import Tensor

_INT_INFO = {np.dtype(t): np.iinfo(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}
_TYPE_META = {
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
_C_TYPE = {
    "int8": "signed char",
    "int16": "short",
    "int32": "int",
    "int64": "long int",
    "uint8": "unsigned char",
    "bool": "bool",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
}


def _fmt(x) -> str:
    """A number as C++'s ``ostream <<`` prints a double in torch's messages (``%g``)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def _torch_name(dt) -> str:
    return _dtype.from_numpy_dtype(dt)._legacy.replace("Tensor", "")


def _not_implemented(kernel: str, dt) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_torch_name(dt)}'")


def _axes(arr: np.ndarray):
    """The transpose of ``arr`` whose row-major order is torch's TensorIterator order (memory
    order, outermost stride first), or None when that is ``arr``'s own order."""
    if arr.flags.c_contiguous or arr.ndim < 2:
        return None
    return sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]) if arr.shape[d] > 1 else 0)


def _fill(t: Tensor, draw, p=None, row: str | None = None, p_tensor=None) -> Tensor:
    """Write ``draw(n, contiguous[, p])`` (a flat host array) into ``t`` in torch's order; ``p``
    (an array broadcast to ``t``'s shape) is passed flat in that same order. A tensor in a graph
    records the sampler's zero-gradient node (``ops/random_ops.py``, ``row``), as torch does."""
    t._check_inplace()
    data = t._data
    recorded = row is not None and (
        (
            STATE.grad_enabled
            and (t._requires_grad or (p_tensor is not None and p_tensor._requires_grad))
        )
        or bool(t._fw)
    )
    if data.size:
        host = (
            data
            if data.__class__ is np.ndarray and not recorded
            else np.empty_like(
                data if data.__class__ is np.ndarray else np.empty(data.shape, data.dtype)
            )
        )
        target = host
        if host.dtype.kind == "c":  # view_as_real: the real and imaginary parts, interleaved
            real = host.real
            target = np.lib.stride_tricks.as_strided(
                real, real.shape + (2,), real.strides + (real.itemsize,), writeable=True
            )
        axes = _axes(target)
        view = target if axes is None else target.transpose(axes)
        args = (target.size, bool(target.flags.c_contiguous))
        if p is not None:
            args += (np.ascontiguousarray(p if axes is None else p.transpose(axes)).reshape(-1),)
        view[...] = draw(*args).reshape(view.shape)
    elif recorded:  # nothing to draw, but torch still records the sampler's node
        host = data
    if recorded:
        sample = move_array(host, t.device) if data.__class__ is not np.ndarray else host
        inputs = (_snapshot(t),) if p_tensor is None else (_snapshot(t), p_tensor)
        _commit_inplace(t, apply(RO.INPLACE[row], inputs, {"sample": sample}))
        return t
    if data.size and host is not data:
        data[...] = move_array(host, t.device)
    t._bump_version()
    return t


def _real(dt):
    return np.dtype(dt.type(0).real.dtype) if dt.kind == "c" else dt


# ---------------------------------------------------------------------------- in-place
def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator=None, **kw) -> Tensor:
    """Fill with U(from, to) samples, as torch (same values for the same generator state)."""
    from_ = kw.pop("from", from_)
    dt = _real(self._data.dtype)
    if dt.kind != "f":
        raise _not_implemented("check_uniform_bounds", dt)
    hi = float(np.finfo(dt).max)
    for val, what in ((from_, "from"), (to, "to")):
        if not -hi <= val <= hi:
            raise RuntimeError(f"{what} is out of bounds for {_C_TYPE[dt.name]}")
    if not from_ <= to:
        raise RuntimeError(
            "uniform_ expects to return a [from, to) range, but found "
            f"from={_fmt(float(from_))} > to={_fmt(float(to))}"
        )
    if to - from_ > hi:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_torch_name(dt)}>::max(), but "
            f"found to={_fmt(float(to))} and from={_fmt(float(from_))} which result in to-from "
            "to exceed the limit"
        )
    return _fill(self, lambda n, c: D.uniform(_get(generator), n, dt, from_, to), row="uniform_")


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with N(mean, std²) samples, as torch (Box-Muller blocks of 16 for >= 16 contiguous
    elements, the scalar sampler with its cached second value otherwise)."""
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
    dt = self._data.dtype
    if dt.kind == "c":  # real and imaginary parts each get half the variance
        std = std / math.sqrt(2)
    elif dt.kind != "f" and self._data.size:  # an empty tensor reaches no kernel, as in torch
        raise _not_implemented("normal_kernel_cpu", dt)
    return _fill(
        self, lambda n, c: D.normal(_get(generator), n, _real(dt), mean, std, c), row="normal_"
    )


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 draws that are 1 with probability ``p`` (a number or a broadcastable tensor)."""
    dt = self._data.dtype
    if dt.kind == "c" and self._data.size:
        raise _not_implemented(
            "bernoulli_tensor_cpu_self_" if isinstance(p, Tensor) else "bernoulli_scalar_cpu_", dt
        )
    if isinstance(p, Tensor):
        pa = p.detach().cpu()._data
        if not bool(((pa >= 0) & (pa <= 1)).all()):
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
        pa = np.broadcast_to(pa, self._data.shape)
        return _fill(
            self,
            lambda n, c, pf: D.bernoulli_tensor(_get(generator), pf, dt),
            pa,
            row="bernoulli_.Tensor",
            p_tensor=p,
        )
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(float(p))}")
    return _fill(
        self, lambda n, c: D.bernoulli_scalar(_get(generator), n, dt, p), row="bernoulli_.float"
    )


def _update_from(frm: int, dt) -> int:
    """torch's update_from: move ``from`` up to an integer the float dtype holds exactly."""
    fp1 = int(dt.type(frm + 1))
    if fp1 < frm:
        frm = fp1 + (1 << (abs(frm + 1).bit_length() - 1 - np.finfo(dt).nmant))
    return frm


def _update_to(to: int, dt) -> int:
    """torch's update_to: move ``to`` down to an integer the float dtype holds exactly."""
    tm1 = int(dt.type(to - 1))
    if tm1 >= to:
        to = tm1 - (1 << (abs(to - 1).bit_length() - 1 - np.finfo(dt).nmant))
    return to


def _check_range(frm: int, to_inc: int, dt) -> None:
    if dt.kind == "f":
        lo, hi = -float(np.finfo(dt).max), float(np.finfo(dt).max)
    elif dt.kind == "b":
        lo, hi = 0, 1
    else:
        lo, hi = int(_INT_INFO[dt].min), int(_INT_INFO[dt].max)
    for val, what in ((frm, "from"), (to_inc, "to - 1")):
        if not lo <= val <= hi:
            raise RuntimeError(f"{what} is out of bounds for {_C_TYPE[dt.name]}")
    if dt.kind == "f":
        digits = np.finfo(dt).nmant + 1
        for val, what in ((frm, "from"), (to_inc, "to - 1")):
            if val < -(1 << digits) or val > (1 << digits):
                warnings.warn(
                    f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {_C_TYPE[dt.name]} can support discrete uniform distribution "
                    "only within this range. This warning will become an error in version 1.7 "
                    "release, please fix the code in advance",
                    UserWarning,
                    stacklevel=4,
                )


_NO_TO = object()


def random_(self: Tensor, *args, generator=None, **kw) -> Tensor:
    """Fill with integers, as torch: ``random_()`` over [0, 2**mantissa] for floats and [0, max]
    for integers, ``random_(to)`` over [0, to), ``random_(from, to)`` over [from, to) and
    ``random_(from, None)`` from ``from`` up to the type's limit."""
    if self._data.dtype.kind == "c":
        if not args and not kw:
            if not self._data.size:
                return _fill(self, None, row="random_")
            raise _not_implemented("random_kernel_cpu", self._data.dtype)
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    frm, to = 0, _NO_TO
    if len(args) == 1 and "to" not in kw:
        to = args[0]
    elif len(args) == 2:
        frm, to = args
    elif len(args) == 1:
        frm = args[0]
    has_from = len(args) == 2 or (len(args) == 1 and "to" in kw) or "from" in kw
    frm, to = kw.pop("from", frm), kw.pop("to", to)
    dt = self._data.dtype
    if to is _NO_TO:
        if len(args) == 0 and frm == 0:
            return _fill(self, lambda n, c: D.random_default(_get(generator), n, dt), row="random_")
        to = None
    frm = int(frm)
    if to is not None:
        to = int(to)
        if not frm < to:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}"
            )
        if dt.kind == "f":
            frm, to = _update_from(frm, dt), _update_to(to, dt)
            if not frm < to:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                    f"but got from={frm} >= to={to}"
                )
        to_inc = to - 1
    elif frm == -(1 << 63):
        if dt.name not in ("int64", "float64", "float32"):
            raise RuntimeError(
                "random_full_64_bits_range_kernel_cpu handles only int64, double, "
                "float and bfloat16"
            )
        return _fill(
            self, lambda n, c: D.random_full_range(_get(generator), n, dt), row="random_.from"
        )
    elif dt.kind == "f":
        to_inc = 1 << (np.finfo(dt).nmant + 1)
        frm = _update_from(frm, dt)
        if not frm < to_inc:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={frm} > to_inc={to_inc}"
            )
    else:
        to_inc = 1 if dt.kind == "b" else int(_INT_INFO[dt].max)
    _check_range(frm, to_inc, dt)
    row = "random_.from" if has_from else "random_.to"
    return _fill(
        self, lambda n, c: D.random_from_to(_get(generator), n, dt, to_inc - frm + 1, frm), row=row
    )


def _float_only(dt, what: str) -> None:
    if dt.kind != "f":
        raise RuntimeError(
            f"{what} is a continuous probability distribution. dtype must be a floating point but "
            f"you specified {_torch_name(dt)}"
        )


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with Exp(lambd) samples, as torch."""
    if not lambd > 0.0:
        raise RuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_fmt(float(lambd))}"
        )
    dt = self._data.dtype
    if self._data.size:
        _float_only(dt, "Exponential distribution")
    return _fill(
        self, lambda n, c: D.exponential(_get(generator), n, dt, lambd), row="exponential_"
    )


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fill with Cauchy(median, sigma) samples, as torch."""
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(float(sigma))}")
    dt = self._data.dtype
    if dt.kind != "f":  # torch prints the C++ type here (TypeMeta), not the ScalarType
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype "
            f"must be a floating point but you specified {_TYPE_META[dt.name]}"
        )
    return _fill(self, lambda n, c: D.cauchy(_get(generator), n, dt, median, sigma), row="cauchy_")


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fill with exp(N(mean, std²)) samples, as torch."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(float(std))}")
    dt = self._data.dtype
    if dt.kind != "f" and self._data.size:
        raise _not_implemented("log_normal_cpu", dt)
    return _fill(
        self, lambda n, c: D.log_normal(_get(generator), n, dt, mean, std), row="log_normal_"
    )


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with Geometric(p) samples (trials to the first success), as torch."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(float(p))}")
    dt = self._data.dtype
    if dt.kind == "c" and self._data.size:
        raise _not_implemented("geometric_cpu", dt)
    return _fill(self, lambda n, c: D.geometric(_get(generator), n, dt, p), row="geometric_")


Tensor.uniform_ = uniform_
Tensor.normal_ = normal_
Tensor.bernoulli_ = bernoulli_
Tensor.random_ = random_
Tensor.exponential_ = exponential_
Tensor.cauchy_ = cauchy_
Tensor.log_normal_ = log_normal_
Tensor.geometric_ = geometric_
