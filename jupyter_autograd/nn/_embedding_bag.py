"""``embedding_bag`` with torch's signature, argument checks and messages (the row is
:mod:`jupyter_autograd.ops.embedding_bag`)."""

from __future__ import annotations

import warnings

import numpy as np

from ..ops import embedding_bag as EB
from ..ops.dispatch import apply
from ..tensor import Tensor

__all__ = ["embedding_bag"]

_MODES = {"sum": EB.SUM, "mean": EB.MEAN, "max": EB.MAX}
_TYPE_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
}


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, means or maxima of bags of rows of ``weight`` (EmbeddingBagBackward0), without
    building the intermediate embeddings: a 2-D ``input`` holds one bag per row, a 1-D one is cut
    into bags at ``offsets``; ``per_sample_weights`` scales each row in sum mode and
    ``padding_idx`` rows are left out (of the means' counts too). An empty bag gives zeros.

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.arange(6.0).reshape(3, 2)
        >>> torch.nn.functional.embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]))
        tensor([[2., 3.],
                [2., 3.]])
    """
    from .functional import _embedding_renorm

    if weight._data.dtype == np.int64 and input._data.dtype.kind == "f":
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not "
            f"None, then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    idx = input._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{_type_str(offsets)}"
            )
        offs = (
            np.arange(0, idx.size, idx.shape[1], dtype=idx.dtype)
            if idx.shape[1]
            else np.zeros(idx.shape[0], idx.dtype)
        )
        offsets = Tensor._wrap(offs)
        include_last_offset = False
        idx = idx.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following "
            "scalar types: Long, Int; but got torch."
            f"{_TYPE_NAMES.get(idx.dtype.name, idx.dtype.name)} instead (while checking "
            "arguments for embedding_bag)"
        )
    if max_norm is not None:
        _embedding_renorm(weight, idx, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights "
            f"is only supported for mode='sum' (got mode='{mode}'). Please open "
            "a feature request on GitHub."
        )
    return _embedding_bag(
        weight,
        idx,
        offsets,
        scale_grad_by_freq,
        _MODES[mode],
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )[0]


def _type_str(x):
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))


def _embedding_bag(
    weight,
    idx,
    offsets,
    scale_grad_by_freq,
    mode,
    sparse,
    per_sample_weights,
    include_last_offset,
    padding_idx,
):
    """torch.embedding_bag: ``(output, offset2bag, bag_size, max_indices)``."""
    n = weight._data.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{n} through "
                f"{n - 1}, but got {padding_idx}"
            )
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    if per_sample_weights is not None and per_sample_weights._data.dtype != weight._data.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
            f"'per_sample_weights'; but type torch.{_TYPE_NAMES.get(weight._data.dtype.name)} does not "
            f"equal torch.{_TYPE_NAMES.get(per_sample_weights._data.dtype.name)} (while checking "
            "arguments for embedding_bag)"
        )
    offs = offsets._data.astype(np.int64)
    if offs.size and offs[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
            f"start from position 0. However, got {offs[0]}\n[ torch.LongTensor{{}} ]"
        )
    if offs.size and offs[-1] > idx.size:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {idx.size} but got "
            f"offsets[-1] of {offs[-1]}"
        )
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        at = int(np.argmax(bad))
        if mode != EB.MAX and weight._data.dtype.name in ("float32", "float16"):  # its fbgemm path
            raise RuntimeError(
                f"Index {at} of input takes value {idx[at]} which is not in the valid "
                f"range [0, {n})"
            )
        raise RuntimeError(
            "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to "
            f"be {idx[at]}"
        )
    idx64 = idx.astype(np.int64)
    pad = -1 if padding_idx is None else padding_idx
    p = {
        "_idx": idx64,
        "_offsets": offs,
        "mode": mode,
        "_pad": pad,
        "include_last_offset": bool(include_last_offset),
        "scale_grad_by_freq": bool(scale_grad_by_freq),
        "sparse": bool(sparse),
        "padding_idx": pad % 2**64,
        "weight_sym_argsize_0": n,
        "indices": Tensor._wrap(idx),
        "offsets": offsets,
    }
    out = apply(EB.EMBEDDING_BAG, (weight, per_sample_weights), p)
    extra = tuple(Tensor._wrap(p[k]) for k in ("result1", "result2", "result3"))
    p["result1"], p["result2"], p["result3"] = extra
    return (out,) + extra
