"""Normalization rows: ``native_batch_norm`` (NativeBatchNormBackward0) and
``native_group_norm`` (NativeGroupNormBackward0). Layer norm lives in :mod:`.nn_ops`.

The statistics torch saves (batch norm's mean and 1/std, group norm's mean and rstd) are kept in
``p`` for the first-order backward and shown as ``_saved_result1`` / ``_saved_result2``; when the
backward is itself recorded they are recomputed from the input with differentiable ops.
"""

from __future__ import annotations

import numpy as np

from .registry import defop, kernel_refuses


def _chan(v, ndim):
    """A per-channel vector shaped to broadcast over (N, C, *spatial) (a 1-D input, which torch
    accepts only when empty, has no channel dim)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2)) if ndim > 1 else v


def _axes(ndim):
    return (0,) + tuple(range(2, ndim))


# ---------------------------------------------------------------- batch norm
def _bn_fwd(xp, x, w, b, p):
    axes = _axes(x.ndim)
    if p["training"]:
        mean = xp.mean(x, axis=axes)
        d = x - _chan(mean, x.ndim)
        var = xp.mean(d * d, axis=axes)
        invstd = 1 / xp.sqrt(var + p["eps"])
        p["_var"] = var
    else:
        mean, var = p["_running"]
        d = x - _chan(mean, x.ndim)
        invstd = 1 / xp.sqrt(var + p["eps"])
    p["_mean"], p["_invstd"] = mean, invstd
    # torch's saved results (the API shows them as tensors once the node is recorded; saved-
    # tensor hooks pack them as the node is recorded): the batch's statistics, empty in eval
    if p["training"]:
        p["result1"], p["result2"] = mean, invstd
    else:
        p["result1"] = p["result2"] = x.reshape(-1)[:0]
    scale = invstd if w is None else invstd * w
    y = d * _chan(scale, x.ndim)
    if b is not None:
        y += _chan(b, x.ndim)
    return y


def _bn_stats(xp, x, p):
    """(mean, invstd) broadcastable over x: the saved ones, or recomputed when recording."""
    if not xp.is_txp or not p["training"]:
        mean, invstd = p["_mean"], p["_invstd"]
        if xp.is_txp:
            from .txp import _const

            mean, invstd = _const(mean, x), _const(invstd, x)
        return xp.reshape(mean, _shape(x)), xp.reshape(invstd, _shape(x))
    axes = _axes(x.ndim)
    mean = xp.mean(x, axis=axes, keepdims=True)
    d = x - mean
    return mean, 1 / xp.sqrt(xp.mean(d * d, axis=axes, keepdims=True) + p["eps"])


def _shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2) if x.ndim > 1 else (-1,)


def _groups(x, g):
    """(N, G, M): the shape of x seen as its samples' groups (explicit, as N may be 0)."""
    m = 1
    for s in x.shape[1:]:
        m *= s
    return (x.shape[0], g, m // g)


def _bn_vjp_x(xp, g, x, w, b, out, p):
    mean, invstd = _bn_stats(xp, x, p)
    scale = invstd if w is None else invstd * xp.reshape(w, _shape(x))
    if not p["training"]:
        return g * scale
    axes = _axes(x.ndim)
    xhat = (x - mean) * invstd
    return scale * (
        g
        - xp.mean(g, axis=axes, keepdims=True)
        - xhat * xp.mean(g * xhat, axis=axes, keepdims=True)
    )


def _bn_vjp_w(xp, g, x, w, b, out, p):
    mean, invstd = _bn_stats(xp, x, p)
    return xp.sum(g * ((x - mean) * invstd), axis=_axes(x.ndim))


def _bn_vjp_b(xp, g, x, w, b, out, p):
    return xp.sum(g, axis=_axes(g.ndim))


def _bn_jvp(xp, t, x, out, p):
    xx, w, b = x
    tx, tw, tb = t
    shp = _shape(xx)
    mean, invstd = xp.reshape(p["_mean"], shp), xp.reshape(p["_invstd"], shp)
    xhat = (xx - mean) * invstd
    if p["training"]:
        axes = _axes(xx.ndim)
        dxhat = invstd * (
            tx
            - xp.mean(tx, axis=axes, keepdims=True)
            - xhat * xp.mean(xhat * tx, axis=axes, keepdims=True)
        )
    else:
        dxhat = tx * invstd
    res = dxhat if w is None else dxhat * xp.reshape(w, shp)
    if w is not None and hasattr(tw, "shape"):
        res = res + xhat * xp.reshape(tw, shp)
    if b is not None and hasattr(tb, "shape"):
        res = res + xp.reshape(tb, shp)
    return res


def _bn_cases(rng):
    def run(lib, x, w, b, training, shape):
        rm = lib.tensor(np.linspace(-0.5, 0.5, shape[1]))
        rv = lib.tensor(np.linspace(0.5, 1.5, shape[1]))
        return lib.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3)

    out = []
    for shape, training in (
        ((4, 3), True),
        ((3, 2, 5), True),
        ((2, 3, 4, 3), True),
        ((2, 3, 4, 3), False),
    ):
        arrays = [
            rng.uniform(-2, 2, shape),
            rng.uniform(0.5, 1.5, shape[1]),
            rng.uniform(-1, 1, shape[1]),
        ]
        out.append(
            (None, arrays, lambda tt, x, w, b, tr=training, s=shape: run(tt, x, w, b, tr, s))
        )
    return out


