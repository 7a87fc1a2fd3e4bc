"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``, with torch's
constructor checks, initialisation (kaiming uniform, a=sqrt(5)) and ``repr``."""

from __future__ import annotations

import math

from ... import factories
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(v, n):
    if isinstance(v, (list, tuple, str)):  # a string too, as torch's _ntuple ('same' for a
        return tuple(v)  # transposed conv prints as ('s', 'a', 'm', 'e'))
    return (v,) * n


class _ConvNd(Module):
    _n = 2

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        bias,
        padding_mode,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dim first, each side) for the non-zeros padding modes
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [
                q for q in reversed(self.padding) for _ in range(2)
            ]
        shape = (
            (in_channels, out_channels // groups)
            if transposed
            else (out_channels, in_channels // groups)
        ) + tuple(kernel_size)
        self.weight = Parameter(factories.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(factories.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_ with a=sqrt(5): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), the bias the same
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _Conv(_ConvNd):
    _fn = None

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ) -> None:
        n = self._n
        super().__init__(
            in_channels,
            out_channels,
            _ntuple(kernel_size, n),
            _ntuple(stride, n),
            padding if isinstance(padding, str) else _ntuple(padding, n),
            _ntuple(dilation, n),
            False,
            _ntuple(0, n),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input, weight, bias):
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(x, weight, bias, self.stride, (0,) * self._n, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution layer over ``(N, C_in, L)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Conv1d(2, 4, 3, padding="same")
        Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same)
    """

    _n = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution layer over ``(N, C_in, H, W)`` (im2col + GEMM; ConvolutionBackward0).

    ``padding_mode`` ``"reflect"``, ``"replicate"`` or ``"circular"`` pads with ``F.pad`` first.

    Raises:
        ValueError: channels not divisible by ``groups``, an unknown padding string or mode,
            or ``padding="same"`` with a stride.

    Example:
        >>> import jupyter_autograd as torch
        >>> conv = torch.nn.Conv2d(1, 6, 5, padding=2)
        >>> conv
        Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2))
        >>> conv(torch.zeros(8, 1, 28, 28)).shape
        torch.Size([8, 6, 28, 28])
    """

    _n = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution layer over ``(N, C_in, D, H, W)``."""

    _n = 3
    _fn = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _fn = None

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        n = self._n
        super().__init__(
            in_channels,
            out_channels,
            _ntuple(kernel_size, n),
            _ntuple(stride, n),
            _ntuple(padding, n),
            _ntuple(dilation, n),
            True,
            _ntuple(output_padding, n),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(
        self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None
    ):
        if output_size is None:
            return self.output_padding
        has_batch = input.dim() == num_spatial_dims + 2
        output_size = list(output_size)
        k = input.dim() - 2 if has_batch else input.dim() - 1
        if len(output_size) == k + 2:
            output_size = output_size[2:]
        if len(output_size) != k:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                f"{num_spatial_dims} or {num_spatial_dims + 2} elements (got {len(output_size)})"
            )
        lo, hi = [], []
        spatial = input.shape[input.dim() - k :]
        for d in range(k):
            dil = 1 if dilation is None else dilation[d]
            m = (spatial[d] - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1
            lo.append(m)
            hi.append(m + stride[d] - 1)
        for i in range(len(output_size)):
            if output_size[i] < lo[i] or output_size[i] > hi[i]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {lo} to "
                    f"{hi} (for an input of {list(spatial)})".replace(
                        f"{list(spatial)})", f"torch.Size({list(spatial)}))"
                    )
                )
        return tuple(output_size[d] - lo[d] for d in range(k))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, self._n, self.dilation
        )
        return type(self)._fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTranspose):
    """Transposed 1-D convolution layer (the gradient of Conv1d in its input)."""

    _n = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """Transposed 2-D convolution layer; ``forward(input, output_size)`` picks the output padding.

    Example:
        >>> import jupyter_autograd as torch
        >>> up = torch.nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1)
        >>> up
        ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))
        >>> up(torch.zeros(1, 3, 5, 5)).shape
        torch.Size([1, 4, 12, 12])
    """

    _n = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    """Transposed 3-D convolution layer."""

    _n = 3
    _fn = staticmethod(F.conv_transpose3d)
