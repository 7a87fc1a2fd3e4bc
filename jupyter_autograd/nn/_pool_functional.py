"""Pooling functions with torch's signatures, checks and messages: ``max_pool1d/2d``,
``avg_pool1d/2d``, ``adaptive_avg_pool1d/2d``, ``adaptive_max_pool1d/2d``. The 1-D forms
are the 2-D rows on an unsqueezed input, as torch records them."""

from __future__ import annotations

from .._errors import list_str
from ..ops import api as _api
from ..ops import pooling as PL
from ..ops.dispatch import apply1
from ..tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
]


def _ints(v):
    return (int(v),) if isinstance(v, int) else tuple(int(i) for i in v)


def _pair(v, name, what, allow_empty=False):
    v = () if v is None else _ints(v)
    if not (len(v) in (1, 2) or (allow_empty and not v)):
        raise RuntimeError(f"{name}: {what}")
    return v if len(v) != 1 else v * 2


def _out(n, k, s, pad, d, ceil):
    o = (n + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + pad:
        o -= 1
    return o


def _params(input, name, kernel_size, stride, padding, dilation, ceil_mode):
    k = _pair(kernel_size, name, "kernel_size must either be a single int, or a tuple of two ints")
    s = _pair(
        stride,
        name,
        "stride must either be omitted, a single int, or a tuple of two ints",
        allow_empty=True,
    )
    pad = _pair(padding, name, "padding must either be a single int, or a tuple of two ints")
    if dilation is None:
        d = (1, 1)
    else:
        d = _pair(dilation, name, "dilation must be either a single int, or a tuple of two ints")
    step = s or k
    if any(v == 0 for v in step):
        raise RuntimeError("stride should not be zero")
    x = input._data
    if any(v <= 0 for v in k):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}"
        )
    if any(v < 0 for v in step):
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {step[0]} dW: {step[1]}"
        )
    if any(v <= 0 for v in d):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}"
        )
    for kk, pp, dd in zip(k, pad, d):
        if pp < 0 or pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pp}, "
                f"kernel_size={kk} and dilation={dd}"
            )
    out = tuple(
        _out(n, kk, ss, pp, dd, ceil_mode)
        for n, kk, ss, pp, dd in zip(x.shape[-2:], k, step, pad, d)
    )
    if out[0] < 1 or out[1] < 1:
        c = x.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{x.shape[-2]}x{x.shape[-1]}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}). Output size is too small"
        )
    return {
        "kernel_size": k,
        "stride": s,
        "padding": pad,
        "dilation": d,
        "ceil_mode": bool(ceil_mode),
        "kernel": k,
        "step": step,
        "out": out,
    }


