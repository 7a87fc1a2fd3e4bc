"""The basic reduction rows: sum, mean, prod (over everything or over dims), max/min/amax/amin
(ties share the gradient evenly) and max/min over a dim (the gradient to the selected index),
with the helpers the other reductions share (``_expand_back``, ``_count``, ``_real_jvp``...).

Part of the reduction family: :mod:`.reduction` imports this module first (so the registry holds
these rows before its own) and re-exports the rows its importers read."""

from __future__ import annotations

import numpy as np

from .registry import (
    AS_WRITTEN,
    AUTO_LINEAR,
    HOLOMORPHIC,
    Refuse,
    ShiftDims,
    defop,
    kernel_refuses,
    no_complex_autograd,
)


def _expand_back(xp, g, p, shape):
    """Undo a reduction over p['dim'] (without keepdim): reinsert the dims, then broadcast."""
    if not p["keepdim"]:
        if g.size == 0 and xp.is_expanded_empty(g):
            # an expanded empty gradient (all strides 0) stays one through torch's unsqueeze
            # and expand (NumPy's reshape would give it fresh strides): its stride checks see it
            return xp.broadcast_to(xp.zeros((), g.dtype), shape)
        g = xp.reshape(g, _kept_shape(shape, p["dim"]))
    return xp.broadcast_to(g, shape)


def _mean_back(xp, g, p, n):
    """torch's mean backward, ``grad.expand(sizes) / numel``: a fresh array (a 0-stride
    broadcast would carry its strides into a later expansion of it into an empty tensor, whose
    stride checks see them: view_as_real's backward)."""
    r = _expand_back(xp, g, p, p["shape"]) if "dim" in p else xp.broadcast_to(g, p["shape"])
    if not n:
        return r * float("nan")  # (0 / 0; a new array)
    return r / n


def _kept_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _real_jvp(xp, grad1, t, axis, keepdims):
    """Tangent of a real result (var, std, norm) from its gradient for ``g = 1``: the sum of
    ``Re(conj(t) * grad1)`` (for a complex input, torch's ``real(f_backward(t.conj()))``)."""
    v = xp.real(xp.conj(t) * grad1) if xp.iscomplexobj(t) else grad1 * t
    return xp.sum(v, axis=axis, keepdims=keepdims) if axis is not None else xp.sum(v)


def _red_sample(params=None, **kw):
    d = {"domain": (-3, 3), "reduce": True}
    if params:
        d["params"] = params
    d.update(kw)
    return d


SUM = defop(
    "sum",
    node="SumBackward0",
    inputs=("self",),
    saved=("self_sym_sizes",),
    batch=lambda xp, t, x, out, p: xp.sum(xp.reshape(t[0], (t[0].shape[0], -1)), axis=1),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.sum(x),
    vjp=lambda xp, g, x, out, p: xp.broadcast_to(g, p["shape"]),
    jvp=lambda xp, t, x, out, p: xp.sum(t[0]),
    sample=_red_sample(),
    torch=lambda torch, x: x.sum(),
)
SUM_DIM = defop(
    "sum.dim_IntList",
    node="SumBackward1",
    inputs=("self",),
    batch=ShiftDims("dim"),
    complex=AS_WRITTEN,
    saved=("dim", "keepdim", "self_sym_sizes"),
    fwd=lambda xp, x, p: xp.sum(x, axis=p["dim"], keepdims=p["keepdim"]),
    vjp=lambda xp, g, x, out, p: _expand_back(xp, g, p, p["shape"]),
    jvp=lambda xp, t, x, out, p: xp.sum(t[0], axis=p["dim"], keepdims=p["keepdim"]),
    sample=_red_sample({"dim": 0, "keepdim": False}, needs_dim=True),
    torch=lambda torch, x, dim, keepdim: x.sum(dim, keepdim=keepdim),
)
MEAN = defop(
    "mean",
    node="MeanBackward0",
    inputs=("self",),
    saved=("self_sym_numel", "self_sym_sizes"),
    batch=lambda xp, t, x, out, p: xp.mean(xp.reshape(t[0], (t[0].shape[0], -1)), axis=1),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.mean(x) if x.size else _empty_mean(xp, x, None, False),
    vjp=lambda xp, g, x, out, p: _mean_back(xp, g, p, p["numel"]),
    jvp=lambda xp, t, x, out, p: xp.mean(t[0]),
    sample=_red_sample(nonempty=True),
    torch=lambda torch, x: x.mean(),
)
MEAN_DIM = defop(
    "mean.dim",
    node="MeanBackward1",
    inputs=("self",),
    batch=ShiftDims("dim"),
    complex=AS_WRITTEN,
    saved=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
    fwd=lambda xp, x, p: (
        xp.mean(x, axis=p["dim"], keepdims=p["keepdim"])
        if x.size
        else _empty_mean(xp, x, p["dim"], p["keepdim"])
    ),
    vjp=lambda xp, g, x, out, p: _mean_back(xp, g, p, _count(p["shape"], p["dim"])),
    jvp=lambda xp, t, x, out, p: xp.mean(t[0], axis=p["dim"], keepdims=p["keepdim"]),
    sample=_red_sample({"dim": 0, "keepdim": False}, needs_dim=True, nonempty=True),
    torch=lambda torch, x, dim, keepdim: x.mean(dim, keepdim=keepdim),
)


