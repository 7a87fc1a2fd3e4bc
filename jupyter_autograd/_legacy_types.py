"""torch's legacy typed constructors: ``torch.FloatTensor``, ``torch.LongTensor`` and the rest.

Each is a ``torch.tensortype``-like class: calling it builds a CPU tensor of its dtype
(``FloatTensor([1, 2])``, ``FloatTensor(2, 3)``, ``FloatTensor(torch.Size([2]))``,
``FloatTensor()``), ``isinstance(x, torch.FloatTensor)`` checks the dtype, and
``x.type(torch.LongTensor)`` converts.

Example:
    >>> import jupyter_autograd as torch
    >>> torch.FloatTensor([1, 2])
    tensor([1., 2.])
    >>> isinstance(torch.LongTensor([3]), torch.LongTensor)
    True
"""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._tensor_conversions import _type as _type_base
from .tensor import Tensor

_NAMES = {
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "LongTensor": "int64",
    "IntTensor": "int32",
    "ShortTensor": "int16",
    "CharTensor": "int8",
    "ByteTensor": "uint8",
    "BoolTensor": "bool",
}
__all__ = [  # the classes are made from _NAMES below
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
]


def _tname(v) -> str:
    t = type(v)
    if isinstance(v, Tensor):
        return "Tensor"
    return ("torch." if (t.__module__ or "").startswith("jupyter_autograd") else "") + t.__name__


_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def _options(dt) -> str:
    _CPP = _dtype._CPP_NAMES
    return (
        f"TensorOptions(dtype={_CPP.get(dt.name, dt.name)}, device=cpu, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


class tensortype(type):
    """The metaclass of the legacy constructors (``type(torch.FloatTensor)``)."""

    dtype: _dtype.dtype

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None, **kwargs):
        from .factories import tensor, zeros

        dt = cls.dtype
        if kwargs:
            got = ", ".join(
                [_tname(a) for a in args] + [f"{k}={_tname(v)}" for k, v in kwargs.items()]
            )
            raise TypeError(
                f"new() received an invalid combination of arguments - got ({got}), but "
                f"expected one of:\n{_SIGNATURES}"
            )
        if device is not None and str(device) != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: "
                f"{str(device).split(':')[0]} was passed"
            )
        if not args:
            return zeros((0,), dtype=dt)
        if len(args) == 1 and isinstance(args[0], Tensor):
            other = args[0]
            if other.dtype is not dt or other.device.type != "cpu":
                raise TypeError(f"expected {_options(dt.np)} (got {_options(other._data.dtype)})")
            return other.view(other.shape)
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and type(args[0]).__name__ == "Size"
        ):
            size = tuple(
                int(s)
                for s in (args[0] if len(args) == 1 and not isinstance(args[0], int) else args)
            )
            for s in size:
                if s < 0:
                    raise RuntimeError(
                        f"Trying to create tensor with negative dimension {s}: {list(size)}"
                    )
            return zeros(size, dtype=dt)  # torch leaves the values uninitialized
        if len(args) == 1:
            data = args[0]
            if isinstance(data, (int, float, complex, bool)):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            return tensor(data, dtype=dt)
        got = ", ".join(_tname(a) for a in args)
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({got}), but "
            f"expected one of:\n{_SIGNATURES}"
        )

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _make(name: str, dt: str):
    cls = tensortype(name, (), {"dtype": getattr(_dtype, dt), "__module__": "torch"})
    cls.__doc__ = f"Legacy constructor of {dt} CPU tensors (``torch.{name}``)."
    return cls


globals().update({n: _make(n, d) for n, d in _NAMES.items()})
_BY_NAME = {"torch." + n: globals()[n] for n in _NAMES}


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """``x.type()`` names the legacy type; ``x.type(torch.LongTensor)`` or
    ``x.type("torch.LongTensor")`` converts."""
    if isinstance(dtype, str) and dtype in _BY_NAME:
        dtype = _BY_NAME[dtype]
    if isinstance(dtype, tensortype):
        dtype = dtype.dtype
    return _type_base(self, dtype)


Tensor.type = _type
