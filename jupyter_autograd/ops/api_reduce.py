"""Public sorting, selection and statistics functions: sort, argsort, topk, kthvalue, median,
mode, cummax/cummin, cumprod, logcumsumexp, nansum/nanmean, var_mean/std_mean, aminmax,
quantile, and the integer-valued ones (nonzero, bincount, histc, searchsorted, unique...)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype
from .._size import _wrap_dim
from ..backend import move_array
from ..tensor import Tensor
from . import api as A
from . import sorting as SO
from .api_shape import movedim
from .dispatch import apply1
from .rtypes import return_type

__all__ = [
    "aminmax",
    "argsort",
    "argwhere",
    "bincount",
    "bucketize",
    "count_nonzero",
    "cummax",
    "cummin",
    "cumprod",
    "histc",
    "histogram",
    "histogramdd",
    "kthvalue",
    "logcumsumexp",
    "median",
    "mode",
    "msort",
    "nanmean",
    "nanmedian",
    "nanquantile",
    "nansum",
    "nonzero",
    "quantile",
    "searchsorted",
    "sort",
    "std_mean",
    "topk",
    "unique",
    "unique_consecutive",
    "var_mean",
]


def _host(t):
    """A tensor's values as a NumPy array (indices are computed on the host)."""
    d = t._data
    return d if d.__class__ is np.ndarray else move_array(d, "cpu")


def _out(arr, like):
    """A host result as a tensor on ``like``'s device."""
    return Tensor._wrap(move_array(np.asarray(arr), like.device))


def _sort_idx(a, d, descending=False):
    """Stable sorting indices along d, NaN largest (torch's order); descending keeps ties in
    their original order too."""
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    n = a.shape[d]
    return (n - 1) - np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)


def _select(op, input, d, idx, keepdim=True, **extra):
    p = {
        "dim": d,
        "indices": move_array(idx, input.device),
        "keepdim": keepdim,
        "self_sym_sizes": input._data.shape,
        **extra,
    }
    return apply1(op, input, p)


def sort(input, dim=-1, descending=False, stable=False):
    """Sorted values and their indices along ``dim`` (SortBackward0); ties keep their order."""
    a = _host(input)
    if a.ndim == 0:
        _wrap_dim(dim, 0)
        return return_type("sort")(A.clone(input), _out(np.zeros((), np.int64), input))
    d = _wrap_dim(dim, a.ndim)
    idx = _sort_idx(a, d, descending)
    return return_type("sort")(_select(SO.SORT, input, d, idx), _out(idx.astype(np.int64), input))


