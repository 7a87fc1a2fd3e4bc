"""``unfold`` (im2col) and ``fold`` (col2im) with torch's checks and messages, and the modules
``nn.Unfold`` / ``nn.Fold``."""

from __future__ import annotations

from .._errors import list_str
from ..ops import fold as FO
from ..ops.dispatch import apply1

__all__ = ["fold", "unfold"]


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(i) for i in v)


def _params(kernel_size, dilation, padding, stride):
    p = {}
    for name, v in (
        ("kernel_size", kernel_size),
        ("dilation", dilation),
        ("padding", padding),
        ("stride", stride),
    ):
        v = _pair(v)
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        p[name] = v
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (
        p["kernel_size"],
        p["dilation"],
        p["padding"],
        p["stride"],
    )
    if kh <= 0 or kw <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kh} "
            f"kernel_width: {kw}"
        )
    if dh <= 0 or dw <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dh} "
            f"dilation_width: {dw}"
        )
    if ph < 0 or pw < 0:
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}"
        )
    if sh <= 0 or sw <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}"
        )
    return p


def _blocks(p, h, w):
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (
        p["kernel_size"],
        p["dilation"],
        p["padding"],
        p["stride"],
    )
    return FO.blocks(h, kh, dh, ph, sh), FO.blocks(w, kw, dw, pw, sw)


def _args(p):
    return (
        f"kernel_size=({p['kernel_size'][0]}, {p['kernel_size'][1]}), "
        f"dilation=({p['dilation'][0]}, {p['dilation'][1]}), "
        f"padding=({p['padding'][0]}, {p['padding'][1]})"
    )


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding ``kernel_size`` blocks of a batched image ``(N, C, H, W)`` as the columns of
    ``(N, C kh kw, L)`` (Im2ColBackward0), the layout a convolution's matrix product takes.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.unfold(torch.arange(9.0).view(1, 1, 3, 3), 2)
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """
    nd = input.dim()
    if nd < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, "
            f"{max(nd, 1) - 1}], but got 2)"
        )
    p = _params(kernel_size, dilation, padding, stride)
    shape = tuple(input.shape)
    if nd not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list_str(shape)}"
        )
    h, w = shape[-2:]
    oh, ow = _blocks(p, h, w)
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), {_args(p)}, calculated shape of the "
            f"array of sliding blocks as ({oh}, {ow}), but its components must be at least one."
        )
    p["self_sym_argsize_minus_1"], p["self_sym_argsize_minus_2"] = w, h
    return apply1(FO.IM2COL, input, p)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse layout of :func:`unfold`: columns ``(N, C kh kw, L)`` summed back into an
    ``output_size`` image (Col2ImBackward0); overlapping blocks add up.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.fold(torch.ones(1, 4, 4), (3, 3), 2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """
    size = _pair(output_size)
    if len(size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(size)}")
    p = _params(kernel_size, dilation, padding, stride)
    shape = tuple(input.shape)
    if input.dim() not in (2, 3) or any(s == 0 for s in shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list_str(shape)}"
        )
    kh, kw = p["kernel_size"]
    rows, cols = shape[-2], shape[-1]
    if rows % (kh * kw):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={rows} and kernel_size=({kh}, {kw})."
        )
    oh, ow = _blocks(p, *size)
    desc = (
        f"Given output_size=({size[0]}, {size[1]}), {_args(p)}, "
        f"stride=({p['stride'][0]}, {p['stride'][1]})"
    )
    if oh * ow != cols:
        raise RuntimeError(
            f"{desc}, expected size of input's dimension 2 to match the calculated number "
            f"of sliding blocks {oh} * {ow} = {oh * ow}, but got input.size(2)={cols}."
        )
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"{desc}, calculated shape of the array of sliding blocks as ({oh}, {ow}), "
            "but its components must be at least one."
        )
    p["output_size"] = size
    return apply1(FO.COL2IM, input, p)
