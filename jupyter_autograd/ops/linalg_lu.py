"""LU rows (lu_factor, lu, lu_unpack, lu_solve) and matrix_exp, with torch's derivatives.

NumPy has no LU with partial pivoting: :func:`getrf` is LAPACK's (the first largest pivot
of each column, the column scaled by the pivot's reciprocal), vectorized over the batch."""

from __future__ import annotations

import numpy as np

from .linalg_rows import _api_linalg, _api_shape, _factories, defop, mH, trisolve
from .registry import HOLOMORPHIC


def getrf(a):
    """(LU packed, pivots 1-based int32, info) of a batch of m x n matrices."""
    a = np.array(a, copy=True)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    piv = np.zeros(batch + (k,), np.int32)
    info = np.zeros(batch, np.int32)
    rows = np.arange(m)
    with np.errstate(all="ignore"):
        for j in range(k):
            col = a[..., j:, j]
            # LAPACK's i*amax: |re| + |im| for complex (cabs1), the first largest wins
            mag = np.abs(col.real) + np.abs(col.imag) if a.dtype.kind == "c" else np.abs(col)
            p = np.argmax(mag, axis=-1) + j if m > j else np.zeros(batch, int)
            piv[..., j] = p + 1
            idx = np.broadcast_to(rows, batch + (m,)).copy()
            idx[..., j] = p  # swap rows j and p of each matrix
            np.put_along_axis(idx, p[..., None], j, -1)
            a = np.take_along_axis(a, idx[..., None], axis=-2)
            pivot = a[..., j, j]
            zero = pivot == 0
            info = np.where(zero & (info == 0), j + 1, info)
            scale = np.where(zero, 1.0, 1.0 / np.where(zero, 1.0, pivot))
            a[..., j + 1 :, j] = a[..., j + 1 :, j] * scale[..., None]
            a[..., j + 1 :, j + 1 :] -= a[..., j + 1 :, j : j + 1] * a[..., j : j + 1, j + 1 :]
    return a, piv, info


def perm_of(piv, m):
    """The row permutation the pivots apply: A[perm] = L U."""
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    for i in range(piv.shape[-1]):
        p = piv[..., i].astype(np.int64) - 1
        a = perm[..., i].copy()
        b = np.take_along_axis(perm, p[..., None], -1)[..., 0]
        perm[..., i] = b
        np.put_along_axis(perm, p[..., None], a[..., None], -1)
    return perm


def unpack(LU, piv, dtype):
    """(P, L, U) from a packed factorization (P as a matrix: A = P L U)."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=LU.dtype)
    U = np.triu(LU[..., :k, :])
    perm = perm_of(piv, m)
    P = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(P, perm[..., :, None], 1, -1)  # P^T[i, perm[i]] = 1
    return mH(P), L, U


def _narrow(x, dim, start, length):
    key = [slice(None)] * x.ndim
    key[dim] = slice(start, start + length)
    return x[tuple(key)]


def lu_backward(xp, gL, gU, P, L, U, pivot=True):
    """torch's linalg_lu_backward: A = P L U; gL, gU may be None."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = None
        if gL is not None:
            gA = xp.tril(xp.matmul(mH(L), gL), -1)
        if gU is not None:
            up = xp.triu(xp.matmul(gU, mH(U)), 0)
            gA = up if gA is None else gA + up
        gA = trisolve(xp, mH(U), gA, False, False, False)
        gA = trisolve(xp, mH(L), gA, True, True, True)
    elif m < n:
        U1 = _narrow(U, -1, 0, k)
        gA = None
        if gL is not None:
            gA = xp.matmul(mH(L), gL)
        if gU is not None:
            term = -xp.matmul(xp.triu(gU, 0), mH(U))
            gA = term if gA is None else gA + term
        gA = trisolve(xp, mH(U1), xp.tril(gA, -1), False, False, False)
        if gU is not None:
            gA = xp.concatenate(
                [gA + xp.triu(_narrow(gU, -1, 0, k), 0), _narrow(gU, -1, k, n - k)], axis=-1
            )
        gA = trisolve(xp, mH(L), gA, True, True, True)
        if gU is None:
            gA = xp.concatenate([gA, 0 * _narrow(U, -1, k, n - k)], axis=-1)
    else:
        L1 = _narrow(L, -2, 0, k)
        gA = None
        if gU is not None:
            gA = xp.matmul(gU, mH(U))
        if gL is not None:
            term = -xp.matmul(mH(L), xp.tril(gL, -1))
            gA = term if gA is None else gA + term
        gA = trisolve(xp, mH(L1), xp.triu(gA, 0), True, True, True)
        if gL is not None:
            gA = xp.concatenate(
                [gA + xp.tril(_narrow(gL, -2, 0, k), -1), _narrow(gL, -2, k, m - k)], axis=-2
            )
        gA = trisolve(xp, mH(U), gA, False, False, False)
        if gL is None:
            gA = xp.concatenate([gA, 0 * _narrow(L, -2, k, m - k)], axis=-2)
    return xp.matmul(P, gA) if pivot else gA


