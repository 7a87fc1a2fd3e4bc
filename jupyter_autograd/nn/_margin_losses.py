"""The margin, embedding and likelihood losses: ``F.margin_ranking_loss``,
``F.hinge_embedding_loss``, ``F.soft_margin_loss`` (one row), ``F.cosine_embedding_loss``,
``F.poisson_nll_loss``, ``F.gaussian_nll_loss``, ``F.triplet_margin_loss`` (with
``F.pairwise_distance``) and ``F.multilabel_soft_margin_loss``. The others are compositions of
rows in the order torch's kernels (or its Python) run them, so their graphs show torch's nodes."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import factories
from ..grad_mode import no_grad
from ..ops import api as _api
from ..ops import arithmetic as ARITH
from ..ops import loss as LS
from ..ops import loss_extra as LX
from ..ops import reduction as RD
from ..ops.dispatch import apply

__all__ = [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multilabel_soft_margin_loss",
    "pairwise_distance",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _legacy(size_average, reduce):
    """torch's ``_Reduction.legacy_get_string``, with its deprecation warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "none" if not reduce else ("mean" if size_average else "sum")
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return ret


def _enum(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce)
    if reduction not in LS.REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return LS.REDUCTIONS[reduction]


def _apply_reduction(loss, r):
    """torch's ``apply_loss_reduction``: MeanBackward0 / SumBackward0 / the loss itself."""
    return loss.mean() if r == 1 else (loss.sum() if r == 2 else loss)


def _add(t, value):
    """``t + value`` as torch's C++ writes it (AddBackward1)."""
    return apply(ARITH.ADD_SCALAR, (t,), {"other": value})


def _sub(t, value):
    """``t - value`` as torch's C++ writes it (SubBackward1)."""
    return apply(ARITH.SUB_SCALAR, (t,), {"other": value})


def _scalar(value, like):
    """A number as torch's kernels wrap it next to a tensor (``margin - x`` is SubBackward0)."""
    return factories.tensor(value, dtype=like.dtype, device=like.device)


