"""Tensor factories: tensor, zeros, ones, full, eye, arange, range, linspace, rand..."""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from . import _dtype, _slots
from ._tensor_data import array_from_data
from .backend import _BACKENDS, canonical_device
from .tensor import Tensor

_ndarray = np.ndarray


def _np_dtype(dtype, default=None):
    if dtype is None:
        return default
    return _dtype.to_numpy_dtype(dtype)


_DEFAULT_DEVICE = [None]  # set_default_device: where factories put tensors without device=


def set_default_device(device) -> None:
    """Make factories without ``device=`` create tensors on ``device`` (``None`` resets to cpu).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.set_default_device("cpu")
        >>> torch.zeros(1).device
        device(type='cpu')
        >>> torch.set_default_device(None)
    """
    _DEFAULT_DEVICE[0] = None if device is None else canonical_device(device)


def get_default_device():
    """The device factories use when ``device=`` is not given (``cpu`` unless set)."""
    from .backend import CPU

    return _DEFAULT_DEVICE[0] or CPU


def _finish(arr, dtype_np, device, requires_grad, copy=False) -> Tensor:
    if device is None:
        device = _DEFAULT_DEVICE[0]
    if dtype_np is not None and arr.dtype != dtype_np:
        with np.errstate(invalid="ignore", over="ignore"):  # NumPy data casts as torch's: silently
            arr = arr.astype(dtype_np)
    elif copy:
        arr = arr.copy()
    if device is not None:
        dev = canonical_device(device)
        if dev.type != "cpu":
            arr = _BACKENDS[dev.type].asarray(arr)
    t = Tensor._wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor copying ``data``; floats give the default dtype, ints int64.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([1, 2])
        tensor([1, 2])
        >>> torch.tensor([1., 2.], requires_grad=True)
        tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        arr = data._data
        if arr.__class__ is not _ndarray:
            arr = _BACKENDS[data.device.type].to_host(arr)
        dev = device if device is not None else data.device
        return _finish(arr.copy(), _np_dtype(dtype), dev, requires_grad)
    if isinstance(data, np.ndarray):
        if not (dtype is not None and data.dtype.kind == "u"):  # torch has uint16/32/64 tensors
            _dtype.from_numpy_dtype(data.dtype)  # torch's TypeError for object, str, datetime...
        arr = np.array(data)
    else:
        arr = array_from_data(data, _np_dtype(dtype))
    return _finish(arr, _np_dtype(dtype), device, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array (or returns a Tensor as is)."""
    if isinstance(data, Tensor):
        if (dtype is None or data.dtype is dtype) and (
            device is None or data.device == canonical_device(device)
        ):
            return data
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return _finish(data, _np_dtype(dtype), device, False)
    return _finish(array_from_data(data, _np_dtype(dtype)), _np_dtype(dtype), device, False)


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray``.

    Example:
        >>> import numpy as np, jupyter_autograd as torch
        >>> torch.from_numpy(np.arange(3))
        tensor([0, 1, 2])
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return Tensor._wrap(ndarray)


_RANDOM_SIGNATURES = (
    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
)


def _required_size(name: str, size: tuple) -> None:
    """torch's TypeError for a factory called without any size (``torch.ones()``)."""
    if size:
        return
    if name in ("rand", "randn"):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (), but expected one "
            f"of:\n{_RANDOM_SIGNATURES}"
        )
    raise TypeError(f'{name}() missing 1 required positional arguments: "size"')


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s.item())
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(
                f"zeros(): argument 'size' (position 1) must be tuple of ints, but found element of type {type(s).__name__} at pos 0"
            )
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _filled(size, value, dtype, device, requires_grad, default=None):
    dt = _np_dtype(dtype, default or _dtype.get_default_dtype().np)
    if device is None:
        device = _DEFAULT_DEVICE[0]
    if device is not None and canonical_device(device).type != "cpu":
        xp = _BACKENDS[canonical_device(device).type].xp()
        arr = xp.full(size, value, dtype=dt)
        t = Tensor._wrap(arr)
        if requires_grad:
            t.requires_grad_()
        return t
    return _finish(np.full(size, value, dtype=dt), None, None, requires_grad)


