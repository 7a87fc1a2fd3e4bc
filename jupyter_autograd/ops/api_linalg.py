"""The decompositions and solvers of ``torch.linalg`` (and their ``torch.*`` forms: inverse,
det, logdet, slogdet, cholesky, svd, qr, lu...), with torch's argument checks and errors;
each applies a row of ``ops/linalg_rows.py`` / ``ops/linalg_decomp.py`` / ``ops/linalg_lu.py`` or
composes them."""

from __future__ import annotations

import numpy as np

from .. import factories as FA
from ..backend import move_array
from ..tensor import Tensor
from . import api as AP
from . import linalg_decomp as LD
from . import linalg_lu as LL
from . import linalg_rows as LR
from .api_math import promote
from .api_matmul import scalar_type
from .dispatch import apply, apply1
from .rtypes import return_type


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix function failed on its input (singular...)."""


def _check_square(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )


def _check_float(A, name):
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype._legacy[:-6]}"
        )


def _matrix(A, name, square=True):
    _check_float(A, name)
    if square:
        _check_square(A, name)
    elif A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    return A


def _host(t):
    return t._data if t._data.__class__ is np.ndarray else move_array(t._data, "cpu")


def _on(a, like):
    """A host result as a tensor on ``like``'s device."""
    return Tensor._wrap(move_array(np.asarray(a), like.device))


def _info_zeros(A):
    return Tensor._wrap(np.zeros(A.shape[:-2], np.int32))


# ---------------------------------------------------------------- inverse and determinants
def inv_ex(A, *, check_errors=False):
    _matrix(A, "linalg.inv")
    try:
        r = apply1(LR.INV, A)
        info = _info_zeros(A)
    except np.linalg.LinAlgError:
        if check_errors:
            raise LinAlgError(
                "linalg.inv: The diagonal element 1 is zero, the inversion could not be "
                "completed because the input matrix is singular."
            ) from None
        r = Tensor._wrap(np.full(A._data.shape, np.nan, A._data.dtype))
        info = Tensor._wrap(np.ones(A.shape[:-2], np.int32))
    return return_type("linalg_inv_ex", ("inverse", "info"))(r, info)


def inv(A, *, out=None) -> Tensor:
    """The inverse of a batch of square matrices (LinalgInvExBackward0)."""
    _matrix(A, "linalg.inv")
    try:
        return apply1(LR.INV, A)
    except np.linalg.LinAlgError:  # LAPACK found a zero pivot (the message names it, as torch)
        _, _, info = LL.getrf(_host(A))
        k = int(info[info > 0].flat[0]) if (info > 0).any() else A.shape[-1]
        raise LinAlgError(
            f"linalg.inv: The diagonal element {k} is zero, the inversion could not be completed "
            "because the input matrix is singular."
        ) from None


def det(A, *, out=None) -> Tensor:
    """The determinant (LinalgDetBackward0; singular matrices differentiate through the SVD)."""
    return apply1(LR.DET, _matrix(A, "linalg.det"), {})  # a dict: the LU for hooks goes in it


def slogdet(A, *, out=None):
    """``(sign, log|det|)`` (LinalgSlogdetBackward0)."""
    s, l = apply(LR.SLOGDET, (_matrix(A, "linalg.slogdet"),), {})
    return return_type("slogdet", ("sign", "logabsdet"))(s, l)


def logdet(input) -> Tensor:
    """``log(det)``: NaN for a negative determinant, -inf for a singular matrix."""
    s, l = slogdet(input)
    return AP.add(l, AP.log(s))  # log(sign): 0, NaN for a negative, -inf for a zero determinant


# ---------------------------------------------------------------- solvers
def _is_vector_rhs(a, b):
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))


def solve_ex(A, B, *, left=True, check_errors=False):
    r = solve(A, B, left=left)
    return return_type("linalg_solve_ex", ("result", "info"))(r, _info_zeros(A))


