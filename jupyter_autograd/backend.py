"""Devices and array modules: NumPy for ``cpu``; CuPy (imported lazily) for ``cuda``.

This is the only module that may import CuPy, and only inside functions: ``import
jupyter_autograd`` never loads it.
"""

from __future__ import annotations

import importlib
import os
from typing import ClassVar

import numpy as np

_CUDA_HINT = "pip install jupyter-autograd[cuda]"


class device:
    """A device, as ``torch.device``: ``device("cpu")``, ``device("cuda:0")``, ``device("cuda", 0)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.device("cuda:1")
        device(type='cuda', index=1)
        >>> str(torch.device("cpu"))
        'cpu'
    """

    __slots__ = ("index", "type")
    _cache: ClassVar[dict] = {}

    def __new__(cls, type_or_spec="cpu", index: int | None = None):
        if isinstance(type_or_spec, device):
            return type_or_spec
        if isinstance(type_or_spec, int) and not isinstance(type_or_spec, bool):
            type_or_spec, index = "cuda", type_or_spec
        if not isinstance(type_or_spec, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type(type_or_spec).__name__})"
            )
        key = (type_or_spec, index)
        cached = cls._cache.get(key)
        if cached is not None:
            return cached
        spec = type_or_spec.strip()
        typ, _, idx = spec.partition(":")
        if idx:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {spec}"
                )
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{spec}'")
            index = int(idx)
        if typ not in _BACKENDS:
            raise RuntimeError(
                "Expected one of cpu, cuda device type at start of device string: " + spec
            )
        self = object.__new__(cls)
        object.__setattr__(self, "type", typ)
        object.__setattr__(self, "index", index)
        cls._cache[key] = self
        return self

    def __setattr__(self, name, value):
        raise AttributeError("device objects are immutable")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))


class Backend:
    """How one device type stores arrays: its array module and host transfers."""

    name = "cpu"

    def xp(self):
        return np

    def asarray(self, a, dtype=None):
        return np.asarray(a, dtype=dtype)

    def to_host(self, a) -> np.ndarray:
        return a

    def is_available(self) -> bool:
        return True

    def device_count(self) -> int:
        return 1

    def owns(self, a) -> bool:
        return isinstance(a, np.ndarray)

    def synchronize(self, index: int = 0) -> None:
        """Wait for queued work on the device (nothing is queued on the host)."""

    def device_name(self, index: int = 0) -> str:
        return "cpu"

    def memory_allocated(self, index: int = 0) -> int:
        return 0


class CupyBackend(Backend):
    """CUDA through CuPy; imported the first time a cuda tensor is made."""

    name = "cuda"
    _cupy = None

    def _mod(self):
        if CupyBackend._cupy is None:
            try:
                import cupy
            except Exception as e:  # noqa: BLE001 - ImportError, or a CUDA runtime failing to load
                raise RuntimeError(
                    f"device='cuda' needs CuPy and a CUDA GPU ({_CUDA_HINT}); "
                    f"importing cupy failed: {e}"
                ) from None
            try:
                n = cupy.cuda.runtime.getDeviceCount()
            except Exception as e:  # noqa: BLE001 - any CUDA runtime error means no usable GPU
                raise RuntimeError(
                    f"device='cuda' needs a CUDA GPU ({_CUDA_HINT}): no usable device: {e}"
                ) from None
            if n == 0:
                raise RuntimeError(f"device='cuda' needs a CUDA GPU ({_CUDA_HINT}): found none")
            CupyBackend._cupy = cupy
        return CupyBackend._cupy

    def xp(self):
        return self._mod()

    def asarray(self, a, dtype=None):
        return self._mod().asarray(a, dtype=dtype)

    def to_host(self, a):
        return self._mod().asnumpy(a)

    def is_available(self) -> bool:
        try:
            self._mod()
            return True
        except RuntimeError:
            return False

    def device_count(self) -> int:
        try:
            return int(self._mod().cuda.runtime.getDeviceCount())
        except RuntimeError:
            return 0

    def owns(self, a) -> bool:
        return CupyBackend._cupy is not None and isinstance(a, CupyBackend._cupy.ndarray)

    def synchronize(self, index: int = 0) -> None:
        cp = self._mod()
        with cp.cuda.Device(index):
            cp.cuda.Device(index).synchronize()

    def device_name(self, index: int = 0) -> str:
        props = self._mod().cuda.runtime.getDeviceProperties(index)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def memory_allocated(self, index: int = 0) -> int:
        return int(self._mod().get_default_memory_pool().used_bytes())


_BACKENDS: dict[str, Backend] = {"cpu": Backend(), "cuda": CupyBackend()}

CPU = device("cpu")


def register_backend(name: str, backend: Backend) -> None:
    """Install the backend used for ``device(name)`` (tests use a stand-in CUDA backend)."""
    _BACKENDS[name] = backend
    device._cache.clear()


def backend_of(dev: device) -> Backend:
    return _BACKENDS[dev.type]


def canonical_device(dev) -> device:
    """``cuda`` without an index means the current device, index 0, as torch prints it."""
    d = device(dev) if not isinstance(dev, device) else dev
    if d.type != "cpu" and d.index is None:
        return device(d.type, 0)
    return d


def get_array_module(dev: device):
    """The array module (numpy or cupy) for a device."""
    return _BACKENDS[dev.type].xp()


def device_of_array(a) -> device:
    """The device holding array ``a`` (``cpu`` for NumPy arrays)."""
    if a.__class__ is np.ndarray:
        return CPU
    for name, be in _BACKENDS.items():
        if name != "cpu" and be.owns(a):
            idx = getattr(getattr(a, "device", None), "id", 0)
            return device(name, idx if isinstance(idx, int) else 0)
    return CPU


def move_array(a, dev):
    """A copy of array ``a`` on device ``dev`` (``a`` itself when it is already there).

    The only place arrays cross between host and device: explicit, as ``Tensor.to`` asks.
    """
    dev = canonical_device(dev)
    src = device_of_array(a)
    if src == dev:
        return a
    if src.type != "cpu":
        a = _BACKENDS[src.type].to_host(a)
    if dev.type == "cpu":
        return a
    return _BACKENDS[dev.type].asarray(a)


def load_device_plugin(module: str) -> None:
    """Import ``module`` by name and call its ``install()``, which registers a device backend.

    Device plug-ins are named, never imported here, so the core does not depend on them:
    ``JUPYTER_AUTOGRAD_DEVICE_PLUGIN=pkg.module`` loads one at import, and
    ``JUPYTER_AUTOGRAD_FAKE_CUDA=1`` is short for the NumPy stand-in for ``cuda``
    (``jupyter_autograd.testing.fake_cuda``, a CI lane without a GPU).
    """
    importlib.import_module(module).install()


def _plugins_from_env() -> None:
    names = [n for n in os.environ.get("JUPYTER_AUTOGRAD_DEVICE_PLUGIN", "").split(",") if n]
    if os.environ.get("JUPYTER_AUTOGRAD_FAKE_CUDA") == "1":
        names.append(_FAKE_CUDA)
    for name in names:
        load_device_plugin(name)


_FAKE_CUDA = "jupyter_autograd.testing.fake_cuda"
_plugins_from_env()
