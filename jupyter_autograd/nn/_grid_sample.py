"""``F.affine_grid`` and ``F.grid_sample`` (4-D, bilinear and nearest), as torch's CPU kernels
compute them: the grid unnormalized to pixel coordinates (``align_corners`` as torch), padded
by zeros, the border or a reflection, then the four neighbours weighted by their opposite
areas. Recorded from this library's ops, the result's last node is renamed to torch's
(AffineGridGeneratorBackward0, GridSampler2DBackward0); gradients reach the input and the
grid through the ops that computed them."""

from __future__ import annotations

from .. import _dtype
from ..factories import arange, linspace, ones, tensor
from ..ops import api_layout as _layout
from ..ops.api_layout import stack

_NODES: dict = {}


def _renamed(t, name):
    if t.grad_fn is not None:
        base = type(t.grad_fn)
        cls = _NODES.get((base, name))
        if cls is None:
            cls = _NODES[(base, name)] = type(name, (base,), {})
            cls.__module__ = "builtins"
        _layout._rename_node(t.grad_fn, cls)
    return t


def _base_coords(n, align_corners, dtype):
    if n <= 1:
        return tensor([0.0], dtype=dtype)
    r = linspace(-1, 1, n, dtype=dtype)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) for an output of ``size``."""
    if align_corners is None:
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) != 4:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
        raise ValueError(
            "Expected a batch of 2D affine matrices of shape Nx2x3 for size "
            f"{size}. Got {theta.shape}."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, _, h, w = size
    xs = _base_coords(w, align_corners, theta.dtype)
    ys = _base_coords(h, align_corners, theta.dtype)
    base = stack(
        [xs.view(1, w).expand(h, w), ys.view(h, 1).expand(h, w), ones(h, w, dtype=theta.dtype)],
        -1,
    )
    grid = base.view(1, h * w, 3).expand(n, h * w, 3).bmm(theta.transpose(1, 2))
    return _renamed(grid.view(n, h, w, 2), "AffineGridGeneratorBackward0")


def _unnormalize(coord, size, align_corners):
    # torch's vectorized CPU kernel: (coord + 1) * scale (- 0.5): where the grid hits a pixel
    # centre, its rounding picks the side the derivative is taken from
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    even = flips.fmod(2) == 0
    return (extra + low).where(even, span - extra + low)


def _source_index(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord


def _gather(input, iy, ix):
    """input[n, :, iy, ix] for integer index maps (N, Ho, Wo), zero where out of bounds, as
    (N, C, Ho, Wo)."""
    n, _, h, w = input.shape
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    b = arange(n).view(n, 1, 1).expand_as(ix)
    vals = input[b, :, iy.clamp(0, h - 1), ix.clamp(0, w - 1)]  # (N, Ho, Wo, C)
    return vals.permute(0, 3, 1, 2), inside.unsqueeze(1).to(input.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) at the normalized points of ``grid`` (N, Ho, Wo, 2)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if mode == "bicubic" or input.dim() != 4:
        raise NotImplementedError(
            "grid_sample here samples 4-D inputs, bilinear or nearest (not bicubic, not 5-D)"
        )
    if align_corners is None:
        align_corners = False
    _, _, h, w = input.shape
    ix = _source_index(grid[..., 0], w, padding_mode, align_corners)
    iy = _source_index(grid[..., 1], h, padding_mode, align_corners)
    if mode == "nearest":
        # torch rounds half to even (nearbyint)
        v, m = _gather(input, iy.round().to(_dtype.int64), ix.round().to(_dtype.int64))
        return _renamed(v * m, "GridSampler2DBackward0")
    ix_nw, iy_nw = ix.floor(), iy.floor()
    # the weights as torch's vectorized kernel forms them
    wx = ix - ix_nw
    ex = 1 - wx
    ny = iy - iy_nw
    sy = 1 - ny
    nw, ne, sw, se = sy * ex, sy * wx, ny * ex, ny * wx
    x0, y0 = ix_nw.to(_dtype.int64), iy_nw.to(_dtype.int64)
    out = None
    for (yy, xx), wgt in (
        ((y0, x0), nw),
        ((y0, x0 + 1), ne),
        ((y0 + 1, x0), sw),
        ((y0 + 1, x0 + 1), se),
    ):
        v, m = _gather(input, yy, xx)
        term = v * (wgt.unsqueeze(1) * m)
        out = term if out is None else out + term
    return _renamed(out, "GridSampler2DBackward0")
