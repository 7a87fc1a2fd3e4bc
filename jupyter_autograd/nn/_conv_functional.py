"""``F.conv1d/2d/3d`` and ``F.conv_transpose1d/2d/3d``: torch's argument checks and messages,
then one ``convolution`` row (ConvolutionBackward0)."""

from __future__ import annotations

import warnings

from .._errors import list_str
from ..ops import api as _api
from ..ops import conv as CV
from ..ops.dispatch import apply
from ..tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

_TYPE_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
_SCALAR = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}
_warned_same = False


def expand_param(v, name: str, n: int) -> tuple:
    """An int or a list for each spatial dim, as torch's ``expand_param_if_needed``."""
    if isinstance(v, int):
        return (v,) * n
    v = tuple(int(i) for i in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(v)}"
        )
    return v


def _sig(v, d):
    """An int argument as the function's signature (``int[2] stride=1``) makes it: d values."""
    return (v,) * d if isinstance(v, int) else v


def _batchify(input: Tensor, d: int, name: str):
    nd = input._data.ndim
    if nd == d + 1:
        return _api.unsqueeze(input, 0), False
    if nd != d + 2:
        raise RuntimeError(
            f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input of "
            f"size: {list_str(input._data.shape)}"
        )
    return input, True


def _same_padding(weight, dilation, d: int, stride):
    """torch's padding='same': symmetric where it can, else an extra zero pad on the right."""
    global _warned_same
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, extra = [], []
    for i in range(d):
        total = dilation[i] * (weight._data.shape[i + 2] - 1)
        lo = total // 2
        left.append(lo)
        extra.append(total - lo - lo)
    if any(extra):
        if not _warned_same:  # TORCH_WARN_ONCE
            _warned_same = True
            warnings.warn(
                "Using padding='same' with even kernel lengths and odd dilation may require a "
                "zero-padded copy of the input be created",
                UserWarning,
                stacklevel=4,
            )
        pad = []
        for i in reversed(range(d)):  # F.pad lists the last dim first
            pad += [0, extra[i]]
        return tuple(left), tuple(pad)
    return tuple(left), None


def check_shape_forward(x, w, b, p, d: int):
    """torch's ``check_shape_forward``: padding, weight and channel checks, in its order."""
    if any(q < 0 for q in p["padding"]):
        raise RuntimeError("negative padding is not supported")
    if any(q < 0 for q in p["output_padding"]):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in p["stride"]):
        raise RuntimeError("non-positive stride is not supported")
    if any(s <= 0 for s in p["dilation"]):
        raise RuntimeError("non-positive dilation is not supported")
    ws, xs = w.shape, x.shape
    groups = p["groups"]
    if len(ws) != x.ndim:
        raise RuntimeError(
            f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {list_str(ws)}, "
            f"but got {x.ndim}-dimensional input of size {list_str(xs)} instead"
        )
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
            f"weight of size {list_str(ws)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
            f"got weight of size [{list_str(ws)}] instead"
        )
    if not p["transposed"]:
        if xs[1] != ws[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {list_str(ws)}, expected input{list_str(xs)} "
                f"to have {ws[1] * groups} channels, but got {xs[1]} channels instead"
            )
        if b is not None and (b.ndim != 1 or b.shape[0] != ws[0]):
            raise RuntimeError(
                f"Given weight of size {list_str(ws)}, expected bias to be 1-dimensional with "
                f"{ws[0]} elements, but got bias of size {list_str(b.shape)} instead"
            )
        padded = [xs[2 + i] + 2 * p["padding"][i] for i in range(d)]
        kernel = [p["dilation"][i] * (ws[2 + i] - 1) + 1 for i in range(d)]
        if any(a < k for a, k in zip(padded, kernel)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                "input size"
            )
    else:
        if xs[1] != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list_str(ws)}, expected input{list_str(xs)} to "
                f"have {ws[0]} channels, but got {xs[1]} channels instead"
            )
        if b is not None and (b.ndim != 1 or b.shape[0] != ws[1] * groups):
            raise RuntimeError(
                f"Given transposed=1, weight of size {list_str(ws)}, expected bias to be "
                f"1-dimensional with {ws[1] * groups} elements, but got bias of size "
                f"{list_str(b.shape)} instead"
            )