def _empty_mean(xp, x, dims, keepdim):
    """The mean of an empty slice is nan, as torch's, without NumPy's warning."""
    with np.errstate(all="ignore"):
        return xp.sum(x, axis=dims, keepdims=keepdim) / 0.0


def _prod_others(xp, x, axis):
    """Product of all other elements along ``axis``, exact where x has zeros."""
    if not xp.is_txp:
        n = x.shape[axis]
        ones_shape = list(x.shape)
        ones_shape[axis] = 1
        one = xp.ones(ones_shape, x.dtype)
        left = (
            xp.concatenate(
                [one, xp.cumprod(xp.take(x, range(n - 1), axis=axis), axis=axis)], axis=axis
            )
            if n > 1
            else one
        )
        rev = xp.flip(x, axis)
        right = (
            xp.concatenate(
                [one, xp.cumprod(xp.take(rev, range(n - 1), axis=axis), axis=axis)], axis=axis
            )
            if n > 1
            else one
        )
        return left * xp.flip(right, axis)
    # differentiable form for create_graph: prod over a copy of x with the diagonal set to 1
    n = x.shape[axis]
    xm = xp.moveaxis(x, axis, -1)
    eye = np.eye(n, dtype=bool)  # a constant; TXP.where moves it to x's device
    big = xp.where(eye, 1.0, xp.broadcast_to(xp.expand_dims(xm, -2), tuple(xm.shape[:-1]) + (n, n)))
    return xp.moveaxis(xp.prod(big, axis=-1), -1, axis)


def _no_zeros(xp, x) -> bool:
    d = x._data if xp.is_txp else x
    return not (d == 0).any()


# torch's prod_backward: the gradient itself for a 0-d x; grad * result / x where x has no zero
# (so inf and nan inputs give nan, as torch's); zeros where it has two or more and no graph is
# recorded (create_graph off: an inf or nan gradient still gives zeros, fuzz seed 325053); else
# the product of the other elements
def _prod_vjp(xp, g, x, out, p):
    if x.ndim == 0:
        return g
    if _no_zeros(xp, x):
        with np.errstate(all="ignore"):
            return g * (out / x)
    if not xp.is_txp and int((x == 0).sum()) > 1:
        return xp.zeros_like(x)
    shape = x.shape
    flat = xp.reshape(x, (-1,)) if x.ndim != 1 else x
    others = _prod_others(xp, flat, 0)
    return xp.reshape(xp.broadcast_to(g, (flat.shape[0],)) * others, shape)