def _lu_jvp(xp, dA, P, L, U):
    """torch's linalg_lu_jvp (square): dL = L tril(X, -1), dU = triu(X) U, X = L^-1 P^T dA U^-1."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    PdA = xp.matmul(mH(P), dA)
    L1, U1 = L[..., :k, :], U[..., :, :k]
    X = trisolve(xp, L1, PdA[..., :k, :k], False, True, True)
    X = trisolve(xp, U1, X, True, False)
    dL1 = xp.matmul(L1, xp.tril(X, -1))
    dU1 = xp.matmul(xp.triu(X, 0), U1)
    if m < n:  # the rest of U: L dU2 = (P^T dA)_2 - dL U2
        dU2 = trisolve(xp, L1, PdA[..., :, k:] - xp.matmul(dL1, U[..., :, k:]), False, True, True)
        return dL1, xp.concatenate([dU1, dU2], -1)
    if m > n:  # the rest of L: dL2 U = (P^T dA)_2 - L2 dU
        dL2 = trisolve(xp, U1, PdA[..., k:, :] - xp.matmul(L[..., k:, :], dU1), True, False)
        return xp.concatenate([dL1, dL2], -2), dU1
    return dL1, dU1


def _arrays_only(xp):
    """The LU tangents unpack the factorization with NumPy: under a recorded tangent they
    decline (forward AD then computes them on arrays, without graph)."""
    if xp.is_txp:
        raise NotImplementedError("LU tangents run on arrays")


def _unpacked(p, out_lu):
    P, L, U = unpack(out_lu, p["pivots"], out_lu.dtype)
    return P, L, U


def _lu_factor_vjp(xp, g, A, out, p):
    from ..backend import move_array

    lu = out if not xp.is_txp else move_array(out._data, "cpu")
    P, L, U = _unpacked(p, lu)
    k = min(lu.shape[-2:])
    if xp.is_txp:  # L and U read from the recorded result, so second order reaches A
        m = lu.shape[-2]
        P = _factories().tensor(P, device=out.device)
        L = xp.tril(out[..., :, :k], -1) + _factories().tensor(
            np.eye(m, k, dtype=lu.dtype), device=out.device
        )
        U = xp.triu(out[..., :k, :])
    return lu_backward(xp, _narrow(g, -1, 0, k), _narrow(g, -2, 0, k), P, L, U, p["pivot"])


def _lu_factor_jvp(xp, t, x, out, p):
    _arrays_only(xp)
    P, L, U = _unpacked(p, out)
    dL, dU = _lu_jvp(xp, t[0], P, L, U)
    m, n = out.shape[-2:]
    dL = xp.tril(dL, -1)
    if m < n:  # packed: L's strict lower part and U in one m x n matrix
        dL = xp.concatenate([dL, xp.zeros(dL.shape[:-1] + (n - m,), dL.dtype)], -1)
    elif m > n:
        dU = xp.concatenate([dU, xp.zeros(dU.shape[:-2] + (m - n, n), dU.dtype)], -2)
    return dL + dU


LU_FACTOR = defop(
    "linalg_lu_factor_ex",
    node="LinalgLuFactorExBackward0",
    inputs=("A",),
    saved=("LU:result", "pivot", "pivots"),
    saved_outputs=("pivots",),
    complex=HOLOMORPHIC,
    fwd=lambda xp, A, p: p["LU"].copy(),
    vjp=_lu_factor_vjp,
    jvp=_lu_factor_jvp,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (3, 3))], lambda tt, a: tt.linalg.lu_factor(a)[0])
        ]
    },
)


def _lu_vjp(xp, g, A, out, p):
    _, gL, gU = g
    P, L, U = out
    return lu_backward(xp, gL, gU, P, L, U, p["pivot"])


def _lu_jvp_row(xp, t, x, out, p):
    _arrays_only(xp)
    P, L, U = out
    dL, dU = _lu_jvp(xp, t[0], P, L, U)
    return 0 * P, dL, dU


LU = defop(
    "linalg_lu",
    node="LinalgLuBackward0",
    inputs=("A",),
    saved=("L:result.1", "P:result.0", "U:result.2", "pivot"),
    complex=HOLOMORPHIC,
    fwd=lambda xp, A, p: tuple(a.copy() for a in p["PLU"]),
    vjp=_lu_vjp,
    jvp=_lu_jvp_row,
    n_out=-1,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (3, 4))], lambda tt, a: tt.linalg.lu(a)[2])
        ]
    },
)


def _lu_unpack_vjp(xp, g, LU_, out, p):
    _, gL, gU = g
    m, n = p["shape"]
    k = min(m, n)
    if m == n:
        return xp.tril(gL, -1) + xp.triu(gU, 0)
    a1 = xp.tril(_narrow(gL, -2, 0, k), -1) + xp.triu(_narrow(gU, -1, 0, k), 0)
    a2 = _narrow(gL, -2, k, m - k) if m > n else _narrow(gU, -1, k, n - k)
    return xp.concatenate([a1, a2], axis=-2 if m > n else -1)


LU_UNPACK = defop(
    "lu_unpack",
    node="LuUnpackBackward0",
    inputs=("LU_data",),
    saved=("LU_data_sym_argsize_minus_1",),
    complex=HOLOMORPHIC,
    fwd=lambda xp, LU_, p: unpack(LU_, p["pivots"], LU_.dtype),
    vjp=_lu_unpack_vjp,
    jvp=lambda xp, t, x, out, p: (
        0 * out[0],
        xp.tril(_narrow(t[0], -1, 0, out[1].shape[-1]), -1),
        xp.triu(_narrow(t[0], -2, 0, out[2].shape[-2]), 0),
    ),
    n_out=-1,
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (3, 3))],
                lambda tt, a: tt.lu_unpack(*tt.linalg.lu_factor(a))[1],
            )
        ]
    },
)


def lu_solve_arrays(xp, LU_, piv, B, left, adjoint):
    """X for A X = B (left) or X A = B, A = P L U packed in LU_ (or its adjoint)."""
    from ..backend import move_array

    P, L, U = unpack(
        LU_ if not xp.is_txp else move_array(LU_._data, "cpu"),
        piv,
        B._data.dtype if xp.is_txp else B.dtype,
    )
    if xp.is_txp:
        P = _factories().tensor(P, device=LU_.device)
        L = _api_shape().tril(LU_, -1) + _factories().eye(
            LU_.shape[-1], dtype=LU_.dtype, device=LU_.device
        )
        U = _api_shape().triu(LU_)
    if left and not adjoint:  # L U X = P^T B
        return trisolve(xp, U, trisolve(xp, L, xp.matmul(mH(P), B), False, True, True), True)
    if left:  # U^H L^H P^T X = B
        return xp.matmul(P, trisolve(xp, mH(L), trisolve(xp, mH(U), B, False), True, True, True))
    if not adjoint:  # X P L U = B
        return xp.matmul(
            trisolve(xp, L, trisolve(xp, U, B, True, False), False, False, True), mH(P)
        )
    # X U^H L^H P^T = B
    return trisolve(
        xp, mH(U), trisolve(xp, mH(L), xp.matmul(B, P), True, False, True), False, False
    )


def _lu_solve_LU(xp, gX, LU_, X, p):
    """torch's linalg_lu_solve_LU (the gradient with respect to the packed factors)."""
    left, adjoint = p["left"], p["adjoint"]
    from ..backend import move_array

    lu = LU_ if not xp.is_txp else move_array(LU_._data, "cpu")
    P, _, _ = unpack(lu, p["pivots"], lu.dtype)
    if xp.is_txp:
        P = _factories().tensor(P, device=LU_.device)
        L = xp.tril(LU_, -1) + _factories().eye(LU_.shape[-1], dtype=LU_.dtype, device=LU_.device)
    else:
        L = xp.tril(LU_, -1) + np.eye(LU_.shape[-1], dtype=lu.dtype)
    U = xp.triu(LU_)
    if left != adjoint:
        rhs = -xp.matmul(gX if left else mH(gX), mH(X) if left else X)
        gR = trisolve(xp, mH(U), rhs, False, True)
        gL = xp.tril(trisolve(xp, mH(L), xp.matmul(gR, mH(U)), True, True, True), -1)
        return gL + xp.triu(gR, 0)
    gR = -xp.matmul(xp.matmul(xp.matmul(mH(P), X if left else mH(X)), mH(gX) if left else gX), P)
    gR = trisolve(xp, mH(L), gR, True, False, True)
    gU = xp.triu(trisolve(xp, mH(U), xp.matmul(mH(L), gR), False, False), 0)
    return xp.tril(gR, -1) + gU