def _convolution(x, weight, bias, p):
    """The ``convolution`` row; a complex input runs as real convolutions of the real and
    imaginary parts, ``(xr*wr - xi*wi + br) + i (xi*wr + xr*wi + bi)`` (torch uses three with
    Gauss's trick; four keep a tiny imaginary part exact, as a complex step needs)."""
    if x._data.dtype.kind != "c":
        return apply(CV.CONVOLUTION, (x, weight, bias), p)
    from ..ops.cplx import view_as_real

    def parts(t):
        r = view_as_real(t.resolve_conj())
        return r.select(-1, 0), r.select(-1, 1)

    def conv(a, b, c=None):
        q = dict(p, bias_sym_sizes_opt=None if c is None else p["bias_sym_sizes_opt"])
        return apply(CV.CONVOLUTION, (a, b, c), q)

    xr, xi = parts(x)
    wr, wi = parts(weight)
    br, bi = parts(bias) if bias is not None else (None, None)
    real = conv(xr, wr, br) - conv(xi, wi)
    imag = conv(xi, wr) + conv(xr, wi, bi)
    return real + imag * 1j


_TYPE_STR = {
    "float32": "torch.FloatTensor",
    "float64": "torch.DoubleTensor",
    "complex64": "CPUComplexFloatType",
    "complex128": "CPUComplexDoubleType",
}


def _same_type_as_parameters(x, w, b):
    """torch's check_input_same_type_as_parameters (the complex convolution's first check)."""
    if x.dtype != w.dtype:
        raise RuntimeError(
            f"Input type ({_TYPE_STR.get(x.dtype.name, x.dtype.name)}) and weight type "
            f"({_TYPE_STR.get(w.dtype.name, w.dtype.name)}) should be the same"
        )


def _dtype_check(x, w):
    if x.dtype.kind == "c":
        _same_type_as_parameters(x, w, None)
    if x.dtype != w.dtype:
        raise RuntimeError(
            f"expected scalar type {_SCALAR.get(x.dtype.name, x.dtype.name)} but found "
            f"{_SCALAR.get(w.dtype.name, w.dtype.name)}"
        )


def _bias_dtype(input, bias):
    if bias is not None and bias._data.dtype != input._data.dtype:
        a, b = input._data.dtype.name, bias._data.dtype.name
        raise RuntimeError(
            f"Input type ({_TYPE_NAMES.get(a, a)}) and bias type ({_TYPE_NAMES.get(b, b)}) should be "
            "the same"
        )


def _conv(input, weight, bias, stride, padding, dilation, groups, d: int, name: str):
    _bias_dtype(input, bias)
    x, batched = _batchify(input, d, name)
    k = weight._data.ndim - 2  # torch sizes the parameters from the weight, after its signature
    stride, dilation = _sig(stride, d), _sig(dilation, d)  # made an int a list of d values
    stride = expand_param(stride, "stride", k)
    if not isinstance(padding, str):
        padding = expand_param(_sig(padding, d), "padding", k)
    dilation = expand_param(dilation, "dilation", k)
    pre = None
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * k
        elif padding == "same":
            if k != d:
                padding = (0,) * k  # the weight's dims are checked below
            else:
                padding, pre = _same_padding(weight, dilation, d, stride)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    if pre is not None:
        x = _pad_zeros(x, pre)
    p = {
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
        "transposed": False,
        "output_padding": (0,) * k,
        "groups": int(groups),
    }
    xd, wd = x._data, weight._data
    bd = bias._data if bias is not None else None
    check_shape_forward(xd, wd, bd, p, k)
    _dtype_check(xd, wd)
    p["bias_sym_sizes_opt"] = (wd.shape[0],) if bias is not None else None
    p["x_shape"], p["w_shape"] = xd.shape, wd.shape
    p["y_out"] = tuple(
        CV._out_size(n, kk, s, q, dl)
        for n, kk, s, q, dl in zip(xd.shape[2:], wd.shape[2:], stride, padding, dilation)
    )
    out = _convolution(x, weight, bias, p)
    return out if batched else _api.squeeze(out, 0)


