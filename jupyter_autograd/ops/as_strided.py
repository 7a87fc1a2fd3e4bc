"""``torch.as_strided``, ``as_strided_copy`` and ``as_strided_scatter``: views of a tensor's
storage given by size, stride and storage offset, as torch defines them.

A tensor's storage is the NumPy array that owns its memory (its ``.base`` chain's end): the
result of ``as_strided`` is a NumPy view of it, so it is a view of the input (writes reach the
input, the version counter is shared) and it may read storage outside the input's own elements
(a slice's neighbours), as torch's does. Its gradient (AsStridedBackward0, the registry row of
``ops/strided.py``) adds the incoming gradient into a buffer the size of the storage and reads
the input's elements back from it.

Example:
    >>> import jupyter_autograd as torch
    >>> x = torch.arange(9.0)
    >>> torch.as_strided(x, (2, 2), (1, 3), 1)
    tensor([[1., 4.],
            [2., 5.]])
"""

from __future__ import annotations

import numpy as np

from ..autograd.views import _offsets, _ptr
from ..tensor import Tensor
from .registry import AS_WRITTEN, defop
from .strided import AS_STRIDED

__all__ = ["as_strided", "as_strided_copy", "as_strided_scatter"]


def _owner(a):
    """The array owning ``a``'s memory (NumPy's as_strided keeps its array behind an object
    with a ``base`` of its own)."""
    b = a.base
    while b is not None:
        if isinstance(b, np.ndarray):
            a = b
            b = a.base
        else:
            b = getattr(b, "base", None)
    return a


class StorageGeometry:
    """Where ``as_strided(x, size, stride, offset)`` reads: flat storage indices of the result
    (``flat()``) and of the input's own elements (``inner``), the storage's size."""

    overlap = True  # the gradient is a scatter-add (results may share elements)

    def __init__(self, x, size, stride, offset) -> None:
        owner = _owner(x)
        it = x.itemsize
        self.owner = owner
        self.base_numel = int(owner.nbytes // it)
        self.base_shape = tuple(x.shape)
        x_off = (_ptr(x) - _ptr(owner)) // it if x.size else 0
        self.inner = _offsets(x.shape, tuple(s // it for s in x.strides), x_off).reshape(-1)
        self.shape, self.stride, self.offset = tuple(size), tuple(stride), offset
        self._flat = _offsets(self.shape, self.stride, offset)

    def flat(self):
        return self._flat

    def view_of(self, x):
        it = x.itemsize
        flat = self.owner.reshape(-1) if self.owner.flags.c_contiguous else None
        if flat is None or self.base_numel == 0:
            return (
                self.owner.reshape(-1)[self._flat]
                if self.base_numel
                else np.zeros(self.shape, x.dtype)
            )
        return np.lib.stride_tricks.as_strided(
            flat[self.offset :],
            self.shape,
            tuple(s * it for s in self.stride),
            writeable=x.flags.writeable,
        )


def _check(x, size, stride, offset, name="as_strided", have=None):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"{name}: Negative strides are not supported at the moment, got strides: {list(stride)}"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    have = int(_owner(x).nbytes // x.itemsize) if have is None else have
    if need > have:
        it = x.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
            f"itemsize {it} requiring a storage size of {need * it} are out of bounds for storage "
            f"of size {have * it}"
        )
    return size, stride


def _storage_offset(d) -> int:
    return (_ptr(d) - _ptr(_owner(d))) // d.itemsize if d.size else 0


def as_strided(input, size, stride, storage_offset=None) -> Tensor:
    """A view of ``input``'s storage with the given size, stride and storage offset (default:
    the input's own offset)."""
    from ..autograd import views as _views
    from .dispatch import apply1

    d = np.asarray(input._data)
    offset = _storage_offset(d) if storage_offset is None else int(storage_offset)
    size, stride = _check(d, size, stride, offset)
    geo = StorageGeometry(d, size, stride, offset)
    res = apply1(
        AS_STRIDED,
        input,
        {"geometry": geo, "storage": geo, "size": size, "stride": stride, "storage_offset": offset},
    )
    if isinstance(res._data, np.ndarray) and res._data.base is not None:
        _views.make_view(res, input)
    return res


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None) -> Tensor:
    """``as_strided`` copied out (not a view)."""
    if out is not None:
        from .out import out_call

        return out_call(
            "as_strided_copy", as_strided_copy, (input, size, stride, storage_offset), {}, out
        )
    return as_strided(input, size, stride, storage_offset).clone()


# ---------------------------------------------------------------- as_strided_scatter
def _scatter_index(p):
    return _offsets(p["size"], p["stride"], p["storage_offset"]).reshape(-1)


def _scatter_fwd(xp, x, src, p):
    out = x.reshape(-1).copy()
    out[_scatter_index(p)] = xp.broadcast_to(src, p["size"]).reshape(-1)
    return out.reshape(x.shape)


def _scatter_self_vjp(xp, g, x, src, out, p):
    # torch's as_strided_scatter_backward, to the letter: the gradient's values at the scattered
    # places, zeros elsewhere (its Note [as_strided_scatter backward support])
    idx = _scatter_index(p)
    if xp.is_txp:
        keep = np.zeros(int(np.prod(g.shape)), dtype=g._data.dtype)
        keep[idx] = 1
        return g * Tensor._wrap(keep.reshape(g.shape))
    r = xp.zeros(g.size, g.dtype)
    r[idx] = g.reshape(-1)[idx]
    return r.reshape(g.shape)


def _scatter_src_vjp(xp, g, x, src, out, p):
    return xp.reshape(xp.reshape(g, (-1,))[_scatter_index(p)], p["size"])


AS_STRIDED_SCATTER = defop(
    "as_strided_scatter",
    node="AsStridedScatterBackward0",
    inputs=("self", "src"),
    saved=("self_geometry", "size", "src_geometry", "storage_offset", "stride"),
    complex=AS_WRITTEN,
    fwd=_scatter_fwd,
    vjp=(_scatter_self_vjp, _scatter_src_vjp),
    jvp=lambda xp, t, x, out, p: _scatter_fwd(xp, t[0], t[1], p),
    # the sample differentiates src only: self's gradient is torch's, not the derivative
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (2, 2))],
                lambda tt, b: tt.as_strided_scatter(
                    tt.ones(3, 3, dtype=b.dtype), b, (2, 2), (1, 3), 1
                ),
            )
        ]
    },
)


def as_strided_scatter(input, src, size, stride, storage_offset=None) -> Tensor:
    """``input`` (copied, contiguous) with ``input.as_strided(size, stride, storage_offset)``
    overwritten by ``src``."""
    from .dispatch import apply

    d = input._data  # its size and itemsize only (any backend's array)
    offset = 0 if storage_offset is None else int(storage_offset)
    if tuple(src.shape) != tuple(int(s) for s in size):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {[int(s) for s in size]}"
        )
    size, stride = _check(d, size, stride, offset, have=d.size)
    return apply(
        AS_STRIDED_SCATTER, (input, src), {"size": size, "stride": stride, "storage_offset": offset}
    )
