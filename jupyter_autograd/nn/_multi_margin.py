"""``multi_margin_loss`` and ``multilabel_margin_loss`` with torch's signatures, checks and
messages (the rows are :mod:`jupyter_autograd.ops.multi_margin`)."""

from __future__ import annotations

import numpy as np

from .._errors import list_str
from ..ops import multi_margin as MM
from ..ops.dispatch import apply1
from ._losses import _reduction

__all__ = ["multi_margin_loss", "multilabel_margin_loss"]

_SCALAR = {
    "int64": "Long",
    "int32": "Int",
    "float32": "Float",
    "float64": "Double",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "float16": "Half",
}


def _expect(t, want):
    got = _SCALAR.get(t._data.dtype.name, t._data.dtype.name)
    if got != want:
        raise RuntimeError(f"expected scalar type {want} but found {got}")


def _check_input(input):
    shape = tuple(input.shape)
    if (
        input.dim() > 2
        or (input.dim() == 2 and shape[1] == 0)
        or (input.dim() <= 1 and input.numel() == 0)
    ):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list_str(shape)}"
        )


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """The multi-class hinge loss: per sample ``sum_{j != y} max(0, margin - x[y] + x[j])^p * w[y] / C``
    (MultiMarginLossBackward0), ``p`` 1 or 2.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
        tensor(0.3250)
    """
    r = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_input(input)
    c = input.shape[-1] if input.dim() else 1
    n = 1 if input.dim() <= 1 else input.shape[0]
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n}], but got "
            f"{list_str(tuple(target.shape))}. Input has shape {list_str(tuple(input.shape))}."
        )
    _expect(target, "Long")
    if weight is not None:
        if weight.numel() != c:
            raise RuntimeError(
                f"inconsistent weight size, expected {c} but got {list_str(tuple(weight.shape))}"
            )
        _expect(weight, _SCALAR[input._data.dtype.name])
    t = target._data.astype(np.int64)
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    params = {
        "p": int(p),
        "margin": float(margin),
        "reduction": r,
        "weight": weight,
        "target": target,
        "_target": t,
        "_weight": None if weight is None else weight._data,
    }
    return apply1(MM.MULTI_MARGIN, input, params)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss: ``target`` lists each sample's classes (ended by -1), and each
    (target class j, other class k) pair adds ``max(0, 1 - (x[j] - x[k])) / C``
    (MultilabelMarginLossBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> torch.nn.functional.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    r = _reduction(reduction, size_average, reduce)
    _check_input(input)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(
            f"inconsistent target size: {list_str(tuple(target.shape))} for input of size: "
            f"{list_str(tuple(input.shape))}"
        )
    _expect(target, "Long")
    t = target._data.astype(np.int64)
    c = input.shape[-1] if input.dim() else 1
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    params = {"reduction": r, "target": target, "_target": t}
    out = apply1(MM.MULTILABEL_MARGIN, input, params)
    from ..tensor import Tensor

    params["is_target"] = Tensor._wrap(params["is_target"])
    return out
