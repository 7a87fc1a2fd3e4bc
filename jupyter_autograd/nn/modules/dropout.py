"""Channel-wise and alpha dropout layers (``Dropout`` itself lives with ``Linear``)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["AlphaDropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` input in training.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Dropout1d(0.3)
        Dropout1d(p=0.3, inplace=False)
    """

    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` input in training."""

    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` input in training."""

    _fn = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Alpha dropout (for SELU networks) in training."""

    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels in training."""

    _fn = staticmethod(F.feature_alpha_dropout)
