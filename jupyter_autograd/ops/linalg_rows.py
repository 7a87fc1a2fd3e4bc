"""Linear-algebra rows: inverse, determinant, slogdet, solve, triangular solve, cholesky, with
torch's derivatives (FunctionsManual's *_backward/*_jvp); the decompositions (eigh, svd, qr, pinv,
cholesky_inverse) are in :mod:`.linalg_decomp`, lu and matrix_exp in :mod:`.linalg_lu`.

Forwards run LAPACK through NumPy (batched over leading dims). Rules call :func:`_la`
helpers that use NumPy on arrays and the recorded public functions on Tensors (create_graph)."""

from __future__ import annotations

import numpy as np

from ..autograd.saved_slots import hooks_active
from .registry import AS_WRITTEN, HOLOMORPHIC, _Marker
from .registry import defop as _defop


# The recorded functions over tensors, for the rules' paths when the backward pass is itself
# recorded (create_graph): imported when called, as those modules are built over these rows.
def _api_linalg():
    from . import api_linalg

    return api_linalg


def _api_shape():
    from . import api_shape

    return api_shape


def _factories():
    from .. import factories

    return factories


def _cplx_imag(x):
    from .cplx import imag

    return imag(x)


def mH(x):
    """The transpose of the last two dims (the real-convention rules of HOLOMORPHIC rows)."""
    return x.swapaxes(-1, -2)


def mHc(x):
    """The conjugate transpose (rules written in torch's complex convention, AS_WRITTEN)."""
    if hasattr(x, "_data"):
        return x.mH
    return x.conj().swapaxes(-1, -2) if x.dtype.kind == "c" else x.swapaxes(-1, -2)


def _real_dtype(dt):
    return np.empty(0, dt).real.dtype


def on_host(fn):
    """``fn`` run on NumPy copies of device arrays, its results moved back: LAPACK through
    NumPy works on the host (the namespace's ``on_host``; Tensors, under create_graph, pass
    through unchanged)."""
    if fn.__class__ is _Marker:
        return fn

    def wrapped(xp, *args):
        if xp.is_txp:
            return fn(xp, *args)
        return xp.on_host(fn, args)

    return wrapped


def defop(name, **kw):
    """A linear-algebra row: forward and rules run on the host (see :func:`on_host`)."""
    kw["fwd"] = on_host(kw["fwd"])
    vjp = kw["vjp"]
    kw["vjp"] = tuple(on_host(r) for r in vjp) if isinstance(vjp, tuple) else on_host(vjp)
    kw["jvp"] = on_host(kw["jvp"])
    return _defop(name, **kw)


# ---------------------------------------------------------------- helpers on arrays or Tensors
def trisolve(xp, A, B, upper, left=True, unit=False):
    """X with A X = B (left) or X A = B, A triangular (only its triangle read; a unit diagonal
    if ``unit``), by substitution as LAPACK's trsm: a zero pivot gives inf/nan, not an error."""
    if xp.is_txp:
        return _api_linalg().solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)
    if not left:
        return mH(trisolve(xp, mH(A), mH(B), not upper, True, unit))
    n = A.shape[-1]
    A, B = np.broadcast_arrays(A, B) if A.shape[:-2] != B.shape[:-2] else (A, B)
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = np.broadcast_to(A, batch + A.shape[-2:])
    X = np.array(np.broadcast_to(B, batch + B.shape[-2:]), dtype=np.result_type(A, B))
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(all="ignore"):
        for i in order:
            if upper:
                acc = X[..., i, :] - np.einsum(
                    "...j,...jk->...k", A[..., i, i + 1 :], X[..., i + 1 :, :]
                )
            else:
                acc = X[..., i, :] - np.einsum("...j,...jk->...k", A[..., i, :i], X[..., :i, :])
            X[..., i, :] = acc if unit else acc / A[..., i, i : i + 1]
    return X


def solve(xp, A, B):
    if xp.is_txp:
        return _api_linalg().solve(A, B)
    return np.linalg.solve(A, B)


