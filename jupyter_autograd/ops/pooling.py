"""2-D pooling rows over the last two dims (1-D pooling is these with a unit height, as torch):
``max_pool2d_with_indices``, ``avg_pool2d``, ``_adaptive_avg_pool2d``, ``adaptive_max_pool2d``,
each with its backward as a row (...BackwardBackward0) so gradients of gradients are recorded.

Windows are visited as strided slices of a padded copy, one kernel offset at a time, so the work
is ``kernel area`` passes over an output-sized array and nothing is copied per window. Max
pooling keeps the first maximum of a window (and the last NaN) as torch's CPU kernel does.
Adaptive average pooling is separable: ``P_h @ x @ P_w^T`` with small averaging matrices.
"""

from __future__ import annotations

import numpy as np

from ..autograd.saved_slots import hooks_active
from .registry import AUTO_LINEAR, defop, kernel_refuses


def _buf_shape(p, h, w):
    """The padded extent: ``padding`` on the left, and on the right as far as windows reach."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p["kernel"], p["step"], p["padding"], p["dilation"]
    oh, ow = p["out"]
    return (
        max(ph + h, (oh - 1) * sh + (kh - 1) * dh + 1),
        max(pw + w, (ow - 1) * sw + (kw - 1) * dw + 1),
    )


def _buffer(xp, x, p, fill):
    """x padded by ``padding`` (and on the right as far as the last window reaches)."""
    ph, pw = p["padding"]
    h, w = x.shape[-2:]
    bh, bw = _buf_shape(p, h, w)
    if not (ph or pw) and bh == h and bw == w:
        return x
    buf = xp.full(x.shape[:-2] + (bh, bw), fill, x.dtype)
    buf[..., ph : ph + h, pw : pw + w] = x
    return buf


def _offsets(p):
    """(i, j, row slice, column slice) of each kernel offset's strided view of the buffer."""
    (kh, kw), (sh, sw), (dh, dw) = p["kernel"], p["step"], p["dilation"]
    oh, ow = p["out"]
    for i in range(kh):
        for j in range(kw):
            yield (
                i,
                j,
                slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                slice(j * dw, j * dw + sw * (ow - 1) + 1, sw),
            )


def _flat(a):
    """``(planes, positions)`` view of an array over the last two dims."""
    return a.reshape(-1, a.shape[-2] * a.shape[-1])


def _scatter(xp, g, idx, shape, unique):
    """Gradient of a max pool: g added at the flat index of each window's maximum."""
    g2, i2 = _flat(g), _flat(idx)
    hw = shape[-2] * shape[-1]
    if unique and xp.__name__ == "numpy":  # windows do not overlap: plain assignment
        gx = np.zeros((g2.shape[0], hw), g.dtype)
        np.put_along_axis(gx, i2, g2, axis=1)
        return gx.reshape(shape)
    rows = xp.arange(g2.shape[0]).reshape(-1, 1) * hw
    if xp.__name__ == "numpy":
        gx = np.bincount((i2 + rows).ravel(), weights=g2.ravel(), minlength=g2.shape[0] * hw)
        return gx.astype(g.dtype, copy=False).reshape(shape)
    return xp.scatter_add_zeros(g2.ravel(), ((i2 + rows).ravel(),), (g2.shape[0] * hw,)).reshape(
        shape
    )


def _gather(xp, t, idx):
    return xp.take_along_axis(_flat(t), _flat(idx), axis=1).reshape(idx.shape)


# ---------------------------------------------------------------- max pool
def _max_fwd(xp, x, p):
    """The window maxima; which offset won is kept in ``p["_arg"]`` (a small integer per output)
    and turned into torch's flat indices only when asked (:func:`_indices`)."""
    kind = x.dtype.kind
    fill = -np.inf if kind in "fc" else np.iinfo(x.dtype).min
    buf = _buffer(xp, x, p, fill)
    views = [buf[..., rs, cs] for _, _, rs, cs in _offsets(p)]
    best = xp.maximum(views[0], views[1]) if len(views) > 1 else views[0].copy()
    for v in views[2:]:
        xp.maximum(best, v, out=best)  # NaN propagates, as torch's max pool
    nk = len(views)
    arg = xp.zeros(best.shape, np.int8 if nk < 128 else np.int32)
    for k in range(nk - 1, -1, -1):  # the first offset holding the maximum wins, as torch
        xp.putmask(arg, views[k] == best, k)
    if kind == "f":
        nan = xp.isnan(best)
        if nan.any():  # torch keeps the last NaN of a window
            for k in range(nk):
                xp.putmask(arg, nan & xp.isnan(views[k]), k)
    if buf is not x:
        _first_inside(xp, arg, x.shape[-2:], p)
    p["_arg"] = arg
    if hooks_active():  # torch saves its indices (result1): the hooks pack them
        p["result1"] = _indices(p, x.shape)
    return best


