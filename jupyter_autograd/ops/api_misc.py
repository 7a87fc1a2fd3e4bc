"""Public odds and ends: repeat_interleave, unravel_index, scalar_tensor, the strided/permuted
``empty`` factories, ``resize_``/``resize_as_`` and ``hash_tensor``."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._size import _wrap_dim
from ..backend import move_array
from ..tensor import Tensor
from . import api as A

__all__ = [
    "empty_permuted",
    "empty_strided",
    "hash_tensor",
    "repeat_interleave",
    "resize_as_",
    "scalar_tensor",
    "unravel_index",
]


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (slice along ``dim``) repeated ``repeats`` times, as ``index_select`` with
    repeated indices (the gradient sums the copies); a tensor alone gives ``repeat_interleave(
    arange(len(r)), r)``."""
    if repeats is None:  # torch.repeat_interleave(repeats)
        r = input._data
        return Tensor._wrap(np.repeat(np.arange(r.shape[0]), r).astype(np.int64))
    x = A.reshape(input, (-1,)) if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        x = A.reshape(x, (1,))
    n = x.shape[d]
    reps = repeats._data if isinstance(repeats, Tensor) else repeats
    if isinstance(reps, np.ndarray) and reps.ndim and reps.shape[0] not in (1, n):
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got "
            f"repeats.size(0) = {reps.shape[0]} and input.size({d}) = {n}"
        )
    if isinstance(reps, np.ndarray) and reps.size and reps.min() < 0:
        raise RuntimeError("repeats can not be negative")
    idx = np.repeat(
        np.arange(n), np.broadcast_to(np.asarray(reps).reshape(-1) if np.ndim(reps) else reps, (n,))
    )
    return A.index_select(x, d, Tensor._wrap(move_array(idx.astype(np.int64), input.device)))


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape`` (one int64 tensor per dim)."""
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(idx.dtype))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = int(np.prod(shape)) if shape else 1
    if idx.size and (idx.min() < -total or idx.max() >= total):
        raise RuntimeError("'indices' must be in range [-" + f"{total}, {total - 1}]")
    coords = np.unravel_index(idx % max(total, 1), shape) if shape else ()
    return tuple(Tensor._wrap(np.asarray(c, dtype=np.int64)) for c in coords)


def scalar_tensor(
    s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False
) -> Tensor:
    """A 0-d tensor of the default float dtype (or ``dtype``) holding ``s``."""
    from ..factories import tensor

    return tensor(
        s, dtype=dtype or _dtype.get_default_dtype(), device=device, requires_grad=requires_grad
    )


def empty_strided(
    size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    """An uninitialized tensor of ``size`` (NumPy chooses the strides: values are what count)."""
    from ..factories import zeros

    return zeros(tuple(size), dtype=dtype, device=device, requires_grad=requires_grad)


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    from ..factories import zeros

    return zeros(tuple(size), dtype=dtype, device=device, requires_grad=requires_grad)


def resize_(self, *sizes, memory_format=None) -> Tensor:
    """``Tensor.resize_``: the same storage seen with a new shape; new elements (when growing)
    are zeros here, uninitialized in torch."""
    shape = (
        tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    )
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    n = int(np.prod(shape)) if shape else 1
    flat = self._data.reshape(-1)
    if n <= flat.size:
        new = flat[:n].reshape(shape).copy()
    else:
        new = np.concatenate([flat, np.zeros(n - flat.size, flat.dtype)]).reshape(shape)
    self._data = new
    self._bump_version()
    return self


def resize_as_(input, the_template, *, memory_format=None) -> Tensor:
    return resize_(input, tuple(the_template.shape))


def hash_tensor(input, dim=(), *, keepdim=False, mode=0) -> Tensor:
    """xor of the elements' 64-bit patterns (float64 / int64 upcasts), over ``dim`` (all by default)."""
    if mode != 0:
        raise RuntimeError(f"hash_tensor: only mode=0 (xor) is supported, got {mode}")
    a = input._data
    wide = a.astype(np.float64 if a.dtype.kind in "fc" else np.int64).view(np.uint64)
    dims = tuple(range(a.ndim)) if dim in ((), None, []) else A._dims(dim, a.ndim)
    r = (
        np.bitwise_xor.reduce(wide, axis=dims, keepdims=keepdim)
        if wide.size
        else np.zeros([s for i, s in enumerate(a.shape) if i not in dims or keepdim], np.uint64)
    )
    return Tensor._wrap(np.asarray(r, dtype=np.uint64))
