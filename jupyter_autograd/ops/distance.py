"""Distance rows: pdist (torch's ``_pdist_forward``, PdistBackward0), whose backward kernel
has no derivative in torch (a gradient taken with ``create_graph=True`` carries a
PdistBackwardBackward0 node that refuses to run)."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, UNDEFINED_GRAD, Refuse, defop, kernel_refuses

# torch's cdist checks the dtype before either path runs
_CDIST_COMPLEX = Refuse(RuntimeError, "cdist only supports floating-point dtypes, X1 got: {dtype}")


def _host(a):
    from ..autograd.engine import xp_of

    return xp_of(a).to_host(a)


def _pairs(x):
    i, j = np.triu_indices(x.shape[0], 1)
    return i, j, x[i] - x[j]


def _pdist_np(x, p):
    d = _pairs(x)[2]
    if p == 0:
        return (d != 0).sum(1).astype(x.dtype)
    a = np.abs(d)
    if p == np.inf:
        return a.max(1, initial=0).astype(x.dtype)
    if p == 1:
        return a.sum(1)
    if p == 2:
        return np.sqrt((d * d).sum(1))
    return ((a**p).sum(1) ** (1 / p)).astype(x.dtype)


def _pair_terms(g, d, dist, p):
    """torch's per-pair gradient terms (pdist's and cdist's backward kernels) for the
    differences ``d`` (pairs by the last axis), their distances and incoming gradients;
    a pair at distance 0 contributes nothing where the formula divides by it."""
    g, dist = g[..., None], dist[..., None]
    a = np.abs(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return np.zeros_like(d)
        if p == 1:
            return g * np.sign(d)
        if p < 2:
            return np.where(
                (dist == 0) | ((d == 0) & (p < 1)),
                0,
                np.sign(d) * a ** (p - 1) * g / dist ** (p - 1),
            )
        if p == 2:
            return np.where(dist == 0, 0, g * d / dist)
        if p == np.inf:
            return g * np.sign(d) * (a == dist)
        return np.where(dist == 0, 0, d * a ** (p - 2) * g / dist ** (p - 1))


def _pdist_grad_np(g, x, dist, p):
    """torch's _pdist_backward: each pair's term added to its first row, taken from its
    second."""
    i, j, d = _pairs(x)
    t = _pair_terms(g, d, dist, p).astype(x.dtype)
    out = np.zeros_like(x)
    np.add.at(out, i, t)
    np.add.at(out, j, -t)
    return out


def _pdist_vjp(xp, g, x, out, p):
    if xp.is_txp:  # create_graph: the value under a node that refuses backward
        from ..autograd.engine import xp_of
        from .dispatch import apply

        res = _pdist_grad_np(_host(g._data), _host(x._data), _host(out._data), p["p"])
        return apply(PDIST_BACKWARD, (g, x, out), {"_res": xp_of(g._data).asarray(res)})
    return xp.asarray(_pdist_grad_np(_host(g), _host(x), _host(out), p["p"]))


def _refuse(*_):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


PDIST = defop(
    "_pdist_forward",
    node="PdistBackward0",
    inputs=("self",),
    saved=("p", "result", "self"),
    fwd=lambda xp, x, p: xp.asarray(_pdist_np(_host(x), p["p"])),
    vjp=_pdist_vjp,
    smooth=False,
    complex=kernel_refuses("pdist"),
    sample={
        "kind": "cases",
        "cases": lambda rng: [
            (None, [rng.standard_normal((4, 3))], lambda tt, t, q=q: tt.pdist(t, q))
            for q in (1.0, 1.5, 2.0, 3.0)
        ],
    },
)
PDIST_BACKWARD = defop(
    "_pdist_backward",
    node="PdistBackwardBackward0",
    inputs=("grad", "self", "pdist"),
    fwd=lambda xp, g, x, d, p: p["_res"],
    vjp=(_refuse,) * 3,
    complex=kernel_refuses("pdist_backward"),
    sample={"kind": "not_differentiable"},
)


# dist(self, other, p): the p-norm of self - other (DistBackward0); torch's norm_backward on the
# difference, negated for other (each summed to its input's shape); p = 0 leaves both
# gradients undefined, as torch
def _dist_p(p):
    return {"ord": p["p"], "dim": None, "keepdim": False}


def _dist_vjp(sign):
    def vjp(xp, g, a, b, out, p):
        from .reduction import _norm_vjp

        d = _norm_vjp(xp, g, a - b, out, _dist_p(p))
        return d if sign > 0 else -d

    return vjp


def _dist_cases(orders):
    def cases(rng):
        a = rng.uniform(-3, 3, (3, 4))
        a = a + np.sign(a) * 0.1 + np.arange(12).reshape(3, 4) * 0.1
        b = rng.uniform(-0.05, 0.05, (4,))
        if orders == (0.0,):  # other without gradient: its rule refuses
            return [(None, [a], lambda tt, x, y=b: tt.dist(x, tt.tensor(y), 0.0))]
        return [(None, [a, b], lambda tt, x, y, q=q: tt.dist(x, y, q)) for q in orders]

    return cases


def _dist_jvp(xp, t, x, out, p):
    from .reduction import _norm_jvp

    return _norm_jvp(xp, [t[0] - t[1]], [x[0] - x[1]], out, _dist_p(p))


def _dist_row(name, vjp, orders, reads=None):
    from .reduction import _norm_fwd

    return defop(
        name,
        node="DistBackward0",
        inputs=("self", "other"),
        saved=("other", "p", "result", "self"),
        fwd=lambda xp, a, b, p: _norm_fwd(xp, a - b, _dist_p(p)),
        vjp=vjp,
        jvp=_dist_jvp,
        reads=reads,
        smooth=False,
        complex=AS_WRITTEN,
        sample={"kind": "cases", "cases": _dist_cases(orders)},
    )


DIST = _dist_row("dist", (_dist_vjp(1), _dist_vjp(-1)), (2.0, 1.0, 3.0, 1.5, 0.5, float("inf")))


def _dist0_other(*_):
    # torch negates norm_backward's undefined gradient for other: its neg refuses it
    raise RuntimeError(
        "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument "
        "#0 'self'"
    )


# torch saves (and checks) both inputs and the result for every order
DIST0 = _dist_row("dist.p0", (UNDEFINED_GRAD, _dist0_other), (0.0,), ((0, 1, -1), (0, 1, -1)))


# renorm(self, p, dim, maxnorm): each slice along dim scaled to a p-norm of at most maxnorm;
# the value is made by the caller and handed in as _res (``_d``: dim wrapped). torch's
# renorm_backward: the norm's own gradient taken through the scale where it applies
def _renorm_vjp(xp, g, x, out, p):
    from .reduction import _norm_fwd, _norm_vjp

    others = tuple(i for i in range(x.ndim) if i != p["_d"])
    norm_p = {"ord": p["p"], "dim": others, "keepdim": True}
    norm = _norm_fwd(xp, x, norm_p)
    if x.dtype.kind == "c":  # torch's real(self.conj() * grad), summed in the real dtype
        go = xp.real(xp.sum(xp.conj(x) * g, axis=others, keepdims=True))
    else:
        go = xp.sum(x * g, axis=others, keepdims=True)
    nb = _norm_vjp(xp, go, x, norm, norm_p)
    invnorm = 1.0 / (norm + 1e-7)
    factor = invnorm * p["maxnorm"]
    return xp.where(norm > p["maxnorm"], factor * g - (factor * invnorm) * nb, g)


def _renorm_jvp(xp, t, x, out, p):
    # x * factor, factor = maxnorm / (norm + 1e-7) where the norm exceeds maxnorm: the
    # tangent is factor * t less x * factor / (norm + 1e-7) * the norm's tangent
    from .reduction import _norm_fwd, _norm_jvp

    t, x = t[0], x[0]
    others = tuple(i for i in range(x.ndim) if i != p["_d"])
    norm_p = {"ord": p["p"], "dim": others, "keepdim": True}
    norm = _norm_fwd(xp, x, norm_p)
    invnorm = 1.0 / (norm + 1e-7)
    factor = invnorm * p["maxnorm"]
    dn = _norm_jvp(xp, [t], [x], norm, norm_p)
    return xp.where(norm > p["maxnorm"], factor * t - x * (factor * invnorm * dn), t)


def _renorm_cases(rng):
    x = rng.uniform(-3, 3, (3, 4))
    return [
        (None, [x], lambda tt, t, q=q, d=d, m=m: tt.renorm(t, q, d, m))
        for q, d, m in ((2, 0, 1.0), (1, 1, 2.0), (3, -1, 100.0), (1.5, 0, 0.5))
    ]


RENORM = defop(
    "renorm",
    node="RenormBackward0",
    inputs=("self",),
    saved=("dim", "maxnorm", "p", "self"),
    fwd=lambda xp, x, p: p["_res"],
    vjp=_renorm_vjp,
    jvp=_renorm_jvp,
    smooth=False,
    complex=AS_WRITTEN,
    sample={"kind": "cases", "cases": _renorm_cases},
)


# cdist (torch's _cdist_forward, CdistBackward0): the p-distances between the rows of x1 and
# x2 (batch dims broadcast); each side's gradient is torch's _cdist_backward with the operands
# swapped, summed to its input's shape; its own derivative is not implemented in torch
def _cdist_np(x1, x2, p):
    d = x1[..., :, None, :] - x2[..., None, :, :]
    a = np.abs(d)
    if p == 0:
        return (d != 0).sum(-1).astype(d.dtype)
    if p == np.inf:
        return a.max(-1, initial=0).astype(d.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt((d * d).sum(-1))
    return ((a**p).sum(-1) ** (1 / p)).astype(d.dtype)


def _sum_to(a, shape):
    lead = a.ndim - len(shape)
    a = a.sum(tuple(range(lead))) if lead else a
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and a.shape[i] != 1)
    return a.sum(axes, keepdims=True) if axes else a


def _cdist_grad_np(g, x1, x2, dist, p):
    d = x1[..., :, None, :] - x2[..., None, :, :]
    t = _pair_terms(g, d, dist, p)
    return _sum_to(t.sum(-2), x1.shape).astype(x1.dtype)


def _cdist_vjp(first):
    def vjp(xp, g, x1, x2, out, p):
        def grad(g_, a, b, o):
            if first:
                return _cdist_grad_np(g_, a, b, o, p["p"])
            sw = np.swapaxes
            return _cdist_grad_np(sw(g_, -1, -2), b, a, sw(o, -1, -2), p["p"])

        if xp.is_txp:  # create_graph: the value under a node that refuses backward
            from ..autograd.engine import xp_of
            from .dispatch import apply

            res = grad(_host(g._data), _host(x1._data), _host(x2._data), _host(out._data))
            ins = (g, x1, x2, out) if first else (g, x2, x1, out)
            return apply(CDIST_BACKWARD, ins, {"_res": xp_of(g._data).asarray(res)})
        return xp.asarray(grad(_host(g), _host(x1), _host(x2), _host(out)))

    return vjp


def _refuse_cdist(*_):
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


CDIST = defop(
    "_cdist_forward",
    node="CdistBackward0",
    inputs=("x1", "x2"),
    saved=("p", "result", "x1", "x2"),
    fwd=lambda xp, a, b, p: xp.asarray(_cdist_np(_host(a), _host(b), p["p"])),
    vjp=(_cdist_vjp(True), _cdist_vjp(False)),
    smooth=False,
    complex=_CDIST_COMPLEX,
    sample={
        "kind": "cases",
        "cases": lambda rng: [
            (
                None,
                [rng.standard_normal((2, 4, 3)), rng.standard_normal((3, 3))],
                lambda tt, a, b, q=q: tt.cdist(a, b, q),
            )
            for q in (1.0, 1.5, 2.0, 3.0)
        ],
    },
)
CDIST_BACKWARD = defop(
    "_cdist_backward",
    node="CdistBackwardBackward0",
    inputs=("grad", "x1", "x2", "cdist"),
    fwd=lambda xp, g, a, b, d, p: p["_res"],
    vjp=(_refuse_cdist,) * 4,
    complex=kernel_refuses("cdist_backward"),
    sample={"kind": "not_differentiable"},
)


# cdist's matrix-product path for p = 2 (torch's _euclidean_dist, EuclideanDistBackward0):
# the squared distances as one product of padded operands, clamped at 1e-30, square-rooted;
# torch's backward is composed of differentiable ops (its double backward records them)
def _euclid_fwd(xp, a, b, p):
    a, b = _host(a), _host(b)
    one_a, one_b = np.ones(a.shape[:-1] + (1,), a.dtype), np.ones(b.shape[:-1] + (1,), b.dtype)
    na, nb = (a * a).sum(-1, keepdims=True), (b * b).sum(-1, keepdims=True)
    a_ = np.concatenate([a * -2, na, one_a], -1)
    b_ = np.concatenate([b, one_b, nb], -1)
    return xp.asarray(np.sqrt(np.maximum(a_ @ np.swapaxes(b_, -1, -2), 1e-30)))


def _euclid_ratio(xp, g, out):
    return xp.masked_fill(g / out, out == 0, 0.0)


EUCLIDEAN_DIST = defop(
    "_euclidean_dist",
    node="EuclideanDistBackward0",
    inputs=("x1", "x2"),
    saved=("result", "x1", "x2"),
    fwd=_euclid_fwd,
    vjp=(
        lambda xp, g, a, b, out, p: (
            a * xp.sum(_euclid_ratio(xp, g, out), axis=-1, keepdims=True)
            - xp.matmul(_euclid_ratio(xp, g, out), b)
        ),
        lambda xp, g, a, b, out, p: (
            b * xp.expand_dims(xp.sum(_euclid_ratio(xp, g, out), axis=-2), -1)
            - xp.matmul(xp.swapaxes(_euclid_ratio(xp, g, out), -1, -2), a)
        ),
    ),
    reads=((0, 1, -1), (0, 1, -1)),  # torch's one formula for both reads all three
    smooth=False,
    complex=_CDIST_COMPLEX,
    sample={
        "kind": "cases",
        "cases": lambda rng: [
            (
                None,
                [rng.standard_normal((4, 3)), rng.standard_normal((3, 3))],
                lambda tt, a, b: tt.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
            )
        ],
    },
)