def inv(xp, A):
    return _api_linalg().inv(A) if xp.is_txp else np.linalg.inv(A)


def _eye_like(xp, n, like):
    e = np.eye(n, dtype=like._data.dtype if hasattr(like, "_data") else like.dtype)
    return e if not xp.is_txp else _factories().tensor(e)


def _diag_embed(xp, v):
    if xp.is_txp:
        return _api_shape().diag_embed(v)
    out = np.zeros(v.shape + v.shape[-1:], v.dtype)
    i = np.arange(v.shape[-1])
    out[..., i, i] = v
    return out


def _diagonal(xp, x):
    return _api_shape().diagonal(x, 0, -2, -1) if xp.is_txp else np.diagonal(x, 0, -2, -1)


def _expand(xp, x, axis):
    return xp.expand_dims(x, axis)


def _tri(xp, x, k, lower):
    return (xp.tril if lower else xp.triu)(x, k)


# ---------------------------------------------------------------- inverse, det, slogdet, solve
# d(A^-1) = -A^-1 dA A^-1
INV = defop(
    "linalg_inv_ex",
    node="LinalgInvExBackward0",
    inputs=("A",),
    saved=("result",),
    fwd=lambda xp, A, p: np.linalg.inv(A),
    vjp=lambda xp, g, A, out, p: -xp.matmul(mH(out), xp.matmul(g, mH(out))),
    jvp=lambda xp, t, x, out, p: -xp.matmul(out, xp.matmul(t[0], out)),
    complex=HOLOMORPHIC,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)], lambda tt, a: tt.linalg.inv(a))
        ]
    },
)


def _det_cofactor(xp, A, det):
    """conj(det) A^-H, through the SVD where A is (near) singular (torch's det_backward)."""
    n = A.shape[-1]
    eps = np.finfo(A.dtype).eps if not xp.is_txp else np.finfo(np.float64).eps
    a = A if not xp.is_txp else A._data
    d = det if not xp.is_txp else det._data
    if not (np.abs(d) < 100 * eps).any():
        return mH(inv(xp, A)) * _expand(xp, _expand(xp, det, -1), -1)
    u, s, vh = np.linalg.svd(a)
    # the cofactor through A = U S Vh: det(U) det(Vh) U diag(prod_{j != i} s_j) Vh
    prod_others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], -1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    cof = np.matmul(np.conj(u) * (prod_others * sign[..., None])[..., None, :], np.conj(vh))
    return cof if not xp.is_txp else _factories().tensor(cof)


def _lu_for_hooks(A, p):
    """torch's det, slogdet and solve save the LU factorization their kernel ran on; the rules
    here do without it, so it is made only for saved-tensor hooks to pack."""
    if hooks_active():
        from .linalg_lu import getrf

        p["LU"], p["pivots"], _ = getrf(A)


def _det_fwd(xp, A, p):
    _lu_for_hooks(A, p)
    return np.linalg.det(A) if A.shape[-1] else np.ones(A.shape[:-2], A.dtype)


DET = defop(
    "linalg_det",
    node="LinalgDetBackward0",
    inputs=("A",),
    saved=("A", "LU", "pivots", "result"),
    saved_outputs=("LU", "pivots"),
    complex=HOLOMORPHIC,
    fwd=_det_fwd,
    vjp=lambda xp, g, A, out, p: (
        _expand(xp, _expand(xp, g, -1), -1) * _det_cofactor(xp, A, out) if A.shape[-1] else A * 0
    ),
    jvp=lambda xp, t, x, out, p: xp.sum(_det_cofactor(xp, x[0], out) * t[0], axis=(-2, -1)),
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (2, 3, 3))], lambda tt, a: tt.linalg.det(a))
        ]
    },
)


# slogdet: (sign, log|det|); the gradient of log|det| is A^-T, the sign has none (real A)
def _slogdet_fwd(xp, A, p):
    _lu_for_hooks(A, p)
    s, l = np.linalg.slogdet(A)
    return s.astype(A.dtype), l.astype(_real_dtype(A.dtype))