LU_SOLVE = defop(
    "linalg_lu_solve",
    node="LinalgLuSolveBackward0",
    inputs=("LU", "B"),
    saved=("LU", "adjoint", "left", "pivots", "result"),
    complex=HOLOMORPHIC,
    fwd=lambda xp, LU_, B, p: lu_solve_arrays(xp, LU_, p["pivots"], B, p["left"], p["adjoint"]),
    vjp=(
        lambda xp, g, LU_, B, out, p: _lu_solve_LU(xp, g, LU_, out, p),
        lambda xp, g, LU_, B, out, p: lu_solve_arrays(
            xp, LU_, p["pivots"], g, p["left"], not p["adjoint"]
        ),
    ),
    jvp=lambda xp, t, x, out, p: _lu_solve_jvp(xp, t, x, out, p),
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3), rng.uniform(-1, 1, (3, 2))],
                lambda tt, a, b: tt.linalg.lu_solve(*tt.linalg.lu_factor(a), b),
            )
        ]
    },
)


def _lu_solve_jvp(xp, t, x, out, p):
    _arrays_only(xp)
    # X = A^-1 B with A = P L U: dX = A^-1 (dB - dA X), dA = P (dL U + L dU) from the packed tangent
    LU_ = x[0]
    P, L, U = unpack(LU_, p["pivots"], LU_.dtype)
    dL, dU = xp.tril(t[0], -1), xp.triu(t[0])
    dA = xp.matmul(P, xp.matmul(dL, U) + xp.matmul(L, dU))
    left, adj = p["left"], p["adjoint"]
    if adj:
        dA = mH(dA)
    rhs = t[1] - (xp.matmul(dA, out) if left else xp.matmul(out, dA))
    return lu_solve_arrays(xp, LU_, p["pivots"], rhs, left, adj)


