"""``torch.nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as
parametrizations, as torch's (``orthogonal`` is not here)."""

from __future__ import annotations

from ...grad_mode import no_grad
from ...ops.api_matmul import mv
from ...ops.api_products import vdot
from ...tensor import Tensor
from .. import functional as F
from .._weight_norm import _weight_norm, norm_except_dim
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (``original0`` is g, ``original1``
    v). torch also registers a load_state_dict pre-hook that renames the deprecated
    ``<name>_g``/``<name>_v`` keys; modules here have no such hooks, so those old keys load as
    unexpected."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations) -> None:
        # torch updates _u and _v in place (normalize(out=)), under no_grad
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