def solve(A, B, *, left=True, out=None) -> Tensor:
    """X with ``A X = B`` (``X A = B`` when ``left=False``); B may be a vector (LinalgSolveExBackward0)."""
    a, b = promote(A, B)
    _matrix(a, "linalg.solve")
    vec = left and _is_vector_rhs(a, b)
    try:
        return apply(LR.SOLVE, (a, b), {"left": left, "vector": vec})
    except np.linalg.LinAlgError:
        raise LinAlgError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        ) from None


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None) -> Tensor:
    """X with ``A X = B`` (or ``X A = B``) for a triangular A (only its triangle is read)."""
    a, b = promote(A, B)
    return apply(
        LR.SOLVE_TRIANGULAR, (a, b), {"upper": upper, "left": left, "unitriangular": unitriangular}
    )


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Legacy ``torch.triangular_solve``: (solution of ``op(A) X = b``, a copy of A)."""
    a = A.mT if transpose else A
    x = solve_triangular(a, b, upper=upper != transpose, unitriangular=unitriangular)
    return return_type("triangular_solve", ("solution", "cloned_coefficient"))(x, A.clone())


# ---------------------------------------------------------------- cholesky
def _cholesky_info(a):
    n = a.shape[-1]
    for k in range(1, n + 1):
        if (np.linalg.eigvalsh(a[..., :k, :k]).min(-1) <= 0).any():
            return k
    return 0


def cholesky_ex(A, *, upper=False, check_errors=False):
    _matrix(A, "linalg.cholesky")
    try:
        L = apply1(LR.CHOLESKY, A, {"upper": upper})
        info = _info_zeros(A)
    except np.linalg.LinAlgError:
        if check_errors:
            raise
        L = Tensor._wrap(np.zeros_like(A._data))
        info = Tensor._wrap(np.full(A.shape[:-2], _cholesky_info(A._data), np.int32))
    return return_type("linalg_cholesky_ex", ("L", "info"))(L, info)


def cholesky(A, *, upper=False, out=None) -> Tensor:
    """The Cholesky factor of a batch of positive-definite matrices (lower by default)."""
    _matrix(A, "linalg.cholesky")
    try:
        return apply1(LR.CHOLESKY, A, {"upper": upper})
    except np.linalg.LinAlgError:
        k = _cholesky_info(A._data)
        raise LinAlgError(
            "linalg.cholesky: The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {k} is not positive-definite)."
        ) from None


def cholesky_legacy(input, upper=False) -> Tensor:
    """``torch.cholesky`` (deprecated in torch): the factor of ``input``."""
    return cholesky(input, upper=upper)


def cholesky_solve(B, L, upper=False) -> Tensor:
    """X with ``(L L^H) X = B`` for a Cholesky factor L."""
    y = (
        solve_triangular(L, B, upper=upper, left=True)
        if not upper
        else solve_triangular(L.mT, B, upper=False)
    )
    return (
        solve_triangular(L.mT, y, upper=True) if not upper else solve_triangular(L, y, upper=True)
    )


def cholesky_inverse(L, upper=False) -> Tensor:
    """``(L L^H)^-1`` from its Cholesky factor (CholeskyInverseBackward0)."""
    if L.ndim < 2:
        raise RuntimeError(
            "cholesky_inverse: The input tensor input must have at least 2 dimensions."
        )
    return apply1(LD.CHOLESKY_INVERSE, L, {"upper": upper})


# ---------------------------------------------------------------- eigen and singular values
def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix."""
    _matrix(A, "linalg.eigh")
    w, v = apply(LD.EIGH, (A,), {"UPLO": UPLO})
    return return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))(w, v)


def eigvalsh(A, UPLO="L", *, out=None) -> Tensor:
    return eigh(A, UPLO).eigenvalues


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``A = U diag(S) Vh`` (LinalgSvdBackward0)."""
    _matrix(A, "linalg.svd", square=False)
    u, s, vh = apply(LD.SVD, (A,), {"full_matrices": full_matrices})
    return return_type("linalg_svd", ("U", "S", "Vh"))(u, s, vh)


def svdvals(A, *, driver=None, out=None) -> Tensor:
    return svd(A, full_matrices=False).S


def svd_legacy(input, some=True, compute_uv=True):
    """``torch.svd``: (U, S, V) with V (not Vh); zeros for U, V without ``compute_uv``."""
    u, s, vh = svd(input, full_matrices=not some)
    if not compute_uv:
        z = lambda n: Tensor._wrap(
            np.zeros(input.shape[:-2] + (input.shape[-2 if n else -1],) * 2, input._data.dtype)
        )
        return return_type("svd", ("U", "S", "V"))(z(1), s.detach(), z(0))
    return return_type("svd", ("U", "S", "V"))(u, s, vh.mT)


def qr(A, mode="reduced", *, out=None):
    """``A = Q R`` (LinalgQrBackward0); mode 'reduced', 'complete' or 'r'."""
    _matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
            "(default), 'r', or 'complete'"
        )
    q, r = apply(LD.QR, (A,), {"mode": mode})
    return return_type("linalg_qr", ("Q", "R"))(q, r)


def qr_legacy(input, some=True):
    q, r = qr(input, "reduced" if some else "complete")
    return return_type("qr", ("Q", "R"))(q, r)


def eig(A, *, out=None):
    """Eigenvalues and eigenvectors of a general matrix, as complex tensors (no gradient yet
    through complex outputs of real inputs)."""
    _matrix(A, "linalg.eig")
    w, v = np.linalg.eig(A._data)
    ct = np.complex128 if A._data.dtype in (np.float64, np.complex128) else np.complex64
    return return_type("linalg_eig", ("eigenvalues", "eigenvectors"))(
        Tensor._wrap(w.astype(ct)), Tensor._wrap(v.astype(ct))
    )


def eigvals(A, *, out=None) -> Tensor:
    return eig(A).eigenvalues


# ---------------------------------------------------------------- LU
def _lu_parts(A):
    return LL.getrf(_host(A))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: LAPACK's packed factorization with partial pivoting."""
    _matrix(A, "linalg.lu_factor", square=False)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = _lu_parts(A)
    LU_ = apply1(LL.LU_FACTOR, A, {"LU": lu, "pivots": piv, "pivot": pivot})
    return return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))(
        LU_, _on(piv, A), _on(info, A)
    )


