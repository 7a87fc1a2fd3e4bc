"""Product rows beyond mm/bmm: addmv, addr, addbmm, baddbmm, vdot, cross, block_diag.

The ``add*`` rows compute ``beta * self + alpha * product``; with ``beta == 0`` ``self`` is
ignored (NaN in it does not propagate), as torch."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, HOLOMORPHIC, defop


def _ab(p):
    return (1, 1) if p is None else (p.get("alpha", 1), p.get("beta", 1))


def _combine(xp, s, prod, p):
    alpha, beta = _ab(p)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return prod + 0 * prod if xp.is_txp else prod
    return prod + (s if beta == 1 else s * beta)


def _self_grad(g, p):
    beta = _ab(p)[1]
    return g if beta == 1 else g * beta


def _scaled(g, p):
    alpha = _ab(p)[0]
    return g if alpha == 1 else g * alpha


def _mT(x):
    return x.swapaxes(-1, -2)


def _add_row(name, node, inputs, prod, d1, d2, cases):
    """``beta * self + alpha * prod(a, b)`` with the product's partials ``d1``/``d2(xp, g, a, b)``."""
    return defop(
        name,
        node=node,
        inputs=inputs,
        saved=("alpha=1", "beta=1", inputs[1], inputs[2]),
        complex=HOLOMORPHIC,
        fwd=lambda xp, s, a, b, p: _combine(xp, s, prod(xp, a, b), p),
        vjp=(
            lambda xp, g, s, a, b, out, p: _self_grad(g, p),
            lambda xp, g, s, a, b, out, p: _scaled(d1(xp, g, a, b), p),
            lambda xp, g, s, a, b, out, p: _scaled(d2(xp, g, a, b), p),
        ),
        jvp=lambda xp, t, x, out, p: _combine(
            xp, t[0], prod(xp, t[1], x[2]) + prod(xp, x[1], t[2]), p
        ),
        # each product operand's gradient reads the other operand only (torch saves mat2 for
        # mat1's gradient and mat1 for mat2's): the generic rules above pass both
        reads=((), (2,), (1,)),
        sample={"cases": cases},
    )


def _case(shapes, call):
    return lambda rng: [
        (None, [rng.uniform(-2, 2, s) for s in shapes], lambda tt, *ts: call(tt, *ts))
    ]


ADDMV = _add_row(
    "addmv",
    "AddmvBackward0",
    ("self", "mat", "vec"),
    lambda xp, m, v: xp.matmul(m, v),
    lambda xp, g, m, v: xp.reshape(g, (-1, 1)) * xp.reshape(v, (1, -1)),
    lambda xp, g, m, v: xp.matmul(_mT(m), g),
    _case(((2,), (2, 3), (3,)), lambda m, s, a, b: m.addmv(s, a, b, beta=0.5, alpha=2)),
)
ADDR = _add_row(
    "addr",
    "AddrBackward0",
    ("self", "vec1", "vec2"),
    lambda xp, a, b: xp.reshape(a, (-1, 1)) * xp.reshape(b, (1, -1)),
    lambda xp, g, a, b: xp.matmul(g, b),
    lambda xp, g, a, b: xp.matmul(_mT(g), a),
    _case(((2, 3), (2,), (3,)), lambda m, s, a, b: m.addr(s, a, b, alpha=0.5)),
)
BADDBMM = _add_row(
    "baddbmm",
    "BaddbmmBackward0",
    ("self", "batch1", "batch2"),
    lambda xp, a, b: xp.matmul(a, b),
    lambda xp, g, a, b: xp.matmul(g, _mT(b)),
    lambda xp, g, a, b: xp.matmul(_mT(a), g),
    _case(((2, 2, 4), (2, 2, 3), (2, 3, 4)), lambda m, s, a, b: m.baddbmm(s, a, b, beta=2)),
)
ADDBMM = _add_row(
    "addbmm",
    "AddbmmBackward0",
    ("self", "batch1", "batch2"),
    lambda xp, a, b: xp.sum(xp.matmul(a, b), axis=0),
    lambda xp, g, a, b: xp.matmul(xp.broadcast_to(g, (b.shape[0],) + tuple(g.shape)), _mT(b)),
    lambda xp, g, a, b: xp.matmul(_mT(a), xp.broadcast_to(g, (a.shape[0],) + tuple(g.shape))),
    _case(((2, 4), (3, 2, 5), (3, 5, 4)), lambda m, s, a, b: m.addbmm(s, a, b)),
)
# vdot(a, b) = sum(conj(a) b); real tensors: the dot product
VDOT = defop(
    "vdot",
    node="VdotBackward0",
    inputs=("self", "other"),
    saved=("other", "self"),
    complex=AS_WRITTEN,
    fwd=lambda xp, a, b, p: xp.vdot(a, b),
    # torch's convention: d/d self = conj(g) other, d/d other = g self
    vjp=(lambda xp, g, a, b, out, p: xp.conj(g) * b, lambda xp, g, a, b, out, p: g * a),
    jvp=lambda xp, t, x, out, p: xp.sum(xp.conj(t[0]) * x[1]) + xp.sum(xp.conj(x[0]) * t[1]),
    sample={"cases": _case(((4,), (4,)), lambda m, a, b: m.vdot(a, b))},
)


# cross(a, b) along dim: d/da <g, a x b> = b x g, d/db = g x a
def _cross(xp, a, b, d):
    if xp.is_txp:
        from .api_products import linalg_cross

        return linalg_cross(a, b, dim=d)
    a, b = np.broadcast_arrays(a, b)
    return np.cross(a, b, axisa=d, axisb=d, axisc=d)


CROSS = defop(
    "linalg_cross",
    node="LinalgCrossBackward0",
    inputs=("self", "other"),
    saved=("dim", "other", "self"),
    complex=HOLOMORPHIC,
    fwd=lambda xp, a, b, p: _cross(xp, a, b, p["dim"]),
    vjp=(
        lambda xp, g, a, b, out, p: _cross(xp, b, g, p["dim"]),
        lambda xp, g, a, b, out, p: _cross(xp, g, a, p["dim"]),
    ),
    jvp=lambda xp, t, x, out, p: (
        _cross(xp, t[0], x[1], p["dim"]) + _cross(xp, x[0], t[1], p["dim"])
    ),
    sample={"cases": _case(((2, 3), (2, 3)), lambda m, a, b: m.linalg.cross(a, b))},
)


# block_diag: each input a block on the diagonal; its gradient is its block of g
def _block_diag_fwd(xp, *arrays_and_p):
    *arrays, p = arrays_and_p
    rows, cols = p["rows"], p["cols"]
    out = xp.zeros((sum(rows), sum(cols)), dtype=p["dtype"])
    r = c = 0
    for a, h, w in zip(arrays, rows, cols):
        out[r : r + h, c : c + w] = xp.reshape(a, (h, w))
        r, c = r + h, c + w
    return out


def _block_diag_vjp(xp, g, i, metas, p):
    rows, cols = p["rows"], p["cols"]
    r, c = sum(rows[:i]), sum(cols[:i])
    block = g[r : r + rows[i], c : c + cols[i]]
    return xp.reshape(block, p["shapes"][i])


BLOCK_DIAG = defop(
    "block_diag",
    node="BlockDiagBackward0",
    inputs=("tensors",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=_block_diag_fwd,
    vjp=(_block_diag_vjp,),
    variadic=True,
    jvp=lambda xp, t, x, out, p: _block_diag_fwd(xp, *t, p),
    sample={"cases": _case(((2, 3), (1, 2)), lambda m, a, b: m.block_diag(a, b))},
)
