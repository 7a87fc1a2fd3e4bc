"""Jacobians, vᵀJ by backward, J·u by forward mode and finite differences, behind JacobianExplorer."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from .. import grad_mode
from ..tensor import Tensor


def _as_vector_fn(f: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    def g(x: Tensor) -> Tensor:
        y = f(x)
        if not isinstance(y, Tensor):
            raise TypeError(f"JacobianExplorer: f must return a Tensor, got {type(y).__name__}")
        return y.reshape(-1)

    return g


def _leaf(x, requires_grad: bool) -> Tensor:
    arr = np.array(x._data if isinstance(x, Tensor) else x, dtype=np.float64, copy=True).reshape(-1)
    t = Tensor._wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def vjp_backward(f: Callable[[Tensor], Tensor], x, v) -> np.ndarray:
    """vᵀJ of ``f`` at ``x``, computed the reverse-mode way: ``f(x).backward(v)``, read ``x.grad``.

    Example:
        >>> import jupyter_autograd as torch
        >>> vjp_backward(lambda x: x * x, [1.0, 2.0], [1.0, 1.0])
        array([2., 4.])
    """
    xl = _leaf(x, True)
    y = _as_vector_fn(f)(xl)
    vv = Tensor._wrap(np.asarray(v, dtype=y._data.dtype).reshape(y.shape))
    y.backward(vv)
    return np.array(xl.grad._data, dtype=np.float64)


def _adapter_forward_jvp(f: Callable[[Tensor], Tensor], x: Tensor, u: np.ndarray):
    """(f(x), J·u) by forward-mode AD: a dual tensor through f, no backward pass."""
    from ..autograd import forward_ad as fwad

    tangent = Tensor._wrap(np.asarray(u, dtype=x._data.dtype).reshape(x.shape))
    with fwad.dual_level():
        primal, tan = fwad.unpack_dual(f(fwad.make_dual(x, tangent)))
    return primal, tan


def jvp_forward(f: Callable[[Tensor], Tensor], x, u) -> np.ndarray:
    """J·u of ``f`` at ``x`` by forward-mode AD (a true Jacobian-vector product, no backward).

    Example:
        >>> jvp_forward(lambda x: x * x, [1.0, 2.0], [1.0, 0.0])
        array([2., 0.])
    """
    xl = _leaf(x, False)
    y, tan = _adapter_forward_jvp(_as_vector_fn(f), xl, np.asarray(u, dtype=np.float64))
    if tan is None:  # output does not depend on x
        return np.zeros(y.shape, np.float64)
    return np.array(tan._data, dtype=np.float64).reshape(-1)


def _adapter_jacobian(f: Callable[[Tensor], Tensor], x: Tensor) -> np.ndarray:
    """The m×n Jacobian by reverse mode (``autograd.functional.jacobian``)."""
    from ..autograd.functional import jacobian as _jacobian

    J = _jacobian(f, x)
    return np.asarray(J._data, np.float64).reshape(-1, x.numel())


def jacobian(f: Callable[[Tensor], Tensor], x) -> np.ndarray:
    """The Jacobian of ``f`` (flattened to R^n -> R^m) at ``x``, shape (m, n).

    Example:
        >>> jacobian(lambda x: x * x, [1.0, 2.0])
        array([[2., 0.],
               [0., 4.]])
    """
    return _adapter_jacobian(_as_vector_fn(f), _leaf(x, False))


def finite_difference_jacobian(f: Callable[[Tensor], Tensor], x, eps: float = 1e-6) -> np.ndarray:
    """Central-difference Jacobian, (f(x + eps e_j) - f(x - eps e_j)) / 2 eps, in float64.

    Example:
        >>> finite_difference_jacobian(lambda x: x * x, [3.0]).round(6)
        array([[6.]])
    """
    fv = _as_vector_fn(f)
    x0 = _leaf(x, False)._data
    cols = []
    with grad_mode.no_grad():
        for j in range(x0.size):
            d = np.zeros_like(x0)
            d[j] = eps
            hi = fv(Tensor._wrap(x0 + d))._data
            lo = fv(Tensor._wrap(x0 - d))._data
            cols.append((np.asarray(hi, np.float64) - np.asarray(lo, np.float64)) / (2 * eps))
    return np.stack(cols, axis=1)


@dataclasses.dataclass
class JacobianReport:
    """Everything the Jacobian explorer draws for one (x, v, u)."""

    x: np.ndarray
    y: np.ndarray
    J: np.ndarray
    v: np.ndarray  # cotangent, R^m
    u: np.ndarray  # tangent, R^n
    vjp: np.ndarray  # vᵀJ via backward(v)
    jvp: np.ndarray  # J·u via forward mode
    J_fd: np.ndarray
    vjp_fd: np.ndarray
    jvp_fd: np.ndarray

    @property
    def max_error(self) -> float:
        """Largest |AD - finite differences| over vᵀJ and J·u."""
        return float(
            max(np.max(np.abs(self.vjp - self.vjp_fd)), np.max(np.abs(self.jvp - self.jvp_fd)))
        )

    def text(self, tangent: str = "u") -> str:
        """The numbers, labelled; ``tangent`` names the forward-mode vector (v when n = m)."""
        np_opts = {"precision": 4, "suppress_small": True}

        def a(arr):
            return np.array2string(arr, **np_opts)

        tan = "" if tangent == "v" else f"   {tangent} = {a(self.u)}"
        return "\n".join(
            [
                f"x = {a(self.x)}   f(x) = {a(self.y)}",
                f"J (m={self.J.shape[0]} x n={self.J.shape[1]}) =\n{a(self.J)}",
                f"v = {a(self.v)}{tan}",
                f"vᵀJ via backward(v)   = {a(self.vjp)}   (finite differences {a(self.vjp_fd)})",
                f"J·{tangent} via forward mode  = {a(self.jvp)}   (finite differences {a(self.jvp_fd)})",
            ]
        )


def jacobian_report(f: Callable[[Tensor], Tensor], x, v, u, eps: float = 1e-6) -> JacobianReport:
    """Jacobian, vᵀJ (reverse mode), J·u (forward mode) and their finite-difference checks.

    Example:
        >>> r = jacobian_report(lambda x: x * x, [1.0, 2.0], v=[1.0, 0.0], u=[0.0, 1.0])
        >>> r.vjp, r.jvp
        (array([2., 0.]), array([0., 4.]))
    """
    x0 = _leaf(x, False)
    with grad_mode.no_grad():
        y = np.array(_as_vector_fn(f)(x0)._data, dtype=np.float64)
    v = np.asarray(v, np.float64).reshape(-1)
    u = np.asarray(u, np.float64).reshape(-1)
    if v.shape != y.shape:
        raise ValueError(f"jacobian_report: v has shape {v.shape}, expected f(x)'s shape {y.shape}")
    if u.shape != x0.shape:
        raise ValueError(
            f"jacobian_report: u has shape {u.shape}, expected x's shape {tuple(x0.shape)}"
        )
    J = jacobian(f, x0)
    J_fd = finite_difference_jacobian(f, x0, eps)
    return JacobianReport(
        x=np.asarray(x0._data, np.float64),
        y=y,
        J=J,
        v=v,
        u=u,
        vjp=vjp_backward(f, x0, v),
        jvp=jvp_forward(f, x0, u),
        J_fd=J_fd,
        vjp_fd=v @ J_fd,
        jvp_fd=J_fd @ u,
    )
