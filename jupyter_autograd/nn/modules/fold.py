"""``nn.Unfold`` and ``nn.Fold``: sliding blocks as columns, and back."""

from __future__ import annotations

from .._fold import fold, unfold
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sums columns ``(N, C kh kw, L)`` back into ``(N, C, *output_size)`` (see ``F.fold``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Fold(output_size=(4, 5), kernel_size=2, stride=2)
        Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=2)
    """

    __constants__ = ("output_size", "kernel_size", "dilation", "padding", "stride")

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            "output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
            "padding={padding}, stride={stride}".format(**self.__dict__)
        )


class Unfold(Module):
    """Sliding blocks of ``(N, C, H, W)`` as the columns of ``(N, C kh kw, L)`` (see ``F.unfold``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Unfold(kernel_size=(2, 3))(torch.ones(2, 5, 3, 4)).shape
        torch.Size([2, 30, 4])
    """

    __constants__ = ("kernel_size", "dilation", "padding", "stride")

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
            "stride={stride}".format(**self.__dict__)
        )
