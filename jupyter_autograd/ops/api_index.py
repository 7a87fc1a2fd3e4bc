"""Public scatter/gather-style functions: scatter (value, src, add, reduce), index_add/copy/
fill/reduce/put, put/take/take_along_dim, masked_select/scatter, the select/slice/diagonal
scatters, tril/triu_indices, nonzero_static. Each builds the NumPy key of the places it
touches and applies one row (ops/indexing.py)."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._size import _wrap_dim
from ..backend import move_array
from ..tensor import Tensor
from . import api as A
from . import indexing as IX
from .api_math import promote
from .dispatch import apply, apply1
from .shape import _along_key

__all__ = [
    "diagonal_scatter",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_reduce",
    "masked_scatter",
    "masked_select",
    "nonzero_static",
    "put",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "select_scatter",
    "slice_scatter",
    "take",
    "take_along_dim",
    "tril_indices",
    "triu_indices",
]


def _arr(t, like):
    a = t._data if isinstance(t, Tensor) else np.asarray(t)
    return move_array(a, like.device)


def _index_arg(index, name="index"):
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    return index


def _zero_d(fn):
    """Run a scatter on a 0-d input as on its 1-element view (torch allows 0-d everywhere)."""

    def wrapped(input, dim, index, *args, **kwargs):
        if input.ndim == 0:
            _wrap_dim(dim, 0)
            idx = A.reshape(index, (-1,)) if isinstance(index, Tensor) else index
            return A.reshape(fn(A.reshape(input, (1,)), 0, idx, *args, **kwargs), ())
        return fn(input, _wrap_dim(dim, input.ndim), index, *args, **kwargs)

    wrapped.__name__ = wrapped.__qualname__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _region(src, index):
    """The part of ``src`` the index covers (src may be larger in every dim)."""
    if src.ndim == 0:
        src = A.reshape(src, (1,))
    if tuple(src.shape) == tuple(index.shape):
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


@_zero_d
def scatter(input, dim, index, src=None, value=None, *, reduce=None) -> Tensor:
    """``input`` with ``src`` (or a number) written at ``index`` along ``dim``."""
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    index = _index_arg(index, "scatter")
    key = (
        _along_key(None, _arr(index, input), dim)
        if index.numel()
        else (np.zeros((0,), np.int64),) * input.ndim
    )
    if reduce is not None:
        with_src = src if src is not None else A.full_like(index, value, dtype=input.dtype)
        r = scatter_reduce(input, dim, index, with_src, {"add": "sum", "multiply": "prod"}[reduce])
        return r.detach()
    if src is None:
        return apply1(
            IX.SCATTER_VALUE,
            input,
            {
                "key": key,
                "value": value,
                "shape": input._data.shape,
                "dim": dim,
                "index": index._data,
            },
        )
    a, v = promote(input, src)
    v = _region(v, index)
    return apply(
        IX.PUT_KEY["scatter.src"],
        (a, v),
        {"key": key, "shape": a._data.shape, "dim": dim, "index": index._data},
    )


@_zero_d
def scatter_add(input, dim, index, src) -> Tensor:
    """``input`` plus ``src`` added at ``index`` along ``dim`` (repeats accumulate)."""
    index = _index_arg(index, "scatter_add")
    if not index.numel():
        return A.clone(input)
    key = _along_key(None, _arr(index, input), dim)
    a, v = promote(input, src)
    return apply(
        IX.ADD_KEY["scatter_add"],
        (a, _region(v, index)),
        {"key": key, "shape": a._data.shape, "dim": dim, "index": index._data},
    )


@_zero_d
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True) -> Tensor:
    """``input`` with ``src`` reduced in at ``index`` (sum, prod, mean, amax, amin)."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    index = _index_arg(index, "scatter_reduce")
    if not index.numel():
        return A.clone(input)
    key = _along_key(None, _arr(index, input), dim)
    a, v = promote(input, src)
    return apply(
        IX.SCATTER_REDUCE,
        (a, _region(v, index)),
        {
            "key": key,
            "shape": a._data.shape,
            "reduce": reduce,
            "include_self": include_self,
            "dim": dim,
            "index": _index_data(index),
        },
    )


def _index_data(index):
    """The index torch saves (a list of numbers is made a tensor first)."""
    return index._data if isinstance(index, Tensor) else np.asarray(index)


def _dim_key(input, dim, index):
    idx = _arr(index, input).reshape(-1)
    return (slice(None),) * dim + (idx,)


@_zero_d
def index_add(input, dim, index, source, *, alpha=1) -> Tensor:
    """``input`` plus ``alpha * source`` added at the slices ``index`` along ``dim``."""
    a, v = promote(input, source)
    if v.ndim == 0:
        v = A.reshape(v, (1,))
    return apply(
        IX.ADD_KEY["index_add"],
        (a, v),
        {
            "key": _dim_key(a, dim, index),
            "shape": a._data.shape,
            "alpha": alpha,
            "dim": dim,
            "index": _index_data(index),
            "source_dim": source.ndim,
        },
    )


