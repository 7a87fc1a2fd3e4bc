"""Upsampling rows for ``F.interpolate``: nearest, nearest-exact, (bi/tri)linear and bicubic over
the last 1-3 dims (UpsampleNearest2DBackward0, UpsampleBilinear2DBackward0...), each with its
backward as a row (...BackwardBackward0).

Every mode is separable: along each spatial axis the output is a fixed linear map of the input,
a small ``(out, in)`` matrix built with torch's source-index formulas (computed in the input's
precision, as torch's CPU kernels). Nearest modes gather rows (exact, NaN-safe); the others
multiply by the matrix; every backward multiplies by the transposes.
"""

from __future__ import annotations

import numpy as np

from .registry import AUTO_LINEAR, defop, kernel_refuses

_A = -0.75  # torch's bicubic convolution coefficient


def _scale(n_in, n_out, align_corners, scale, dt):
    """torch's area_pixel_compute_scale: input pixels per output pixel."""
    if align_corners:
        return dt((n_in - 1) / (n_out - 1)) if n_out > 1 else dt(0)
    if scale is not None and scale > 0:
        return dt(1.0) / dt(scale)
    return dt(n_in) / dt(n_out)


def _nearest_index(n_in, n_out, scale, exact):
    dt = np.float32
    o = np.arange(n_out)
    if not exact and n_out == n_in:
        return o
    if not exact and n_out == 2 * n_in:
        return o >> 1
    s = _scale(n_in, n_out, False, scale, dt)
    src = (o.astype(dt) + dt(0.5)) * s if exact else o.astype(dt) * s
    return np.minimum(np.floor(src).astype(np.int64), n_in - 1)


