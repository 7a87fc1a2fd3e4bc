"""Attention rows: ``_scaled_dot_product_flash_attention_for_cpu`` (the fused kernel torch's
``scaled_dot_product_attention`` picks on the CPU; ScaledDotProductFlashAttentionForCpuBackward0)
and ``_safe_softmax`` (SafeSoftmaxBackward0, the softmax of torch's composite "math" path, which
gives zeros for a row masked out entirely).

The fused row keeps, as torch does, the output and the row-wise ``logsumexp`` of the scaled
scores; its backward recomputes the attention probabilities from them. torch has no derivative
for that backward (a gradient computed with ``create_graph=True`` carries a ``NotImplemented``
node that refuses a second backward) and no forward-mode rule: both are kept here.
"""

from __future__ import annotations

import numpy as np

from .registry import defop, kernel_refuses


def _scores(xp, q, k, p):
    """Scaled scores ``q k^T * scale`` with the additive mask and the causal (top-left) mask."""
    s = xp.matmul(q, xp.swapaxes(k, -1, -2)) * q.dtype.type(p["_scale"])
    mask = p.get("_mask")
    if mask is not None:
        s = s + mask.astype(s.dtype, copy=False)
    if p["is_causal"]:
        L, S = s.shape[-2:]
        upper = np.triu(np.ones((L, S), bool), 1)
        s = xp.where(xp.asarray(upper), s.dtype.type(-np.inf), s)
    return s


def _groups(xp, q, t):
    """Grouped-query attention: ``t``'s heads repeated to the query's head count."""
    rep = q.shape[-3] // t.shape[-3]
    return t if rep == 1 else xp.repeat(t, rep, axis=-3)


def _ungroup(g, heads):
    """A gradient over the repeated heads summed back onto ``heads`` heads."""
    rep = g.shape[-3] // heads
    if rep == 1:
        return g
    return g.reshape(g.shape[:-3] + (heads, rep) + g.shape[-2:]).sum(axis=-3)


def _flash_fwd(xp, q, k, v, p):
    k, v = _groups(xp, q, k), _groups(xp, q, v)
    s = _scores(xp, q, k, p)
    m = (
        s.max(axis=-1, keepdims=True)
        if s.shape[-1]
        else xp.full(s.shape[:-1] + (1,), -np.inf, s.dtype)
    )
    dead = xp.isneginf(m)  # a row masked out entirely: zeros out, logsumexp 0 (torch's kernel)
    m = xp.where(dead, s.dtype.type(0), m)
    e = xp.exp(s - m)
    tot = e.sum(axis=-1, keepdims=True)
    lse = xp.where(dead, s.dtype.type(0), m + xp.log(xp.where(dead, s.dtype.type(1), tot)))
    prob = e / xp.where(dead, s.dtype.type(1), tot)
    # torch's kernel writes the output in the query's memory layout (multi-head attention's
    # heads-interleaved query makes the later permute + reshape a view)
    out = xp.empty_like(q)
    xp.matmul(prob, v, out=out)
    p["logsumexp"] = lse[..., 0]  # saved, as torch's (the API shows it as a tensor)
    return out


def _probs(xp, q, k, p):
    """The attention probabilities, from the saved logsumexp."""
    lse = p["logsumexp"]
    return xp.exp(_scores(xp, q, k, p) - getattr(lse, "_data", lse)[..., None])


def _grads(xp, g, q, k, v, out, p):
    """(dq, dk, dv) for one incoming gradient; computed once and shared by the three rules."""
    key = id(g)
    got = p.get("_grads")
    if got is not None and got[0] == key:
        return got[1]
    hk, hv = k.shape[-3], v.shape[-3]
    k, v = _groups(xp, q, k), _groups(xp, q, v)
    prob = _probs(xp, q, k, p)
    dv = xp.matmul(xp.swapaxes(prob, -1, -2), g)
    dp = xp.matmul(g, xp.swapaxes(v, -1, -2))
    rowdot = (g * out).sum(axis=-1, keepdims=True)
    ds = prob * (dp - rowdot) * q.dtype.type(p["_scale"])
    res = (xp.matmul(ds, k), _ungroup(xp.matmul(xp.swapaxes(ds, -1, -2), q), hk), _ungroup(dv, hv))
    p["_grads"] = (key, res, g)  # g kept alive so its id is not reused
    return res


