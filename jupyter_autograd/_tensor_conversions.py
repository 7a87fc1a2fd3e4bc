"""Tensor conversion methods: ``to`` (dtype, device, another tensor; ToCopyBackward0), the
``float``/``double``/... shorthands, ``type``, and the ``new_*`` constructors."""

from __future__ import annotations

from . import _dtype
from .backend import canonical_device
from .grad_mode import STATE
from .ops import api as F
from .ops import shape as SH
from .ops.dispatch import apply1
from .tensor import Tensor, _to_device


def _to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)`` (ToCopyBackward0)."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif a is not None:
            device = a
    res = self
    if device is not None and res.device != canonical_device(device):
        arr = _to_device(res, device)
        out = Tensor._wrap(arr, False)
        if res._requires_grad and STATE.grad_enabled:
            from .autograd.engine import record

            record(SH.TO_COPY, (res,), arr, {"dtype": arr.dtype, "device": res.device}, (out,))
            out._requires_grad = True
        res = out
    if dtype is not None and res._data.dtype != _dtype.to_numpy_dtype(dtype):
        res = apply1(SH.TO_COPY, res, {"dtype": _dtype.to_numpy_dtype(dtype)})
    if copy and res is self:
        res = F.clone(self)
    return res


# Tensor.to (torch's non_blocking/copy/memory_format arguments parsed, then this) and the
# float/double/... shorthands: _methods_ext
Tensor.cpu = lambda self: _to(self, "cpu")
Tensor.cuda = lambda self, device=None: _to(self, device if device is not None else "cuda")


def _type(self, dtype=None):
    if dtype is None:
        dev = self.device
        return ("torch." if dev.type == "cpu" else f"torch.{dev.type}.") + self.dtype._legacy
    return _to(self, dtype)  # Tensor.type: _legacy_types (legacy type names, then this)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from .factories import tensor

    return tensor(
        data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
    )


Tensor.new_tensor = _new_tensor
Tensor.new_zeros = lambda self, *size, dtype=None, device=None, requires_grad=False: __import__(
    "jupyter_autograd"
).zeros(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)
Tensor.new_ones = lambda self, *size, dtype=None, device=None, requires_grad=False: __import__(
    "jupyter_autograd"
).ones(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)
Tensor.new_full = lambda self, size, fill_value, dtype=None, device=None, requires_grad=False: (
    __import__("jupyter_autograd").full(
        size,
        fill_value,
        dtype=dtype or self.dtype,
        device=device or self.device,
        requires_grad=requires_grad,
    )
)
Tensor.new_empty = Tensor.new_zeros