def argsort(input, dim=-1, descending=False, stable=False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    a = _host(input)
    if a.ndim == 0:
        return _out(np.zeros((), np.int64), input)
    return _out(_sort_idx(a, _wrap_dim(dim, a.ndim), descending).astype(np.int64), input)


def msort(input) -> Tensor:
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (smallest) values along ``dim`` and their indices (TopkBackward0)."""
    a = _host(input)
    d = _wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a.ndim == 0:
        return return_type("topk")(A.clone(input), _out(np.zeros((), np.int64), input))
    idx = np.take(_sort_idx(a, d, largest), np.arange(k), axis=d)
    return return_type("topk")(_select(SO.TOPK, input, d, idx), _out(idx.astype(np.int64), input))


def _reduced_select(name, op, input, dim, keepdim, pick):
    """A (values, indices) reduction over ``dim`` whose index per slice ``pick`` computes."""
    a = _host(input)
    if a.ndim == 0:
        _wrap_dim(dim, 0)
        return return_type(name)(A.clone(input), _out(np.zeros((), np.int64), input))
    d = _wrap_dim(dim, a.ndim)
    if a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = np.asarray(pick(a, d), dtype=np.int64)  # the reduced shape (dim removed)
    if keepdim:
        idx = np.expand_dims(idx, d)
    return return_type(name)(_select(op, input, d, idx, keepdim=keepdim), _out(idx, input))


def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` and its index (KthvalueBackward0)."""
    n = input.shape[_wrap_dim(dim, input.ndim)] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _reduced_select(
        "kthvalue",
        SO.KTHVALUE,
        input,
        dim,
        keepdim,
        lambda a, d: np.take(_sort_idx(a, d), k - 1, axis=d),
    )


def _median_pick(a, d):
    s = _sort_idx(a, d)
    idx = np.take(s, (a.shape[d] - 1) // 2, axis=d)
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        idx = np.where(nan.any(d), np.argmax(nan, axis=d), idx)  # NaN wins: its first index
    return idx


def _nanmedian_pick(a, d):
    s = _sort_idx(a, d)
    count = (
        (~np.isnan(a)).sum(d) if a.dtype.kind == "f" else np.full(np.delete(a.shape, d), a.shape[d])
    )
    k = np.maximum((count - 1) // 2, 0)
    return np.take_along_axis(s, np.expand_dims(k, d), d).squeeze(d)


def _median_all(name, op, input, pick):
    a = _host(input)
    if a.size == 0:
        return A.reshape(A.sum(input) * float("nan"), ())
    flat = a.reshape(-1)
    return apply1(op, input, {"index": int(pick(flat, 0))})


def median(input, dim=None, keepdim=False):
    """The lower median (of all elements: MedianBackward0; along ``dim`` with its index:
    MedianBackward1); NaN if the values hold one."""
    if dim is None:
        return _median_all("median", SO.MEDIAN, input, _median_pick)
    return _reduced_select("median", SO.MEDIAN_DIM, input, dim, keepdim, _median_pick)


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the values that are not NaN."""
    if dim is None:
        return _median_all("nanmedian", SO.NANMEDIAN, input, _nanmedian_pick)
    return _reduced_select("nanmedian", SO.NANMEDIAN_DIM, input, dim, keepdim, _nanmedian_pick)


def _mode_pick(a, d):
    moved = np.moveaxis(a, d, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        vals, counts = np.unique(row, return_counts=True)
        v = vals[np.argmax(counts)]  # the smallest of the most frequent values
        out[i] = np.flatnonzero((row == v) | (np.isnan(row) & np.isnan(v)))[-1]  # its last place
    return out.reshape(moved.shape[:-1])


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest on ties) and its last index."""
    return _reduced_select("mode", SO.MODE, input, dim, keepdim, _mode_pick)


def _cum_extreme(name, op, input, dim, better):
    a = _host(input)
    if a.ndim == 0:
        _wrap_dim(dim, 0)
        return return_type(name)(A.clone(input), _out(np.zeros((), np.int64), input))
    d = _wrap_dim(dim, a.ndim)
    acc = (np.maximum if better == "max" else np.minimum).accumulate(a, axis=d) if a.size else a
    shape = [1] * a.ndim
    shape[d] = -1
    pos = np.arange(a.shape[d]).reshape(shape)
    hit = (a == acc) | (np.isnan(a) if a.dtype.kind == "f" else False)
    idx = (
        np.maximum.accumulate(np.where(hit, pos, -1), axis=d)
        if a.size
        else np.zeros(a.shape, np.int64)
    )
    vals = apply1(
        op,
        input,
        {
            "dim": d,
            "indices": move_array(idx, input.device),
            "self_sym_sizes": a.shape,
            "repeats": True,
        },
    )
    return return_type(name)(vals, _out(idx.astype(np.int64), input))


def cummax(input, dim):
    """Running maximum along ``dim`` and where it was reached (the latest place on ties)."""
    return _cum_extreme("cummax", SO.CUMMAX, input, dim, "max")


def cummin(input, dim):
    return _cum_extreme("cummin", SO.CUMMIN, input, dim, "min")


def cumprod(input, dim, *, dtype=None) -> Tensor:
    """Running product along ``dim`` (CumprodBackward0; exact gradients where x has zeros)."""
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "iub":
        input = input.to(_dtype.int64)
    return apply1(SO.CUMPROD, input, {"dim": _wrap_dim(dim, input.ndim)})


def logcumsumexp(input, dim) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``dim``, computed stably (LogcumsumexpBackward0)."""
    return apply1(SO.LOGCUMSUMEXP, A._float(input), {"dim": _wrap_dim(dim, input.ndim)})


def nansum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """Sum treating NaN as zero (NansumBackward0)."""
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "iub":
        return A.sum(input, dim, keepdim)
    return apply1(SO.NANSUM, input, {"dim": A._dims(dim, input.ndim), "keepdim": keepdim})


def nanmean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """Mean of the values that are not NaN (nansum divided by their count, as torch)."""
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{A.scalar_type(input)}"
        )
    count = A.sum(A.logical_not(A.isnan(input)), dim, keepdim)
    return A.div(nansum(input, dim, keepdim, dtype=dtype), count)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim``."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    v = A.var(input, dim, unbiased, keepdim, correction=correction)
    return v, A.mean(input, dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    s = A.std(input, dim, unbiased, keepdim, correction=correction)
    return s, A.mean(input, dim, keepdim)


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of all elements or along ``dim``."""
    d = () if dim is None else dim
    return return_type("aminmax", ("min", "max"))(
        A.amin(input, d, keepdim), A.amax(input, d, keepdim)
    )


def count_nonzero(input, dim=None) -> Tensor:
    return Tensor._wrap(
        np.asarray(np.count_nonzero(input._data, axis=A._dims(dim, input.ndim)), dtype=np.int64)
    )


def argwhere(input) -> Tensor:
    return Tensor._wrap(np.argwhere(input._data).astype(np.int64))


def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: an (n, ndim) tensor, or one index tensor per dim."""
    a = input._data
    if as_tuple:
        if a.ndim == 0:
            return (Tensor._wrap(np.flatnonzero(a.reshape(1)).astype(np.int64)),)
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in np.nonzero(a))
    return Tensor._wrap(np.argwhere(a).astype(np.int64))


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    qt = q if isinstance(q, Tensor) else None
    qs = np.asarray(_host(q) if qt is not None else q, dtype=input._data.dtype)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
            f"Found {interpolation}"
        )
    # torch's quantile_compute: sort the values to the last dim, rank = q (n - 1), then gather
    # the neighbours and lerp by the rank's fraction (a tensor q gets its gradient there)
    x = A.reshape(input, (-1,)) if dim is None else input
    d = -1 if dim is None else _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        x = A.reshape(x, (1,))
    srt = sort(movedim(x, d, -1) if x.ndim > 1 else x, -1).values
    sd = _host(srt)
    n = sd.shape[-1]
    full = (qs.size,) + sd.shape[:-1] + (1,)
    qcol = qs.reshape((-1,) + (1,) * sd.ndim)
    if ignore_nan:
        scale = (~np.isnan(sd)).sum(-1, keepdims=True) - 1
        fixed = np.broadcast_to(scale < 0, full)
    else:
        scale = np.full(sd.shape[:-1] + (1,), n - 1)
        fixed = np.broadcast_to(np.isnan(sd).any(-1, keepdims=True), full)
    ranks = np.broadcast_to(qcol * scale, full).astype(sd.dtype)
    ranks = np.where(fixed, 0 if ignore_nan else n - 1, ranks)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    big = A.expand(A.unsqueeze(srt, 0), (qs.size,) + tuple(srt.shape))
    vals = A.gather(big, -1, _out(np.ascontiguousarray(below), input))
    if interpolation in ("linear", "midpoint"):
        va = A.gather(big, -1, _out(np.ascontiguousarray(np.ceil(ranks).astype(np.int64)), input))
        from .api_math import lerp

        if interpolation == "midpoint":
            w = 0.5
        elif qt is not None:
            qr = A.reshape(qt.to(input.dtype), (-1,) + (1,) * sd.ndim)
            w = A.masked_fill(qr * _out(scale.astype(sd.dtype), input), _out(fixed, input), 0.0)
            w = w - _out(below.astype(sd.dtype), input)
        else:
            w = _out(np.ascontiguousarray(ranks - below.astype(sd.dtype)), input)
        vals = lerp(vals, va, w)
    r = A.squeeze(vals, -1)  # (len(q), *reduced)
    if keepdim:
        r = A.reshape(r, (qs.size,) + (1,) * input.ndim) if dim is None else A.unsqueeze(r, d + 1)
    return A.squeeze(r, 0) if qs.ndim == 0 else r


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear") -> Tensor:
    """The ``q``-quantiles along ``dim`` (all elements by default): sort, then interpolate
    between neighbours (SortBackward0, GatherBackward0, LerpBackward1 as torch)."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear") -> Tensor:
    """``quantile`` of the values that are not NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# ---------------------------------------------------------------- counting (no gradient)
def bincount(input, weights=None, minlength=0) -> Tensor:
    """How often each non-negative integer occurs (summing ``weights`` if given)."""
    a = input._data
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._wrap(np.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._data
    dt = np.float32 if w.dtype == np.float32 else np.float64
    return Tensor._wrap(np.bincount(a, weights=w, minlength=minlength).astype(dt))


def histc(input, bins=100, min=0, max=0) -> Tensor:
    """Histogram of ``bins`` equal bins over [min, max] (the data's range when min == max)."""
    a = input._data
    if a.dtype.kind != "f":
        raise RuntimeError(f"\"histogram_cpu\" not implemented for '{A.scalar_type(input)}'")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    x = a.reshape(-1)
    x = x[(x >= lo) & (x <= hi)]
    t = a.dtype.type
    pos = ((x - t(lo)) * t(bins) / (t(hi) - t(lo))).astype(np.int64)
    pos = np.where(pos == bins, bins - 1, pos)
    return Tensor._wrap(np.bincount(pos, minlength=bins)[:bins].astype(a.dtype))


def _hist(points, bins, rng, weight, density, dtype):
    """torch's histogramdd kernel: per dim the bin is the last edge <= x (the rightmost edge
    closes the last bin), points outside the edges are skipped; ``density`` divides by the
    count and the bin volumes. Returns (hist, edges)."""
    n, d = points.shape
    edges = []
    for k in builtins.range(d):
        b = bins[k] if isinstance(bins, (list, tuple)) else bins
        if isinstance(b, np.ndarray):
            edges.append(b.astype(dtype))
            continue
        if rng is not None:
            lo, hi = float(rng[2 * k]), float(rng[2 * k + 1])
        elif n:
            lo, hi = float(points[:, k].min()), float(points[:, k].max())
        else:  # torch's edges for no data
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(np.linspace(lo, hi, int(b) + 1).astype(dtype))
    shape = tuple(max(len(e) - 1, 0) for e in edges)
    keep = np.ones(n, bool)
    pos = []
    for k, e in enumerate(edges):
        x = points[:, k]
        if len(e) == 0:
            keep[:] = False
            pos.append(np.zeros(n, np.int64))
            continue
        keep &= (x >= e[0]) & (x <= e[-1])
        i = np.searchsorted(e, x, side="right") - 1
        pos.append(np.clip(np.where(i == len(e) - 1, i - 1, i), 0, max(len(e) - 2, 0)))
    hist = np.zeros(shape, dtype)
    w = np.ones(n, dtype) if weight is None else weight.reshape(-1).astype(dtype)
    if all(shape):
        np.add.at(hist, tuple(p[keep] for p in pos), w[keep])
    if density:
        vol = np.ones(shape, dtype)
        for k, e in enumerate(edges):
            vol = vol * np.diff(e).reshape((1,) * k + (-1,) + (1,) * (d - k - 1))
        with np.errstate(all="ignore"):
            hist = (hist / (hist.sum() * vol)).astype(dtype)
    return hist, edges


def _edges_arg(bins):
    if isinstance(bins, Tensor):
        return bins._data
    if isinstance(bins, (list, tuple)):
        return [b._data if isinstance(b, Tensor) else b for b in bins]
    return bins


def histogram(input, bins, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: ``bins`` equal bins over ``range`` (the data's by default) or
    the given edges (no gradient)."""
    a = input._data
    w = weight._data if isinstance(weight, Tensor) else None
    h, e = _hist(a.reshape(-1, 1), [_edges_arg(bins)], range, w, density, a.dtype)
    return return_type("histogram", ("hist", "bin_edges"))(Tensor._wrap(h), Tensor._wrap(e[0]))


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The histogram of points (the last dim holds the coordinates) over a grid of bins."""
    a = input._data
    d = a.shape[-1]
    b = _edges_arg(bins)
    if not isinstance(b, list):
        b = [b] * d
    w = weight._data if isinstance(weight, Tensor) else None
    h, edges = _hist(a.reshape(-1, d), b, range, w, density, a.dtype)
    return return_type("histogramdd", ("hist", "bin_edges"))(
        Tensor._wrap(h), [Tensor._wrap(e) for e in edges]
    )


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion indices of ``input`` into each row of ``sorted_sequence``."""
    s = sorted_sequence._data
    v = input._data if isinstance(input, Tensor) else np.asarray(input)
    side = side or ("right" if right else "left")
    if sorter is not None:
        s = np.take_along_axis(s, sorter._data, -1)
    if s.ndim <= 1:
        r = np.searchsorted(s, v, side=side)
    else:
        lead = s.shape[:-1]
        sf, vf = s.reshape(-1, s.shape[-1]), v.reshape(int(np.prod(lead)), -1)
        r = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(sf, vf)]).reshape(v.shape)
    return Tensor._wrap(np.asarray(r, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, out_int32=False, right=False) -> Tensor:
    """The bucket of each element among ``boundaries`` (``searchsorted`` on one sequence)."""
    v = input._data if isinstance(input, Tensor) else np.asarray(input)
    r = np.searchsorted(boundaries._data, v, side="right" if right else "left")
    return Tensor._wrap(np.asarray(r, dtype=np.int32 if out_int32 else np.int64))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), with the inverse indices and counts if asked."""
    a = input._data
    res = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    vals, inv, counts = res
    out = [Tensor._wrap(vals)]
    if return_inverse:
        shape = a.shape if dim is None else (a.shape[dim],)
        out.append(Tensor._wrap(inv.reshape(shape).astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal values (equal slices along ``dim``) into one."""
    a = input._data
    moved = a.reshape(-1) if dim is None else np.moveaxis(a, dim, 0)
    n = moved.shape[0]
    if n == 0:
        change = np.zeros(0, bool)
    else:
        diff = (moved[1:] != moved[:-1]).reshape(n - 1, -1).any(1) if n > 1 else np.zeros(0, bool)
        change = np.concatenate([[True], diff])
    starts = np.flatnonzero(change)
    vals = moved[starts]
    out = [Tensor._wrap(vals if dim is None else np.moveaxis(vals, 0, dim))]
    if return_inverse:
        inv = np.cumsum(change) - 1
        out.append(Tensor._wrap(inv.reshape(a.shape if dim is None else (n,)).astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(np.diff(np.append(starts, n)).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)
