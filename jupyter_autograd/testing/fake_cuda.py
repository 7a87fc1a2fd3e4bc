"""A stand-in CUDA device for machines without a GPU: NumPy arrays that behave like CuPy's.

``FakeCudaArray`` wraps a NumPy array but is **not** a ``numpy.ndarray``, and it refuses what
CuPy refuses: arithmetic or array functions mixing it with a plain NumPy array raise
``TypeError: Unsupported type <class 'numpy.ndarray'>``, and ``np.asarray(fake)`` raises
``TypeError: Implicit conversion to a NumPy array is not allowed...``. NumPy functions applied to
it dispatch to the stand-in module (as they dispatch to CuPy), and everything it returns stays on
the stand-in device. So any place in the engine that hard-codes NumPy (``np.zeros`` mixed into a
gradient, ``np.asarray`` of a device array) or mixes devices fails on the stand-in exactly where
it would fail on a GPU.

Install it as the ``cuda`` backend with :func:`install` (tests), or set
``JUPYTER_AUTOGRAD_FAKE_CUDA=1`` before ``import jupyter_autograd``.

Example:
    >>> import jupyter_autograd as torch
    >>> from jupyter_autograd.testing import fake_cuda
    >>> with fake_cuda.installed():
    ...     x = torch.ones(2, device="cuda")
    ...     print(x * 2)
    tensor([2., 2.], device='cuda:0')
"""

from __future__ import annotations

import contextlib
import types

import numpy as np

from ..backend import _BACKENDS, Backend, register_backend

_ndarray = np.ndarray
_SCALARS = (int, float, bool, complex, np.generic)


def _unsupported(x) -> TypeError:
    return TypeError(f"Unsupported type {type(x)}")


class _DeviceId:
    """``array.device`` as CuPy has it (``.id``)."""

    __slots__ = ()
    id = 0

    def __repr__(self) -> str:
        return "<CUDA Device 0>"


class _Ptr:
    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


def _unwrap(x, strict: bool):
    """The NumPy array behind ``x`` (recursing into lists/tuples/dicts).

    ``strict``: a plain ndarray is refused (operands); otherwise it passes (indices, values to
    store, host data handed to ``asarray``), as CuPy converts those.
    """
    cls = x.__class__
    if cls is FakeCudaArray:
        return x._a
    if cls is _ndarray:
        if strict:
            raise _unsupported(x)
        return x
    if cls is tuple or cls is list:
        return cls(_unwrap(v, strict) for v in x)
    if cls is dict:
        return {k: _unwrap(v, strict) for k, v in x.items()}
    return x


def _wrap(r):
    """Keep results on the device: arrays (and NumPy scalars, as CuPy returns 0-d arrays)."""
    cls = r.__class__
    if cls is _ndarray:
        return FakeCudaArray(r)
    if isinstance(r, np.generic):
        return FakeCudaArray(np.asarray(r))
    if cls is tuple or cls is list:
        return cls(_wrap(v) for v in r)
    return r


class FakeCudaArray:
    """A NumPy array posing as a ``cupy.ndarray`` on ``cuda:0`` (see the module docstring)."""

    __slots__ = ("_a",)
    __array_priority__ = 100  # below Tensor's, so ``fake * tensor`` reaches Tensor.__rmul__

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    # -- NumPy interop: refuse implicit host copies and mixing, as CuPy does
    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly."
        )

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        r = getattr(ufunc, method)(*_unwrap(inputs, True), **_unwrap(kwargs, True))
        return _wrap(r)

    def __array_function__(self, func, types_, args, kwargs):
        return _wrap(func(*_unwrap(args, True), **_unwrap(kwargs, True)))

    def get(self) -> np.ndarray:
        """Copy to host memory (``cupy.ndarray.get``)."""
        return self._a.copy()

    # -- attributes
    @property
    def device(self):
        return _DeviceId()

    @property
    def data(self):
        return _Ptr(int(self._a.__array_interface__["data"][0]))

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: FakeCudaArray(self._a.T))
    mT = property(lambda self: FakeCudaArray(self._a.mT))
    real = property(lambda self: FakeCudaArray(self._a.real))
    imag = property(lambda self: FakeCudaArray(self._a.imag))

    def __getattr__(self, name):
        # methods (reshape, astype, sum, ...): same as NumPy's, results kept on the device
        if name.startswith("__"):
            # never expose __array_interface__/__array_struct__: NumPy would read the memory
            # directly, a silent host copy that a GPU array cannot offer
            raise AttributeError(name)
        v = getattr(self._a, name)
        if callable(v):

            def method(*args, **kwargs):
                return _wrap(v(*_unwrap(args, True), **_unwrap(kwargs, True)))

            method.__name__ = name
            return method
        return _wrap(v)

    def item(self):
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def copy(self, order="C"):
        return FakeCudaArray(self._a.copy(order))

    def __deepcopy__(self, memo):
        return FakeCudaArray(self._a.copy())

    def __reduce__(self):
        return (FakeCudaArray, (self._a,))

    # -- Python protocol
    def __repr__(self) -> str:
        return "fake_cuda." + repr(self._a)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        return (FakeCudaArray(np.asarray(self._a[i])) for i in range(len(self._a)))

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __complex__(self) -> complex:
        return complex(self._a)

    __hash__ = None

    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key, False)])

    def __setitem__(self, key, value):
        self._a[_unwrap(key, False)] = _unwrap(value, False)