def _pad_zeros(x, pad):
    from . import functional as F

    return F.pad(x, pad)


def _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, d, name):
    _bias_dtype(input, bias)
    x, batched = _batchify(input, d, name)
    k = weight._data.ndim - 2
    stride = expand_param(_sig(stride, d), "stride", k)
    padding = expand_param(_sig(padding, d), "padding", k)
    dilation = expand_param(_sig(dilation, d), "dilation", k)
    output_padding = expand_param(_sig(output_padding, d), "output_padding", k)
    p = {
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
        "transposed": True,
        "output_padding": output_padding,
        "groups": int(groups),
    }
    xd, wd = x._data, weight._data
    bd = bias._data if bias is not None else None
    check_shape_forward(xd, wd, bd, p, k)
    _dtype_check(xd, wd)
    if any(o >= s and o >= dl for o, s, dl in zip(output_padding, stride, dilation)):
        dims = (
            ["height", "width"]
            if k == 2
            else (["width"] if k == 1 else ["depth", "height", "width"])
        )
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            + " ".join(f"output_padding_{n}: {o}" for n, o in zip(dims, output_padding))
            + " "
            + " ".join(f"stride_{n}: {s}" for n, s in zip(dims, stride))
            + " "
            + " ".join(f"dilation_{n}: {dl}" for n, dl in zip(dims, dilation))
        )
    spatial = tuple(
        (n - 1) * s - 2 * q + dl * (kk - 1) + o + 1
        for n, s, q, dl, kk, o in zip(
            xd.shape[2:], stride, padding, dilation, wd.shape[2:], output_padding
        )
    )
    if any(s <= 0 for s in spatial):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, xd.shape[2:]))}). Calculated output "
            f"size per channel: ({' x '.join(map(str, spatial))}). Output size is too small"
        )
    p["bias_sym_sizes_opt"] = (wd.shape[1] * groups,) if bias is not None else None
    p["x_shape"] = (xd.shape[0], wd.shape[1] * groups) + spatial
    p["w_shape"] = wd.shape
    p["y_out"] = tuple(xd.shape[2:])
    out = _convolution(x, weight, bias, p)
    return out if batched else _api.squeeze(out, 0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over ``(N, C, L)`` (or unbatched ``(C, L)``) input (ConvolutionBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2))
        tensor([[[2., 2., 2.]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over ``(N, C, H, W)`` input as im2col + GEMM (ConvolutionBackward0);
    ``padding`` may be an int, a pair, ``"valid"`` or ``"same"``.

    Raises:
        RuntimeError: torch's messages for a wrong input rank, channel count, kernel larger
            than the padded input, bias size, groups or dtype.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(1, 1, 3, 3, requires_grad=True)
        >>> y = torch.nn.functional.conv2d(x, torch.ones(1, 1, 2, 2))
        >>> y
        tensor([[[[4., 4.],
                  [4., 4.]]]], grad_fn=<ConvolutionBackward0>)
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over ``(N, C, D, H, W)`` input (ConvolutionBackward0)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 1-D convolution (the gradient of conv1d in its input; ConvolutionBackward0)."""
    return _conv_t(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        1,
        "conv_transpose1d",
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 2-D convolution, weight ``(C_in, C_out / groups, kH, kW)`` (ConvolutionBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2),
        ...                                      stride=2).shape
        torch.Size([1, 1, 4, 4])
    """
    return _conv_t(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        2,
        "conv_transpose2d",
    )


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 3-D convolution (ConvolutionBackward0)."""
    return _conv_t(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        3,
        "conv_transpose3d",
    )
