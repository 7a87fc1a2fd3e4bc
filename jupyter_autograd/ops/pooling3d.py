"""3-D adaptive average pooling rows: ``_adaptive_avg_pool3d`` (AdaptiveAvgPool3DBackward0) and
its backward (AdaptiveAvgPool3DBackwardBackward0), each the other's gradient. The pooling is
separable: one small averaging matrix per spatial dim (torch's windows
``[floor(i n / o), ceil((i + 1) n / o))``), applied along D, H and W in turn."""

from __future__ import annotations

from .pooling import _avg_matrix
from .registry import defop, kernel_refuses


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
    q = {"shape": tuple(x.shape), "grad_output_sym_argsize_minus_1": g.shape[-1],
         "grad_output_sym_argsize_minus_2": g.shape[-2], "grad_output_sym_argsize_minus_3": g.shape[-3]}
    if xp.is_txp:
        from .dispatch import apply1  # noqa: PLC0415 - dispatch imports the registry

        return apply1(ADAPTIVE_AVG_POOL3D_BACKWARD, g, q)
    return _unpool(xp, g, q["shape"])


def _bwd_vjp(xp, h, g, out, p):
    size = (p["grad_output_sym_argsize_minus_3"], p["grad_output_sym_argsize_minus_2"],
            p["grad_output_sym_argsize_minus_1"])
    if xp.is_txp:
        from .dispatch import apply1  # noqa: PLC0415

        return apply1(ADAPTIVE_AVG_POOL3D, h, {"output_size": size})
    return _pool(xp, h, size)


def _cases(rng):
    import jupyter_autograd as ja  # noqa: PLC0415 - test metadata only

    from .conv import _through_grad  # noqa: PLC0415

    x = rng.standard_normal((2, 2, 5, 4, 3))
    out = [(lambda t, s=s: ja.nn.functional.adaptive_avg_pool3d(t, s), [x],
            lambda tt, t, s=s: tt.nn.functional.adaptive_avg_pool3d(t, s)) for s in ((2, 3, 2), (3, 1, 4))]
    def run(lib, v):
        return _through_grad(lib, x, lambda t: lib.nn.functional.adaptive_avg_pool3d(t, (2, 3, 2)), v)

    return out + [(lambda v: run(ja, v), [rng.standard_normal((2, 2, 2, 3, 2))], run)]


ADAPTIVE_AVG_POOL3D = defop(
    "_adaptive_avg_pool3d", node="AdaptiveAvgPool3DBackward0", inputs=("self",), saved=("self",),
    fwd=lambda xp, x, p: _pool(xp, x, p["output_size"]), vjp=_vjp,
    jvp=lambda xp, t, x, out, p: _pool(xp, t[0], p["output_size"]), linear=True,
    complex=kernel_refuses("adaptive_avg_pool3d_cpu"),
    sample={"kind": "cases", "cases": lambda rng: _cases(rng)[:2]},
)
ADAPTIVE_AVG_POOL3D_BACKWARD = defop(
    "_adaptive_avg_pool3d_backward", node="AdaptiveAvgPool3DBackwardBackward0", inputs=("grad_output",),
    saved=("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2",
           "grad_output_sym_argsize_minus_3"),
    fwd=lambda xp, g, p: _unpool(xp, g, p["shape"]), vjp=_bwd_vjp,
    jvp=lambda xp, t, x, out, p: _unpool(xp, t[0], p["shape"]), linear=True,
    complex=kernel_refuses("adaptive_avg_pool3d_backward_cpu"),
    sample={"kind": "cases", "cases": lambda rng: _cases(rng)[2:]},
)