@_zero_d
def index_copy(input, dim, index, source) -> Tensor:
    """``input`` with the slices ``index`` along ``dim`` replaced by ``source``'s."""
    a, v = promote(input, source)
    if v.ndim == 0:
        v = A.reshape(v, (1,))
    return apply(
        IX.PUT_KEY["index_copy"],
        (a, v),
        {
            "key": _dim_key(a, dim, index),
            "shape": a._data.shape,
            "dim": dim,
            "index": _index_data(index),
            "source_dim": source.ndim,
        },
    )


@_zero_d
def index_fill(input, dim, index, value) -> Tensor:
    """``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number or a 0-d tensor)."""
    key = _dim_key(input, dim, index)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s)."
            )
        return apply(
            IX.INDEX_FILL_TENSOR,
            (input, value.to(input.dtype)),
            {"key": key, "shape": input._data.shape, "dim": dim, "index": _index_data(index)},
        )
    return apply1(
        IX.INDEX_FILL,
        input,
        {
            "key": key,
            "value": value,
            "shape": input._data.shape,
            "dim": dim,
            "index": _index_data(index),
        },
    )


@_zero_d
def index_reduce(input, dim, index, source, reduce, *, include_self=True) -> Tensor:
    """``input`` with the slices of ``source`` reduced into the slices ``index`` (prod, mean,
    amax, amin)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    a, v = promote(input, source)
    if v.ndim == 0:
        v = A.reshape(v, (1,))
    idx = _arr(index, a).reshape(-1)
    shape = [1] * v.ndim
    shape[dim] = -1
    full = np.broadcast_to(idx.reshape(shape), v._data.shape)
    key = _along_key(None, full, dim)
    return apply(
        IX.INDEX_REDUCE,
        (a, v),
        {
            "key": key,
            "shape": a._data.shape,
            "reduce": reduce,
            "include_self": include_self,
            "dim": dim,
            "index": _index_data(index),
        },
    )


def index_put(input, indices, values, accumulate=False) -> Tensor:
    """``input`` with ``values`` written (or added) at the advanced index ``indices``."""
    key = tuple(slice(None) if i is None else _arr(i, input) for i in indices)
    from .._tensor_setitem import _check_index_put_dtype

    _check_index_put_dtype(input, values)  # torch takes no other dtype (no promotion)
    a, v = promote(input, values)
    op = IX.ADD_KEY["index_put.accumulate"] if accumulate else IX.PUT_KEY["index_put.values"]
    return apply(op, (a, v), {"key": key, "shape": a._data.shape})


def _flat_key(input, index):
    n = input.numel()
    idx = _arr(index, input).reshape(-1)
    if idx.size and (idx.max() >= n or idx.min() < -n):
        raise IndexError(
            f"out of range: tried to access index {int(idx.max())} on a tensor of {n} elements."
        )
    return np.unravel_index(idx % max(n, 1), input._data.shape) if input.ndim else (), idx


def put(input, index, source, accumulate=False) -> Tensor:
    """``input`` with ``source`` written (or added) at the flat positions ``index``."""
    a, v = promote(input, source)
    if a.ndim == 0:
        return A.reshape(put(A.reshape(a, (1,)), index, v, accumulate), ())
    key, _ = _flat_key(a, index)
    op = IX.ADD_KEY["put"] if accumulate else IX.PUT_KEY["put.replace"]
    return apply(
        op, (a, A.reshape(v, (-1,))), {"key": key, "shape": a._data.shape, "index": index._data}
    )


def take(input, index) -> Tensor:
    """The elements at the flat positions ``index`` (shaped like ``index``)."""
    n = input.numel()
    idx = _arr(index, input)
    if idx.size and (idx.max() >= n or idx.min() < -n):
        raise IndexError(
            f"out of range: tried to access index {int(idx.max())} on a tensor of {n} elements."
        )
    key = np.unravel_index(idx % max(n, 1), input._data.shape) if input.ndim else ()
    if not input.ndim:
        return (
            A.expand(A.reshape(input, (1,) * idx.ndim), idx.shape) if idx.ndim else A.clone(input)
        )
    return apply1(IX.TAKE, input, {"key": key, "shape": input._data.shape, "index": index._data})


def take_along_dim(input, indices, dim=None) -> Tensor:
    """``gather`` along ``dim`` after broadcasting (the flattened input without ``dim``)."""
    if dim is None:
        flat = A.reshape(input, (-1,))
        return A.gather(flat, 0, _wrap_indices(A.reshape(indices, (-1,)), flat.shape[0]))
    d = _wrap_dim(dim, input.ndim)
    s_in, s_ix = list(input.shape), list(indices.shape)
    if len(s_in) != len(s_ix):
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions"
        )
    bx = [max(a, b) if i != d else a for i, (a, b) in enumerate(zip(s_in, s_ix))]
    bi = [max(a, b) if i != d else b for i, (a, b) in enumerate(zip(s_in, s_ix))]
    x = input if list(input.shape) == bx else A.expand(input, bx)
    idx = indices if list(indices.shape) == bi else A.expand(indices, bi)
    return A.gather(x, d, _wrap_indices(idx, x.shape[d]))


def _wrap_indices(idx, n):
    """torch's take_along_dim counts negative indices from the end (gather refuses them)."""
    a = idx._data
    if a.size and a.min() < 0:
        idx = Tensor._wrap(a + (a < 0) * n)  # any array module (a GPU index stays there)
    return idx


