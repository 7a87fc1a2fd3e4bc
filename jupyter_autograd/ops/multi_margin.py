"""``multi_margin_loss`` (MultiMarginLossBackward0) and ``multilabel_margin_loss_forward``
(MultilabelMarginLossBackward0), the multi-class hinge losses, with torch's saved values
(``is_target`` for the multi-label one). torch's backward kernels have no derivative (a
gradient computed with ``create_graph=True`` carries a ``NotImplemented`` node) and there is
no forward-mode rule: both kept as torch."""

from __future__ import annotations

import numpy as np

from .registry import defop, kernel_refuses

NONE, MEAN, SUM = 0, 1, 2


def _host(a):
    """A device array's host copy (its namespace's ``to_host``): these kernels are per-sample
    loops written in NumPy."""
    from ..autograd.engine import xp_of

    return xp_of(a).to_host(a)


def _reduce(xp, per, r):
    if r == NONE:
        return per
    total = per.sum()
    return total / per.shape[0] if r == MEAN and per.ndim else total


def _on_host(fwd):
    """``fwd`` run on host copies of the input, target and weight; the loss back on the input's
    device (the CuPy backend runs these rows through the host)."""

    def run(xp, x, p):
        for k in ("_target", "_weight"):
            if p.get(k) is not None:
                p[k] = xp.to_host(p[k])
        return xp.asarray(fwd(xp, xp.to_host(x), p))

    return run


def _rows(x):
    """(N, C) view of a batch, a single sample (C,) or a 0-d input (one class)."""
    return x.reshape(-1, x.shape[-1] if x.ndim else 1)


# ---------------------------------------------------------------- multi_margin_loss
def _mm_terms(x, p):
    """(z, y, w): the hinge arguments ``margin - x[y] + x[j]`` (zero at j == y), the targets and
    the per-sample weights ``w[y]``."""
    x2 = _rows(x)
    y = p["_target"].reshape(-1)
    picked = x2[np.arange(x2.shape[0]), y][:, None]
    z = p["margin"] - picked + x2
    z[np.arange(x2.shape[0]), y] = 0
    w = p.get("_weight")
    wy = None if w is None else w[y]
    return z, y, wy


def _mm_fwd(xp, x, p):
    z, _, wy = _mm_terms(x, p)
    h = np.maximum(z, 0)
    if p["p"] == 2:
        h = h * h
    if wy is not None:
        h = h * wy[:, None]
    per = h.sum(axis=1) / h.shape[1]
    if x.ndim <= 1:
        per = per.reshape(())
    return np.asarray(_reduce(np, per, p["reduction"]), x.dtype)


def _mm_grad(g, x, p):
    z, y, wy = _mm_terms(x, p)
    c = z.shape[1]
    d = np.where(z > 0, 2 * z if p["p"] == 2 else 1.0, 0.0).astype(x.dtype)
    d[np.arange(d.shape[0]), y] = 0
    if wy is not None:
        d = d * wy[:, None]
    d[np.arange(d.shape[0]), y] = -d.sum(axis=1)
    d /= c
    gs = np.asarray(g)
    if p["reduction"] == NONE:
        d = d * gs.reshape(-1, 1)
    else:
        d = d * (gs / d.shape[0] if p["reduction"] == MEAN and x.ndim == 2 else gs)
    return d.reshape(x.shape).astype(x.dtype, copy=False)


def _refuse(name):
    def rule(*_):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return rule


def _vjp_via(row, grad):
    def vjp(xp, g, x, out, p):
        if xp.is_txp:  # create_graph: the value under torch's NotImplemented node
            from ..autograd.engine import xp_of
            from .dispatch import apply

            res = grad(_host(g._data), _host(x._data), p)
            return apply(row(), (g, x), {"_res": xp_of(g._data).asarray(res)})
        return xp.asarray(grad(_host(g), _host(x), p))

    return vjp


def _cases(fn, target, kw_list):
    def cases(rng):
        out = []
        for kw in kw_list:
            x = rng.standard_normal((3, 5))
            out.append(
                (
                    None,
                    [x],
                    lambda tt, t, kw=kw: getattr(tt.nn.functional, fn)(t, tt.tensor(target), **kw),
                )
            )
        return out

    return cases


