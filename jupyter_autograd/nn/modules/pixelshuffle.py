"""``nn.PixelShuffle`` and ``nn.PixelUnshuffle``."""

from __future__ import annotations

from .._pixel_shuffle import pixel_shuffle, pixel_unshuffle
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearranges ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)`` (sub-pixel convolution's upscaling).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.PixelShuffle(3)(torch.ones(1, 9, 4, 4)).shape
        torch.Size([1, 1, 12, 12])
    """

    __constants__ = ("upscale_factor",)

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearranges ``(*, C, H r, W r)`` into ``(*, C r^2, H, W)``, undoing :class:`PixelShuffle`.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.PixelUnshuffle(2)(torch.ones(1, 1, 4, 4)).shape
        torch.Size([1, 4, 2, 2])
    """

    __constants__ = ("downscale_factor",)

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
