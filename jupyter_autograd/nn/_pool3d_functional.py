"""3-D pooling functions with torch's signatures, checks and messages: ``adaptive_avg_pool3d``."""

from __future__ import annotations

from .._errors import list_str
from ..ops import api as _api
from ..ops import pooling3d as P3
from ..ops.dispatch import apply1

__all__ = ["adaptive_avg_pool3d"]


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to a fixed ``output_size``
    (``None`` keeps a dim; AdaptiveAvgPool3DBackward0, MeanBackward1 for a 1x1x1 output as torch).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.adaptive_avg_pool3d(torch.arange(8.0).view(1, 2, 2, 2), 1)
        tensor([[[[3.5000]]]])
    """
    size = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    if len(size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    shape = tuple(input.shape)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list_str(shape)}")
    for d in range(1, input.dim()):
        if shape[d] == 0:
            raise RuntimeError("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list_str(shape)} with dimension {d} being empty")
    size = tuple(shape[-3 + i] if v is None else int(v) for i, v in enumerate(size))
    if any(v < 0 for v in size):
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{size[0]}, {size[1]},{size[2]}}}")
    if size == (1, 1, 1):
        return _api.mean(input, (-1, -2, -3), True)
    return apply1(P3.ADAPTIVE_AVG_POOL3D, input, {"output_size": size})