def margin_ranking_loss(
    input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"
):
    """``max(0, -y * (x1 - x2) + margin)``, reduced.

    Example:
        >>> import jupyter_autograd as torch
        >>> F = torch.nn.functional
        >>> F.margin_ranking_loss(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 0.0]), torch.tensor([1.0, 1.0]))
        tensor(0.5000)
    """
    r = _enum(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _apply_reduction(_add((-target) * (input1 - input2), margin).clamp_min(0), r)


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """``x`` where ``y == 1``, ``max(0, margin - x)`` where ``y == -1``, reduced.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.hinge_embedding_loss(torch.tensor([0.3, 2.0]), torch.tensor([-1.0, 1.0]))
        tensor(1.3500)
    """
    r = _enum(reduction, size_average, reduce)
    zeros = factories.zeros_like(input)
    margin_clamp = _api.sub(_scalar(margin, input), input).clamp_min(0)
    output_margin = _api.where(target != 1, margin_clamp, zeros)
    output_self = _api.where(target != -1, input, zeros)
    return _apply_reduction(output_margin + output_self, r)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y * x))``, reduced (SoftMarginLossBackward0; ``target`` is not
    differentiable).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.soft_margin_loss(torch.tensor([0.0, 0.0]), torch.tensor([1.0, -1.0]))
        tensor(0.6931)
    """
    r = _enum(reduction, size_average, reduce)
    if target.requires_grad:
        raise RuntimeError(
            "The function 'soft_margin_loss' is not differentiable with respect to "
            "argument 'target'. This input cannot have requires_grad True."
        )
    try:
        np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        _api._broadcast_error(input._data.shape, target._data.shape)
    return apply(
        LX.SOFT_MARGIN, (input,), {"reduction": r, "target": target, "_target": target._data}
    )


def cosine_embedding_loss(
    input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"
):
    """``1 - cos(x1, x2)`` where ``y == 1``, ``max(0, cos(x1, x2) - margin)`` where ``y == -1``,
    reduced; the cosine over the last dim with 1e-12 added to each squared norm.

    Example:
        >>> import jupyter_autograd as torch
        >>> a = torch.tensor([[1.0, 0.0]])
        >>> torch.nn.functional.cosine_embedding_loss(a, torch.tensor([[0.0, 1.0]]), torch.tensor([1.0]))
        tensor(1.)
    """
    r = _enum(reduction, size_average, reduce)
    d = target.dim()
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if d == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {list(input1.shape)} "
            f"and {list(input2.shape)}."
        )
    if d == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {list(input1.shape)} "
            f"and {list(input2.shape)}."
        )
    eps = 1e-12
    prod_sum = (input1 * input2).sum(d)
    mag1 = _add((input1 * input1).sum(d), eps)
    mag2 = _add((input2 * input2).sum(d), eps)
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = factories.zeros_like(cos)
    pos = _api.sub(_scalar(1, cos), cos)
    neg = _sub(cos, margin).clamp_min(0)
    out = _api.where(target == 1, pos, zeros) + _api.where(target == -1, neg, zeros)
    return _apply_reduction(out, r)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """The negative log likelihood of ``target ~ Poisson(exp(input))`` (or of rate ``input`` when
    ``log_input=False``), with Stirling's term for targets above 1 when ``full``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.poisson_nll_loss(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
        tensor(0.8591)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * _add(input, eps).log()
    if full:
        two_pi_t = target * (2 * math.pi)
        stirling = target * target.log() - target + _api.mul(two_pi_t.log(), 0.5)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, LS.REDUCTIONS[reduction])


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log likelihood of ``target ~ N(input, var)``: ``0.5 * (log(var) + (input -
    target)^2 / var)`` with ``var`` clamped below at ``eps`` (the constant with ``full``).

    Raises:
        ValueError: a negative variance, a variance of the wrong size, or an unknown reduction.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.gaussian_nll_loss(torch.tensor([1.0]), torch.tensor([3.0]), torch.tensor([2.0]))
        tensor(1.3466)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * factories.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (
            input.dim() == var.dim()
            and sum(b for a, b in zip(input.size(), var.size()) if a != b) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return loss.mean() if reduction == "mean" else (loss.sum() if reduction == "sum" else loss)


_NORM_NODE = type("NormBackward1", (RD.NORM.node_cls,), {})
_NORM_NODE.__module__ = "builtins"


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim (NormBackward1, as torch's ``at::norm``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.pairwise_distance(torch.tensor([[3.0, 0.0]]), torch.tensor([[0.0, 4.0]]), eps=0.0)
        tensor([5.])
    """
    nd = max(x1.dim(), x2.dim())
    d = _add(x1 - x2, eps)
    if nd == 0:
        out = _linalg().vector_norm(d, p)
    else:
        out = _linalg().vector_norm(d, p, nd - 1, keepdim)
    if out.grad_fn is not None and type(out.grad_fn).__name__ == "LinalgVectorNormBackward0":
        _api._rename_node(out.grad_fn, _NORM_NODE)
    return out


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise ``p``-distance (with
    ``swap``, ``d(a, n)`` is the smaller of it and ``d(p, n)``), reduced.

    Example:
        >>> import jupyter_autograd as torch
        >>> a = torch.tensor([[0.0, 0.0]])
        >>> torch.nn.functional.triplet_margin_loss(a, torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.5]]))
        tensor(0.5000)
    """
    r = _enum(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    da, dp, dn = anchor.dim(), positive.dim(), negative.dim()
    if not (da == dp == dn):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {da}D, positive {dp}D, and negative {dn}D inputs"
        )
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _api.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((_add(dist_pos, margin) - dist_neg).clamp_min(0), r)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """The triplet margin loss with any distance (``pairwise_distance`` by default), as torch's
    Python composes it.

    Example:
        >>> import jupyter_autograd as torch
        >>> a = torch.tensor([[0.0, 0.0]])
        >>> F = torch.nn.functional
        >>> F.triplet_margin_with_distance_loss(a, torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 3.0]]))
        tensor(0.)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    da, dp, dn = anchor.dim(), positive.dim(), negative.dim()
    if not (da == dp == dn):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {da}D, positive {dp}D, and negative {dn}D inputs"
        )
    dist = distance_function if distance_function is not None else pairwise_distance
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = _api.minimum(dist_neg, dist(positive, negative))
    loss = _api.clamp_min(margin + dist_pos - dist_neg, 0)
    return loss.sum() if reduction == "sum" else (loss.mean() if reduction == "mean" else loss)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """The mean over classes of the binary cross-entropy of ``sigmoid(input)`` against the 0/1
    ``target``, reduced over the batch.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.multilabel_soft_margin_loss(torch.tensor([[0.0, 0.0]]), torch.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """
    from .functional import logsigmoid

    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _linalg():
    """``jupyter_autograd.linalg`` (imported on first use: it loads after nn)."""
    from .. import linalg

    return linalg
