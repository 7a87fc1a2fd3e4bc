"""Public differences, integrals and statistics composed from rows as torch composes them: diff,
gradient, trapezoid/trapz/cumulative_trapezoid, dist, renorm, cov, corrcoef, cdist."""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from .._size import _wrap_dim
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import api as A
from .api_math import apply_promoted, promote

__all__ = [
    "cdist",
    "corrcoef",
    "cov",
    "cumulative_trapezoid",
    "diff",
    "dist",
    "gradient",
    "renorm",
    "trapezoid",
    "trapz",
]


def _slice(t, d, start, stop):
    n = t.shape[d]
    start, stop = (
        builtins.max(0, start if start >= 0 else n + start),
        builtins.min(n, stop if stop >= 0 else n + stop),
    )
    return A.narrow(t, d, start, builtins.max(stop - start, 0))


def diff(input, n=1, dim=-1, prepend=None, append=None) -> Tensor:
    """``n``-th forward difference along ``dim`` (``!=`` for bool tensors), after attaching
    ``prepend``/``append``."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input.ndim)
    x = input
    if prepend is not None or append is not None:

        def full(t):
            t = A._t(t, input)
            if t.ndim == 0:
                shape = list(input.shape)
                shape[d] = 1
                t = A.expand(A.reshape(t, (1,) * input.ndim), shape)
            return t

        seq = (
            ([full(prepend)] if prepend is not None else [])
            + [x]
            + ([full(append)] if append is not None else [])
        )
        x = A.cat(seq, d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = _slice(x, d, 1, m), _slice(x, d, 0, m - 1)
        x = A.ne(hi, lo) if x.dtype.name == "bool" else A.sub(hi, lo)
    return x


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Second-order accurate central differences inside, first or second order at the edges,
    one tensor per dim (``spacing``: a number, one per dim, or coordinate tensors)."""
    if spacing is None:
        spacing = 1
    dims = (
        list(range(input.ndim))
        if dim is None
        else (
            [_wrap_dim(dim, input.ndim)]
            if isinstance(dim, int)
            else [_wrap_dim(d, input.ndim) for d in dim]
        )
    )
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                f"arguments to have the same length, but got a spacing argument of length {len(sp)} "
                f"and a dim argument of length {len(dims)}."
            )
    else:
        sp = [spacing] * len(dims)
    out = []
    for d, h in zip(dims, sp):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
        out.append(_gradient_1d(input, d, h, edge_order))
    return tuple(out)