def _into_out(name, out, dtype, make, warn=None):
    """A factory's ``out=``: torch's autograd and dtype checks, then ``out`` resized (silently,
    unlike other ops) and filled with ``make(dtype, device)``."""
    from .ops.out import check_out, write

    check_out(f"aten::{name}", out)
    dt = out._data.dtype
    if dtype is not None and _dtype.to_numpy_dtype(dtype) != dt:
        raise RuntimeError(
            f"dtype {_legacy(_dtype.to_numpy_dtype(dtype))} does not "
            f"match dtype of out parameter ({_legacy(dt)})"
        )
    r = make(_dtype.from_numpy_dtype(dt), out.device)
    if warn is not None and out._data.size and out._data.shape != r._data.shape:
        warnings.warn(warn(out, r), UserWarning, stacklevel=3)
    return write(out, r, warn_resize=False)


def _legacy(dt) -> str:
    return _dtype.from_numpy_dtype(np.dtype(dt))._legacy[: -len("Tensor")]


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """A tensor of zeros (default dtype float32)."""
    _required_size("zeros", size)
    if out is not None:
        return _into_out("zeros", out, dtype, lambda dt, dev: zeros(*size, dtype=dt, device=dev))
    return _filled(_size(size), 0, dtype, device, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """A tensor of ones.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.ones(2, 2)
        tensor([[1., 1.],
                [1., 1.]])
    """
    _required_size("ones", size)
    if out is not None:
        return _into_out("ones", out, dtype, lambda dt, dev: ones(*size, dtype=dt, device=dev))
    return _filled(_size(size), 1, dtype, device, requires_grad)


def empty(
    *size, out=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    _required_size("empty", size)
    if out is not None:
        if out._requires_grad:  # empty(out=) resizes out first, which torch refuses for these
            raise RuntimeError("cannot resize variables that require grad")
        if out._data.shape == _size(size):  # nothing to write: torch leaves out (and its version)
            return out
        return _into_out("empty", out, dtype, lambda dt, dev: empty(*size, dtype=dt, device=dev))
    return _filled(_size(size), 0, dtype, device, requires_grad)


def full(
    size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype follows the value (bool, int64, float)."""
    if out is not None:
        return _into_out(
            "full", out, dtype, lambda dt, dev: full(size, fill_value, dtype=dt, device=dev)
        )
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtype.bool
        elif isinstance(fill_value, int):
            dtype = _dtype.int64
        elif isinstance(fill_value, complex):
            dtype = _dtype.complex64
    return _filled(
        _size((size,) if isinstance(size, int) else (tuple(size),)),
        fill_value,
        dtype,
        device,
        requires_grad,
    )


def _like(input, dtype, device):
    return (dtype if dtype is not None else input.dtype), (
        device if device is not None else input.device
    )


def zeros_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    dt, dev = _like(input, dtype, device)
    return zeros(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def ones_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    """Ones with the shape, dtype and device of ``input``."""
    dt, dev = _like(input, dtype, device)
    return ones(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def empty_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    dt, dev = _like(input, dtype, device)
    return full(input.shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def eye(
    n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    """The identity matrix (n x m)."""
    if out is not None:
        return _into_out("eye", out, dtype, lambda dt, dev: eye(n, m, dtype=dt, device=dev))
    arr = np.eye(
        n, m if m is not None else n, dtype=_np_dtype(dtype, _dtype.get_default_dtype().np)
    )
    return _finish(arr, None, device, requires_grad)


def _is_int(*vals):
    return builtins.all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals)


def arange(
    start=None,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """Values in [start, end) by ``step``; int64 for integer arguments.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.arange(0, 5)
        tensor([0, 1, 2, 3, 4])
    """
    if end is None:
        if start is None:  # (the API binding words it as torch's parser)
            raise TypeError("arange() missing 1 required positional argument: 'end'")
        start, end = 0, start
    elif start is None:  # arange(end=5)
        start = 0
    if out is not None:
        return _into_out(
            "arange",
            out,
            dtype,
            lambda dt, dev: arange(start, end, step, dtype=dt, device=dev),
            warn=lambda o, r: (
                f"The number of elements in the out tensor of shape {list(o._data.shape)} is "
                f"{o._data.size} which does not match the computed number of elements "
                f"{r._data.size}. Note that this may occur as a result of rounding error. The "
                f"out tensor will be resized to a tensor of shape ({r._data.size},)."
            ),
        )
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    default = np.dtype(np.int64) if _is_int(start, end, step) else _dtype.get_default_dtype().np
    dt = _np_dtype(dtype, default)
    if dt.kind in "bc":  # torch has no arange kernel for bool or complex
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{_dtype.from_numpy_dtype(dt)._legacy[:-6]}'"
        )
    n = builtins.max(0, math.ceil((end - start) / step))  # sized in double, as torch
    if dt.kind == "f":
        arr = (start + step * np.arange(n, dtype=np.float64)).astype(dt)
    else:  # integer dtypes: torch casts start and step to the dtype (a step that truncates to 0
        # is refused)
        if int(step) == 0:
            raise ValueError("step must be nonzero")
        arr = (int(start) + int(step) * np.arange(n, dtype=np.int64)).astype(dt)
    return _finish(arr, None, device, requires_grad)


_RANGE_WARNING = (
    "torch.range is deprecated and will be removed in a future release because its behavior is "
    "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
    "[start, end)."
)


def range(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """Deprecated torch.range: values in [start, end] **inclusive**, default float dtype.

    Example:
        >>> import warnings, jupyter_autograd as torch
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     torch.range(0, 5)
        tensor([0., 1., 2., 3., 4., 5.])
    """
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    from .ops.out import _user_stacklevel

    # at the user's line, above the out= wrapper (aliases.accept_out) that calls this
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=_user_stacklevel())
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = math.floor((end - start) / step) + 1
    if n < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dt = _np_dtype(dtype, _dtype.get_default_dtype().np)
    arr = (start + step * np.arange(n, dtype=np.float64)).astype(dt)
    return _finish(arr, None, device, requires_grad)


def linspace(
    start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    if out is not None:
        return _into_out(
            "linspace",
            out,
            dtype,
            lambda dt, dev: linspace(start, end, steps, dtype=dt, device=dev),
        )
    dt = _np_dtype(dtype, _dtype.get_default_dtype().np)
    if dt.kind == "b":
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if dt in (np.float32, np.float64) and not isinstance(start, complex) and steps > 1:
        arr = _linspace_float(start, end, steps, dt)
    else:
        arr = np.linspace(start, end, steps, dtype=np.float64).astype(dt)
    return _finish(arr, None, device, requires_grad)


def _linspace_float(start, end, steps, dt):
    """torch's CPU linspace in the dtype itself: ``step = (end - start) / (steps - 1)``, the
    first half ``start + step * i``, the second ``end - step * (steps - 1 - i)``, each one
    fused multiply-add (bit for bit torch's, which differs from NumPy's in the last bits)."""
    from ._fma import fma

    f = dt.type
    s, e = f(start), f(end)
    step = (e - s) / f(steps - 1)
    idx = np.arange(steps)
    lo = idx < steps // 2
    out = np.empty(steps, dt)
    n_lo = int(lo.sum())
    out[:n_lo] = fma(np.full(n_lo, step, dt), idx[:n_lo].astype(dt), np.full(n_lo, s, dt))
    n_hi = steps - n_lo
    back = (steps - 1 - idx[n_lo:]).astype(dt)
    out[n_lo:] = fma(np.full(n_hi, -step, dt), back, np.full(n_hi, e, dt))
    return out


def logspace(
    start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    arr = np.logspace(start, end, steps, base=base).astype(
        _np_dtype(dtype, _dtype.get_default_dtype().np)
    )
    return _finish(arr, None, device, requires_grad)


def _legacy_tensor_init(self, *args, **kwargs):
    """``torch.Tensor(data)`` / ``torch.Tensor(2, 3)``: the legacy constructor (default dtype)."""
    if len(args) == 1 and not isinstance(args[0], int):
        arr = np.array(args[0], dtype=_dtype.get_default_dtype().np)
    else:
        arr = np.zeros(_size(args), dtype=_dtype.get_default_dtype().np)
    self._data = arr
    self._requires_grad = False


_slots.as_tensor, _slots.legacy_tensor_init = as_tensor, _legacy_tensor_init