def _linear_matrix(n_in, n_out, align_corners, scale, dt):
    m = np.zeros((n_out, n_in), dt)
    o = np.arange(n_out)
    if n_out == n_in:  # torch copies (a scale factor that rounds back to the same size too)
        m[o, np.minimum(o, n_in - 1)] = 1
        return m
    s = _scale(n_in, n_out, align_corners, scale, dt)
    od = o.astype(dt)
    src = s * od if align_corners else np.maximum(s * (od + dt(0.5)) - dt(0.5), dt(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam1 = np.clip(src - i0.astype(dt), dt(0), dt(1)).astype(dt)
    i1 = i0 + (i0 < n_in - 1)
    np.add.at(m, (o, i0), dt(1) - lam1)
    np.add.at(m, (o, i1), lam1)
    return m


def _cubic_matrix(n_in, n_out, align_corners, scale, dt):
    m = np.zeros((n_out, n_in), dt)
    o = np.arange(n_out)
    s = _scale(n_in, n_out, align_corners, scale, dt)
    od = o.astype(dt)
    src = s * od if align_corners else s * (od + dt(0.5)) - dt(0.5)
    i0 = np.floor(src).astype(np.int64)
    t = (src - i0.astype(dt)).astype(dt)

    def near(x):  # |x| <= 1
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    coeffs = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    for k, c in enumerate(coeffs):
        np.add.at(m, (o, np.clip(i0 - 1 + k, 0, n_in - 1)), c.astype(dt))
    return m


def _maps(p, in_shape, dt):
    """Per spatial axis: ("take", index) or ("mat", matrix)."""
    d = len(p["output_size"])
    mode = p["mode"]
    out = []
    for k in range(d):
        n_in, n_out = in_shape[-d + k], p["output_size"][k]
        sc = p["_scales"][k]
        if mode in ("nearest", "nearest-exact"):
            out.append(("take", _nearest_index(n_in, n_out, sc, mode == "nearest-exact")))
        elif mode == "bicubic":
            out.append(("mat", _cubic_matrix(n_in, n_out, p["align_corners"], sc, dt)))
        else:
            out.append(("mat", _linear_matrix(n_in, n_out, p["align_corners"], sc, dt)))
    return out


def _along(xp, x, m, axis):
    """Apply ``(out, in)`` matrix ``m`` along ``axis`` of ``x``."""
    if axis == x.ndim - 1:
        return xp.matmul(x, m.T)
    moved = xp.moveaxis(x, axis, -1)
    return xp.ascontiguousarray(xp.moveaxis(xp.matmul(moved, m.T), -1, axis))


def _fwd(xp, x, p):
    d = len(p["output_size"])
    for k, (kind, m) in enumerate(_maps(p, x.shape, x.dtype.type)):
        ax = x.ndim - d + k
        if kind == "take":
            x = xp.take(x, xp.asarray(m), axis=ax)
        else:
            x = _along(xp, x, xp.asarray(m), ax)
    return x


def _one_hot(idx, n_in):
    m = np.zeros((idx.size, n_in))
    m[np.arange(idx.size), idx] = 1
    return m


def _bwd(xp, g, p):
    shape = p["self_sym_sizes"]
    d = len(p["output_size"])
    for k, (kind, m) in enumerate(_maps(p, shape, g.dtype.type)):
        ax = g.ndim - d + k
        if kind == "take":
            m = _one_hot(m, shape[ax]).astype(g.dtype)
        g = _along(xp, g, xp.asarray(m.T), ax)
    return g


_NAMES = {
    "nearest": "Nearest",
    "nearest-exact": "NearestExact",
    "linear": "Linear",
    "bilinear": "Bilinear",
    "trilinear": "Trilinear",
    "bicubic": "Bicubic",
}
_SCALE_NAMES = {
    1: ("scales",),
    2: ("scales_h", "scales_w"),
    3: ("scales_d", "scales_h", "scales_w"),
}
# the kernel torch names when it refuses a complex input (2-D nearest modes and bilinear run a
# channels-last kernel first; the others compute indices and weights first)
_COMPLEX_KERNEL = {
    "nearest": "upsample_nearest2d_channels_last",
    "nearest-exact": "upsample_nearest2d_channels_last",
    "bilinear": "upsample_bilinear2d_channels_last",
    "linear": "compute_indices_weights_linear",
    "trilinear": "compute_indices_weights_linear",
    "bicubic": "compute_indices_weights_cubic",
}
_TORCH_NAMES = {
    "nearest": "upsample_nearest",
    "nearest-exact": "_upsample_nearest_exact",
    "linear": "upsample_linear",
    "bilinear": "upsample_bilinear",
    "trilinear": "upsample_trilinear",
    "bicubic": "upsample_bicubic",
}


def _rows(mode, d):
    title = _NAMES[mode]
    smooth = mode not in ("nearest", "nearest-exact")
    saved = (
        (("align_corners",) if smooth else ())
        + ("output_size",)
        + _SCALE_NAMES[d]
        + ("self_sym_sizes",)
    )
    rows = {}

    def vjp(xp, g, x, out, p):
        if xp.is_txp:
            from .dispatch import apply1

            return apply1(rows["bwd"], g, p)
        return _bwd(xp, g, p)

    def vjp_bwd(xp, h, g, out, p):
        if xp.is_txp:
            from .dispatch import apply1

            return apply1(rows["fwd"], h, p)
        return _fwd(xp, h, p)

    # small enough for gradcheck's dense Jacobians (one backward per output element), which the
    # complex and higher-order sweeps build for every case: batch and channels kept above 1
    shape = {1: (2, 2, 5), 2: (2, 2, 3, 4), 3: (1, 2, 3, 2, 2)}[d]
    kws = [{"scale_factor": 2}, {"size": (7, 3, 2)[:d]}, {"scale_factor": 1.5}]
    if smooth:
        kws.append({"size": (3, 5, 4)[:d], "align_corners": True})

    def cases(rng):
        return [
            (
                None,
                [rng.uniform(-1, 1, shape)],
                lambda tt, x, k=kw: tt.nn.functional.interpolate(x, mode=mode, **k),
            )
            for kw in kws
        ]

    def bwd_cases(rng, lib):
        from .conv import _through_grad

        x0 = rng.uniform(-1, 1, {1: (2, 2, 3), 2: (1, 2, 3, 2), 3: (1, 2, 2, 2, 1)}[d])
        y_shape = lib.nn.functional.interpolate(lib.tensor(x0), mode=mode, scale_factor=2).shape

        def run(lib, v):
            return _through_grad(
                lib, x0, lambda t: lib.nn.functional.interpolate(t, mode=mode, scale_factor=2), v
            )

        return [(None, [rng.uniform(-1, 1, tuple(y_shape))], run)]

    name = f"{_TORCH_NAMES[mode]}{d}d"
    refuse = kernel_refuses(
        _COMPLEX_KERNEL[mode]
        if d == 2 or mode in ("linear", "trilinear", "bicubic")
        else "compute_indices_weights_nearest"
    )
    rows["fwd"] = defop(
        name,
        node=f"Upsample{title}{d}DBackward0",
        inputs=("self",),
        saved=saved,
        fwd=_fwd,
        vjp=vjp,
        jvp=AUTO_LINEAR,
        complex=refuse,
        sample={"kind": "cases", "cases": cases},
    )
    rows["bwd"] = defop(
        name + "_backward",
        node=f"Upsample{title}{d}DBackwardBackward0",
        inputs=("grad_output",),
        saved=saved,
        fwd=_bwd,
        vjp=vjp_bwd,
        jvp=AUTO_LINEAR,
        complex=refuse,
        sample={"kind": "cases", "cases": bwd_cases},
    )
    return rows["fwd"]


UPSAMPLE = {
    (m, d): _rows(m, d)
    for m, ds in (
        ("nearest", (1, 2, 3)),
        ("nearest-exact", (1, 2, 3)),
        ("linear", (1,)),
        ("bilinear", (2,)),
        ("trilinear", (3,)),
        ("bicubic", (2,)),
    )
    for d in ds
}