def _gradient_1d(f, d, h, edge_order):
    n = f.shape[d]
    sl = lambda a, b: _slice(f, d, a, b)
    if isinstance(h, Tensor) and h.ndim == 1:  # coordinates: numpy's nonuniform formulas
        x = h._data.astype(f._data.dtype)
        dx = np.diff(x)
        shape = [1] * f.ndim
        shape[d] = -1
        c = lambda v: Tensor._wrap(np.asarray(v, f._data.dtype).reshape(shape))
        h1, h2 = dx[:-1], dx[1:]
        a, b, cc = -h2 / (h1 * (h1 + h2)), (h2 - h1) / (h1 * h2), h1 / (h2 * (h1 + h2))
        mid = sl(0, n - 2) * c(a) + sl(1, n - 1) * c(b) + sl(2, n) * c(cc)
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / float(dx[0])
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / float(dx[-1])
        else:
            d1, d2 = dx[0], dx[1]
            a0, b0, c0 = (
                -(2 * d1 + d2) / (d1 * (d1 + d2)),
                (d1 + d2) / (d1 * d2),
                -d1 / (d2 * (d1 + d2)),
            )
            first = sl(0, 1) * float(a0) + sl(1, 2) * float(b0) + sl(2, 3) * float(c0)
            d1, d2 = dx[-2], dx[-1]
            a1, b1, c1 = (
                d2 / (d1 * (d1 + d2)),
                -(d2 + d1) / (d1 * d2),
                (2 * d2 + d1) / (d2 * (d1 + d2)),
            )
            last = (
                sl(n - 3, n - 2) * float(a1)
                + sl(n - 2, n - 1) * float(b1)
                + sl(n - 1, n) * float(c1)
            )
        return A.cat([first, mid, last], d)
    h = float(h.item() if isinstance(h, Tensor) else h)
    mid = (sl(2, n) - sl(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / h
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
    else:
        first = (sl(0, 1) * -1.5 + sl(1, 2) * 2.0 - sl(2, 3) * 0.5) / h
        last = (sl(n - 3, n - 2) * 0.5 - sl(n - 2, n - 1) * 2.0 + sl(n - 1, n) * 1.5) / h
    return A.cat([first, mid, last], d)


def trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor:
    """The trapezoidal rule along ``dim`` (sample points ``x`` or spacing ``dx``)."""
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    if n == 0:
        return A.sum(y, d)
    s = A.add(_slice(y, d, 1, n), _slice(y, d, 0, n - 1))
    if x is not None and isinstance(x, Tensor):
        xd = x if x.ndim == y.ndim or x.ndim != 1 else A.reshape(x, (-1,) + (1,) * (y.ndim - d - 1))
        dxs = diff(xd, dim=-1 if x.ndim == 1 and xd.ndim == 1 else d)
        return A.div(A.sum(A.mul(dxs, s), d), 2.0)
    h = dx if dx is not None else (x if x is not None else 1)
    return A.mul(A.sum(s, d), h / 2.0)


def trapz(y, x=None, *, dx=None, dim=-1) -> Tensor:
    if x is not None and not isinstance(x, Tensor):
        return trapezoid(y, dx=x, dim=dim)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor:
    """Running trapezoidal integral along ``dim`` (one element shorter than ``y``)."""
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    s = A.add(_slice(y, d, 1, n), _slice(y, d, 0, n - 1))
    if x is not None and isinstance(x, Tensor):
        xd = x if x.ndim == y.ndim or x.ndim != 1 else A.reshape(x, (-1,) + (1,) * (y.ndim - d - 1))
        return A.div(A.cumsum(A.mul(diff(xd, dim=d if xd.ndim > 1 else -1), s), d), 2.0)
    h = dx if dx is not None else (x if x is not None else 1)
    return A.cumsum(A.mul(s, h / 2.0), d)


def dist(input, other, p=2) -> Tensor:
    """The ``p``-norm of ``input - other`` (DistBackward0)."""
    from .api import _vector_norm
    from .distance import DIST, DIST0

    a, b = promote(input, other)
    if a._data.dtype.kind not in "fc":
        from .._tensor_inplace import _scalar_type

        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {_scalar_type(a)} instead."
        )
    with no_grad():  # torch's checks and its refusals, made by the norm of the difference
        _vector_norm(A.sub(a, b), p, None, False)
    return apply_promoted(DIST0 if p == 0 else DIST, (input, other), {"p": p})


def renorm(input, p, dim, maxnorm) -> Tensor:
    """Each slice along ``dim`` rescaled so its ``p``-norm is at most ``maxnorm``
    (RenormBackward0)."""
    from .api import _vector_norm
    from .dispatch import apply1
    from .distance import RENORM

    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if input.ndim < 2:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    d = _wrap_dim(dim, input.ndim)
    others = [i for i in range(input.ndim) if i != d]
    with no_grad():  # the value as torch's kernel makes it: the slices' scale, then the product
        norm = _vector_norm(input, p, others, keepdim=True)
        factor = A.where(
            A.gt(norm, maxnorm), A.div(maxnorm, A.add(norm, 1e-7)), A.mul(norm, 0) + 1.0
        )
        res = A.mul(input, factor)
    # torch saves dim as given: a negative one shows as its unsigned 64-bit wrap
    params = {"p": p, "dim": dim % 2**64, "maxnorm": maxnorm, "_d": d, "_res": res._data}
    return apply1(RENORM, input, params)


def cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor:
    """Covariance of the rows (variables) over the columns (observations), as ``torch.cov``."""
    if input.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions"
        )
    x = A.reshape(input, (1, -1)) if input.ndim < 2 else input
    if x._data.dtype.kind in "iub":
        x = x.to(A._dtype.get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else A.mul(w, aweights)
    if w is not None:
        w = w.to(x.dtype)
        w_sum = A.sum(w)
        avg = A.div(A.sum(A.mul(x, w), 1), w_sum)
        if aweights is None:
            norm = A.sub(w_sum, correction)
        else:
            norm = A.sub(
                w_sum, A.div(A.mul(A.sum(A.mul(w, aweights.to(x.dtype))), correction), w_sum)
            )
    else:
        avg = A.mean(x, 1)
        norm = Tensor._wrap(np.asarray(n_obs - correction, dtype=x._data.dtype))
    if float(np.real(norm.item()) if norm.numel() == 1 else 1) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm = A.mul(norm, 0)
    xc = A.sub(x, A.unsqueeze(avg, 1))
    other = A.t(xc if w is None else A.mul(xc, w))
    c = A.mm(xc, other.conj() if other.is_complex() else other)
    return A.squeeze(A.div(c, norm))


def corrcoef(input) -> Tensor:
    """Pearson correlation coefficients of the rows (``cov`` scaled by the standard deviations)."""
    c = cov(input)
    if c.ndim == 0:
        return A.div(c, c)
    d = _diag(c)
    std = A.sqrt(d.real if d.is_complex() else d)
    c = A.div(c, A.unsqueeze(std, 1))
    c = A.div(c, A.unsqueeze(std, 0))
    if c.is_complex():  # torch clips the real and imaginary parts separately
        from .cplx import complex as _complex

        return _complex(A.clamp(c.real, -1, 1), A.clamp(c.imag, -1, 1))
    return A.clamp(c, -1, 1)


def _diag(c):
    from .api_shape import diagonal

    return diagonal(c)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each pair of rows of ``x1`` and ``x2`` (batched)."""
    from .api import _vector_norm

    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (
            compute_mode == "use_mm_for_euclid_dist_if_necessary"
            and (x1.shape[-2] > 25 or x2.shape[-2] > 25)
        )
    )
    from .._tensor_inplace import _scalar_type
    from .dispatch import apply
    from .distance import CDIST, EUCLIDEAN_DIST

    for name, t in (("X1", x1), ("X2", x2)):
        if t._data.dtype.kind != "f":
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {_scalar_type(t)}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type(x1)} but found {_scalar_type(x2)}")
    try:  # the batch dims broadcast
        np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    except ValueError:
        from .._errors import broadcast_error

        broadcast_error(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    if mm and x1.ndim == 2 and x2.ndim == 2 and x1.dtype == x2.dtype:
        # torch's matrix-product path: _euclidean_dist, its result viewed to the output shape
        out = apply(EUCLIDEAN_DIST, (x1, x2))
        return A.view(out, (x1.shape[0], x2.shape[0]))
    if mm:  # batched: composed here for now
        a, b = promote(x1, x2)
        diffs = A.sub(A.unsqueeze(a, -2), A.unsqueeze(b, -3))
        return _vector_norm(diffs, p, -1, False)

    return apply(CDIST, (x1, x2), {"p": float(p)})