# d log|det A| = Re tr(A^-1 dA); a complex sign turns by i Im tr(A^-1 dA): torch's
# slogdet_backward sums both into one complex g and returns A^-H g
def _slogdet_vjp(xp, g, A, out, p):
    gs, gl = g
    sign = out[0]
    if A.dtype.kind == "c" if not hasattr(A, "_data") else A.is_complex():
        gl = (
            gl - 1j * (xp.conj(gs) * sign).imag
            if not hasattr(gs, "_data")
            else gl + 0 * gs - 1j * _cplx_imag(xp.conj(gs) * sign)
        )
    diag = _diag_embed(xp, xp.broadcast_to(_expand(xp, gl, -1), A.shape[:-1]))
    return solve(xp, mHc(A), diag)


def _slogdet_jvp(xp, t, x, out, p):
    tr = xp.sum(_diagonal(xp, solve(xp, x[0], t[0])), axis=-1)
    if x[0].dtype.kind == "c":
        return out[0] * (1j * tr.imag), tr.real
    return 0 * out[0], tr


SLOGDET = defop(
    "_linalg_slogdet",
    node="LinalgSlogdetBackward0",
    inputs=("A",),
    saved=("A", "LU", "pivots", "sign:result.0"),
    saved_outputs=("LU", "pivots"),
    fwd=_slogdet_fwd,
    n_out=-1,
    complex=AS_WRITTEN,
    vjp=_slogdet_vjp,
    jvp=_slogdet_jvp,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (2, 3, 3))], lambda tt, a: tt.linalg.slogdet(a)[1])
        ]
    },
)


# solve: X = A^-1 B; gB = A^-H g, gA = -gB X^H (vectors: B, X as columns)
def _as_mat(x, vec):
    return x[..., None] if vec and not hasattr(x, "_data") else (x.unsqueeze(-1) if vec else x)


def _solve_grads(xp, g, A, B, out, p):
    vec, left = p["vector"], p["left"]
    gm, X = _as_mat(g, vec), _as_mat(out, vec)
    if left:
        gB = solve(xp, mH(A), gm)
        gA = -xp.matmul(gB, mH(X))
    else:
        gB = mH(solve(xp, A, mH(gm)))
        gA = -xp.matmul(mH(X), gB)
    return gA, (gB[..., 0] if not hasattr(gB, "_data") else gB.squeeze(-1)) if vec else gB


def _solve_fwd(xp, A, B, p):
    if xp.is_txp:  # LAPACK on arrays: a recorded tangent declines (forward AD uses arrays)
        raise NotImplementedError("linalg.solve tangents run on arrays")
    if "LU" not in p:  # the forward, not a tangent (its JVP runs this again)
        _lu_for_hooks(A, p)
    if p["left"]:
        Bm = B[..., None] if p["vector"] else B
        X = np.linalg.solve(
            np.broadcast_to(A, np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2]) + A.shape[-2:]), Bm
        )
        return X[..., 0] if p["vector"] else X
    return mH(np.linalg.solve(mH(A), mH(B)))


SOLVE = defop(
    "linalg_solve_ex",
    node="LinalgSolveExBackward0",
    inputs=("A", "B"),
    saved=("A", "LU", "left", "pivots", "result"),
    saved_outputs=("LU", "pivots"),
    complex=HOLOMORPHIC,
    fwd=_solve_fwd,
    vjp=(
        lambda xp, g, A, B, out, p: _solve_grads(xp, g, A, B, out, p)[0],
        lambda xp, g, A, B, out, p: _solve_grads(xp, g, A, B, out, p)[1],
    ),
    jvp=lambda xp, t, x, out, p: (
        _solve_fwd(
            xp,
            x[0],
            t[1]
            - (
                xp.matmul(t[0], _as_mat(out, p["vector"]))[..., 0]
                if p["vector"]
                else xp.matmul(t[0], out)
            ),
            p,
        )
        if p["left"]
        else _solve_fwd(xp, x[0], t[1] - xp.matmul(out, t[0]), p)
    ),
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3), rng.uniform(-1, 1, (3, 2))],
                lambda tt, a, b: tt.linalg.solve(a, b),
            )
        ]
    },
)


