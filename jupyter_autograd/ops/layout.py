"""Rows that rearrange elements: roll, rot90, unfold (sliding windows), diagonal, diag_embed,
tril/triu. All are linear: the JVP is the forward applied to the tangent."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, AUTO_ELEMENT_WISE, AUTO_LINEAR, defop


def _linear(name, node, fwd, vjp, saved, cases):
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=fwd,
        vjp=vjp,
        complex=AS_WRITTEN,
        jvp=AUTO_LINEAR,
        sample={"cases": cases},
    )


def _case(shape, ours, theirs):
    return lambda rng: [(ours, [rng.uniform(-3, 3, shape)], theirs)]


def _roll(xp, x, shifts, dims):
    if not dims:  # torch rolls the flattened tensor
        return xp.reshape(xp.roll(xp.reshape(x, (-1,)), shifts[0]), x.shape)
    return xp.roll(x, shifts, dims) if xp.is_txp else xp.roll(x, shifts, axis=dims)


ROLL = _linear(
    "roll",
    "RollBackward0",
    lambda xp, x, p: _roll(xp, x, p["shifts"], p["dims"]),
    lambda xp, g, x, out, p: _roll(xp, g, tuple(-s for s in p["shifts"]), p["dims"]),
    ("dims", "shifts"),
    _case((3, 4), None, lambda tt, t: tt.roll(t, (1, -2), (0, 1))),
)


def _rot90(xp, x, k, dims):
    k %= 4
    d0, d1 = dims
    if k == 0:
        return x + 0 if xp.is_txp else x.copy()
    if k == 2:
        return xp.flip(x, (d0, d1))
    perm = list(range(x.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 1:  # flip along dims[1], then swap the two dims (torch's rot90)
        return xp.transpose(xp.flip(x, (d1,)), perm)
    return xp.flip(xp.transpose(x, perm), (d1,))


ROT90 = _linear(
    "rot90",
    "Rot90Backward0",
    lambda xp, x, p: _rot90(xp, x, p["k"], p["dims"]),
    lambda xp, g, x, out, p: _rot90(xp, g, -p["k"], p["dims"]),
    ("dims", "k"),
    _case((3, 4), None, lambda tt, t: tt.rot90(t, 1, (0, 1))),
)


# unfold(dim, size, step): window i of the result's new last axis reads x[i * step + j] along dim
def _window_key(p):
    idx = np.arange(p["n_windows"])[:, None] * p["step"] + np.arange(p["size"])[None, :]
    return (slice(None),) * p["dimension"] + (idx,)


def _unfold_fwd(xp, x, p):
    d = p["dimension"]
    if x.ndim == 0:
        return xp.reshape(x, (1,))
    w = x[_window_key(p)]  # (..., n_windows, size, ...): the window axis moves last
    return xp.moveaxis(w, d + 1, -1)


def _unfold_vjp(xp, g, x, out, p):
    if not p["self_sym_sizes"]:
        return xp.reshape(g, ())
    return xp.scatter_add_zeros(
        xp.moveaxis(g, -1, p["dimension"] + 1), _window_key(p), p["self_sym_sizes"]
    )


UNFOLD = _linear(
    "unfold",
    "UnfoldBackward0",
    _unfold_fwd,
    _unfold_vjp,
    ("dimension", "self_sym_sizes", "size", "step"),
    _case((4, 5), lambda t: t.unfold(1, 2, 2), lambda tt, t: t.unfold(1, 2, 2)),
)


def _diag_perm(ndim, d1, d2):
    """Permutation moving dims d1, d2 last (and its inverse)."""
    rest = [i for i in range(ndim) if i not in (d1, d2)]
    perm = rest + [d1, d2]
    return perm, [perm.index(i) for i in range(ndim)]


def _diag_index(shape2, offset):
    rows, cols = shape2
    if offset >= 0:
        n = max(0, min(rows, cols - offset))
        r = np.arange(n)
        return r, r + offset
    n = max(0, min(rows + offset, cols))
    r = np.arange(n)
    return r - offset, r


def _diagonal_fwd(xp, x, p):
    perm, _ = _diag_perm(x.ndim, p["dim1"], p["dim2"])
    y = xp.transpose(x, perm)
    r, c = _diag_index(y.shape[-2:], p["offset"])
    # a view where the backend can write through one (NumPy), as torch's diagonal
    return xp.diagonal_view(y, p["offset"], r, c)


def _diagonal_vjp(xp, g, x, out, p):
    shape = p["self_sym_sizes"]
    perm, inv = _diag_perm(len(shape), p["dim1"], p["dim2"])
    moved = tuple(shape[i] for i in perm)
    r, c = _diag_index(moved[-2:], p["offset"])
    return xp.transpose(xp.scatter_add_zeros(g, (Ellipsis, r, c), moved), inv)


DIAGONAL = _linear(
    "diagonal",
    "DiagonalBackward0",
    _diagonal_fwd,
    _diagonal_vjp,
    ("dim1", "dim2", "offset", "self_sym_sizes"),
    _case((3, 4), lambda t: t.diagonal(1), lambda tt, t: t.diagonal(1)),
)


def _diag_embed_fwd(xp, x, p):
    n = x.shape[-1] + abs(p["offset"])
    nd = x.ndim + 1
    d1, d2 = p["dim1"], p["dim2"]
    _, inv = _diag_perm(nd, d1, d2)
    moved = x.shape[:-1] + (n, n)
    r, c = _diag_index((n, n), p["offset"])
    z = xp.scatter_add_zeros(x, (Ellipsis, r, c), moved)
    return xp.transpose(z, inv)


DIAG_EMBED = _linear(
    "diag_embed",
    "DiagEmbedBackward0",
    _diag_embed_fwd,
    lambda xp, g, x, out, p: _diagonal_fwd(xp, g, p),
    ("dim1", "dim2", "offset"),
    _case((2, 3), None, lambda tt, t: tt.diag_embed(t, 1)),
)
TRIL = _linear(
    "tril",
    "TrilBackward0",
    lambda xp, x, p: xp.tril(x, p["diagonal"]),
    lambda xp, g, x, out, p: xp.tril(g, p["diagonal"]),
    ("diagonal",),
    _case((3, 4), lambda t: t.tril(1), lambda tt, t: t.tril(1)),
)
TRIU = _linear(
    "triu",
    "TriuBackward0",
    lambda xp, x, p: xp.triu(x, p["diagonal"]),
    lambda xp, g, x, out, p: xp.triu(g, p["diagonal"]),
    ("diagonal",),
    _case((3, 4), lambda t: t.triu(-1), lambda tt, t: t.triu(-1)),
)


# fill(self, value): a constant; self gets a zero gradient, a tensor value the sum of g
def _zeros_like_grad(xp, g):
    """torch's zeros_like(grad): an inf or nan incoming gradient gives 0 too, not g * 0."""
    return g.new_zeros(g.shape) if xp.is_txp else xp.zeros_like(g)


FILL = defop(
    "fill.Scalar",
    node="FillBackward0",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.full(x.shape, p["value"], dtype=x.dtype),
    vjp=lambda xp, g, x, out, p: _zeros_like_grad(xp, g),
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-3, 3, (3, 4))], lambda tt, t: tt.fill(t, 2.0) + t)
        ]
    },
)
FILL_TENSOR = defop(
    "fill.Tensor",
    node="FillBackward1",
    inputs=("self", "value"),
    saved=(),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, v, p: (
        xp.broadcast_to(v, x.shape).astype(x.dtype, copy=True)
        if not xp.is_txp
        else xp.broadcast_to(v, x.shape) + 0
    ),
    vjp=(
        lambda xp, g, x, v, out, p: _zeros_like_grad(xp, g),
        lambda xp, g, x, v, out, p: xp.sum(g),
    ),
    jvp=lambda xp, t, x, out, p: xp.broadcast_to(t[1], out.shape) + 0 * t[0],
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, (2,))],
                lambda tt, t, v: tt.fill(t, v.sum()),
            )
        ]
    },
)
