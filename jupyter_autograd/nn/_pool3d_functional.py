"""3-D pooling functions with torch's signatures, checks and messages: ``adaptive_avg_pool3d``,
``avg_pool3d``; and ``local_response_norm``, composed as torch's Python composes it."""

from __future__ import annotations

from .._errors import list_str
from ..ops import api as _api
from ..ops import pooling3d as P3
from ..ops.dispatch import apply1

__all__ = ["adaptive_avg_pool3d", "avg_pool3d", "local_response_norm"]


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
        raise RuntimeError(
            f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list_str(shape)}"
        )
    for d in range(1, input.dim()):
        if shape[d] == 0:
            raise RuntimeError(
                "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list_str(shape)} with dimension {d} being empty"
            )
    size = tuple(shape[-3 + i] if v is None else int(v) for i, v in enumerate(size))
    if any(v < 0 for v in size):
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{size[0]}, {size[1]},{size[2]}}}"
        )
    if size == (1, 1, 1):
        return _api.mean(input, (-1, -2, -3), True)
    return apply1(P3.ADAPTIVE_AVG_POOL3D, input, {"output_size": size})


def _triple(v, name, what, allow_empty=False):
    v = () if v is None else ((int(v),) if isinstance(v, int) else tuple(int(i) for i in v))
    if not (len(v) in (1, 3) or (allow_empty and not v)):
        raise RuntimeError(f"avg_pool3d: {what}")
    return v * 3 if len(v) == 1 else v


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """3-D average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (AvgPool3DBackward0), with
    ``ceil_mode``, ``count_include_pad`` and ``divisor_override`` as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.avg_pool3d(torch.arange(8.0).view(1, 2, 2, 2), 2)
        tensor([[[[3.5000]]]])
    """
    from ._pool_functional import _out

    k = _triple(
        kernel_size, "avg_pool3d", "kernel_size must be a single int, or a tuple of three ints"
    )
    s = _triple(
        stride,
        "avg_pool3d",
        "stride must be omitted, a single int, or a tuple of three ints",
        allow_empty=True,
    )
    pad = _triple(padding, "avg_pool3d", "padding must be a single int, or a tuple of three ints")
    step = s or k
    if any(v == 0 for v in step):
        raise RuntimeError("stride should not be zero")
    for kk, pp in zip(k, pad):
        if pp < 0 or pp > kk // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pp}, "
                f"kernel_size={kk} and dilation=1"
            )
    shape = tuple(input.shape)
    if input.dim() not in (4, 5) or any(v == 0 for v in shape[-4:]):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    t, h, w = shape[-3:]
    if t + 2 * pad[0] < k[0] or h + 2 * pad[1] < k[1] or w + 2 * pad[2] < k[2]:
        raise RuntimeError(
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
            f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})"
        )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = tuple(_out(n, kk, ss, pp, 1, ceil_mode) for n, kk, ss, pp in zip((t, h, w), k, step, pad))
    p = {
        "kernel_size": k,
        "stride": s if s else k,
        "padding": pad,
        "ceil_mode": bool(ceil_mode),
        "count_include_pad": bool(count_include_pad),
        "divisor_override": divisor_override,
        "kernel": k,
        "step": step,
        "out": out,
    }
    return apply1(P3.AVG_POOL3D, input, p)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalization over neighbouring channels: ``x / (k + alpha * mean of x^2 over size
    channels) ** beta`` (AlexNet's LRN), composed of pad, average pooling and pointwise ops as
    torch does.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.local_response_norm(torch.ones(1, 2, 3, 3), 2).shape
        torch.Size([1, 2, 3, 3])
    """
    from ._pad_functional import pad as _pad
    from ._pool_functional import avg_pool2d

    dim = input.dim()
    if dim < 3:
        # torch's message carries its source's line-continuation spaces
        raise ValueError(
            f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = _pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = _pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