PROD = defop(
    "prod",
    node="ProdBackward0",
    inputs=("self",),
    saved=("result", "self"),
    complex=HOLOMORPHIC,
    fwd=lambda xp, x, p: xp.prod(x),
    vjp=_prod_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(t[0] * _prod_vjp(xp, 1.0 + 0 * out, x[0], out, p)),
    sample=_red_sample(domain=(-2, 2), max_numel=24),
    torch=lambda torch, x: x.prod(),
)


def _prod_dim_vjp(xp, g, x, out, p):
    if not p["dim"]:  # a 0-d input: nothing was multiplied
        return g
    d = p["dim"][0]
    if not p["keepdim"]:
        g = xp.expand_dims(g, d)
        out = xp.expand_dims(out, d)
    if _no_zeros(xp, x):
        with np.errstate(all="ignore"):
            return g * (out / x)
    return g * _prod_others(xp, x, d)


PROD_DIM = defop(
    "prod.dim_int",
    node="ProdBackward1",
    inputs=("self",),
    saved=("dim", "keepdim", "result", "self"),
    complex=HOLOMORPHIC,
    fwd=lambda xp, x, p: xp.prod(x, axis=p["dim"][0] if p["dim"] else (), keepdims=p["keepdim"]),
    vjp=_prod_dim_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(
        _prod_dim_vjp(xp, 1.0 + 0 * out, x[0], out, p) * t[0],
        axis=p["dim"][0] if p["dim"] else (),
        keepdims=p["keepdim"],
    ),
    sample=_red_sample(
        {"dim": 0, "keepdim": False}, needs_dim=True, domain=(-2, 2), single_dim=True
    ),
    torch=lambda torch, x, dim, keepdim: x.prod(dim, keepdim=keepdim),
)


# max/min over everything (and amax/amin): ties share the gradient evenly, as torch's
# evenly_distribute_backward
def _even_vjp(xp, g, x, out, p):
    mask = x == (
        out
        if p.get("keepdim", True) or "dim" not in p
        else xp.reshape(out, _kept_shape(x.shape, p["dim"]))
    )
    count = xp.sum(mask, axis=p.get("dim"), keepdims=True) if "dim" in p else xp.sum(mask)
    gg = g if ("dim" not in p or p["keepdim"]) else xp.reshape(g, _kept_shape(x.shape, p["dim"]))
    return mask * (gg / count)


def _even_all_vjp(xp, g, x, out, p):
    """max()/min() over everything: torch's evenly_distribute_backward on the CPU. A nan result
    is shared by the nan elements, and the rest get zeros (masked_fill: an inf gradient stays
    off them)."""
    xd, od = getattr(x, "_data", x), getattr(out, "_data", out)  # Tensors under create_graph
    mask = np.isnan(xd) if np.isnan(od) else xd == od
    if xp.is_txp:  # grad.new_zeros(...).masked_fill_(mask, grad / count): MaskedFillBackward1
        return xp.masked_fill(xp.zeros_like(x), xp.const(mask, x), g / int(mask.sum()))
    return xp.where(mask, g / int(mask.sum()), 0)


