"""``F.interpolate`` (and the deprecated ``upsample*``) with torch's argument handling: the
upsampling rows of :mod:`..ops.upsample`, adaptive average pooling for ``mode="area"``."""

from __future__ import annotations

import math
import warnings

from ..ops import upsample as UP
from ..ops.dispatch import apply1

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]

_SPATIAL = {
    "nearest": None,
    "nearest-exact": None,
    "linear": 1,
    "bilinear": 2,
    "trilinear": 3,
    "bicubic": 2,
}


def _is_int(v):
    return isinstance(v, int) or (hasattr(v, "dtype") and getattr(v.dtype, "kind", "") in "iu")


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resize the spatial dims (all but the first two) to ``size`` or by ``scale_factor``:
    ``"nearest"``, ``"nearest-exact"``, ``"linear"``/``"bilinear"``/``"trilinear"`` (with
    ``align_corners``), ``"bicubic"`` and ``"area"`` (adaptive average pooling), as torch.

    Raises:
        ValueError: both or neither of size/scale_factor, align_corners with a nearest mode, or
            sizes that do not match the input's spatial dims.
        NotImplementedError: a mode that needs another input rank, or an unknown mode; and, not
            built here yet, ``antialias=True``.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([[[1.0, 3.0]]])
        >>> torch.nn.functional.interpolate(x, scale_factor=2, mode="linear")
        tensor([[[1.0000, 1.5000, 2.5000, 3.0000]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    shape = tuple(input.shape)
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input "
                    f"with spatial dimensions of {list(shape[2:])} and output size of {size}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                    "...,oK) format."
                )
            if not all(_is_int(v) for v in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                    f"int], but got size with types {[type(v) for v in size]}"
                )
            output_size = [int(v) for v in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(shape[2:])} and scale_factor of shape "
                    f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if antialias:
        raise NotImplementedError(
            "interpolate(antialias=True) is not supported by jupyter_autograd"
        )
    nd = input.dim()
    if mode == "area" and nd in (3, 4, 5):
        from . import functional as F

        pool = {3: F.adaptive_avg_pool1d, 4: F.adaptive_avg_pool2d, 5: F.adaptive_avg_pool3d}[nd]
        return pool(input, output_size)
    need = _SPATIAL.get(mode, -1)
    if need == -1 or mode == "area" or nd not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if need is not None and need != dim:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {need + 2}D input")
    if output_size is None:
        output_size = [math.floor(shape[i + 2] * scale_factors[i]) for i in range(dim)]
    scales = scale_factors or [None] * dim
    p = {
        "mode": mode,
        "output_size": tuple(output_size),
        "self_sym_sizes": shape,
        "_scales": scales,
    }
    names = UP._SCALE_NAMES[dim]
    for n, s in zip(names, scales):
        p[n] = s
    if mode not in ("nearest", "nearest-exact"):
        p["align_corners"] = bool(align_corners)
    return apply1(UP.UPSAMPLE[(mode, dim)], input, p)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns as torch)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: nearest :func:`interpolate` (warns as torch)."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: bilinear :func:`interpolate` with ``align_corners=True`` (warns as torch)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