def _binop(name):
    def op(self, other):
        if other.__class__ is FakeCudaArray:
            o = other._a
        elif other.__class__ is _ndarray:
            raise _unsupported(other)
        elif isinstance(other, _SCALARS):
            o = other
        else:
            return NotImplemented
        r = getattr(self._a, name)(o)
        if r is NotImplemented:
            return r
        if name.startswith("__i"):
            return self
        return _wrap(r)

    op.__name__ = name
    return op


for _n in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
):
    for _f in (f"__{_n}__", f"__r{_n}__", f"__i{_n}__"):
        setattr(FakeCudaArray, _f, _binop(_f))
for _f in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(FakeCudaArray, _f, _binop(_f))


def _unop(f):
    return lambda self: _wrap(getattr(self._a, f)())


for _f in ("__neg__", "__pos__", "__abs__", "__invert__"):
    setattr(FakeCudaArray, _f, _unop(_f))


class _Ufunc:
    """A NumPy ufunc whose calls (and ``.at``/``.reduce``...) take and give device arrays."""

    def __init__(self, uf) -> None:
        self._uf = uf
        self.__name__ = uf.__name__

    def __call__(self, *args, **kwargs):
        return _wrap(self._uf(*_unwrap(args, True), **_unwrap(kwargs, True)))

    def at(self, a, key, b=None):
        # the index may be host data (CuPy converts it); the operands must be on the device
        if b is None:
            self._uf.at(_unwrap(a, True), _unwrap(key, False))
        else:
            self._uf.at(_unwrap(a, True), _unwrap(key, False), _unwrap(b, True))

    def __getattr__(self, name):
        v = getattr(self._uf, name)
        if callable(v):
            return lambda *a, **k: _wrap(v(*_unwrap(a, True), **_unwrap(k, True)))
        return v


# functions that accept host data (the explicit host -> device copies CuPy allows)
_HOST_OK = {"asarray", "array", "asanyarray", "ascontiguousarray"}
# functions whose index argument (at this position) may be host data: CuPy builds them on
# fancy indexing, which converts host index arrays
_HOST_INDEX = {"take_along_axis": 1, "put_along_axis": 1}


class _FakeModule:
    """The stand-in for the ``cupy`` module: NumPy's functions with device arrays in and out."""

    def __init__(self, mod, name: str) -> None:
        self._mod = mod
        self.__name__ = name

    def __getattr__(self, name: str):
        v = getattr(self._mod, name)
        if isinstance(v, np.ufunc):
            w = _Ufunc(v)
        elif isinstance(v, types.ModuleType):
            w = _FakeModule(v, f"{self.__name__}.{name}")
        elif isinstance(v, type) or not callable(v):
            w = v  # dtypes, constants
        elif name in _HOST_INDEX:
            k = _HOST_INDEX[name]

            def w(*args, _v=v, _k=k, **kwargs):
                args = [_unwrap(a, i != _k) for i, a in enumerate(args)]
                return _wrap(_v(*args, **_unwrap(kwargs, True)))
        else:
            strict = name not in _HOST_OK

            def w(*args, _v=v, _strict=strict, **kwargs):
                return _wrap(_v(*_unwrap(args, _strict), **_unwrap(kwargs, _strict)))

            w.__name__ = name
        setattr(self, name, w)
        return w

    def asnumpy(self, a):
        return a.get() if isinstance(a, FakeCudaArray) else np.asarray(a)

    ndarray = FakeCudaArray


fake_cupy = _FakeModule(np, "fake_cupy")


class FakeCudaBackend(Backend):
    """The stand-in ``cuda`` backend: one device, arrays in host memory behind FakeCudaArray."""

    name = "cuda"

    def xp(self):
        return fake_cupy

    def asarray(self, a, dtype=None):
        if isinstance(a, FakeCudaArray):
            return a if dtype is None or a.dtype == dtype else a.astype(dtype)
        # a fresh copy: moving to a device never aliases host memory
        return FakeCudaArray(np.array(a, dtype=dtype))

    def to_host(self, a) -> np.ndarray:
        return a.get()

    def is_available(self) -> bool:
        return True

    def device_count(self) -> int:
        return 1

    def owns(self, a) -> bool:
        return a.__class__ is FakeCudaArray

    def device_name(self, index: int = 0) -> str:
        return "Fake CUDA device (NumPy stand-in)"


def install() -> Backend:
    """Make ``device("cuda")`` the stand-in; returns the backend it replaced."""
    prev = _BACKENDS.get("cuda")
    register_backend("cuda", FakeCudaBackend())
    return prev


@contextlib.contextmanager
def installed():
    """Use the stand-in as ``cuda`` inside a ``with`` block (restores the previous backend)."""
    prev = install()
    try:
        yield _BACKENDS["cuda"]
    finally:
        register_backend("cuda", prev)