MAX = defop(
    "max",
    node="MaxBackward1",
    inputs=("self",),
    saved=("result", "self"),
    complex=kernel_refuses("max_all"),
    fwd=lambda xp, x, p: _nonempty_reduce(xp.max, x, "max"),
    vjp=_even_all_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(_even_vjp(xp, 1.0 + 0 * out, x[0], out, {}) * t[0]),
    smooth=False,
    sample=_red_sample(distinct=True, nonempty=True),
    torch=lambda torch, x: x.max(),
)
MIN = defop(
    "min",
    node="MinBackward1",
    inputs=("self",),
    saved=("result", "self"),
    complex=kernel_refuses("min_all"),
    fwd=lambda xp, x, p: _nonempty_reduce(xp.min, x, "min"),
    vjp=_even_all_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(_even_vjp(xp, 1.0 + 0 * out, x[0], out, {}) * t[0]),
    smooth=False,
    sample=_red_sample(distinct=True, nonempty=True),
    torch=lambda torch, x: x.min(),
)
AMAX = defop(
    "amax",
    node="AmaxBackward0",
    inputs=("self",),
    saved=("dim", "keepdim", "result", "self"),
    # torch's kernel returns an empty result before its dtype dispatch: only autograd refuses
    complex=kernel_refuses("max_values_cpu", empty=no_complex_autograd("amax")),
    fwd=lambda xp, x, p: xp.amax(x, axis=p["dim"], keepdims=p["keepdim"]),
    vjp=_even_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(
        _even_vjp(xp, 1.0 + 0 * out, x[0], out, p) * t[0], axis=p["dim"], keepdims=p["keepdim"]
    ),
    smooth=False,
    sample=_red_sample({"dim": 0, "keepdim": False}, needs_dim=True, distinct=True, nonempty=True),
    torch=lambda torch, x, dim, keepdim: x.amax(dim, keepdim=keepdim),
)
AMIN = defop(
    "amin",
    node="AminBackward0",
    inputs=("self",),
    saved=("dim", "keepdim", "result", "self"),
    # torch's kernel returns an empty result before its dtype dispatch: only autograd refuses
    complex=kernel_refuses("min_values_cpu", empty=no_complex_autograd("amin")),
    fwd=lambda xp, x, p: xp.amin(x, axis=p["dim"], keepdims=p["keepdim"]),
    vjp=_even_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(
        _even_vjp(xp, 1.0 + 0 * out, x[0], out, p) * t[0], axis=p["dim"], keepdims=p["keepdim"]
    ),
    smooth=False,
    sample=_red_sample({"dim": 0, "keepdim": False}, needs_dim=True, distinct=True, nonempty=True),
    torch=lambda torch, x, dim, keepdim: x.amin(dim, keepdim=keepdim),
)


def _nonempty_reduce(f, x, name):
    if x.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            "the reduction dim with the 'dim' argument."
        )
    return f(x)


# max(dim)/min(dim): the gradient goes to the selected index only
def _select_vjp(xp, g, x, out, p):
    if not p["shape"]:  # a 0-d input: its one element was selected
        return g
    d = p["dim"]
    idx = p["indices"]
    if not p["keepdim"]:
        g = xp.expand_dims(g, d)
        idx = idx.reshape(g.shape)
    return xp.put_along_axis_zeros(g, idx, d, p["shape"])


MAX_DIM = defop(
    "max.dim",
    node="MaxBackward0",
    inputs=("self",),
    saved=("dim", "indices", "keepdim", "self_sym_sizes"),
    saved_outputs=("indices",),
    complex=Refuse(RuntimeError, "max(): does not support complex input"),
    fwd=lambda xp, x, p: (
        xp.take_along_axis(
            x,
            xp.expand_dims(p["indices"], p["dim"]) if not p["keepdim"] else p["indices"],
            axis=p["dim"],
        ).reshape(p["out_shape"])
        if x.ndim
        else x.copy()
    ),
    vjp=_select_vjp,
    # the tangent is read at the selected indices, exactly as the forward reads x
    jvp=AUTO_LINEAR,
    smooth=False,
    sample=_red_sample(
        {"dim": 0, "keepdim": False},
        needs_dim=True,
        distinct=True,
        nonempty=True,
        single_dim=True,
        kind="maxdim",
    ),
    torch=lambda torch, x, dim, keepdim: x.max(dim, keepdim=keepdim).values,
)
MIN_DIM = defop(
    "min.dim",
    node="MinBackward0",
    inputs=("self",),
    saved=("dim", "indices", "keepdim", "self_sym_sizes"),
    saved_outputs=("indices",),
    complex=Refuse(RuntimeError, "min(): does not support complex input"),
    fwd=MAX_DIM.fwd,
    vjp=_select_vjp,
    jvp=AUTO_LINEAR,
    smooth=False,
    sample=_red_sample(
        {"dim": 0, "keepdim": False},
        needs_dim=True,
        distinct=True,
        nonempty=True,
        single_dim=True,
        kind="mindim",
    ),
    torch=lambda torch, x, dim, keepdim: x.min(dim, keepdim=keepdim).values,
)
