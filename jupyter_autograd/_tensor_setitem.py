"""``x[key] = value`` as torch: basic indexing writes into a view (``copy_``/``fill_``),
advanced indexing is ``index_put_`` (IndexPutBackward0)."""

from __future__ import annotations

import numpy as np

from ._tensor_inplace import _c_type, _commit_inplace, _copy_, _fill_tensor_, _snapshot
from ._tensor_methods import _basic_index, _index_devices, _is_basic, _norm_key, index_error
from ._zerotensor import ERR_COPY as ERR_ZERO_COPY
from ._zerotensor import ZeroArray
from .autograd import views as _views
from .autograd.engine import FLAGS
from .autograd.node import SEQ
from .grad_mode import STATE
from .ops import api as F
from .ops import shape as SH
from .ops.dispatch import apply
from .tensor import Tensor, _to_device


def _setitem(self, key, value):
    """``x[key] = value`` in place, as torch: basic indexing writes into a view (``copy_`` or
    ``fill_``; CopySlices on the base when it requires grad), advanced indexing is
    ``index_put_`` (IndexPutBackward0)."""
    if self._data.__class__ is ZeroArray:  # torch's ZeroTensor: copy_ refuses
        raise RuntimeError(ERR_ZERO_COPY)
    if isinstance(key, (Tensor, tuple)):
        _index_devices(self, key)
    if not isinstance(value, Tensor):
        value = _value_tensor(value, self)
    if key is Ellipsis:
        _copy_to(self, value)
        return
    if key is False or key is True:
        if key:
            _copy_to(_basic_index(self, (None,)), value)
        return
    mask_fill = isinstance(key, Tensor) and key._data.dtype.kind == "b"
    key = _norm_key(key)
    if all(_is_basic(k) for k in key) and not (FLAGS.forward_ad_levels and (self._fw or value._fw)):
        _copy_to(_basic_index(self, key), value)
        return
    # advanced indices; also forward-mode tangents, which views do not share with their base.
    # torch's set_item views the value without its leading 1s first (ViewBackward0)
    ss = value._data.shape
    k = 0
    while k < len(ss) and ss[k] == 1:
        k += 1
    _autograd_first(self, value)
    _check_index_put_shape(self, key, ss[k:])
    if value._data.dtype != self._data.dtype and not (
        all(_is_basic(k) for k in key)  # a forward-mode basic key: copy_ casts
        or (k == len(ss) and mask_fill)
    ):  # a 0-d value (past its leading 1s) by a mask is masked_fill_ (it casts)
        _check_index_put_dtype(self, value)
    _index_put_(self, key, F.view(value, ss[k:]) if k else value)


Tensor.__setitem__ = _setitem


def _value_tensor(value, like):
    if (
        value.__class__ is not float
        and value.__class__ is not int
        and (like._data.dtype.kind not in "cb" and np.iscomplexobj(value))
    ):
        raise RuntimeError(f"value cannot be converted to type {_c_type(like)} without overflow")
    try:
        arr = np.asarray(value, dtype=like._data.dtype)
    except (TypeError, ValueError):
        from .factories import tensor

        return tensor(value, dtype=like.dtype)
    if arr.__class__ is not like._data.__class__:
        arr = _to_device(Tensor._wrap(arr), like.device)
    return Tensor._wrap(arr)


def _copy_to(dst, src):
    """torch's copy_to for setitem: copy_ of an equal shape, fill_ of a 0-d value, else the
    value without leading 1s (a view), expanded to the target, then copy_."""
    ds, ss = dst._data.shape, src._data.shape
    if ds == ss:
        _copy_(dst, src)
    elif not ss:
        _fill_tensor_(dst, src)
    else:
        k = 0
        while k < len(ss) and ss[k] == 1:
            k += 1
        v = F.view(src, ss[k:])
        if v._data.shape != ds:
            v = F.expand(v, ds)
        _copy_(dst, v)


