"""``pixel_shuffle`` / ``pixel_unshuffle`` with torch's checks and messages, and the modules
``nn.PixelShuffle`` / ``nn.PixelUnshuffle``."""

from __future__ import annotations

from ..ops import pixel_shuffle as PS
from ..ops.dispatch import apply1

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def _check(input, name, what, factor):
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")
    if input.dim() < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )


def pixel_shuffle(input, upscale_factor):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: each group of ``r^2`` channels becomes an
    ``r x r`` block of pixels (PixelShuffleBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.pixel_shuffle(torch.arange(4.0).view(1, 4, 1, 1), 2)
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """
    r = int(upscale_factor)
    _check(input, "pixel_shuffle", "upscale_factor", r)
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return apply1(PS.PIXEL_SHUFFLE, input, {"upscale_factor": r})


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``, the inverse of :func:`pixel_shuffle`
    (PixelUnshuffleBackward0)."""
    r = int(downscale_factor)
    _check(input, "pixel_unshuffle", "downscale_factor", r)
    h, w = input.shape[-2:]
    if h % r:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )
    return apply1(PS.PIXEL_UNSHUFFLE, input, {"downscale_factor": r})