def _check_3d_4d(x):
    if (
        x.ndim not in (3, 4)
        or any(s == 0 for s in x.shape[1:])
        or (x.ndim == 3 and x.shape[0] == 0)
    ):
        if x.ndim in (3, 4):
            raise RuntimeError(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                f"got:{list_str(x.shape)}"
            )
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """``(values, indices)`` of 2-D max pooling; indices are flat positions in each input plane."""
    p = _params(input, "max_pool2d", kernel_size, stride, padding, dilation, ceil_mode)
    _check_3d_4d(input._data)
    out = apply1(PL.MAX_POOL2D, input, p)
    idx = Tensor._wrap(PL._indices(p, input._data.shape))
    p["result1"] = idx
    return out, idx


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` (MaxPool2DWithIndicesBackward0);
    ``stride`` defaults to ``kernel_size``.

    Raises:
        RuntimeError: torch's messages for bad sizes, padding over half the kernel, or an
            output that would be empty.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
        >>> torch.nn.functional.max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    p = _params(input, "max_pool2d", kernel_size, stride, padding, dilation, ceil_mode)
    _check_3d_4d(input._data)
    return apply1(PL.MAX_POOL2D, input, p)


def _check_1d(input, name):
    nd = input._data.ndim
    if nd not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' "
            f"(while checking arguments for {name})"
        )


def _one(v, name, what):
    if v is None:
        return None
    v = _ints(v)
    if len(v) != 1:
        raise RuntimeError(
            f"{name}() {what} must be an int, list of ints or tuple of ints of size 1 "
            f"but got size {len(v)}"
        )
    return v[0]


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """``(values, indices)`` of 1-D max pooling."""
    nd = input._data.ndim
    if nd not in (2, 3) or any(s == 0 for s in input._data.shape[1:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
            f"input, but got:{list_str(input._data.shape)}"
        )
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = _one(stride, "max_pool1d", "stride")
    pad = _one(padding, "max_pool1d", "padding")
    d = _one(dilation, "max_pool1d", "dilation")
    n = input._data.shape[-1]
    step = k if s is None else s
    if step > 0 and k > 0 and d > 0 and 0 <= pad <= ((k - 1) * d + 1) // 2:
        o = _out(n, k, step, pad, d, ceil_mode)
        if o < 1:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {o}")
    x = _api.unsqueeze(input, -2)
    out, idx = max_pool2d_with_indices(
        x, (1, k), (1, s) if s is not None else None, (0, pad), (1, d), ceil_mode
    )
    return _api.squeeze(out, -2), Tensor._wrap(
        idx._data.reshape(idx._data.shape[:-2] + idx._data.shape[-1:])
    )


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)``: the 2-D row on a unit height
    (SqueezeBackward1 over MaxPool2DWithIndicesBackward0), as torch."""
    out, idx = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """2-D average pooling (AvgPool2DBackward0): windows clipped at the padded border are averaged
    over their in-bounds part unless ``count_include_pad``; ``divisor_override`` replaces the count.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.avg_pool2d(torch.arange(16.0).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """
    if input._data.ndim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{input._data.ndim}, "
            f"{input._data.ndim - 1}], but got -3)"
        )
    p = _params(input, "avg_pool2d", kernel_size, stride, padding, None, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_3d_4d(input._data)
    del p["dilation"]
    p["dilation"] = (1, 1)
    p["count_include_pad"] = bool(count_include_pad)
    p["divisor_override"] = divisor_override
    return apply1(PL.AVG_POOL2D, input, p)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling: the 2-D row on a unit height, as torch."""
    _check_1d(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = _one(stride, "avg_pool1d", "stride")
    pad = _one(padding, "avg_pool1d", "padding")
    x = _api.unsqueeze(input, -2)
    out = avg_pool2d(
        x, (1, k), (1, s) if s is not None else None, (0, pad), ceil_mode, count_include_pad
    )
    return _api.squeeze(out, -2)


def _adaptive_size(input, output_size, name):
    x = input._data
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    output_size = tuple(output_size)
    if len(output_size) != 2:
        if name == "adaptive_max_pool2d":
            raise RuntimeError(
                "adaptive_max_pool2d(): internal error: output_size.size() must be 2"
            )
        raise RuntimeError(f"{name}: output_size must be 2")
    size = tuple(x.shape[-2 + i] if v is None else int(v) for i, v in enumerate(output_size))
    if x.ndim not in (3, 4):
        sep = ": " if name == "adaptive_max_pool2d" else " "
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got{sep}{list_str(x.shape)}")
    if any(v < 0 for v in size):
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but received "
            f"{{{size[0]}, {size[1]}}}"
        )
    return size


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` (``None`` keeps a dim), windows
    ``[floor(i H / oH), ceil((i + 1) H / oH))`` (AdaptiveAvgPool2DBackward0; MeanBackward1 for
    a 1x1 output, as torch).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.adaptive_avg_pool2d(torch.arange(9.0).reshape(1, 3, 3), 1)
        tensor([[[4.]]])
    """
    size = _adaptive_size(input, output_size, "adaptive_avg_pool2d")
    if size == (1, 1):
        return _api.mean(input, (-1, -2), True)
    return apply1(PL.ADAPTIVE_AVG_POOL2D, input, {"output_size": size})


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling over the last dim: the 2-D form on a unit height."""
    _check_1d(input, "adaptive_avg_pool1d")
    size = _ints(output_size)
    if len(size) != 1:
        raise RuntimeError(
            f"adaptive_avg_pool1d() argument 'output_size' should contain one int (got {len(size)})"
        )
    x = _api.unsqueeze(input, -2)
    return _api.squeeze(adaptive_avg_pool2d(x, (1, size[0])), -2)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    size = _adaptive_size(input, output_size, "adaptive_max_pool2d")
    p = {"output_size": size}
    out = apply1(PL.ADAPTIVE_MAX_POOL2D, input, p)
    idx = Tensor._wrap(p["_idx"])
    p["result1"] = idx
    return out, idx


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed ``output_size`` (AdaptiveMaxPool2DBackward0)."""
    out, idx = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    _check_1d(input, "adaptive_max_pool1d")
    size = _ints(output_size)
    if len(size) != 1:
        raise RuntimeError(
            f"adaptive_max_pool1d() argument 'output_size' should contain one int (got {len(size)})"
        )
    out, idx = adaptive_max_pool2d_with_indices(_api.unsqueeze(input, -2), (1, size[0]))
    return _api.squeeze(out, -2), Tensor._wrap(
        idx._data.reshape(idx._data.shape[:-2] + idx._data.shape[-1:])
    )


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling over the last dim: the 2-D form on a unit height."""
    out, idx = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, idx) if return_indices else out