MULTI_MARGIN = defop(
    "multi_margin_loss",
    node="MultiMarginLossBackward0",
    inputs=("self",),
    saved=("margin", "p", "reduction", "self", "target", "weight"),
    fwd=_on_host(_mm_fwd),
    vjp=_vjp_via(lambda: MULTI_MARGIN_BACKWARD, _mm_grad),
    smooth=False,
    complex=kernel_refuses("multi_margin_loss_cpu_kernel"),
    sample={
        "kind": "cases",
        "cases": _cases(
            "multi_margin_loss",
            [1, 0, 4],
            [{}, {"p": 2, "margin": 0.5, "reduction": "sum"}, {"reduction": "none"}],
        ),
    },
)
MULTI_MARGIN_BACKWARD = defop(
    "multi_margin_loss_backward",
    node="NotImplemented",
    inputs=("grad_output", "self"),
    fwd=lambda xp, g, x, p: p["_res"],
    vjp=(_refuse("multi_margin_loss_backward"),) * 2,
    complex=kernel_refuses("multi_margin_loss_backward_cpu"),
    sample={"kind": "not_differentiable"},
)


# ---------------------------------------------------------------- multilabel_margin_loss
def _ml_target_mask(target, c):
    """is_target (a 0/1 row per sample) and the target lists cut at their first -1."""
    t = _rows(target)
    is_t = np.zeros(t.shape, bool)
    lists = []
    for i, row in enumerate(t):
        cut = np.nonzero(row < 0)[0]
        ids = row[: cut[0]] if cut.size else row
        is_t[i, ids] = True
        lists.append(ids)
    return is_t, lists


def _ml_fwd(xp, x, p):
    x2 = _rows(x)
    c = x2.shape[1]
    is_t, lists = _ml_target_mask(p["_target"], c)
    per = np.zeros(x2.shape[0], x.dtype)
    for i, ids in enumerate(lists):
        if ids.size:
            z = 1 - (x2[i, ids][:, None] - x2[i][None, :])
            per[i] = (np.maximum(z, 0) * ~is_t[i][None, :]).sum() / c
    p["is_target"] = is_t.reshape(np.shape(p["_target"])).astype(x.dtype)
    p["_is_target"] = is_t
    p["_lists"] = lists
    if x.ndim <= 1:
        per = per.reshape(())
    return np.asarray(_reduce(np, per, p["reduction"]), x.dtype)


def _ml_grad(g, x, p):
    x2 = _rows(x)
    c = x2.shape[1]
    is_t = p["_is_target"]
    d = np.zeros(x2.shape, x.dtype)
    for i, ids in enumerate(p["_lists"]):
        if ids.size:
            on = ((1 - (x2[i, ids][:, None] - x2[i][None, :])) > 0) & ~is_t[i][None, :]
            np.add.at(d[i], ids, -on.sum(axis=1).astype(x.dtype) / c)
            d[i] += on.sum(axis=0).astype(x.dtype) / c
    gs = np.asarray(g)
    if p["reduction"] == NONE:
        d = d * gs.reshape(-1, 1)
    else:
        d = d * (gs / d.shape[0] if p["reduction"] == MEAN and x.ndim == 2 else gs)
    return d.reshape(x.shape).astype(x.dtype, copy=False)


MULTILABEL_MARGIN = defop(
    "multilabel_margin_loss_forward",
    node="MultilabelMarginLossBackward0",
    inputs=("self",),
    saved=("reduction", "self", "target", "is_target"),
    fwd=_on_host(_ml_fwd),
    vjp=_vjp_via(lambda: MULTILABEL_MARGIN_BACKWARD, _ml_grad),
    smooth=False,
    complex=kernel_refuses("multilabel_margin_loss_forward_out_frame"),
    sample={
        "kind": "cases",
        "cases": _cases(
            "multilabel_margin_loss",
            [[3, 0, -1, 1, 2], [1, 2, 3, -1, 0], [-1, 0, 0, 0, 0]],
            [{}, {"reduction": "none"}],
        ),
    },
)
MULTILABEL_MARGIN_BACKWARD = defop(
    "multilabel_margin_loss_backward",
    node="NotImplemented",
    inputs=("grad_output", "self"),
    fwd=lambda xp, g, x, p: p["_res"],
    vjp=(_refuse("multilabel_margin_loss_backward"),) * 2,
    complex=kernel_refuses("multilabel_margin_loss_backward_cpu"),
    sample={"kind": "not_differentiable"},
)
