"""Conversions of a tensor's data: to another device's array, to a Python scalar (with torch's
checks and its once-per-process warning). Duck-typed on the tensor, so that tensor.py can
import them."""

from __future__ import annotations

import warnings

import numpy as np

from .backend import _BACKENDS, canonical_device

_ndarray = np.ndarray


def _to_device(t, dev):
    dev = canonical_device(dev)
    if t.device == dev:
        return t
    src = t._data
    if src.__class__ is not _ndarray:
        src = _BACKENDS[t.device.type].to_host(src)
    return _BACKENDS[dev.type].asarray(src)


_SCALAR_WARNED = []


def _warn_scalar_once() -> None:
    """float()/complex() of a tensor that requires grad: torch warns once per process
    (TORCH_WARN_ONCE), not at every conversion."""
    if not _SCALAR_WARNED:
        _SCALAR_WARNED.append(True)
        warnings.warn(
            "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
            "behavior.\nConsider using tensor.detach() first.",
            UserWarning,
            stacklevel=3,
        )


def _real_item(t, c_type):
    """The value for float()/int(): a complex one only when its imaginary part is zero, as
    torch's checked conversion."""
    if t._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    v = t.item()
    if isinstance(v, complex):
        if v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
        return v.real
    return v