# ---------------------------------------------------------------- matrix_exp
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)


def expm(a):
    """exp of a batch of square matrices: Pade 13 with scaling and squaring (Higham 2005)."""
    out = np.empty_like(a)
    n = a.shape[-1]
    b = _PADE13
    ident = np.eye(n, dtype=a.dtype)
    for idx in np.ndindex(a.shape[:-2]):
        A = a[idx].astype(np.float64 if a.dtype.kind == "f" else np.complex128)
        norm = np.abs(A).sum(0).max() if n else 0.0
        s = (
            max(0, int(np.ceil(np.log2(norm / 5.371920351148152))))
            if norm > 5.371920351148152
            else 0
        )
        A = A / 2.0**s
        A2 = A @ A
        A4 = A2 @ A2
        A6 = A4 @ A2
        U = A @ (
            A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2)
            + b[7] * A6
            + b[5] * A4
            + b[3] * A2
            + b[1] * ident
        )
        V = (
            A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2)
            + b[6] * A6
            + b[4] * A4
            + b[2] * A2
            + b[0] * ident
        )
        R = np.linalg.solve(V - U, V + U)
        for _ in range(s):
            R = R @ R
        out[idx] = R
    return out


def _block_exp(xp, A, G):
    """The upper-right block of exp([[A, G], [0, A]]): the Frechet derivative of exp at A along G."""
    if xp.is_txp:
        z = 0 * A
        big = xp.concatenate(
            [xp.concatenate([A, G], axis=-1), xp.concatenate([z, A], axis=-1)], axis=-2
        )
        e = _api_linalg().matrix_exp(big)
    else:
        top = np.concatenate([A, G], -1)
        big = np.concatenate([top, np.concatenate([np.zeros_like(A), A], -1)], -2)
        e = expm(big)
    n = A.shape[-1]
    return e[..., :n, n:]


MATRIX_EXP = defop(
    "linalg_matrix_exp",
    node="LinalgMatrixExpBackward0",
    inputs=("self",),
    saved=("self",),
    complex=HOLOMORPHIC,
    fwd=lambda xp, A, p: expm(A),
    vjp=lambda xp, g, A, out, p: _block_exp(xp, mH(A), g),
    jvp=lambda xp, t, x, out, p: _block_exp(xp, x[0], t[0]),
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-1, 1, (3, 3))], lambda tt, a: tt.linalg.matrix_exp(a))
        ]
    },
)
