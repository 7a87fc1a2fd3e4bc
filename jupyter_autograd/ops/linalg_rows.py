"""Linear-algebra rows: inverse, determinant, slogdet, solve, triangular solve, cholesky, eigh,
svd, qr, lu, matrix_exp, with torch's derivatives (FunctionsManual's *_backward/*_jvp).

Forwards run LAPACK through NumPy (batched over leading dims). Rules call :func:`_la`
helpers that use NumPy on arrays and the recorded public functions on Tensors (create_graph)."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, HOLOMORPHIC, _Marker
from .registry import defop as _defop
from .xp import NPX


def _ja():
    import jupyter_autograd

    return jupyter_autograd


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


def _tree(f, x):
    if isinstance(x, tuple):
        return tuple(_tree(f, y) for y in x)
    if isinstance(x, list):
        return [_tree(f, y) for y in x]
    if isinstance(x, dict):
        return {k: _tree(f, v) for k, v in x.items()}
    return f(x)


def on_host(fn):
    """``fn`` run on NumPy copies of device arrays, its results moved back: LAPACK through
    NumPy works on the host (Tensors, under create_graph, pass through unchanged)."""
    if fn.__class__ is _Marker:
        return fn

    def wrapped(xp, *args):
        if xp.is_txp or xp is NPX:
            return fn(xp, *args)
        from ..backend import device_of_array, move_array

        dev = next(device_of_array(a) for a in _leaves(args))
        move = lambda a: move_array(a, "cpu") if hasattr(a, "shape") and hasattr(a, "dtype") else a
        back = lambda a: move_array(a, dev) if hasattr(a, "shape") and hasattr(a, "dtype") else a
        return _tree(back, fn(NPX, *_tree(move, args)))

    return wrapped


def _leaves(x):
    for y in x:
        if isinstance(y, (tuple, list)):
            yield from _leaves(y)
        elif hasattr(y, "shape") and hasattr(y, "dtype") and not isinstance(y, np.ndarray):
            yield y


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
        return _ja().linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)
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
                acc = X[..., i, :] - np.einsum("...j,...jk->...k", A[..., i, i + 1:], X[..., i + 1:, :])
            else:
                acc = X[..., i, :] - np.einsum("...j,...jk->...k", A[..., i, :i], X[..., :i, :])
            X[..., i, :] = acc if unit else acc / A[..., i, i:i + 1]
    return X


def solve(xp, A, B):
    if xp.is_txp:
        return _ja().linalg.solve(A, B)
    return np.linalg.solve(A, B)


def inv(xp, A):
    return _ja().linalg.inv(A) if xp.is_txp else np.linalg.inv(A)


def _eye_like(xp, n, like):
    e = np.eye(n, dtype=like._data.dtype if hasattr(like, "_data") else like.dtype)
    return e if not xp.is_txp else _ja().tensor(e)


def _diag_embed(xp, v):
    if xp.is_txp:
        return _ja().diag_embed(v)
    out = np.zeros(v.shape + v.shape[-1:], v.dtype)
    i = np.arange(v.shape[-1])
    out[..., i, i] = v
    return out


def _diagonal(xp, x):
    return _ja().diagonal(x, 0, -2, -1) if xp.is_txp else np.diagonal(x, 0, -2, -1)


def _expand(xp, x, axis):
    return xp.expand_dims(x, axis)


def _tri(xp, x, k, lower):
    return (xp.tril if lower else xp.triu)(x, k)


# ---------------------------------------------------------------- inverse, det, slogdet, solve
# d(A^-1) = -A^-1 dA A^-1
INV = defop(
    "linalg_inv_ex", node="LinalgInvExBackward0", inputs=("A",), saved=("result",),
    fwd=lambda xp, A, p: np.linalg.inv(A),
    vjp=lambda xp, g, A, out, p: -xp.matmul(mH(out), xp.matmul(g, mH(out))),
    jvp=lambda xp, t, x, out, p: -xp.matmul(out, xp.matmul(t[0], out)),
    complex=HOLOMORPHIC, sample={"cases": lambda rng: [(
        lambda a: _ja().linalg.inv(a), [rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)],
        lambda tt, a: tt.linalg.inv(a))]},
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
    return cof if not xp.is_txp else _ja().tensor(cof)


DET = defop(
    "linalg_det", node="LinalgDetBackward0", inputs=("A",), saved=("A", "result"), complex=HOLOMORPHIC,
    fwd=lambda xp, A, p: np.linalg.det(A) if A.shape[-1] else np.ones(A.shape[:-2], A.dtype),
    vjp=lambda xp, g, A, out, p: _expand(xp, _expand(xp, g, -1), -1) * _det_cofactor(xp, A, out)
    if A.shape[-1] else A * 0,
    jvp=lambda xp, t, x, out, p: xp.sum(_det_cofactor(xp, x[0], out) * t[0], axis=(-2, -1)),
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.det(a), [rng.uniform(-1, 1, (2, 3, 3))],
                                   lambda tt, a: tt.linalg.det(a))]},
)


# slogdet: (sign, log|det|); the gradient of log|det| is A^-T, the sign has none (real A)
def _slogdet_fwd(xp, A, p):
    s, l = np.linalg.slogdet(A)
    return s.astype(A.dtype), l.astype(_real_dtype(A.dtype))


# d log|det A| = Re tr(A^-1 dA); a complex sign turns by i Im tr(A^-1 dA): torch's
# slogdet_backward sums both into one complex g and returns A^-H g
def _slogdet_vjp(xp, g, A, out, p):
    gs, gl = g
    sign = out[0]
    if A.dtype.kind == "c" if not hasattr(A, "_data") else A.is_complex():
        gl = gl - 1j * (xp.conj(gs) * sign).imag if not hasattr(gs, "_data") else \
            gl + 0 * gs - 1j * _ja().imag(xp.conj(gs) * sign)
    diag = _diag_embed(xp, xp.broadcast_to(_expand(xp, gl, -1), A.shape[:-1]))
    return solve(xp, mHc(A), diag)


def _slogdet_jvp(xp, t, x, out, p):
    tr = xp.sum(_diagonal(xp, solve(xp, x[0], t[0])), axis=-1)
    if x[0].dtype.kind == "c":
        return out[0] * (1j * tr.imag), tr.real
    return 0 * out[0], tr


SLOGDET = defop(
    "_linalg_slogdet", node="LinalgSlogdetBackward0", inputs=("A",), saved=("A", "result"),
    fwd=_slogdet_fwd, n_out=-1, complex=AS_WRITTEN,
    vjp=_slogdet_vjp, jvp=_slogdet_jvp,
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.slogdet(a)[1], [rng.uniform(-1, 1, (2, 3, 3))],
                                   lambda tt, a: tt.linalg.slogdet(a)[1])]},
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
    if p["left"]:
        Bm = B[..., None] if p["vector"] else B
        X = np.linalg.solve(np.broadcast_to(A, np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2]) + A.shape[-2:]), Bm)
        return X[..., 0] if p["vector"] else X
    return mH(np.linalg.solve(mH(A), mH(B)))


SOLVE = defop(
    "linalg_solve_ex", node="LinalgSolveExBackward0", inputs=("A", "B"), saved=("A", "left", "result"),
    complex=HOLOMORPHIC,
    fwd=_solve_fwd,
    vjp=(lambda xp, g, A, B, out, p: _solve_grads(xp, g, A, B, out, p)[0],
         lambda xp, g, A, B, out, p: _solve_grads(xp, g, A, B, out, p)[1]),
    jvp=lambda xp, t, x, out, p: _solve_fwd(xp, x[0], t[1] - (xp.matmul(t[0], _as_mat(out, p["vector"]))[..., 0]
                                                         if p["vector"] else xp.matmul(t[0], out)), p)
    if p["left"] else _solve_fwd(xp, x[0], t[1] - xp.matmul(out, t[0]), p),
    sample={"cases": lambda rng: [(lambda a, b: _ja().linalg.solve(a, b), [rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3),
                                   rng.uniform(-1, 1, (3, 2))], lambda tt, a, b: tt.linalg.solve(a, b))]},
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
    "linalg_solve_triangular", node="LinalgSolveTriangularBackward0", inputs=("self", "B"),
    saved=("left", "result", "self", "unitriangular", "upper"),
    fwd=lambda xp, A, B, p: trisolve(xp, A, B, p["upper"], p["left"], p["unitriangular"]),
    vjp=(lambda xp, g, A, B, out, p: _tri_grads(xp, g, A, B, out, p)[0],
         lambda xp, g, A, B, out, p: _tri_grads(xp, g, A, B, out, p)[1]),
    jvp=_tri_jvp, complex=HOLOMORPHIC,
    sample={"cases": lambda rng: [(lambda a, b: _ja().linalg.solve_triangular(a, b, upper=True),
                                   [np.triu(rng.uniform(-1, 1, (3, 3))) + 3 * np.eye(3), rng.uniform(-1, 1, (3, 2))],
                                   lambda tt, a, b: tt.linalg.solve_triangular(a, b, upper=True))]},
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
    "linalg_cholesky_ex", node="LinalgCholeskyExBackward0", inputs=("self",), saved=("upper", "result"),
    fwd=lambda xp, A, p: mHc(np.linalg.cholesky(A)) if p["upper"] else np.linalg.cholesky(A),
    vjp=_cholesky_vjp, jvp=_cholesky_jvp, complex=AS_WRITTEN,
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.cholesky(a @ a.mH + _ja().eye(3, dtype=a.dtype)),
                                   [rng.uniform(-1, 1, (3, 3))],
                                   lambda tt, a: tt.linalg.cholesky(a @ a.mH + tt.eye(3, dtype=a.dtype)))]},
)


# ---------------------------------------------------------------- eigh, svd, qr
def _eigh_fwd(xp, A, p):
    w, v = np.linalg.eigh(A, UPLO=p["UPLO"])
    return w.astype(_real_dtype(A.dtype)), v.astype(A.dtype)


def _eigh_vjp(xp, g, A, out, p):
    gL, gV = g
    L, V = out
    VhgV = xp.matmul(mHc(V), gV)
    VhgV = (VhgV - mHc(VhgV)) * 0.5
    E = _expand(xp, L, -2) - _expand(xp, L, -1)
    n = L.shape[-1]
    E = E + _eye_like(xp, n, L)
    gA = VhgV / E
    gA = gA - _diag_embed(xp, _diagonal(xp, gA)) + _diag_embed(xp, gL)
    return xp.matmul(V, xp.matmul(gA, mHc(V)))


def _eigh_jvp(xp, t, x, out, p):
    L, V = out
    dA = xp.matmul(mHc(V), xp.matmul(t[0], V))
    dL = _diagonal(xp, dA).real
    E = _expand(xp, L, -2) - _expand(xp, L, -1)
    n = L.shape[-1]
    E = E + np.eye(n, dtype=L.dtype)
    F = (1 - np.eye(n, dtype=L.dtype)) / E
    return dL, xp.matmul(V, F * dA)


EIGH = defop(
    "_linalg_eigh", node="LinalgEighBackward0", inputs=("A",), saved=("UPLO", "result"),
    fwd=_eigh_fwd, vjp=_eigh_vjp, jvp=_eigh_jvp, n_out=-1, complex=AS_WRITTEN,
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.eigh(a + a.mH)[0], [rng.uniform(-1, 1, (3, 3))],
                                   lambda tt, a: tt.linalg.eigh(a + a.mH)[0])]},
)


def _svd_fwd(xp, A, p):
    u, s, vh = np.linalg.svd(A, full_matrices=p["full_matrices"])
    return u.astype(A.dtype), s.astype(_real_dtype(A.dtype)), vh.astype(A.dtype)


def _svd_vjp(xp, g, A, out, p):
    gU, gS, gVh = g
    U, S, Vh = out
    k = S.shape[-1]
    if p["full_matrices"]:
        U, Vh, gU, gVh = U[..., :k], Vh[..., :k, :], gU[..., :k], gVh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    UhgU = xp.matmul(mHc(U), gU)
    UhgU = UhgU - mHc(UhgU)
    VhgV = xp.matmul(Vh, mHc(gVh))
    VhgV = VhgV - mHc(VhgV)
    S2 = S * S
    E = _expand(xp, S2, -2) - _expand(xp, S2, -1) + _eye_like(xp, k, S)
    gA = (UhgU * _expand(xp, S, -2) + _expand(xp, S, -1) * VhgV) / E + _diag_embed(xp, gS)
    if U.dtype.kind == "c" if not hasattr(U, "_data") else U.is_complex():
        gA = gA + _diag_embed(xp, _diagonal(xp, UhgU) / (S * 2))
    if m > n:
        gA = xp.matmul(U, gA)
        gUS = gU / _expand(xp, S, -2)
        gA = gA + gUS - xp.matmul(U, xp.matmul(mHc(U), gUS))
        return xp.matmul(gA, Vh)
    if m < n:
        gA = xp.matmul(gA, Vh)
        SgVh = gVh / _expand(xp, S, -1)
        gA = gA + SgVh - xp.matmul(xp.matmul(SgVh, mHc(Vh)), Vh)
        return xp.matmul(U, gA)
    return xp.matmul(U, xp.matmul(gA, Vh))


def _svd_jvp(xp, t, x, out, p):
    U, S, Vh = out
    k = S.shape[-1]
    full_u, full_v = U.shape[-1], Vh.shape[-2]
    U, Vh = U[..., :k], Vh[..., :k, :]
    V = mHc(Vh)
    dA = t[0]
    m, n = U.shape[-2], V.shape[-2]
    dP = xp.matmul(mHc(U), xp.matmul(dA, V))
    dS = _diagonal(xp, dP).real
    dX = dP - _diag_embed(xp, _diagonal(xp, dP))
    S2 = S * S
    E = _expand(xp, S2, -2) - _expand(xp, S2, -1) + np.eye(k, dtype=S.dtype)
    dU = xp.matmul(U, (dX * _expand(xp, S, -2) + _expand(xp, S, -1) * mHc(dX)) / E)
    dV = xp.matmul(V, (_expand(xp, S, -1) * dX + mHc(dX) * _expand(xp, S, -2)) / E)
    if m > n:
        dAV = xp.matmul(dA, V)
        dU = dU + (dAV - xp.matmul(U, xp.matmul(mHc(U), dAV))) / _expand(xp, S, -2)
    if n > m:
        dAhU = xp.matmul(mHc(dA), U)
        dV = dV + (dAhU - xp.matmul(V, xp.matmul(mHc(V), dAhU))) / _expand(xp, S, -2)
    if full_u > k:  # the extra singular vectors of a full factorization: held fixed
        dU = xp.concatenate([dU, xp.zeros(dU.shape[:-1] + (full_u - k,), dU.dtype)], -1)
    if full_v > k:
        dV = xp.concatenate([dV, xp.zeros(dV.shape[:-1] + (full_v - k,), dV.dtype)], -1)
    return dU, dS, mHc(dV)


SVD = defop(
    "_linalg_svd", node="LinalgSvdBackward0", inputs=("A",), saved=("full_matrices", "result"),
    fwd=_svd_fwd, vjp=_svd_vjp, jvp=_svd_jvp, n_out=-1, complex=AS_WRITTEN,
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.svdvals(a), [rng.uniform(-1, 1, (4, 3))],
                                   lambda tt, a: tt.linalg.svdvals(a))]},
)


def _qr_fwd(xp, A, p):
    q, r = np.linalg.qr(A, mode=p["mode"] if p["mode"] != "r" else "reduced")
    if p["mode"] == "r":
        return np.zeros(A.shape[:-2] + (0,), A.dtype), r
    return q.astype(A.dtype), r.astype(A.dtype)


def _qr_vjp(xp, g, A, out, p):
    gQ, gR = g
    Q, R = out
    if p["mode"] == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if p["mode"] == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gA = xp.matmul(gR, mHc(R)) - xp.matmul(mHc(Q), gQ)
    if m >= n:
        sym = xp.triu(gA, 0)
        sym = sym + mHc(sym)
        sym = sym - _diag_embed(xp, _diagonal(xp, sym).real * 0.5)
        gA = xp.matmul(Q, sym) + gQ
        return trisolve(xp, mHc(R), gA, False, False)
    X = -gA
    skew = xp.tril(X - mHc(X), 0)
    gA = xp.matmul(Q, skew)
    gA = trisolve(xp, mHc(R[..., :m]), gA, False, False)
    gA = xp.concatenate([gA, xp.zeros(R.shape[:-1] + (n - m,), dtype=R.dtype) if not xp.is_txp
                         else 0 * R[..., m:]], axis=-1)
    return gA + xp.matmul(Q, gR)


def _qr_jvp(xp, t, x, out, p):
    # m >= n: dR = (Phi(Q^T dA R^-1)^T... ) via dQ = Q (C - C^T) ... (torch's linalg_qr_jvp)
    Q, R = out
    m, n = Q.shape[-2], R.shape[-1]
    dA = t[0]
    if m < n:  # A = [X | Y] with X = Q U square: its QR's tangents, then dV = Q^H (dY - dQ V)
        dQ, dU = _qr_jvp(xp, (dA[..., :m],), None, (Q, R[..., :m]), p)
        dV = xp.matmul(mHc(Q), dA[..., m:] - xp.matmul(dQ, R[..., m:]))
        return dQ, xp.concatenate([dU, dV], -1)
    dAR = trisolve(xp, R, dA, True, False)  # dA R^-1
    qdar = xp.matmul(mHc(Q), dAR)
    low = xp.tril(qdar, -1)
    C = low - mHc(low)  # skew-Hermitian: the rotation of Q within its span
    if qdar.dtype.kind == "c":  # R's diagonal stays real: the imaginary diagonal goes into C
        C = C + _diag_embed(xp, 1j * _diagonal(xp, qdar).imag)
    B = qdar - C
    dR = xp.matmul(B, R)
    dQ = dAR - xp.matmul(Q, B)
    return dQ, dR


QR = defop(
    "linalg_qr", node="LinalgQrBackward0", inputs=("A",), saved=("mode", "result"),
    fwd=_qr_fwd, vjp=_qr_vjp, jvp=_qr_jvp, n_out=-1, complex=AS_WRITTEN,
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.qr(a)[1], [rng.uniform(-1, 1, (4, 3))],
                                   lambda tt, a: tt.linalg.qr(a)[1])]},
)


# ---------------------------------------------------------------- pinv
def _pinv_fwd(xp, A, p):
    eps = np.finfo(A.dtype).eps
    if p["hermitian"]:
        w, v = np.linalg.eigh(A)
        s, absw = w, np.abs(w)
    else:
        u, s, vh = np.linalg.svd(A, full_matrices=False)
        absw = s
    smax = absw.max(-1, keepdims=True) if absw.shape[-1] else np.zeros(absw.shape[:-1] + (1,), A.dtype)
    atol, rtol = p["atol"], p["rtol"]
    a = 0.0 if atol is None else atol
    if rtol is None:
        r = eps * max(A.shape[-2:]) if atol is None or np.all(np.asarray(a) == 0) else 0.0
    else:
        r = rtol
    keep = absw > np.maximum(a, r * smax)
    inv_s = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(A.dtype)
    if p["hermitian"]:
        return np.matmul(v * inv_s[..., None, :], mHc(v))
    return np.matmul(mHc(vh) * inv_s[..., None, :], mHc(u))


def _pinv_vjp(xp, g, A, out, p):
    m, n = A.shape[-2:]
    P, Ph, gh = out, mHc(out), mHc(g)
    if m <= n:
        K = xp.matmul(gh, P)
        KPh = xp.matmul(K, Ph)
        return (-mHc(xp.matmul(P, K)) + KPh - xp.matmul(xp.matmul(A, P), KPh)
                + xp.matmul(xp.matmul(Ph, P), gh - xp.matmul(K, A)))
    K = xp.matmul(P, gh)
    PhK = xp.matmul(Ph, K)
    return (-mHc(xp.matmul(K, P)) + xp.matmul(xp.matmul(gh - xp.matmul(A, K), P), Ph) + PhK
            - xp.matmul(xp.matmul(PhK, P), A))


def _pinv_jvp(xp, t, x, out, p):
    A, P, dA = x[0], out, t[0]
    m, n = A.shape[-2:]
    dAh, Ph = mHc(dA), mHc(P)
    if m <= n:
        K = xp.matmul(Ph, dAh)
        return (xp.matmul(P, K - mHc(K) - xp.matmul(K, xp.matmul(A, P)))
                + xp.matmul(dAh - xp.matmul(P, xp.matmul(A, dAh)), xp.matmul(Ph, P)))
    K = xp.matmul(P, dA)
    Kh = mHc(K)
    return (xp.matmul(Kh - K - xp.matmul(xp.matmul(P, A), Kh), P)
            + xp.matmul(xp.matmul(P, Ph), dAh - xp.matmul(xp.matmul(dAh, A), P)))


PINV = defop(
    "linalg_pinv", node="LinalgPinvBackward0", inputs=("self",), saved=("self", "result"),
    complex=AS_WRITTEN,
    fwd=_pinv_fwd, vjp=_pinv_vjp, jvp=_pinv_jvp,
    sample={"cases": lambda rng: [(lambda a: _ja().linalg.pinv(a), [rng.uniform(-1, 1, (4, 3))],
                                   lambda tt, a: tt.linalg.pinv(a))]},
)


# ---------------------------------------------------------------- cholesky_inverse
def _chol_inv_fwd(xp, F, p):
    n = F.shape[-1]
    eye = np.broadcast_to(np.eye(n, dtype=F.dtype), F.shape)
    if p["upper"]:  # (U^H U)^-1 = U^-1 U^-H
        ui = trisolve(xp, F, eye, True)
        return np.matmul(ui, mHc(ui))
    li = trisolve(xp, F, eye, False)  # (L L^H)^-1 = L^-H L^-1
    return np.matmul(mHc(li), li)


def _chol_inv_vjp(xp, g, F, out, p):
    common = xp.matmul(out, xp.matmul(g + mHc(g), out))
    return -xp.matmul(F, common) if p["upper"] else -xp.matmul(common, F)


def _chol_inv_jvp(xp, t, x, out, p):
    F, dF = x[0], t[0]
    # the factor is read from one triangle (as LAPACK's potri): so is its tangent
    dF = xp.triu(dF) if p["upper"] else xp.tril(dF)
    cf, dcf = (F, mHc(dF)) if p["upper"] else (mHc(F), dF)
    part = -xp.matmul(xp.matmul(xp.matmul(out, dcf), cf), out)
    return part + mHc(part)


CHOLESKY_INVERSE = defop(
    "cholesky_inverse", node="CholeskyInverseBackward0", inputs=("self",), saved=("self", "upper", "result"),
    fwd=_chol_inv_fwd, vjp=_chol_inv_vjp, jvp=_chol_inv_jvp, complex=AS_WRITTEN,
    sample={"cases": lambda rng: [(lambda a: _ja().cholesky_inverse(a.tril(-1) + 2 * _ja().eye(3, dtype=a.dtype)),
                                   [rng.uniform(-1, 1, (3, 3))],
                                   lambda tt, a: tt.cholesky_inverse(a.tril(-1) + 2 * tt.eye(3, dtype=a.dtype)))]},
)
