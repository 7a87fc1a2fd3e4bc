"""Storages and tensor rebuilders of PyTorch checkpoints, and the names a checkpoint may use.

A checkpoint's pickle names torch's functions and classes (``torch._utils._rebuild_tensor_v2``,
``torch.FloatStorage``, ``torch.float32``, ``torch.Size``, ...); :func:`_torch_globals` maps each
one onto this package's counterpart, for loading (both unpicklers) and, reversed, for saving.

Example:
    >>> import numpy as np
    >>> from jupyter_autograd._storage import _TypedStorage, _rebuild_tensor_v2
    >>> from jupyter_autograd import float32
    >>> s = _TypedStorage(np.arange(6, dtype=np.float32), float32)
    >>> _rebuild_tensor_v2(s, 1, (2, 2), (3, 1), False, None)
    tensor([[1., 2.],
            [4., 5.]])
"""

from __future__ import annotations

from collections import Counter, OrderedDict

import numpy as np

from . import _dtype
from . import _weights_only as W
from .backend import canonical_device, device, device_of_array, get_array_module, move_array
from .tensor import Size, Tensor

_STORAGE_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


class StorageType:
    """``torch.FloatStorage`` and its kin, as a checkpoint names them: a dtype by name."""

    def __init__(self, name: str) -> None:
        if name == "UntypedStorage":
            self.dtype = _dtype.uint8
        else:
            kind = name[: -len("Storage")]
            match = [d for d, k in _STORAGE_NAMES.items() if k == kind]
            if not match:
                raise KeyError(name)
            self.dtype = getattr(_dtype, match[0])
        self.name = name

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


_STORAGE_TYPES = {k + "Storage": StorageType(k + "Storage") for k in _STORAGE_NAMES.values()}


class UntypedStorage:
    """The bytes of one saved storage, as ``map_location`` callables receive them
    (``storage.cpu()``, ``storage.cuda(i)``, ``storage.to(device)``, ``storage.device``)."""

    def __init__(self, data, location: str) -> None:
        self._data = data  # a 1-D uint8 array (NumPy, or CuPy once moved to a GPU)
        self.device = canonical_device("cpu" if data.__class__ is np.ndarray else location)

    def nbytes(self) -> int:
        return int(self._data.size)

    __len__ = nbytes

    def to(self, dev) -> UntypedStorage:
        dev = canonical_device(dev)
        return UntypedStorage(move_array(self._data, dev), str(dev))

    def cpu(self) -> UntypedStorage:
        return self.to("cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> UntypedStorage:
        return self.to(
            "cuda"
            if device is None
            else f"cuda:{int(device)}"
            if isinstance(device, int)
            else device
        )


# ---------------------------------------------------------------------------- rebuilding
def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor viewing ``storage`` (a 1-D array of its dtype) with torch's offset and strides;
    tensors rebuilt on one storage share memory, as they did when saved."""
    arr, size = storage._data, tuple(size)
    if 0 in size:
        return Tensor._wrap(
            np.empty(size, arr.dtype) if arr.__class__ is np.ndarray else arr[:0].reshape(size)
        )
    # a GPU storage (map_location) is strided by its own array module (CuPy has as_strided too)
    strided = get_array_module(device_of_array(arr)).lib.stride_tricks.as_strided
    return Tensor._wrap(
        strided(arr[storage_offset:], size, tuple(s * arr.itemsize for s in stride))
    )


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    for k, v in (state or {}).items():
        setattr(p, k, v)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if new_type is not Tensor and isinstance(new_type, type) and issubclass(new_type, Tensor):
        ret = new_type(ret) if new_type.__name__ == "Parameter" else ret
    for k, v in (state or {}).items():
        setattr(ret, k, v)
    return ret


def _unsupported(what: str):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"torch.load: {what} tensors are not supported by jupyter_autograd")

    rebuild.__name__ = f"_rebuild_{what}"
    return rebuild


def _get_layout(name):
    return name


class _TypedStorage:
    """A storage as the rebuilders see it: a 1-D array of its dtype."""

    def __init__(self, data, dtype) -> None:
        self._data = data
        self.dtype = dtype


def _torch_globals() -> dict:
    """torch's picklable names -> this package's objects (what a checkpoint may reference)."""
    from .nn.parameter import Parameter

    g = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": __import__("_codecs").encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.storage.UntypedStorage": StorageType("UntypedStorage"),
    }
    for what in (
        "qtensor",
        "sparse_tensor",
        "nested_tensor",
        "meta_tensor_no_storage",
        "wrapper_subclass",
        "device_tensor_from_numpy",
        "device_tensor_from_cpu_tensor",
    ):
        g[f"torch._utils._rebuild_{what}"] = _unsupported(what)
    for d in _dtype.ALL:
        g[f"torch.{d.name}"] = d
    for name, st in _STORAGE_TYPES.items():
        g[f"torch.{name}"] = st
    return g


W._ALLOWED.update(_torch_globals())
_SAVE_NAMES = {
    id(v): k.rsplit(".", 1)
    for k, v in W._ALLOWED.items()
    if k.startswith(("torch.", "collections."))
}
