"""Linear-algebra rows of the decompositions and what is built on them: eigh, svd, qr, pinv (from
the SVD) and cholesky_inverse (from a Cholesky factor), with torch's derivatives (FunctionsManual's
linalg_eig_backward, svd_backward/svd_jvp, linalg_qr_backward/_jvp, pinv_backward...).

The rows are declared through :func:`.linalg_rows.defop` (forwards and rules on the host) and
its helpers on arrays or Tensors; the inverse/determinant/solve/cholesky rows live there."""

from __future__ import annotations

import numpy as np

from .linalg_rows import (
    _diag_embed,
    _diagonal,
    _expand,
    _eye_like,
    _real_dtype,
    defop,
    mHc,
    trisolve,
)
from .registry import AS_WRITTEN


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
    "_linalg_eigh",
    node="LinalgEighBackward0",
    inputs=("A",),
    saved=("eigenvalues:result.0", "eigenvectors:result.1"),
    fwd=_eigh_fwd,
    vjp=_eigh_vjp,
    jvp=_eigh_jvp,
    n_out=-1,
    complex=AS_WRITTEN,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (3, 3))], lambda tt, a: tt.linalg.eigh(a + a.mH)[0])
        ]
    },
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
    "_linalg_svd",
    node="LinalgSvdBackward0",
    inputs=("A",),
    saved=("S:result.1", "U:result.0", "Vh:result.2", "full_matrices"),
    fwd=_svd_fwd,
    vjp=_svd_vjp,
    jvp=_svd_jvp,
    n_out=-1,
    complex=AS_WRITTEN,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (4, 3))], lambda tt, a: tt.linalg.svdvals(a))
        ]
    },
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
            "linalg.qr."
        )
    m, n = Q.shape[-2], R.shape[-1]
    if p["mode"] == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
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
    gA = xp.concatenate(
        [gA, xp.zeros(R.shape[:-1] + (n - m,), dtype=R.dtype) if not xp.is_txp else 0 * R[..., m:]],
        axis=-1,
    )
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
    "linalg_qr",
    node="LinalgQrBackward0",
    inputs=("A",),
    saved=("Q:result.0", "R:result.1", "mode"),
    fwd=_qr_fwd,
    vjp=_qr_vjp,
    jvp=_qr_jvp,
    n_out=-1,
    complex=AS_WRITTEN,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (4, 3))], lambda tt, a: tt.linalg.qr(a)[1])
        ]
    },
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
    smax = (
        absw.max(-1, keepdims=True) if absw.shape[-1] else np.zeros(absw.shape[:-1] + (1,), A.dtype)
    )
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
        return (
            -mHc(xp.matmul(P, K))
            + KPh
            - xp.matmul(xp.matmul(A, P), KPh)
            + xp.matmul(xp.matmul(Ph, P), gh - xp.matmul(K, A))
        )
    K = xp.matmul(P, gh)
    PhK = xp.matmul(Ph, K)
    return (
        -mHc(xp.matmul(K, P))
        + xp.matmul(xp.matmul(gh - xp.matmul(A, K), P), Ph)
        + PhK
        - xp.matmul(xp.matmul(PhK, P), A)
    )


def _pinv_jvp(xp, t, x, out, p):
    A, P, dA = x[0], out, t[0]
    m, n = A.shape[-2:]
    dAh, Ph = mHc(dA), mHc(P)
    if m <= n:
        K = xp.matmul(Ph, dAh)
        return xp.matmul(P, K - mHc(K) - xp.matmul(K, xp.matmul(A, P))) + xp.matmul(
            dAh - xp.matmul(P, xp.matmul(A, dAh)), xp.matmul(Ph, P)
        )
    K = xp.matmul(P, dA)
    Kh = mHc(K)
    return xp.matmul(Kh - K - xp.matmul(xp.matmul(P, A), Kh), P) + xp.matmul(
        xp.matmul(P, Ph), dAh - xp.matmul(xp.matmul(dAh, A), P)
    )


PINV = defop(
    "linalg_pinv",
    node="LinalgPinvBackward0",
    inputs=("self",),
    saved=("self", "result"),
    complex=AS_WRITTEN,
    fwd=_pinv_fwd,
    vjp=_pinv_vjp,
    jvp=_pinv_jvp,
    sample={
        "cases": lambda rng: [(None, [rng.uniform(-1, 1, (4, 3))], lambda tt, a: tt.linalg.pinv(a))]
    },
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
    "cholesky_inverse",
    node="CholeskyInverseBackward0",
    inputs=("self",),
    saved=("self", "upper", "result"),
    fwd=_chol_inv_fwd,
    vjp=_chol_inv_vjp,
    jvp=_chol_inv_jvp,
    complex=AS_WRITTEN,
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (3, 3))],
                lambda tt, a: tt.cholesky_inverse(a.tril(-1) + 2 * tt.eye(3, dtype=a.dtype)),
            )
        ]
    },
)
