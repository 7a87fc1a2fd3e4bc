"""3-D adaptive average pooling rows: ``_adaptive_avg_pool3d`` (AdaptiveAvgPool3DBackward0) and
its backward (AdaptiveAvgPool3DBackwardBackward0), each the other's gradient. The pooling is
separable: one small averaging matrix per spatial dim (torch's windows
``[floor(i n / o), ceil((i + 1) n / o))``), applied along D, H and W in turn."""

from __future__ import annotations

import numpy as np

from .pooling import _avg_matrix
from .registry import AUTO_LINEAR, defop, kernel_refuses


def _along(xp, x, m, axis):
    """``m`` (o, n) applied along ``axis`` of x (n long)."""
    moved = xp.moveaxis(x, axis, -1)
    return xp.moveaxis(xp.matmul(moved, xp.asarray(m.T)), -1, axis)


def _pool(xp, x, size):
    for k, o in enumerate(size):
        axis = x.ndim - 3 + k
        x = _along(xp, x, _avg_matrix(x.shape[axis], o, x.dtype), axis)
    return xp.ascontiguousarray(x)


def _unpool(xp, g, shape):
    for k in range(3):
        axis = g.ndim - 3 + k
        g = _along(xp, g, _avg_matrix(shape[axis], g.shape[axis], g.dtype).T, axis)
    return xp.ascontiguousarray(g)


def _vjp(xp, g, x, out, p):
    q = {
        "shape": tuple(x.shape),
        "grad_output_sym_argsize_minus_1": g.shape[-1],
        "grad_output_sym_argsize_minus_2": g.shape[-2],
        "grad_output_sym_argsize_minus_3": g.shape[-3],
    }
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(ADAPTIVE_AVG_POOL3D_BACKWARD, g, q)
    return _unpool(xp, g, q["shape"])


def _bwd_vjp(xp, h, g, out, p):
    size = (
        p["grad_output_sym_argsize_minus_3"],
        p["grad_output_sym_argsize_minus_2"],
        p["grad_output_sym_argsize_minus_1"],
    )
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(ADAPTIVE_AVG_POOL3D, h, {"output_size": size})
    return _pool(xp, h, size)


def _cases(rng):
    from .conv import _through_grad

    x = rng.standard_normal((2, 2, 5, 4, 3))
    out = [
        (None, [x], lambda tt, t, s=s: tt.nn.functional.adaptive_avg_pool3d(t, s))
        for s in ((2, 3, 2), (3, 1, 4))
    ]

    def run(lib, v):
        return _through_grad(
            lib, x, lambda t: lib.nn.functional.adaptive_avg_pool3d(t, (2, 3, 2)), v
        )

    return out + [(None, [rng.standard_normal((2, 2, 2, 3, 2))], run)]


ADAPTIVE_AVG_POOL3D = defop(
    "_adaptive_avg_pool3d",
    node="AdaptiveAvgPool3DBackward0",
    inputs=("self",),
    saved=("self",),
    fwd=lambda xp, x, p: _pool(xp, x, p["output_size"]),
    vjp=_vjp,
    jvp=lambda xp, t, x, out, p: _pool(xp, t[0], p["output_size"]),
    complex=kernel_refuses("adaptive_avg_pool3d_cpu"),
    sample={"kind": "cases", "cases": lambda rng: _cases(rng)[:2]},
)
ADAPTIVE_AVG_POOL3D_BACKWARD = defop(
    "_adaptive_avg_pool3d_backward",
    node="AdaptiveAvgPool3DBackwardBackward0",
    inputs=("grad_output",),
    saved=(
        "grad_output_sym_argsize_minus_1",
        "grad_output_sym_argsize_minus_2",
        "grad_output_sym_argsize_minus_3",
    ),
    fwd=lambda xp, g, p: _unpool(xp, g, p["shape"]),
    vjp=_bwd_vjp,
    jvp=lambda xp, t, x, out, p: _unpool(xp, t[0], p["shape"]),
    complex=kernel_refuses("adaptive_avg_pool3d_backward_cpu"),
    sample={"kind": "cases", "cases": lambda rng: _cases(rng)[2:]},
)


# ---------------------------------------------------------------- avg_pool3d
def _windows(p):
    """Per kernel offset, the strided slices of the padded buffer it reads (one per output)."""
    import itertools

    ks, ss, outs = p["kernel"], p["step"], p["out"]
    for off in itertools.product(*(range(k) for k in ks)):
        yield tuple(slice(a, a + s * (o - 1) + 1, s) for a, s, o in zip(off, ss, outs))


