"""``max_unpool1d/2d/3d`` with torch's signatures, output-size rules, checks and messages, and the
modules ``nn.MaxUnpool1d/2d/3d``."""

from __future__ import annotations

import numpy as np

from .._errors import list_str
from ..ops import api as _api
from ..ops import unpool as UP
from ..ops.dispatch import apply1
from ..tensor import Tensor

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]

_SCALAR = {
    "float32": "Float",
    "float64": "Double",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "float16": "Half",
}


def _tuple(v, n):
    return (int(v),) * n if isinstance(v, int) else tuple(int(i) for i in v)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    shape = tuple(input.shape)
    k = len(kernel_size)
    default = [(shape[-k + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(k)]
    if output_size is None:
        return default
    given = output_size
    if len(output_size) == k + 2:
        output_size = output_size[2:]
    if len(output_size) != k:
        raise ValueError(
            f"output_size should be a sequence containing {k} or {k + 2} elements, but it has "
            f"a length of '{len(output_size)}'"
        )
    for d in range(k):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(
                f'invalid output_size "{given}" (dim {d} must be between {lo} and {hi})'
            )
    return output_size


def _unpool(row, name, input, indices, size, ndims):
    """torch's max_unpooling{2,3}d kernel checks, then the row."""
    if indices._data.dtype != np.int64:
        got = _SCALAR.get(indices._data.dtype.name, indices._data.dtype.name)
        raise RuntimeError(f"elements in indices should be type int64 but got: {got}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list_str(tuple(input.shape))}) but got indices tensor with shape: "
            f"{list_str(tuple(indices.shape))}"
        )
    if input.dim() not in ndims:
        raise RuntimeError(
            f"Input to {name} should be a {ndims[0]}d or {ndims[1]}d Tensor, but got a tensor "
            f"with {input.dim()} dimensions."
        )
    idx = indices._data
    total = int(np.prod(size))
    if idx.size and (idx.min() < 0 or idx.max() >= total):
        flat = idx.reshape(-1)
        # torch's kernel keeps the last invalid index its loop meets
        bad = flat[np.nonzero((flat < 0) | (flat >= total))[0][-1]]
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size "
            f"{'x'.join(str(s) for s in size)})"
        )
    return apply1(
        row, input, {"_idx": idx, "indices": indices, "output_size": tuple(int(s) for s in size)}
    )


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value put back at its ``indices`` position in
    a zero image (MaxUnpool2DBackward0); ``output_size`` picks among the sizes that pool to the input.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> y, i = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
        >>> torch.nn.functional.max_unpool2d(y, i, 2)
        tensor([[[[0., 0.],
                  [0., 4.]]]])
    """
    k = _tuple(kernel_size, 2)
    s = _tuple(stride, 2) if stride is not None else k
    pad = _tuple(padding, 2)
    size = _unpool_output_size(input, k, s, pad, output_size)
    return _unpool(UP.MAX_UNPOOL2D, "max_unpooling2d", input, indices, size, (3, 4))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """1-D unpooling: the 2-D row on a unit width (SqueezeBackward1 over MaxUnpool2DBackward0)."""
    k = _tuple(kernel_size, 1)
    s = _tuple(stride, 1) if stride is not None else k
    pad = _tuple(padding, 1)
    size = list(_unpool_output_size(input, k, s, pad, output_size)) + [1]
    x = _api.unsqueeze(input, -1)
    idx = Tensor._wrap(indices._data[..., None])
    return _api.squeeze(_unpool(UP.MAX_UNPOOL2D, "max_unpooling2d", x, idx, size, (3, 4)), -1)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """3-D unpooling (MaxUnpool3DBackward0)."""
    k = _tuple(kernel_size, 3)
    s = _tuple(stride, 3) if stride is not None else k
    pad = _tuple(padding, 3)
    size = _unpool_output_size(input, k, s, pad, output_size)
    return _unpool(UP.MAX_UNPOOL3D, "max_unpooling3d", input, indices, size, (4, 5))