def _index_put_(self, key, value, accumulate=False):
    """``self[indices] = value`` with advanced indices (torch's index_put_)."""
    rg = STATE.grad_enabled and (self._requires_grad or value._requires_grad)
    _views.check_inplace(self, rg, "index_put_")
    _views.check_overlap(self._data, value._data, full=True)
    if value._data.dtype != self._data.dtype:
        value = value.to(self.dtype)
    if rg or (FLAGS.forward_ad_levels and (self._fw or value._fw)):  # tangents need the op too
        seq0 = next(SEQ)
        snap = _snapshot(self)
        p = {"key": key, "shape": self._data.shape}
        if accumulate:
            p["accumulate"] = True
        res = apply(SH.INDEX_PUT, (snap, value), p)
        _commit_inplace(self, res, snap, seq0)
        return
    try:
        if accumulate:
            SH.index_add_at(_views.writable(self), key, value._data)
        else:
            _views.writable(self)[key] = value._data
    except ValueError as e:
        raise RuntimeError(str(e)) from None
    except IndexError as e:
        raise index_error(e) from None
    self._bump_version()


def _autograd_first(self, value) -> None:
    """torch's autograd checks of index_put_ (a leaf, a view of one), then its kernel's refusal
    of a value sharing memory with self, come before the index checks (an index into an empty
    dimension), the value's shape and dtype."""
    _views.check_inplace(
        self, STATE.grad_enabled and (self._requires_grad or value._requires_grad), "allow"
    )
    _views.check_overlap(self._data, value._data, full=True)


def _check_index_put_shape(self, key, vshape) -> None:
    """torch's index_put_ expands the value to the indexing result's shape before it checks the
    dtypes: its shape mismatch first (an index out of range is found later, by the kernel; an
    index into an empty dimension before)."""
    shape = self._data.shape
    try:  # the result's shape, from a 0-stride stand-in of self (no copy of self's data)
        probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape, (0,) * len(shape))
        # integer index arrays replaced by zeros of their shapes: out of range is found later
        rshape = probe[
            tuple(
                np.zeros(k.shape, np.intp)
                if isinstance(k, np.ndarray) and k.dtype.kind in "iu"
                else k
                for k in key
            )
        ].shape
    except IndexError as e:
        if "with size 0" in str(e):
            # torch's AdvancedIndex refuses an index into an empty dimension before the value's
            # shape and dtype are looked at
            raise IndexError("index is out of bounds for dimension with size 0") from None
        return
    except (TypeError, ValueError):
        return
    try:
        fits = np.broadcast_shapes(vshape, rshape) == rshape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(vshape)} cannot be "
            f"broadcast to indexing result of shape {list(rshape)}"
        )


def _check_index_put_dtype(self, value) -> None:
    """torch's index_put_ takes the values in the destination's dtype only (no cast)."""
    if isinstance(value, Tensor) and value._data.dtype != self._data.dtype:
        from .ops.api_matmul import scalar_type

        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{scalar_type(self)} for the destination and {scalar_type(value)} for the source."
        )


def _index_put_method(self, indices, values, accumulate=False):
    """``self[indices] = values`` (``accumulate``: ``+=``, repeated indices adding up), in
    place: torch's Tensor.index_put_ (IndexPutBackward0)."""
    key = _index_key(self, indices, values)
    _autograd_first(self, values)
    _check_index_put_shape(self, key, values._data.shape)
    if not (
        len(indices) == 1
        and isinstance(indices[0], Tensor)
        and indices[0]._data.dtype.kind == "b"
        and values._data.size == 1
    ):  # one mask and one value: torch's masked_fill_ (it casts)
        _check_index_put_dtype(self, values)
    if accumulate:
        _index_put_(self, key, values, accumulate=True)
    else:
        _index_put_(self, key, values)
    return self


def _index_key(self, indices, values):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put_(): argument 'indices' (position 1) must be tuple of Tensors, "
            f"not {type(indices).__name__}"
        )
    if not isinstance(values, Tensor):
        raise TypeError(
            f"index_put_(): argument 'values' (position 2) must be Tensor, not "
            f"{type(values).__name__}"
        )
    if len(indices) > self._data.ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {self._data.ndim} (got {len(indices)})"
        )
    _index_devices(self, tuple(indices))
    return _norm_key(tuple(slice(None) if i is None else i for i in indices))


Tensor.index_put_ = _index_put_method

from .ops import inplace_view  # noqa: F401 - Tensor.unsqueeze_/squeeze_ (and their rows)