def _buf_extent(p, shape):
    return tuple(
        max(pad + n, (o - 1) * s + k)
        for n, k, s, pad, o in zip(shape, p["kernel"], p["step"], p["padding"], p["out"])
    )


def _divisor3(p, shape):
    """torch's divide factor of each window (an array over the output, or one number)."""
    if p["divisor_override"]:
        return float(p["divisor_override"])
    full, inside = [], []
    for n, k, s, pad, o in zip(shape, p["kernel"], p["step"], p["padding"], p["out"]):
        start = np.arange(o) * s - pad
        end = np.minimum(start + k, n + pad)
        full.append(end - start)
        inside.append(np.maximum(np.minimum(end, n) - np.maximum(start, 0), 0))
    parts = full if p["count_include_pad"] else inside
    d = parts[0][:, None, None] * parts[1][None, :, None] * parts[2][None, None, :]
    return np.where(d > 0, d, 1).astype(np.float64)


def _avg3_fwd(xp, x, p):
    sp = x.shape[-3:]
    ext = _buf_extent(p, sp)
    pads = p["padding"]
    if ext != sp or any(pads):
        buf = xp.zeros(x.shape[:-3] + ext, x.dtype)
        buf[(Ellipsis,) + tuple(slice(a, a + n) for a, n in zip(pads, sp))] = x
    else:
        buf = x
    acc = None
    for win in _windows(p):
        v = buf[(Ellipsis,) + win]
        acc = v.copy() if acc is None else acc + v
    d = _divisor3(p, sp)
    if isinstance(d, float):
        return acc / x.dtype.type(d)
    return acc / xp.asarray(d.astype(x.dtype))


def _avg3_bwd(xp, g, p):
    shape = p["shape"]
    sp = shape[-3:]
    d = _divisor3(p, sp)
    g = g / (g.dtype.type(d) if isinstance(d, float) else xp.asarray(d.astype(g.dtype)))
    buf = xp.zeros(tuple(shape[:-3]) + _buf_extent(p, sp), g.dtype)
    for win in _windows(p):
        buf[(Ellipsis,) + win] += g
    return xp.ascontiguousarray(
        buf[(Ellipsis,) + tuple(slice(a, a + n) for a, n in zip(p["padding"], sp))]
    )


def _avg3_vjp(xp, g, x, out, p):
    q = dict(p, shape=tuple(x.shape))
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(AVG_POOL3D_BACKWARD, g, q)
    return _avg3_bwd(xp, g, q)


def _avg3_bwd_vjp(xp, h, g, out, p):
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(AVG_POOL3D, h, p)
    return _avg3_fwd(xp, h, p)


def _avg3_cases(rng, lib):
    from .conv import _through_grad

    x = rng.standard_normal((2, 2, 5, 4, 6))
    kw = {
        "kernel_size": (2, 3, 2),
        "stride": (1, 2, 2),
        "padding": 1,
        "ceil_mode": True,
        "count_include_pad": False,
    }

    def run(lib, v):
        return _through_grad(lib, x, lambda t: lib.nn.functional.avg_pool3d(t, **kw), v)

    y = lib.nn.functional.avg_pool3d(lib.tensor(x), **kw)
    return [
        (None, [x], lambda tt, t: tt.nn.functional.avg_pool3d(t, **kw)),
        (None, [rng.standard_normal(tuple(y.shape))], run),
    ]


_AVG3_SAVED = (
    "ceil_mode",
    "count_include_pad",
    "divisor_override",
    "kernel_size",
    "padding",
    "stride",
)
AVG_POOL3D = defop(
    "avg_pool3d",
    node="AvgPool3DBackward0",
    inputs=("self",),
    saved=_AVG3_SAVED[:5] + ("self", "stride"),
    fwd=_avg3_fwd,
    vjp=_avg3_vjp,
    jvp=AUTO_LINEAR,
    complex=kernel_refuses("avg_pool3d_out_frame"),
    sample={"kind": "cases", "cases": lambda rng, lib: _avg3_cases(rng, lib)[:1]},
)
AVG_POOL3D_BACKWARD = defop(
    "avg_pool3d_backward",
    node="AvgPool3DBackwardBackward0",
    inputs=("grad_output",),
    saved=_AVG3_SAVED,
    fwd=_avg3_bwd,
    vjp=_avg3_bwd_vjp,
    jvp=AUTO_LINEAR,
    complex=kernel_refuses("avg_pool3d_backward_out_frame"),
    sample={"kind": "cases", "cases": lambda rng, lib: _avg3_cases(rng, lib)[1:]},
)
