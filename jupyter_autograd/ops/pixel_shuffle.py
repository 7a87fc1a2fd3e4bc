"""``pixel_shuffle`` (PixelShuffleBackward0) and ``pixel_unshuffle`` (PixelUnshuffleBackward0):
channels moved into space and back, each the other's gradient (so gradients of gradients record
the other row, as torch)."""

from __future__ import annotations

from .registry import AS_WRITTEN, defop


def _shuffle(x, r):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    oc = c // (r * r)
    n = len(lead)
    y = x.reshape(lead + (oc, r, r, h, w))
    y = y.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return y.reshape(lead + (oc, h * r, w * r))


def _unshuffle(x, r):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    oh, ow = h // r, w // r
    n = len(lead)
    y = x.reshape(lead + (c, oh, r, ow, r))
    y = y.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return y.reshape(lead + (c * r * r, oh, ow))


def _apply(row, xp, g, factor):
    if xp.is_txp:
        from .dispatch import apply1

        key = "downscale_factor" if row is PIXEL_UNSHUFFLE else "upscale_factor"
        return apply1(row, g, {key: factor})
    return (_unshuffle if row is PIXEL_UNSHUFFLE else _shuffle)(g, factor)


def _cases(fn, shape, factor):
    def cases(rng):
        return [
            (
                None,
                [rng.standard_normal(shape)],
                lambda tt, t: getattr(tt.nn.functional, fn)(t, factor),
            )
        ]

    return cases


PIXEL_SHUFFLE = defop(
    "pixel_shuffle",
    node="PixelShuffleBackward0",
    inputs=("self",),
    saved=("upscale_factor",),
    fwd=lambda xp, x, p: _shuffle(x, p["upscale_factor"]).copy(),
    vjp=lambda xp, g, x, out, p: _apply(PIXEL_UNSHUFFLE, xp, g, p["upscale_factor"]),
    jvp=lambda xp, t, x, out, p: _shuffle(t[0], p["upscale_factor"]),
    complex=AS_WRITTEN,
    sample={"kind": "cases", "cases": _cases("pixel_shuffle", (2, 8, 3, 2), 2)},
)
PIXEL_UNSHUFFLE = defop(
    "pixel_unshuffle",
    node="PixelUnshuffleBackward0",
    inputs=("self",),
    saved=("downscale_factor",),
    fwd=lambda xp, x, p: _unshuffle(x, p["downscale_factor"]).copy(),
    vjp=lambda xp, g, x, out, p: _apply(PIXEL_SHUFFLE, xp, g, p["downscale_factor"]),
    jvp=lambda xp, t, x, out, p: _unshuffle(t[0], p["downscale_factor"]),
    complex=AS_WRITTEN,
    sample={"kind": "cases", "cases": _cases("pixel_unshuffle", (2, 3, 4, 6), 2)},
)