def _first_inside(xp, arg, hw, p):
    """A window whose maximum is -inf and was found in the padding keeps its first position
    inside the input instead, as torch's kernel (which starts there)."""
    kw, (sh, sw), (ph, pw), (dh, dw) = p["kernel"][1], p["step"], p["padding"], p["dilation"]
    oh, ow = p["out"]
    h, w = hw
    ih = (xp.arange(oh) * sh - ph).reshape(-1, 1) + (arg // kw) * dh
    iw = xp.arange(ow) * sw - pw + (arg % kw) * dw
    outside = (ih < 0) | (iw < 0) | (ih >= h) | (iw >= w)
    if outside.any():
        h0 = xp.arange(oh) * sh - ph
        i0 = (-(h0 // dh)).clip(0).reshape(-1, 1)  # the first kernel row inside the input
        w0 = xp.arange(ow) * sw - pw
        j0 = (-(w0 // dw)).clip(0)
        xp.putmask(arg, outside, xp.broadcast_to(i0 * kw + j0, arg.shape).astype(arg.dtype))


def _indices(p, shape):
    """torch's indices (flat positions in each input plane) from the winning offsets."""
    idx = p.get("_idx")
    if idx is None:
        from ..autograd.engine import xp_of

        arg = p["_arg"].astype(np.int64)
        xp = xp_of(arg)
        kw = p["kernel"][1]
        (sh, sw), (ph, pw), (dh, dw) = p["step"], p["padding"], p["dilation"]
        oh, ow = p["out"]
        ih = (xp.arange(oh) * sh - ph).reshape(-1, 1) + (arg // kw) * dh
        iw = xp.arange(ow) * sw - pw + (arg % kw) * dw
        idx = p["_idx"] = ih * shape[-1] + iw
    return idx


def _max_bwd(xp, g, p, shape):
    """The gradient of a max pool: each output's gradient added at its window's winning offset."""
    arg = p["_arg"]
    h, w = shape[-2:]
    ph, pw = p["padding"]
    bshape = tuple(shape[:-2]) + _buf_shape(p, h, w)
    (kh, kw), (sh, sw), (dh, dw) = p["kernel"], p["step"], p["dilation"]
    oh, ow = p["out"]
    if (
        kh * dh == sh
        and kw * dw == sw
        and dh == dw == 1
        and bshape[-2:] == (oh * sh, ow * sw)
        and xp.__name__ == "numpy"
    ):
        # the windows tile the buffer: every position is written once, no zeros, no adds
        buf = np.empty(bshape, g.dtype)
        for k, (_, _, rs, cs) in enumerate(_offsets(p)):
            np.multiply(g, arg == k, out=buf[..., rs, cs])
    else:
        buf = xp.zeros(bshape, g.dtype)
        zero = g.dtype.type(0)
        for k, (_, _, rs, cs) in enumerate(_offsets(p)):
            buf[..., rs, cs] += xp.where(arg == k, g, zero)
    if buf.shape[-2:] != (h, w):
        buf = xp.ascontiguousarray(buf[..., ph : ph + h, pw : pw + w])
    return buf


def _max_unique(p):
    (kh, kw), (sh, sw), (dh, dw) = p["kernel"], p["step"], p["dilation"]
    return sh >= (kh - 1) * dh + 1 and sw >= (kw - 1) * dw + 1


def _max_vjp(xp, g, x, out, p):
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(MAX_POOL2D_BACKWARD, g, _bwd_p(p, x.shape))
    return _max_bwd(xp, g, p, x.shape)


def _bwd_p(p, shape):
    return {
        "_idx": _indices(p, shape),
        "indices": p.get("result1"),
        "shape": tuple(shape),
        "_unique": _max_unique(p),
    }


def _gather_vjp(xp, h, g, out, p):
    if xp.is_txp:
        from ..tensor import Tensor

        hw = p["shape"][-2] * p["shape"][-1]
        idx = Tensor._wrap(_flat(p["_idx"]))  # on the gradient's device, as the index is
        return xp.reshape(xp.take_along_axis(xp.reshape(h, (-1, hw)), idx, 1), p["_idx"].shape)
    return _gather(xp, h, p["_idx"])


def _pool_cases(fn, args_list, shape=(2, 3, 7, 6)):
    def cases(rng):
        out = []
        for kw in args_list:
            x = rng.permutation(np.prod(shape)).reshape(shape) / 10.0  # distinct: no ties
            out.append(
                (None, [x], lambda tt, t, k=kw: _first(getattr(tt.nn.functional, fn)(t, **k)))
            )
        return out

    return cases


def _first(r):
    return r[0] if isinstance(r, tuple) else r


def _backward_cases(fn, kw, shape=(2, 3, 7, 6)):
    def cases(rng, lib):
        from .conv import _through_grad

        x0 = rng.permutation(np.prod(shape)).reshape(shape) / 10.0  # distinct: no ties

        def run(lib, v):
            return _through_grad(
                lib, x0, lambda t: _first(getattr(lib.nn.functional, fn)(t, **kw)), v
            )

        y_shape = _first(getattr(lib.nn.functional, fn)(lib.tensor(x0), **kw)).shape
        return [(None, [rng.uniform(-1, 1, tuple(y_shape))], run)]

    return cases


MAX_POOL2D = defop(
    "max_pool2d_with_indices",
    node="MaxPool2DWithIndicesBackward0",
    inputs=("self",),
    saved=("ceil_mode", "dilation", "kernel_size", "padding", "result1", "self", "stride"),
    fwd=_max_fwd,
    vjp=_max_vjp,
    complex=kernel_refuses("max_pool2d"),
    jvp=lambda xp, t, x, out, p: _gather(xp, t[0], xp.asarray(_indices(p, t[0].shape))),
    smooth=False,
    sample={
        "kind": "cases",
        "cases": _pool_cases(
            "max_pool2d",
            [
                {"kernel_size": 2},
                {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                {"kernel_size": (2, 3), "stride": 1, "dilation": (2, 1)},
            ],
        ),
    },
)
MAX_POOL2D_BACKWARD = defop(
    "max_pool2d_with_indices_backward",
    node="MaxPool2DWithIndicesBackwardBackward0",
    inputs=("grad_output",),
    saved=("indices",),
    fwd=lambda xp, g, p: _scatter(xp, g, p["_idx"], p["shape"], p["_unique"]),
    complex=kernel_refuses("max_pool2d_with_indices_backward"),
    vjp=_gather_vjp,
    jvp=lambda xp, t, x, out, p: _scatter(xp, t[0], p["_idx"], p["shape"], p["_unique"]),
    sample={
        "kind": "cases",
        "cases": _backward_cases("max_pool2d", {"kernel_size": 3, "stride": 2}),
    },
)


# ---------------------------------------------------------------- average pool
def _divisor(p, h, w):
    """torch's divide factor of each window: (oh, ow)."""
    (kh, kw), (sh, sw), (ph, pw) = p["kernel"], p["step"], p["padding"]
    oh, ow = p["out"]
    if p["divisor_override"]:
        return float(p["divisor_override"])

    def extent(o, s, pad, k, n):
        start = np.arange(o) * s - pad
        end = np.minimum(start + k, n + pad)
        size = end - start
        inside = np.minimum(end, n) - np.maximum(start, 0)
        return size, np.maximum(inside, 0)

    sh_, ih = extent(oh, sh, ph, kh, h)
    sw_, iw = extent(ow, sw, pw, kw, w)
    if p["count_include_pad"]:
        d = np.outer(sh_, sw_)
    else:
        d = np.outer(ih, iw)
    return np.where(d > 0, d, 1).astype(np.float64)


def _avg_fwd(xp, x, p):
    buf = _buffer(xp, x, p, 0)
    acc = None
    for _, _, rs, cs in _offsets(p):
        v = buf[..., rs, cs]
        acc = v.copy() if acc is None else acc + v
    d = _divisor(p, *x.shape[-2:])
    if isinstance(d, float):
        return acc / d if d != 1 else acc
    return acc / xp.asarray(d.astype(x.dtype))


def _avg_bwd(xp, g, p):
    h, w = p["shape"][-2:]
    d = _divisor(p, h, w)
    g = g / (d if isinstance(d, float) else xp.asarray(d.astype(g.dtype)))
    ph, pw = p["padding"]
    buf = xp.zeros(p["shape"][:-2] + _buf_shape(p, h, w), g.dtype)
    for _, _, rs, cs in _offsets(p):
        buf[..., rs, cs] += g
    return xp.ascontiguousarray(buf[..., ph : ph + h, pw : pw + w])


def _avg_vjp(xp, g, x, out, p):
    q = dict(p, shape=tuple(x.shape))
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(AVG_POOL2D_BACKWARD, g, q)
    return _avg_bwd(xp, g, q)


def _avg_bwd_vjp(xp, h, g, out, p):
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(AVG_POOL2D, h, p)
    return _avg_fwd(xp, h, p)


_AVG_SAVED = (
    "ceil_mode",
    "count_include_pad",
    "divisor_override",
    "kernel_size",
    "padding",
    "stride",
)
AVG_POOL2D = defop(
    "avg_pool2d",
    node="AvgPool2DBackward0",
    inputs=("self",),
    saved=_AVG_SAVED[:5] + ("self", "stride"),
    fwd=_avg_fwd,
    vjp=_avg_vjp,
    complex=kernel_refuses("avg_pool2d"),
    jvp=AUTO_LINEAR,
    sample={
        "kind": "cases",
        "cases": _pool_cases(
            "avg_pool2d",
            [
                {"kernel_size": 2},
                {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                {"kernel_size": (3, 2), "stride": 2, "padding": 1, "count_include_pad": False},
                {
                    "kernel_size": 3,
                    "stride": 2,
                    "padding": 1,
                    "ceil_mode": True,
                    "divisor_override": 5,
                },
            ],
        ),
    },
)
AVG_POOL2D_BACKWARD = defop(
    "avg_pool2d_backward",
    node="AvgPool2DBackwardBackward0",
    inputs=("grad_output",),
    saved=_AVG_SAVED,
    fwd=_avg_bwd,
    vjp=_avg_bwd_vjp,
    complex=kernel_refuses("avg_pool2d_backward_out_frame"),
    jvp=AUTO_LINEAR,
    sample={
        "kind": "cases",
        "cases": _backward_cases(
            "avg_pool2d", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}
        ),
    },
)


# ---------------------------------------------------------------- adaptive pools
def _bounds(n, o):
    """torch's adaptive windows: [floor(i n / o), ceil((i + 1) n / o))."""
    i = np.arange(o)
    return (i * n) // o, -((-(i + 1) * n) // o)


def _avg_matrix(n, o, dtype):
    start, end = _bounds(n, o)
    j = np.arange(n)
    m = ((j >= start[:, None]) & (j < end[:, None])).astype(np.float64)
    return (m / (end - start)[:, None]).astype(dtype)


def _adaptive_avg(xp, x, out_hw):
    mh = xp.asarray(_avg_matrix(x.shape[-2], out_hw[0], x.dtype))
    mw = xp.asarray(_avg_matrix(x.shape[-1], out_hw[1], x.dtype))
    lead = x.shape[:-2]
    x3 = x.reshape((-1,) + x.shape[-2:])
    y = xp.matmul(mh, xp.matmul(x3, mw.T))
    return y.reshape(lead + tuple(out_hw))


def _adaptive_avg_bwd(xp, g, p):
    h, w = p["shape"][-2:]
    mh = xp.asarray(_avg_matrix(h, g.shape[-2], g.dtype))
    mw = xp.asarray(_avg_matrix(w, g.shape[-1], g.dtype))
    g3 = g.reshape((-1,) + g.shape[-2:])
    return xp.matmul(mh.T, xp.matmul(g3, mw)).reshape(p["shape"])


def _adaptive_vjp(xp, g, x, out, p):
    q = {
        "shape": tuple(x.shape),
        "grad_output_sym_argsize_minus_1": g.shape[-1],
        "grad_output_sym_argsize_minus_2": g.shape[-2],
    }
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(ADAPTIVE_AVG_POOL2D_BACKWARD, g, q)
    return _adaptive_avg_bwd(xp, g, q)


def _adaptive_bwd_vjp(xp, h, g, out, p):
    q = {
        "output_size": (p["grad_output_sym_argsize_minus_2"], p["grad_output_sym_argsize_minus_1"])
    }
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(ADAPTIVE_AVG_POOL2D, h, q)
    return _adaptive_avg(xp, h, q["output_size"])


ADAPTIVE_AVG_POOL2D = defop(
    "_adaptive_avg_pool2d",
    node="AdaptiveAvgPool2DBackward0",
    inputs=("self",),
    saved=("self",),
    fwd=lambda xp, x, p: _adaptive_avg(xp, x, p["output_size"]),
    vjp=_adaptive_vjp,
    complex=kernel_refuses("adaptive_avg_pool2d"),
    jvp=lambda xp, t, x, out, p: _adaptive_avg(xp, t[0], p["output_size"]),
    sample={
        "kind": "cases",
        "cases": _pool_cases(
            "adaptive_avg_pool2d",
            [{"output_size": (3, 4)}, {"output_size": (5, 2)}, {"output_size": (2, None)}],
        ),
    },
)
ADAPTIVE_AVG_POOL2D_BACKWARD = defop(
    "_adaptive_avg_pool2d_backward",
    node="AdaptiveAvgPool2DBackwardBackward0",
    inputs=("grad_output",),
    saved=("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2"),
    fwd=_adaptive_avg_bwd,
    vjp=_adaptive_bwd_vjp,
    complex=kernel_refuses("adaptive_avg_pool2d_backward_cpu"),
    jvp=AUTO_LINEAR,
    sample={
        "kind": "cases",
        "cases": _backward_cases("adaptive_avg_pool2d", {"output_size": (3, 4)}),
    },
)


def _adaptive_max_fwd(xp, x, p):
    h, w = x.shape[-2:]
    oh, ow = p["output_size"]
    hs, he = _bounds(h, oh)
    ws, we = _bounds(w, ow)
    best = arg_h = arg_w = None
    for i in range(int((he - hs).max())):
        rows = np.minimum(hs + i, he - 1)  # clipped at a window's end, and masked out there
        for j in range(int((we - ws).max())):
            cols = np.minimum(ws + j, we - 1)
            valid = xp.asarray((hs + i < he)[:, None] & (ws + j < we)[None, :])
            v = x[..., rows[:, None], cols[None, :]]
            if best is None:
                best, arg_h, arg_w = (
                    v.copy(),
                    xp.zeros(v.shape, np.int64),
                    xp.zeros(v.shape, np.int64),
                )
                arg_h += xp.asarray(rows)[:, None]
                arg_w += xp.asarray(cols)[None, :]
                continue
            upd = v > best
            if x.dtype.kind == "f":
                upd |= xp.isnan(v)
            upd &= valid
            best = xp.where(upd, v, best)
            arg_h = xp.where(upd, xp.asarray(rows)[:, None], arg_h)
            arg_w = xp.where(upd, xp.asarray(cols)[None, :], arg_w)
    p["_idx"] = p["result1"] = arg_h * w + arg_w  # torch's indices, its saved result1
    return best


def _adaptive_max_vjp(xp, g, x, out, p):
    q = {"_idx": p["_idx"], "indices": p.get("result1"), "shape": tuple(x.shape), "_unique": False}
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(ADAPTIVE_MAX_POOL2D_BACKWARD, g, q)
    return _scatter(xp, g, p["_idx"], x.shape, False)


ADAPTIVE_MAX_POOL2D = defop(
    "adaptive_max_pool2d",
    node="AdaptiveMaxPool2DBackward0",
    inputs=("self",),
    saved=("result1", "self"),
    fwd=_adaptive_max_fwd,
    vjp=_adaptive_max_vjp,
    complex=kernel_refuses("adaptive_max_pool2d"),
    jvp=lambda xp, t, x, out, p: _gather(xp, t[0], p["_idx"]),
    smooth=False,
    sample={
        "kind": "cases",
        "cases": _pool_cases(
            "adaptive_max_pool2d", [{"output_size": (3, 4)}, {"output_size": (5, 2)}]
        ),
    },
)
ADAPTIVE_MAX_POOL2D_BACKWARD = defop(
    "adaptive_max_pool2d_backward",
    node="AdaptiveMaxPool2DBackwardBackward0",
    inputs=("grad_output",),
    saved=("indices",),
    fwd=lambda xp, g, p: _scatter(xp, g, p["_idx"], p["shape"], False),
    vjp=_gather_vjp,
    complex=kernel_refuses("adaptive_max_pool2d_backward_cpu"),
    jvp=lambda xp, t, x, out, p: _scatter(xp, t[0], p["_idx"], p["shape"], False),
    sample={
        "kind": "cases",
        "cases": _backward_cases("adaptive_max_pool2d", {"output_size": (3, 4)}),
    },
)