BATCH_NORM = defop(
    "native_batch_norm",
    node="NativeBatchNormBackward0",
    inputs=("input", "weight", "bias"),
    saved=(
        "eps",
        "input",
        "result1",
        "result2",
        "running_mean",
        "running_var",
        "training",
        "weight",
    ),
    fwd=_bn_fwd,
    vjp=(_bn_vjp_x, _bn_vjp_w, _bn_vjp_b),
    # one torch formula (native_batch_norm_backward) computes the three gradients from input,
    # weight, the running and the saved statistics: all saved whichever input requires grad
    reads=((0, 1), (0, 1), (0, 1)),
    jvp=_bn_jvp,
    complex=kernel_refuses("batch_norm"),
    sample={"kind": "cases", "cases": _bn_cases},
)


# ---------------------------------------------------------------- group norm
def _gn_fwd(xp, x, w, b, p):
    n, g, _ = shp = _groups(x, p["group"])
    xr = x.reshape(shp)
    mean = xp.mean(xr, axis=2, keepdims=True)
    d = xr - mean
    rstd = 1 / xp.sqrt(xp.mean(d * d, axis=2, keepdims=True) + p["eps"])
    p["_mean"], p["_rstd"] = mean.reshape(n, g), rstd.reshape(n, g)
    p["result1"], p["result2"] = p["_mean"], p["_rstd"]  # torch's saved results (see _bn_fwd)
    y = (d * rstd).reshape(x.shape)
    if w is not None:
        y = y * _chan(w, x.ndim)
    if b is not None:
        y = y + _chan(b, x.ndim)
    return y


def _gn_xhat(xp, x, p):
    """x normalized per (sample, group), shaped (N, G, M), and rstd (N, G, 1)."""
    n, g, _ = shp = _groups(x, p["group"])
    xr = xp.reshape(x, shp)
    if not xp.is_txp:
        mean, rstd = p["_mean"].reshape(n, g, 1), p["_rstd"].reshape(n, g, 1)
    else:
        mean = xp.mean(xr, axis=2, keepdims=True)
        d = xr - mean
        rstd = 1 / xp.sqrt(xp.mean(d * d, axis=2, keepdims=True) + p["eps"])
    return (xr - mean) * rstd, rstd


def _gn_vjp_x(xp, g, x, w, b, out, p):
    xhat, rstd = _gn_xhat(xp, x, p)
    gh = g if w is None else g * xp.reshape(w, _shape(x))
    gh = xp.reshape(gh, xhat.shape)
    gx = rstd * (
        gh - xp.mean(gh, axis=2, keepdims=True) - xhat * xp.mean(gh * xhat, axis=2, keepdims=True)
    )
    return xp.reshape(gx, x.shape)


def _gn_vjp_w(xp, g, x, w, b, out, p):
    xhat, _ = _gn_xhat(xp, x, p)
    return xp.sum(g * xp.reshape(xhat, x.shape), axis=_axes(x.ndim))


def _gn_jvp(xp, t, x, out, p):
    xx, w, b = x
    tx, tw, tb = t
    n, g, _ = grp = _groups(xx, p["group"])
    mean, rstd = p["_mean"].reshape(n, g, 1), p["_rstd"].reshape(n, g, 1)
    xhat = (xx.reshape(grp) - mean) * rstd
    tr = tx.reshape(grp)
    dxhat = rstd * (
        tr - xp.mean(tr, axis=2, keepdims=True) - xhat * xp.mean(xhat * tr, axis=2, keepdims=True)
    )
    shp = _shape(xx)
    res = dxhat.reshape(xx.shape)
    if w is not None:
        res = res * xp.reshape(w, shp)
        if hasattr(tw, "shape"):
            res = res + xhat.reshape(xx.shape) * xp.reshape(tw, shp)
    if b is not None and hasattr(tb, "shape"):
        res = res + xp.reshape(tb, shp)
    return res


def _gn_cases(rng):
    out = []
    for shape, groups in (((2, 4, 3), 2), ((3, 6, 2, 2), 3), ((2, 4), 4)):
        arrays = [
            rng.uniform(-2, 2, shape),
            rng.uniform(0.5, 1.5, shape[1]),
            rng.uniform(-1, 1, shape[1]),
        ]
        out.append(
            (None, arrays, lambda tt, x, w, b, g=groups: tt.nn.functional.group_norm(x, g, w, b))
        )
    return out


GROUP_NORM = defop(
    "native_group_norm",
    node="NativeGroupNormBackward0",
    inputs=("input", "weight", "bias"),
    saved=("C", "HxW", "N", "eps", "group", "input", "result1", "result2", "weight"),
    fwd=_gn_fwd,
    vjp=(_gn_vjp_x, _gn_vjp_w, _bn_vjp_b),
    reads=((0, 1), (0, 1), (0, 1)),  # native_group_norm_backward, as batch norm's
    jvp=_gn_jvp,
    complex=kernel_refuses("GroupNormKernelImpl"),
    sample={"kind": "cases", "cases": _gn_cases},
)