def lu_factor(A, *, pivot=True, out=None):
    LU_, piv, _ = lu_factor_ex(A, pivot=pivot)
    return return_type("linalg_lu_factor", ("LU", "pivots"))(LU_, piv)


def lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U`` (LinalgLuBackward0)."""
    _matrix(A, "linalg.lu", square=False)
    lu_, piv, _ = _lu_parts(A)
    P, L, U = LL.unpack(lu_, piv, lu_.dtype)
    outs = apply(LL.LU, (A,), {"PLU": (P, L, U), "pivot": pivot})
    return return_type("linalg_lu", ("P", "L", "U"))(*outs)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from a packed LU factorization."""
    outs = apply(
        LL.LU_UNPACK, (LU_data,), {"pivots": _host(LU_pivots), "shape": tuple(LU_data.shape[-2:])}
    )
    return return_type("lu_unpack", ("P", "L", "U"))(*outs)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None) -> Tensor:
    """X with ``A X = B`` from A's packed LU factorization (``X A = B``, ``A^H`` as asked)."""
    lu_, b = promote(LU, B)
    return apply(LL.LU_SOLVE, (lu_, b), {"pivots": _host(pivots), "left": left, "adjoint": adjoint})


def lu_solve_legacy(b, LU_data, LU_pivots) -> Tensor:
    return lu_solve(LU_data, LU_pivots, b)


def lu_legacy(A, pivot=True, get_infos=False, out=None):
    """``torch.lu``: (LU, pivots[, infos])."""
    LU_, piv, info = lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return return_type("_lu_with_info", ("LU", "pivots", "info"))(LU_, piv, info)
    return LU_, piv


def matrix_exp(A) -> Tensor:
    """``exp(A)`` of square matrices (LinalgMatrixExpBackward0)."""
    _check_square(A, "linalg.matrix_exp")
    return apply1(LL.MATRIX_EXP, A)


# ---------------------------------------------------------------- composed
def matrix_power(A, n) -> Tensor:
    """``A ** n`` by repeated squaring, as torch (``inv(A) ** -n`` for negative n)."""
    _check_square(A, "linalg.matrix_power")
    if n == 0:  # the identity, with a (zero) gradient to A as torch's copy_
        return AP.mul(A, 0) + _eye_like(A)
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    if n == 2:
        return AP.matmul(A, A)
    if n == 3:
        return AP.matmul(AP.matmul(A, A), A)
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = A if z is None else z.matmul(z)
        if bit:
            result = z if result is None else result.matmul(z)
    return result


def _eye_like(A):
    return Tensor._wrap(
        np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A._data.shape).copy()
    )


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None) -> Tensor:
    """The pseudo-inverse, singular values (eigenvalues when ``hermitian``) at or below
    ``max(atol, rtol * largest)`` dropped (LinalgPinvBackward0)."""
    if A._data.ndim < 2 or A._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"linalg.pinv({scalar_type(A)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    _check_float(A, "linalg.pinv")
    arr = lambda t: t._data[..., None] if isinstance(t, Tensor) else t
    return apply1(LD.PINV, A, {"atol": arr(atol), "rtol": arr(rtol), "hermitian": hermitian})


def pinverse(input, rcond=1e-15) -> Tensor:
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None) -> Tensor:
    """The number of singular values above the tolerance (int64, no gradient)."""
    s = (
        np.linalg.svd(A._data, compute_uv=False)
        if not hermitian
        else np.abs(np.linalg.eigvalsh(A._data))
    )
    smax = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    a = (
        tol
        if tol is not None
        else (
            0.0 if atol is None else (atol._data[..., None] if isinstance(atol, Tensor) else atol)
        )
    )
    if rtol is None:
        r = (
            np.finfo(s.dtype).eps * max(A.shape[-2:])
            if (atol is None and tol is None) or np.all(a == 0)
            else 0.0
        )
    else:
        r = rtol._data[..., None] if isinstance(rtol, Tensor) else rtol
    return Tensor._wrap(np.asarray((s > np.maximum(a, r * smax)).sum(-1), dtype=np.int64))


