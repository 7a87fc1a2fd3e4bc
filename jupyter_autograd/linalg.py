"""``torch.linalg``: norms, products, decompositions and solvers, with torch's signatures
(rows in ``ops/linalg_*.py``).

Example:
    >>> import jupyter_autograd as torch
    >>> torch.linalg.vector_norm(torch.tensor([3.0, 4.0]))
    tensor(5.)
"""

from __future__ import annotations

from .ops.api import _vector_norm, matmul  # noqa: F401
from .ops.api_products import linalg_cross as cross  # noqa: F401
from .ops.api_products import multi_dot  # noqa: F401
from .ops.api_shape import diagonal as _diagonal


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``linalg.vector_norm``: ord 0 (nonzero count), +-inf (max/min |x|) or any p.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.linalg.vector_norm(torch.tensor([3., -4.]), float("inf"))
        tensor(4.)
    """
    if dtype is not None:
        x = x.to(dtype)
    return _vector_norm(x, ord, dim, keepdim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of a batch of matrices (``diagonal`` over the last two dims)."""
    return _diagonal(A, offset, dim1, dim2)


def vecdot(x, y, *, dim=-1):
    """``sum(conj(x) * y)`` over ``dim`` (broadcasting)."""
    from .ops import api as _A

    return _A.sum(_A.mul(x.conj() if x.is_complex() else x, y), dim)


from .ops.api_linalg import (  # noqa: F401
    LinAlgError,
    cholesky,
    cholesky_ex,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    householder_product,
    inv,
    inv_ex,
    lu,
    lu_factor,
    lu_factor_ex,
    lu_solve,
    matrix_exp,
    matrix_norm,
    matrix_power,
    matrix_rank,
    pinv,
    qr,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
    svd,
    svdvals,
)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector norm (1-D, or ``dim`` an int) or a matrix norm (2-D, or two dims); the 2-norm of
    the flattened tensor by default."""
    if dtype is not None:
        A = A.to(dtype)
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and A.ndim == 2):
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim)
    if dim is None and A.ndim != 1:
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D."
        )
    return vector_norm(A, ord, dim, keepdim)


def cond(A, p=None, *, out=None):
    """The condition number: ratio of extreme singular values (p None, 2, -2) or
    ``norm(A, p) * norm(inv(A), p)``."""
    from .ops import api as _A

    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = _A.amax(s, -1), _A.amin(s, -1)
        return _A.div(big, small) if p in (None, 2) else _A.div(small, big)
    return _A.mul(matrix_norm(A, p), matrix_norm(inv(A), p))


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution (pinv(A) B, LinalgLstsq as torch's gelsy: rank, empty
    residuals and singular values; gelsd/gelss also give those)."""
    import numpy as np

    from .ops import api as _A
    from .ops.rtypes import return_type

    vec = B.ndim == A.ndim - 1
    b = _A.unsqueeze(B, -1) if vec else B
    x = _A.matmul(pinv(A), b)
    x = _A.squeeze(x, -1) if vec else x
    m, n = A.shape[-2:]
    rank = matrix_rank(A)
    drv = driver or "gelsy"
    empty = _A.mul(_A.reshape(x, (-1,))[:0], 0)  # torch's empty residuals are still in the graph
    none = _A.Tensor._wrap(np.zeros((0,), A._data.dtype))
    sv = svdvals(A).detach() if drv in ("gelsd", "gelss") else none
    # every driver but gelsy returns the squared residuals of a tall full-rank system
    if drv != "gelsy" and m > n and bool((rank._data == n).all()):
        r = _A.sub(_A.matmul(A, _A.unsqueeze(x, -1) if vec else x), b)
        res = _A.sum(_A.mul(r, r), -2)
        res = _A.squeeze(res, -1) if vec else res
    else:
        res = empty
    if drv == "gels":
        rank = _A.Tensor._wrap(np.zeros((0,), np.int64))
    return return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))(
        x, res, rank, sv
    )


def tensorinv(A, ind=2, *, out=None):
    """The tensor T with ``tensordot(T, A, ind) = I``: an inverse of A seen as a matrix."""
    from .ops import api as _A

    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows = 1
    for s in A.shape[:ind]:
        rows *= s
    return _A.reshape(inv(_A.reshape(A, (rows, -1))), out_shape)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with ``tensordot(A, X, X.ndim) = B``."""
    from .ops import api as _A
    from .ops.api_shape import movedim

    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = movedim(A, dims, list(range(A.ndim - len(dims), A.ndim)))
    x_shape = tuple(A.shape[B.ndim :])
    n = 1
    for s in x_shape:
        n *= s
    x = solve(_A.reshape(A, (-1, n)), _A.reshape(B, (-1,)))
    return _A.reshape(x, x_shape)


def vander(x, N=None):
    """The Vandermonde matrix ``[1, x, x^2, ..., x^(N-1)]`` along a new last dim (cumprod, as torch)."""
    from .ops import api as _A
    from .ops.api_reduce import cumprod

    if x.ndim == 0:
        x = _A.reshape(x, (1,))
    n = x.shape[-1] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    from .factories import ones_like

    ones = ones_like(_A.unsqueeze(x, -1))
    if n <= 1:
        return ones[..., :n]
    powers = cumprod(_A.expand(_A.unsqueeze(x, -1), tuple(x.shape) + (n - 1,)), -1)
    return _A.cat([ones, powers], -1)