def _flash_rule(i):
    def rule(xp, g, q, k, v, out, p):
        if xp.is_txp:  # create_graph: the value, under a node that refuses to be differentiated
            from ..autograd.engine import xp_of
            from .dispatch import apply

            raw = [t._data for t in (g, q, k, v, out)]
            res = _grads(xp_of(raw[0]), *raw, p)[i]
            return apply(FLASH_BACKWARD, (g, q, k, v), {"_res": res})
        return _grads(xp, g, q, k, v, out, p)[i]

    rule.__name__ = ("grad_query", "grad_key", "grad_value")[i]
    return rule


def _sdpa_cases(rng):
    def run(lib, **kw):
        return lambda q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)

    shapes = [rng.standard_normal(s) for s in ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4))]
    return [
        (None, shapes, lambda tt, q, k, v, kw=kw: run(tt, **kw)(q, k, v))
        for kw in ({}, {"is_causal": True, "scale": 0.7})
    ]


def _safe_softmax_cases(rng):
    from .dispatch import apply1

    return [
        (
            lambda t: apply1(SAFE_SOFTMAX, t, {"_dim": -1, "dim": 2**64 - 1}),
            [rng.standard_normal((3, 4))],
            lambda tt, t: tt._safe_softmax(t, -1),
        )
    ]


FLASH = defop(
    "_scaled_dot_product_flash_attention_for_cpu",
    node="ScaledDotProductFlashAttentionForCpuBackward0",
    inputs=("query", "key", "value"),
    # in torch's order: the inputs, then the results (output, logsumexp) saved after the kernel
    saved=(
        "attn_mask",
        "dropout_p",
        "is_causal",
        "key",
        "logsumexp",
        "output:result",
        "query",
        "scale",
        "value",
    ),
    saved_outputs=("logsumexp",),
    fwd=_flash_fwd,
    vjp=(_flash_rule(0), _flash_rule(1), _flash_rule(2)),
    smooth=False,
    complex=kernel_refuses("_scaled_dot_product_flash_attention_for_cpu"),
    sample={"kind": "cases", "cases": _sdpa_cases},
)


def _not_implemented(*_):
    raise RuntimeError(
        "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward "
        "is not implemented"
    )


# torch has no derivative for the fused backward: a gradient computed with create_graph=True
# records this node, and backward through it raises
FLASH_BACKWARD = defop(
    "_scaled_dot_product_flash_attention_for_cpu_backward",
    node="NotImplemented",
    inputs=("grad_out", "query", "key", "value"),
    fwd=lambda xp, g, q, k, v, p: p["_res"],
    vjp=(_not_implemented,) * 4,
    complex=kernel_refuses("_scaled_dot_product_flash_attention_for_cpu_backward"),
    sample={"kind": "not_differentiable"},
)


# ---------------------------------------------------------------- _safe_softmax
def _safe_softmax_fwd(xp, x, p):
    d = p["_dim"]
    if x.size == 0:
        return x.copy()
    m = x.max(axis=d, keepdims=True)
    dead = xp.isneginf(m)
    e = xp.exp(x - xp.where(dead, x.dtype.type(0), m))
    tot = e.sum(axis=d, keepdims=True)
    return xp.where(dead, x.dtype.type(0), e / xp.where(dead, x.dtype.type(1), tot))


def _safe_softmax_vjp(xp, g, x, out, p):
    return out * (g - xp.sum(g * out, axis=p["_dim"], keepdims=True))


SAFE_SOFTMAX = defop(
    "_safe_softmax",
    node="SafeSoftmaxBackward0",
    inputs=("self",),
    saved=("dim", "result"),
    fwd=_safe_softmax_fwd,
    vjp=_safe_softmax_vjp,
    jvp=lambda xp, t, x, out, p: out * (t[0] - xp.sum(t[0] * out, axis=p["_dim"], keepdims=True)),
    complex=kernel_refuses("softmax_lastdim_kernel_impl"),
    sample={"kind": "cases", "cases": _safe_softmax_cases},
)
