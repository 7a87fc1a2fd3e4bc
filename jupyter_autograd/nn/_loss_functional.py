"""``F.smooth_l1_loss``, ``F.huber_loss``, ``F.kl_div`` and ``F.cosine_similarity`` as torch
computes them (one row each for the first two; compositions for the others)."""

from __future__ import annotations

import warnings

from ..grad_mode import no_grad
from ..ops import api as _api
from ..ops import loss as LS
from ..ops import loss_extra as LX
from ..ops.dispatch import apply
from ..tensor import Tensor

__all__ = ["cosine_similarity", "huber_loss", "kl_div", "smooth_l1_loss"]


def _legacy(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else ("mean" if size_average else "sum")


def _enum(reduction):
    if reduction not in LS.REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return LS.REDUCTIONS[reduction]


def _expand(input, target):
    if input.shape != target.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
    return _api.broadcast_tensors(input, target)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above: ``0.5 d^2 / beta`` or ``|d| - 0.5 beta``
    (SmoothL1LossBackward0; ``beta=0`` is the L1 loss, as torch).

    Raises:
        RuntimeError: a negative ``beta``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.zeros(2))
        tensor(1.3125)
    """
    reduction = _legacy(size_average, reduce, reduction)
    x, t = _expand(input, target)
    r = _enum(reduction)
    if beta == 0.0:
        d = (x - t).abs()
        return d.mean() if r == 1 else d.sum() if r == 2 else d
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return apply(LX.SMOOTH_L1, (x, t), {"reduction": r, "beta": float(beta)})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 d^2`` below ``delta``, ``delta (|d| - 0.5 delta)`` above (HuberLossBackward0).

    Raises:
        RuntimeError: a non-positive ``delta``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.huber_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), delta=2.0)
        tensor(2.0625)
    """
    x, t = _expand(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return apply(LX.HUBER, (x, t), {"reduction": _enum(reduction), "delta": float(delta)})
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = apply(LX.HUBER, (x, t), {"reduction": 0, "delta": float(delta)}) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _xlogy(a, b):
    """``a * log(b)``, zero where ``a`` is zero (torch.xlogy)."""
    from ..ops.api_math import xlogy

    return xlogy(a, b)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence with ``input`` given as log-probabilities: ``target (log target - input)``
    (``exp(target) (target - input)`` with ``log_target``). ``reduction="mean"`` warns as torch
    does; ``"batchmean"`` divides the sum by the batch size.

    Example:
        >>> import jupyter_autograd as torch
        >>> p = torch.tensor([[0.5, 0.5]])
        >>> torch.nn.functional.kl_div(p.log(), p, reduction="batchmean")
        tensor(0.)
    """
    if size_average is not None or reduce is not None:
        r = _enum(_legacy(size_average, reduce, reduction))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.",
                UserWarning,
                stacklevel=2,
            )
        r = 2 if reduction == "batchmean" else _enum(reduction)
    for t in (input, target):
        if t.dtype.is_complex:
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if not t.dtype.is_floating_point:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = _api.exp(target) * (target - input)
    else:
        out = _xlogy(target, target) - target * input
    out = out.mean() if r == 1 else out.sum() if r == 2 else out
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum(x1 / |x1| * x2 / |x2|, dim)``, each norm clamped below at ``eps`` (torch's
    composition: LinalgVectorNormBackward0, CloneBackward0, DivBackward0, MulBackward0,
    SumBackward1).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.cosine_similarity(torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """
    if x1.dtype != x2.dtype:
        x1, x2 = _promote(x1, x2)
    if x1.shape != x2.shape:
        x1, x2 = _api.broadcast_tensors(x1, x2)
    n1 = _linalg().vector_norm(x1, 2, dim, True).clone()
    n2 = _linalg().vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _promote(a, b):
    from ..ops.dispatch import promote2

    return promote2(a, b) if isinstance(b, Tensor) else (a, b)


def _linalg():
    """``jupyter_autograd.linalg`` (imported on first use: it loads after nn)."""
    from .. import linalg

    return linalg
