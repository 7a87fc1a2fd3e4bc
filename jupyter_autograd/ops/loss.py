"""Loss rows that torch records as one node (BCE, BCE-with-logits, MSE, NLL).

``reduction`` follows torch's enum in ``_saved_reduction``: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import numpy as np

from .registry import NO_GRAD, defop, kernel_refuses
from .xp import _arange

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduce(xp, v, r):
    if r == 1:
        return xp.mean(v)
    if r == 2:
        return xp.sum(v)
    return v


def _unreduce(xp, g, r, shape):
    """Gradient of the reduction: the per-element factor, broadcast to ``shape``."""
    if r == 1:
        n = 1
        for s in shape:
            n *= s
        return xp.broadcast_to(g / n, shape)
    if r == 2:
        return xp.broadcast_to(g, shape)
    return g


# Stable form: max(x, 0) - x*y + log1p(exp(-|x|)); with pos_weight pw the log term is
# weighted by lw = 1 + (pw - 1) y  (test plan A7: finite at |x| = 1e4)
def _bce_logits_elem(xp, x, y, p):
    pw = p.get("pos_weight")
    sp = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0)  # softplus(-x) = -log sigmoid(x)
    if pw is None:
        v = (1 - y) * x + sp
    else:
        v = (1 - y) * x + (1 + (pw - 1) * y) * sp
    w = p.get("weight")
    return v * w if w is not None else v


def _bce_logits_vjp_x(xp, g, x, y, out, p):
    pw = p.get("pos_weight")
    s = 0.5 * xp.tanh(0.5 * x) + 0.5  # sigmoid without overflow
    if pw is None:
        d = s - y
    else:
        d = (1 - y) - (1 + (pw - 1) * y) * (1 - s)
    w = p.get("weight")
    if w is not None:
        d = d * w
    return _unreduce(xp, g, p["reduction"], x.shape) * d


def _bce_logits_vjp_y(xp, g, x, y, out, p):
    pw = p.get("pos_weight")
    if pw is None:
        d = -x
    else:
        d = -x + (pw - 1) * (xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0))
    w = p.get("weight")
    if w is not None:
        d = d * w
    return _unreduce(xp, g, p["reduction"], x.shape) * d


BCE_LOGITS = defop(
    "binary_cross_entropy_with_logits", node="BinaryCrossEntropyWithLogitsBackward0",
    complex=kernel_refuses("log_sigmoid_cpu"),
    inputs=("self", "target"),
    saved=("pos_weight", "reduction", "self", "target", "weight"),
    fwd=lambda xp, x, y, p: _reduce(xp, _bce_logits_elem(xp, x, y, p), p["reduction"]),
    vjp=(_bce_logits_vjp_x, _bce_logits_vjp_y),
    jvp=lambda xp, t, x, out, p: (
        xp.sum(_bce_logits_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0])
        + xp.sum(_bce_logits_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1])
        if p["reduction"] else
        _bce_logits_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0]
        + _bce_logits_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1]
    ),
    sample={"domain": (-3, 3), "kind": "bce_logits", "params": {"reduction": 1}},
    torch=lambda torch, x, y, reduction: torch.nn.functional.binary_cross_entropy_with_logits(
        x, y, reduction=["none", "mean", "sum"][reduction]),
)


# -(y log p + (1 - y) log(1 - p)) with each log clamped at -100, as torch
def _bce_fwd(xp, x, y, p):
    lp = xp.maximum(xp.log(x), -100.0)
    l1p = xp.maximum(xp.log1p(-x), -100.0)
    v = -(y * lp + (1 - y) * l1p)
    w = p.get("weight")
    return _reduce(xp, v * w if w is not None else v, p["reduction"])


# d/dp = (p - y) / max(p (1 - p), 1e-12), torch's EPSILON
def _bce_vjp_x(xp, g, x, y, out, p):
    d = (x - y) / xp.maximum((1 - x) * x, 1e-12)
    w = p.get("weight")
    if w is not None:
        d = d * w
    return _unreduce(xp, g, p["reduction"], x.shape) * d


def _bce_vjp_y(xp, g, x, y, out, p):
    d = xp.maximum(xp.log1p(-x), -100.0) - xp.maximum(xp.log(x), -100.0)
    w = p.get("weight")
    if w is not None:
        d = d * w
    return _unreduce(xp, g, p["reduction"], x.shape) * d


BCE = defop(
    "binary_cross_entropy", node="BinaryCrossEntropyBackward0", inputs=("self", "target"),
    complex=kernel_refuses("binary_cross_entropy"),
    saved=("reduction", "self", "target", "weight"),
    fwd=_bce_fwd, vjp=(_bce_vjp_x, _bce_vjp_y),
    jvp=lambda xp, t, x, out, p: (
        xp.sum(_bce_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0]) + xp.sum(_bce_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1])
        if p["reduction"] else
        _bce_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0] + _bce_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1]
    ),
    sample={"domain": (0.05, 0.95), "kind": "bce", "params": {"reduction": 1}},
    torch=lambda torch, x, y, reduction: torch.nn.functional.binary_cross_entropy(
        x, y, reduction=["none", "mean", "sum"][reduction]),
)


def _mse_vjp(xp, g, x, y, out, p):
    return _unreduce(xp, g, p["reduction"], p["shape"]) * (2 * (x - y))


MSE = defop(
    "mse_loss", node="MseLossBackward0", inputs=("self", "target"),
    complex=kernel_refuses("mse_cpu"),
    saved=("reduction", "self", "target"),
    fwd=lambda xp, x, y, p: _reduce(xp, (x - y) * (x - y), p["reduction"]),
    vjp=(_mse_vjp, lambda xp, g, x, y, out, p: -_mse_vjp(xp, g, x, y, out, p)),
    jvp=lambda xp, t, x, out, p: (
        xp.sum(2 * (x[0] - x[1]) * (t[0] - t[1])) / (1 if p["reduction"] == 2 else max(x[0].size, 1))
        if p["reduction"] else 2 * (x[0] - x[1]) * (t[0] - t[1])
    ),
    sample={"domain": (-3, 3), "kind": "mse", "params": {"reduction": 1}},
    torch=lambda torch, x, y, reduction: torch.nn.functional.mse_loss(
        x, y, reduction=["none", "mean", "sum"][reduction]),
)


# nll_loss: -w[y_i] * x[i, y_i], averaged over the total weight of the kept targets.
# nn.functional.nll_loss precomputes the safe targets ``st`` and coefficients ``coef``
# (-w/total for mean, -w otherwise, 0 where ignored) into p.
def _nll_fwd(xp, x, t, p):
    cdim = 1 if x.ndim > 1 else 0
    if x.ndim == 2:  # (N, C): pick x[i, t_i] directly
        rows = _arange(x.shape[0]) if x.__class__ is np.ndarray else xp.arange(x.shape[0])
        picked = x[rows, p["st"]]
        coef = p["coef"]
        if p["reduction"] == 0:
            return picked * coef
        if coef.__class__ is float and picked.__class__ is np.ndarray:  # one number: sum, scale
            return np.add.reduce(picked) * coef
        v = picked * coef
        return np.add.reduce(v) if v.__class__ is np.ndarray else xp.sum(v)
    picked = xp.squeeze(xp.take_along_axis(x, xp.expand_dims(p["st"], cdim), axis=cdim), axis=cdim)
    v = picked * p["coef"]
    return v if p["reduction"] == 0 else xp.sum(v)


def _nll_vjp(xp, g, x, t, out, p):
    shape = p["self_sym_sizes"]
    cdim = 1 if len(shape) > 1 else 0
    gg = g * p["coef"]
    st = p["st"]
    if len(shape) == 2 and not xp.is_txp:  # (N, C): write g into [i, t_i] of zeros
        z = xp.zeros(shape, gg.dtype)
        rows = _arange(shape[0]) if z.__class__ is np.ndarray else xp.arange(shape[0])
        z[rows, st] = gg
        return z
    if gg.shape != st.shape:  # a reduced loss with one coefficient: every target gets it
        gg = xp.broadcast_to(gg, st.shape)
    return xp.put_along_axis_zeros(xp.expand_dims(gg, cdim), np.expand_dims(p["st"], cdim), cdim, shape)


NLL = defop(
    "nll_loss", node="NllLossBackward0", inputs=("self", "target"),
    complex=kernel_refuses("nll_loss_out_frame"),
    saved=("ignore_index", "reduction", "target", "total_weight", "weight"),
    fwd=_nll_fwd,
    vjp=(_nll_vjp, NO_GRAD),
    jvp=lambda xp, t, x, out, p: _nll_fwd(xp, t[0], x[1], p),  # linear in the log-probabilities
    sample={"domain": (-3, 0), "kind": "nll", "params": {"reduction": 1}},
    torch=None,
)
