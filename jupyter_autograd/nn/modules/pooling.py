"""Pooling layers: thin modules over ``nn.functional``'s pooling, printed as torch prints them."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "LocalResponseNorm",
    "MaxPool1d",
    "MaxPool2d",
]


class _MaxPoolNd(Module):
    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling layer.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.MaxPool1d(3)
        MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input):
        return F.max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling layer (MaxPool2DWithIndicesBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> pool = torch.nn.MaxPool2d(2)
        >>> pool
        MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
        >>> pool(torch.zeros(1, 6, 28, 28)).shape
        torch.Size([1, 6, 14, 14])
    """

    def forward(self, input):
        return F.max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class AvgPool1d(Module):
    """1-D average pooling layer (its sizes printed as 1-tuples, as torch).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.AvgPool1d(3)
        AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))
    """

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


def _single(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


class AvgPool2d(Module):
    """2-D average pooling layer (AvgPool2DBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.AvgPool2d(2)
        AvgPool2d(kernel_size=2, stride=2, padding=0)
    """

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed length."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``output_size`` (``None`` keeps that dim).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.AdaptiveAvgPool2d((5, 7))(torch.zeros(2, 3, 8, 9)).shape
        torch.Size([2, 3, 5, 7])
    """

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """3-D average pooling to a fixed ``output_size`` (``None`` keeps that dim).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.AdaptiveAvgPool3d((2, None, 3))(torch.zeros(1, 4, 5, 6)).shape
        torch.Size([1, 2, 5, 3])
    """

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AvgPool3d(Module):
    """3-D average pooling (see ``F.avg_pool3d``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.AvgPool3d(2)(torch.zeros(1, 3, 4, 4, 4)).shape
        torch.Size([1, 3, 2, 2, 2])
    """

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class LocalResponseNorm(Module):
    """Normalization over neighbouring channels (see ``F.local_response_norm``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.LocalResponseNorm(2)
        LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed length."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed ``output_size``."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
