"""``F.pad``: constant, reflect, replicate and circular padding with torch's checks."""

from __future__ import annotations

from .._errors import list_str
from ..ops import padding as PD
from ..ops.dispatch import apply1
from ..tensor import Tensor

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def _unsupported(npad, ndim):
    return NotImplementedError(
        f"Padding size {npad} is not supported for {ndim}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
    )


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_prev, ...)``.

    ``"constant"`` fills with ``value`` (negative pads crop; ConstantPadNdBackward0),
    ``"reflect"`` mirrors without repeating the edge, ``"replicate"`` repeats it
    (ReflectionPad2DBackward0...), ``"circular"`` wraps around (slice copies, as torch).

    Raises:
        NotImplementedError: an unknown mode, or a non-constant pad of the wrong length for the
            input's rank.
        RuntimeError: an odd pad length, a pad at least as wide as a reflected dim, and torch's
            other checks.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.pad(torch.tensor([[1., 2., 3.]]), (2, 1), mode="reflect")
        tensor([[3., 2., 1., 2., 3., 2.]])
    """
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(int(v) for v in pad)
    x = input._data
    nd = x.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * nd:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {nd}"
        )
    if mode == "constant":
        for i in range(len(pad) // 2):
            ax = nd - 1 - i
            if x.shape[ax] + pad[2 * i] + pad[2 * i + 1] < 0:
                raise RuntimeError(
                    f"The input size {x.shape[ax]}, plus negative padding {pad[2 * i]} and "
                    f"{pad[2 * i + 1]} resulted in a negative output size, which is invalid. Check "
                    f"dimension {ax} of your input."
                )
        return apply1(PD.CONSTANT_PAD, input, {"pad": pad, "value": 0 if value is None else value})
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    d = len(pad) // 2
    if d not in (1, 2, 3) or nd not in (d + 1, d + 2):
        raise _unsupported(len(pad), nd)
    if mode == "circular":
        return _circular(input, pad, d)
    if any(s == 0 for s in x.shape[1:]):
        raise RuntimeError(
            f"Expected {d + 1}D or {d + 2}D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list_str(x.shape)}"
        )
    if mode == "reflect":
        for i in range(d):
            ax = nd - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo >= x.shape[ax] or hi >= x.shape[ax]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({lo}, {hi}) at dimension {ax} of input "
                    f"{list_str(x.shape)}"
                )
    return apply1(PD.PAD_ROWS[(mode, d)], input, {"padding": pad})


def _circular(input, pad, d):
    """torch's ``_pad_circular``: the input copied into the middle, then each side's wrap copied
    from the opposite edge (CopySlices on SliceBackward0, as torch records it)."""
    from ..factories import empty

    shp = input._data.shape
    nd = len(shp)
    out_shape = list(shp)
    for i in range(d):
        ax = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > shp[ax] or hi > shp[ax]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[ax] = shp[ax] + lo + hi
        if out_shape[ax] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = empty(tuple(out_shape), dtype=input.dtype, device=input.device)
    dst, src = [slice(None)] * nd, [slice(None)] * nd
    for i in range(d):
        ax = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        dst[ax] = slice(max(lo, 0), out_shape[ax] - max(hi, 0))
        src[ax] = slice(max(-lo, 0), shp[ax] - max(-hi, 0))
    out[tuple(dst)] = input[tuple(src)]
    for i in range(d):
        ax = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        every = (slice(None),) * ax
        if lo > 0:
            start = out_shape[ax] - lo - max(hi, 0)
            out[every + (slice(0, lo),)] = out[every + (slice(start, start + lo),)]
        if hi > 0:
            start = max(lo, 0)
            out[every + (slice(out_shape[ax] - hi, out_shape[ax]),)] = out[
                every + (slice(start, start + hi),)
            ]
    return out