def masked_select(input, mask) -> Tensor:
    """The elements where ``mask`` is True, as a 1-D tensor (broadcasting)."""
    if mask._data.dtype.kind != "b":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    key = np.broadcast_to(mask._data, shape)
    return apply1(IX.MASKED_SELECT, input, {"key": key, "shape": shape, "mask": mask._data})


def masked_fill_tensor(input, mask, value) -> Tensor:
    """masked_fill with a tensor value (torch's masked_fill.Tensor: a 0-d one)."""
    if value._data.ndim:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    if mask._data.dtype.kind != "b":
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    if value._data.dtype.kind == "c" and input._data.dtype.kind != "c":
        raise RuntimeError(
            f"value cannot be converted to type {_dtype.cpp_name(input._data.dtype)} without "
            "overflow"
        )
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    key = np.broadcast_to(mask._data, shape)
    return apply(IX.MASKED_FILL_TENSOR, (input, value), {"mask": mask._data, "key": key})


def masked_scatter(input, mask, source) -> Tensor:
    """``input`` with its masked places filled in order by ``source``'s elements."""
    if mask._data.dtype.kind != "b":
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}"
        )
    a, v = promote(input, source)
    shape = np.broadcast_shapes(a._data.shape, mask._data.shape)
    key = np.broadcast_to(mask._data, shape)
    count = int(key.sum())
    if count > v.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(
        IX.MASKED_SCATTER,
        (a, v),
        {
            "key": key,
            "shape": shape,
            "count": count,
            "source_shape": tuple(v.shape),
            "mask": mask._data,
        },
    )


def select_scatter(input, src, dim, index) -> Tensor:
    """``input`` with its slice ``index`` along ``dim`` replaced by ``src``."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}"
        )
    a, v = promote(input, src)
    return apply(
        IX.PUT_KEY["select_scatter"],
        (a, v),
        {"key": (slice(None),) * d + (index % n,), "shape": a._data.shape},
    )


def slice_scatter(input, src, dim=0, start=None, end=None, step=1) -> Tensor:
    """``input`` with ``input[start:end:step]`` along ``dim`` replaced by ``src``."""
    d = _wrap_dim(dim, input.ndim)
    a, v = promote(input, src)
    return apply(
        IX.PUT_KEY["slice_scatter"],
        (a, v),
        {"key": (slice(None),) * d + (slice(start, end, step),), "shape": a._data.shape},
    )


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1) -> Tensor:
    """``input`` with the diagonal over ``dim1``/``dim2`` replaced by ``src``."""
    from .layout import _diag_index

    d1, d2 = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    a, v = promote(input, src)
    r, c = _diag_index((a.shape[d1], a.shape[d2]), offset)
    return apply(
        IX.DIAGONAL_SCATTER,
        (a, v),
        {"key": (Ellipsis, r, c), "shape": a._data.shape, "dim1": d1, "dim2": d2, "offset": offset},
    )


def nonzero_static(input, *, size, fill_value=-1) -> Tensor:
    """``nonzero`` padded (with ``fill_value``) or cut to ``size`` rows."""
    nz = np.argwhere(input._data).astype(np.int64)[:size]
    pad = np.full((size - nz.shape[0], max(input.ndim, 0)), fill_value, np.int64)
    return Tensor._wrap(np.concatenate([nz, pad]) if input.ndim else np.zeros((size, 0), np.int64))


def _tri_indices(fn, row, col, offset, dtype, device):
    r, c = fn(row, offset, col)
    dt = _dtype.to_numpy_dtype(dtype) if dtype is not None else np.int64
    return Tensor._wrap(move_array(np.stack([r, c]).astype(dt), device or "cpu"))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (row, col) indices of the lower triangle of a row x col matrix, as a 2 x N tensor."""
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor:
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)
