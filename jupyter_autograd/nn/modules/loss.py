"""Loss modules: hold ``reduction`` (and class weights) and call ``nn.functional``."""

from __future__ import annotations

from .. import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = ["none", "mean", "sum"][F._reduction("mean", size_average, reduce)]
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.MSELoss()(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0]))
        tensor(5.)
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.L1Loss()(torch.tensor([1.0, -3.0]), torch.tensor([0.0, 0.0]))
        tensor(2.)
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices given log-probabilities.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.NLLLoss()(torch.tensor([[-1.0, -2.0]]), torch.tensor([1]))
        tensor(2.)
    """

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax + NLL on logits (class indices or probabilities as targets).

    Raises:
        IndexError: ``Target 5 is out of bounds.`` for a class index outside the logits.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.CrossEntropyLoss()(torch.tensor([[0.0, 0.0]]), torch.tensor([1]))
        tensor(0.6931)
    """

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        b = self._buffers  # read directly: Module.__getattr__ is a slow path, once per step
        weight = b["weight"] if "weight" in b else self.weight  # noqa: SIM401 - self.weight only on a miss
        return F.cross_entropy(
            input,
            target,
            weight=weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """Binary cross-entropy on probabilities.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.BCELoss()(torch.tensor([0.5]), torch.tensor([1.0]))
        tensor(0.6931)
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross-entropy in one stable step.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.BCEWithLogitsLoss()(torch.tensor([0.0]), torch.tensor([1.0]))
        tensor(0.6931)
    """

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )
