"""Loss rows that torch records as one node (BCE, BCE-with-logits, MSE, NLL).

``reduction`` follows torch's enum in ``_saved_reduction``: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import numpy as np

from .backward_rows import MSE_LOSS_BACKWARD, _unreduce
from .elementwise import _log_sigmoid
from .registry import _CPP_NAMES, NO_GRAD, defop, kernel_refuses

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduce(xp, v, r):
    if r == 1:
        if not v.size:  # torch: nan, without NumPy's empty-mean warning
            with np.errstate(invalid="ignore"):
                return xp.sum(v) / 0.0
        return xp.mean(v)
    if r == 2:
        return xp.sum(v)
    return v


# loss = (1 - y) x - lw log sigmoid(x), lw = 1 + (pos_weight - 1) y
def _bce_logits_elem(xp, x, y, p):
    pw = p.get("pos_weight")
    ls = _log_sigmoid(xp, x)
    v = (1 - y) * x - (ls if pw is None else (1 + (pw - 1) * y) * ls)
    w = p.get("weight")
    return v * w if w is not None else v


def _bce_logits_fwd(xp, x, y, p):
    """torch computes the loss in place in the target's dtype (``(1 - target).mul_(input)``):
    a float result takes the target's dtype, an integral target cannot hold it, a bool one
    cannot be subtracted from."""
    if y.dtype != x.dtype and x.dtype.kind == "f":
        if y.dtype.kind in "iu":
            raise RuntimeError(
                f"result type {_CPP_NAMES[x.dtype.name]} can't be cast to the "
                f"desired output type {_CPP_NAMES[y.dtype.name]}"
            )
        if y.dtype.kind == "b":
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. "
                "Use the `^` or `logical_xor()` operator instead."
            )
    v = _reduce(xp, _bce_logits_elem(xp, x, y, p), p["reduction"])
    if y.dtype.kind == "f" and v.dtype != y.dtype:
        v = v.astype(y.dtype)
    return v


# torch's binary_cross_entropy_with_logits_backward: (sigmoid(x) - y) g, or with pos_weight
# ((pw y + 1 - y) sigmoid(x) - pw y) g; then * weight, / numel for the mean. Never 1 - (1 - s):
# the gradient keeps sigmoid's tail (sigmoid(-40) = 4.25e-18, not 0)
def _bce_logits_vjp_x(xp, g, x, y, out, p):
    pw = p.get("pos_weight")
    s = xp.sigmoid(x)
    if pw is None:
        d = s - y
    else:
        t = pw * y
        d = (xp.add_scalar(t, 1) - y) * s - t
    return _scale_grad(xp, d * g, p, x.shape)


def _scale_grad(xp, d, p, shape):
    """The weight and the mean's 1/numel, after the elementwise gradient (torch's order)."""
    w = p.get("weight")
    if w is not None:
        d = d * w
    if d.shape != shape:
        d = xp.broadcast_to(d, shape)
    if p["reduction"] == 1:
        n = 1
        for k in shape:
            n *= k
        d = xp.div_scalar(d, n)  # torch: grad_input.div_(numel), DivBackward1
    return d


# d/dy = -x, with pos_weight -x - (pw - 1) log sigmoid(x)
def _bce_logits_vjp_y(xp, g, x, y, out, p):
    pw = p.get("pos_weight")
    d = -x if pw is None else -x - (pw - 1) * _log_sigmoid(xp, x)
    return _scale_grad(xp, d * g, p, x.shape)


BCE_LOGITS = defop(
    "binary_cross_entropy_with_logits",
    node="BinaryCrossEntropyWithLogitsBackward0",
    complex=kernel_refuses("log_sigmoid_cpu"),
    integral=kernel_refuses("log_sigmoid_cpu", on=(0,)),  # judged on the input, as log_sigmoid
    inputs=("self", "target"),
    saved=("pos_weight", "reduction", "self", "target", "weight"),
    fwd=_bce_logits_fwd,
    vjp=(_bce_logits_vjp_x, _bce_logits_vjp_y),
    reads=((0, 1), (0, 1)),  # torch's target formula takes the target too: both are saved
    jvp=lambda xp, t, x, out, p: (
        xp.sum(_bce_logits_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0])
        + xp.sum(_bce_logits_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1])
        if p["reduction"]
        else _bce_logits_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0]
        + _bce_logits_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1]
    ),
    sample={"domain": (-3, 3), "kind": "bce_logits", "params": {"reduction": 1}},
    torch=lambda torch, x, y, reduction: torch.nn.functional.binary_cross_entropy_with_logits(
        x, y, reduction=["none", "mean", "sum"][reduction]
    ),
)


# -(y log p + (1 - y) log(1 - p)) with each log clamped at -100, as torch
def _bce_fwd(xp, x, y, p):
    with np.errstate(divide="ignore"):  # log(0) = -inf, clamped: silent, as torch
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


# d/dy = -logit(p) = log1p(-p) - log(p), unclamped as torch's (inf at p = 0)
def _bce_vjp_y(xp, g, x, y, out, p):
    d = xp.log1p(-x) - xp.log(x)
    w = p.get("weight")
    if w is not None:
        d = d * w
    return _unreduce(xp, g, p["reduction"], x.shape) * d


BCE = defop(
    "binary_cross_entropy",
    node="BinaryCrossEntropyBackward0",
    inputs=("self", "target"),
    complex=kernel_refuses("binary_cross_entropy"),
    saved=("reduction", "self", "target", "weight"),
    fwd=_bce_fwd,
    vjp=(_bce_vjp_x, _bce_vjp_y),
    reads=((0, 1), (0, 1)),  # torch's target formula takes the target too: both are saved
    jvp=lambda xp, t, x, out, p: (
        xp.sum(_bce_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0])
        + xp.sum(_bce_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1])
        if p["reduction"]
        else _bce_vjp_x(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[0]
        + _bce_vjp_y(xp, 1.0 + 0 * out, x[0], x[1], out, p) * t[1]
    ),
    sample={"domain": (0.05, 0.95), "kind": "bce", "params": {"reduction": 1}},
    torch=lambda torch, x, y, reduction: torch.nn.functional.binary_cross_entropy(
        x, y, reduction=["none", "mean", "sum"][reduction]
    ),
)


MSE = defop(
    "mse_loss",
    node="MseLossBackward0",
    inputs=("self", "target"),
    complex=kernel_refuses("mse_cpu"),
    integral=kernel_refuses("mse_cpu"),
    saved=("reduction", "self", "target"),
    fwd=lambda xp, x, y, p: _reduce(xp, (x - y) * (x - y), p["reduction"]),
    # torch: mse_loss_backward(grad, self, target), mse_loss_backward(grad, target, self)
    vjp=(
        lambda xp, g, x, y, out, p: xp.call(MSE_LOSS_BACKWARD, g, x, y, p=p),
        lambda xp, g, x, y, out, p: xp.call(MSE_LOSS_BACKWARD, g, y, x, p=p),
    ),
    jvp=lambda xp, t, x, out, p: (
        xp.sum(2 * (x[0] - x[1]) * (t[0] - t[1]))
        / (1 if p["reduction"] == 2 else max(x[0].size, 1))
        if p["reduction"]
        else 2 * (x[0] - x[1]) * (t[0] - t[1])
    ),
    sample={"domain": (-3, 3), "kind": "mse", "params": {"reduction": 1}},
    torch=lambda torch, x, y, reduction: torch.nn.functional.mse_loss(
        x, y, reduction=["none", "mean", "sum"][reduction]
    ),
)


# nll_loss: -w[y_i] * x[i, y_i], averaged over the total weight of the kept targets. The caller
# (nn.functional.nll_loss) precomputes into p the safe targets ``st`` (0 where ignored), the
# coefficient ``coef`` (-w/total for the mean, -w otherwise; a number on the fast path, else an
# array that is exactly 0 where a target is ignored) and ``valid`` (None when nothing is
# ignored). Ignored targets get an exact +0 loss and gradient, as torch's kernel skips them;
# a mean over zero total weight is nan (``nan_out``), as torch's 0 / 0.
def _nll_pick(xp, x, st):
    if x.ndim == 2:  # (N, C): pick x[i, t_i] directly
        return x[xp.row_index(x.shape[0]), st]
    if x.ndim == 1:  # (C,) with a 0-d target
        return x[st]
    return xp.squeeze(xp.take_along_axis(x, xp.expand_dims(st, 1), axis=1), axis=1)


def _nll_fwd(xp, x, t, p):
    picked = _nll_pick(xp, x, p["st"])
    coef = p["coef"]
    if p["reduction"] == 0:
        v = picked * coef
        valid = p["valid"]
        return v if valid is None else xp.where(valid, v, 0.0)
    if coef.__class__ is float:  # one number: sum, then scale
        return xp.sum_all(picked) * coef
    r = xp.sum_all(picked * coef)
    if p["nan_out"]:
        with np.errstate(invalid="ignore"):
            r = r * float("nan")
    return r


def _nll_vjp(xp, g, x, t, out, p):
    shape = p["self_sym_sizes"]
    gg = g * p["coef"]
    st = p["st"]
    valid = p["valid"]
    if not xp.is_txp:  # write g * coef at [i, t_i] of zeros, only where the target is kept
        z = xp.zeros(shape, gg.dtype)
        if len(shape) == 1:
            if valid is None or valid:
                z[st] = gg
            return z
        if len(shape) == 2 and valid is None:  # the training step: nothing ignored
            z[xp.row_index(shape[0]), st] = gg
            return z
        if gg.shape != st.shape:  # a reduced loss: every kept target gets the same value
            gg = xp.broadcast_to(gg, st.shape)
        idx = xp.indices(st.shape, sparse=True) if len(shape) > 2 else (xp.row_index(shape[0]),)
        key = (idx[0], st) + tuple(idx[1:])
        if valid is not None:
            key = tuple(xp.broadcast_to(k, st.shape)[valid] for k in key)
            gg = gg[valid]
        z[key] = gg
        return z
    cdim = 1 if len(shape) > 1 else 0
    if gg.shape != st.shape:
        gg = xp.broadcast_to(gg, st.shape)
    return xp.put_along_axis_zeros(xp.expand_dims(gg, cdim), np.expand_dims(st, cdim), cdim, shape)


def _nll_cases(rng, name):
    shape = (4, 3) if name == "nll_loss" else (2, 3, 2, 2)
    tshape = (shape[0],) + shape[2:]
    tgt = rng.integers(0, 3, tshape)
    tgt.reshape(-1)[0] = -100  # one ignored target
    w = [0.5, 1.0, 2.0]
    out = []
    for red, weight in (("mean", None), ("sum", w), ("none", None), ("mean", w)):
        out.append(
            (
                None,
                [rng.uniform(-3, 0, shape)],
                lambda tt, x, r=red, wt=weight: tt.nn.functional.nll_loss(
                    x,
                    tt.tensor(tgt),
                    None if wt is None else tt.tensor(wt, dtype=tt.float64),
                    reduction=r,
                ),
            )
        )
    return out


_NLL_SAVED = ("ignore_index", "reduction", "self", "target", "total_weight", "weight")
NLL = defop(
    "nll_loss",
    node="NllLossBackward0",
    inputs=("self", "target"),
    saved=_NLL_SAVED,
    complex=kernel_refuses("nll_loss_out_frame"),
    fwd=_nll_fwd,
    vjp=(_nll_vjp, NO_GRAD),
    # torch's nll_loss_backward takes self and target (the rule reads what the forward left in
    # p): saved, and version-checked, as there; total_weight is its second output
    reads=((0, 1), ()),
    saved_outputs=("total_weight",),
    jvp=lambda xp, t, x, out, p: _nll_fwd(xp, t[0], x[1], p),  # linear in the log-probabilities
    sample={"kind": "nll_cases", "cases": lambda rng: _nll_cases(rng, "nll_loss")},
    torch=None,
)
# (N, C, H, W) input: torch's nll_loss2d (3-D and > 4-D inputs are viewed to 4-D around it)
NLL2D = defop(
    "nll_loss2d",
    node="NllLoss2DBackward0",
    inputs=("self", "target"),
    saved=_NLL_SAVED,
    complex=kernel_refuses("nll_loss2d_forward_out_frame"),
    fwd=_nll_fwd,
    vjp=(_nll_vjp, NO_GRAD),
    # torch's nll_loss_backward takes self and target (the rule reads what the forward left in
    # p): saved, and version-checked, as there; total_weight is its second output
    reads=((0, 1), ()),
    saved_outputs=("total_weight",),
    jvp=lambda xp, t, x, out, p: _nll_fwd(xp, t[0], x[1], p),
    sample={"kind": "nll_cases", "cases": lambda rng: _nll_cases(rng, "nll_loss2d")},
    torch=None,
)
