"""``SmoothL1Loss``, ``HuberLoss``, ``KLDivLoss`` and ``CosineSimilarity``."""

from __future__ import annotations

from .. import functional as F
from .loss import _Loss
from .module import Module

__all__ = ["CosineSimilarity", "HuberLoss", "KLDivLoss", "SmoothL1Loss"]


class SmoothL1Loss(_Loss):
    """Smooth L1 loss: quadratic below ``beta``, linear above.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.SmoothL1Loss(beta=0.5)(torch.tensor([0.25, 2.0]), torch.zeros(2))
        tensor(0.9062)
    """

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: quadratic below ``delta``, linear (slope ``delta``) above."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target, weight=None):
        return F.huber_loss(
            input, target, reduction=self.reduction, delta=self.delta, weight=weight
        )


class KLDivLoss(_Loss):
    """KL divergence of ``target`` from the log-probabilities ``input``."""

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.CosineSimilarity(dim=0)(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 2.0]))
        tensor(0.)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