def geqrf(input):
    """LAPACK's QR in Householder form: (a, tau), R above the diagonal and the reflectors below."""
    a = input._data
    outs_a, outs_t = np.empty_like(a), np.empty(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)
    for idx in np.ndindex(a.shape[:-2]):
        h, tau = np.linalg.qr(a[idx], mode="raw")
        outs_a[idx], outs_t[idx] = h.T, tau
    return return_type("geqrf", ("a", "tau"))(Tensor._wrap(outs_a), Tensor._wrap(outs_t))


def householder_product(input, tau, *, out=None) -> Tensor:
    """The first n columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` below
    the input's diagonal (a unit on it): composed from products, so it differentiates in both."""
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    lower = input.tril(-1) + _eye_mn(input, m, n)
    q = _eye_mn(input, m, n) + AP.mul(input, 0)  # the result depends on the input, as torch's
    for i in range(k - 1, -1, -1):
        v = lower[..., :, i : i + 1]
        t = AP.unsqueeze(AP.unsqueeze(tau[..., i], -1), -1)
        q = q - AP.mul(t, AP.matmul(v, AP.matmul(v.mT, q)))
    return q


def _eye_mn(A, m, n):
    return Tensor._wrap(
        np.broadcast_to(np.eye(m, n, dtype=A._data.dtype), A._data.shape[:-2] + (m, n)).copy()
    )


def ormqr(input, tau, other, left=True, transpose=False) -> Tensor:
    """``Q @ other`` (or ``other @ Q``, ``Q^H``) for the Q of a geqrf factorization."""
    m = input.shape[-2]
    full = (
        AP.cat(
            [input, FA.zeros(tuple(input.shape[:-1]) + (m - input.shape[-1],), dtype=input.dtype)],
            -1,
        )
        if input.shape[-1] < m
        else input[..., :, :m]
    )
    q = householder_product(full, tau)
    q = q.mT if transpose else q
    return AP.matmul(q, other) if left else AP.matmul(other, q)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """'fro', 'nuc', inf/-inf (largest/smallest row sum), 1/-1 (column sums), 2/-2 (largest/
    smallest singular value) of the matrices over ``dim``."""
    from .api_shape import movedim

    _A = AP

    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d0, d1 = (d % A.ndim for d in dim)
    if ord == "fro":
        return AP._vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        m = movedim(A, (d0, d1), (-2, -1))
        s = svdvals(m)
        r = _A.sum(s, -1) if ord == "nuc" else (_A.amax(s, -1) if ord == 2 else _A.amin(s, -1))
        if keepdim:
            r = _A.unsqueeze(_A.unsqueeze(r, min(d0, d1)), max(d0, d1))
        return r
    if ord in (float("inf"), float("-inf"), 1, -1):
        red, other = (d1, d0) if ord in (float("inf"), float("-inf")) else (d0, d1)
        sums = _A.sum(_A.abs(A), red, keepdim=True)
        r = _A.amax(sums, other, keepdim=True) if ord > 0 else _A.amin(sums, other, keepdim=True)
        return r if keepdim else _A.squeeze(r, (d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None) -> Tensor:
    """``torch.norm``: the vector p-norm, or a matrix norm for 'nuc' (and 'fro' over two dims)."""
    if isinstance(p, str) and (
        p == "nuc" or (dim is not None and not isinstance(dim, int) and len(dim) == 2)
    ):
        return matrix_norm(
            input if dtype is None else input.to(dtype),
            p,
            (-2, -1) if dim is None else dim,
            keepdim,
        )
    return AP.norm(input, p, dim, keepdim, dtype)


#: the torch.* (and Tensor method) names of these functions
TOP = {
    "inverse": inv,
    "det": det,
    "logdet": logdet,
    "slogdet": slogdet,
    "cholesky": cholesky_legacy,
    "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse,
    "svd": svd_legacy,
    "qr": qr_legacy,
    "lu": lu_legacy,
    "lu_solve": lu_solve_legacy,
    "lu_unpack": lu_unpack,
    "triangular_solve": triangular_solve,
    "matrix_exp": matrix_exp,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "geqrf": geqrf,
    "ormqr": ormqr,
    "orgqr": householder_product,
    "norm": norm,
}