# triangular solve: gB = A^-H g (the other triangle), gA = -gB X^H on A's triangle
def _tri_grads(xp, g, A, B, out, p):
    upper, left, unit = p["upper"], p["left"], p["unitriangular"]
    gB = trisolve(xp, mH(A), g, not upper, left, unit)
    gA = -xp.matmul(gB, mH(out)) if left else -xp.matmul(mH(out), gB)
    gA = xp.triu(gA, 1 if unit else 0) if upper else xp.tril(gA, -1 if unit else 0)
    return gA, gB


def _tri_jvp(xp, t, x, out, p):
    upper, left, unit = p["upper"], p["left"], p["unitriangular"]
    dA = xp.triu(t[0], 1 if unit else 0) if upper else xp.tril(t[0], -1 if unit else 0)
    rhs = t[1] - (xp.matmul(dA, out) if left else xp.matmul(out, dA))
    return trisolve(xp, x[0], rhs, upper, left, unit)


SOLVE_TRIANGULAR = defop(
    "linalg_solve_triangular",
    node="LinalgSolveTriangularBackward0",
    inputs=("self", "B"),
    saved=("left", "result", "self", "unitriangular", "upper"),
    fwd=lambda xp, A, B, p: trisolve(xp, A, B, p["upper"], p["left"], p["unitriangular"]),
    vjp=(
        lambda xp, g, A, B, out, p: _tri_grads(xp, g, A, B, out, p)[0],
        lambda xp, g, A, B, out, p: _tri_grads(xp, g, A, B, out, p)[1],
    ),
    jvp=_tri_jvp,
    complex=HOLOMORPHIC,
    sample={
        "cases": lambda rng: [
            (
                None,
                [np.triu(rng.uniform(-1, 1, (3, 3))) + 3 * np.eye(3), rng.uniform(-1, 1, (3, 2))],
                lambda tt, a, b: tt.linalg.solve_triangular(a, b, upper=True),
            )
        ]
    },
)


# ---------------------------------------------------------------- cholesky
def _cholesky_vjp(xp, g, A, out, p):
    L, gL = (mHc(out), mHc(g)) if p["upper"] else (out, g)
    gA = xp.tril(xp.matmul(mHc(L), gL), 0)
    gA = (gA + mHc(xp.tril(gA, -1))) * 0.5
    gA = trisolve(xp, mHc(L), gA, True, True, False)
    return trisolve(xp, L, gA, False, False, False)


def _cholesky_jvp(xp, t, x, out, p):
    # dL = L Phi(L^-1 dA L^-H), Phi: lower triangle with the diagonal halved
    L = mHc(out) if p["upper"] else out
    X = trisolve(xp, L, t[0], False, True)
    X = trisolve(xp, mHc(L), X, True, False)
    phi = xp.tril(X, -1) + _diag_embed(xp, _diagonal(xp, X).real * 0.5)
    dL = xp.matmul(L, phi)
    return mHc(dL) if p["upper"] else dL


CHOLESKY = defop(
    "linalg_cholesky_ex",
    node="LinalgCholeskyExBackward0",
    inputs=("self",),
    saved=("upper", "result"),
    fwd=lambda xp, A, p: mHc(np.linalg.cholesky(A)) if p["upper"] else np.linalg.cholesky(A),
    vjp=_cholesky_vjp,
    jvp=_cholesky_jvp,
    complex=AS_WRITTEN,
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (3, 3))],
                lambda tt, a: tt.linalg.cholesky(a @ a.mH + tt.eye(3, dtype=a.dtype)),
            )
        ]
    },
)
