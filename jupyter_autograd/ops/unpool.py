"""``max_unpool2d`` (MaxUnpool2DBackward0) and ``max_unpool3d`` (MaxUnpool3DBackward0): each value
written at its flat index (a max pool's ``indices``) in a zero plane of ``output_size``; the
gradient gathers at the same indices (a view of a gather, as torch's double backward records)."""

from __future__ import annotations

import numpy as np

from .registry import AUTO_LINEAR, defop, kernel_refuses


def _flat(a, k):
    """(..., prod of the last k dims) view."""
    return a.reshape(a.shape[: a.ndim - k] + (-1,))


def _unpool(xp, x, p):
    k = len(p["output_size"])
    idx = p["_idx"]
    lead = x.shape[: x.ndim - k]
    size = int(np.prod(p["output_size"]))
    if not x.size:
        return xp.zeros(lead + tuple(p["output_size"]), x.dtype)
    out = xp.put_along_axis_zeros(_flat(x, k), _flat(xp.asarray(idx), k), -1, lead + (size,))
    return out.reshape(lead + tuple(p["output_size"]))


def _gather(xp, g, p):
    k = len(p["output_size"])
    idx = p["_idx"]
    if xp.is_txp:
        from ..tensor import Tensor

        flat = xp.reshape(g, tuple(g.shape[: g.ndim - k]) + (-1,))
        picked = xp.take_along_axis(flat, Tensor._wrap(_flat(idx, k)), -1)
        return xp.reshape(picked, idx.shape)
    return xp.take_along_axis(_flat(g, k), _flat(xp.asarray(idx), k), axis=-1).reshape(idx.shape)


def _cases(fn, shape, kernel):
    def cases(rng, lib):
        x = rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0
        _, idx = getattr(lib.nn.functional, fn.replace("unpool", "pool"))(
            lib.tensor(x), kernel, return_indices=True
        )
        pooled = getattr(lib.nn.functional, fn.replace("unpool", "pool"))(lib.tensor(x), kernel)
        y = pooled.numpy()
        return [
            (
                None,
                [y],
                lambda tt, t: getattr(tt.nn.functional, fn)(t, tt.tensor(idx.numpy()), kernel),
            )
        ]

    return cases


MAX_UNPOOL2D = defop(
    "max_unpool2d",
    node="MaxUnpool2DBackward0",
    inputs=("self",),
    saved=("indices",),
    fwd=_unpool,
    vjp=lambda xp, g, x, out, p: _gather(xp, g, p),
    jvp=AUTO_LINEAR,
    complex=kernel_refuses("max_unpool2d"),
    sample={"kind": "cases", "cases": _cases("max_unpool2d", (2, 3, 6, 4), 2)},
)
MAX_UNPOOL3D = defop(
    "max_unpool3d",
    node="MaxUnpool3DBackward0",
    inputs=("self",),
    saved=("indices",),
    fwd=_unpool,
    vjp=lambda xp, g, x, out, p: _gather(xp, g, p),
    jvp=AUTO_LINEAR,
    complex=kernel_refuses("max_unpool3d"),
    sample={
        "kind": "cases",
        "cases": lambda rng: [
            (
                None,
                [rng.standard_normal((1, 2, 2, 2, 2))],
                lambda tt, t: tt.nn.functional.max_unpool3d(t, tt.tensor(_IDX3), 2),
            )
        ],
    },
)

# indices of a 2x2x2 max pool of a (1, 2, 4, 4, 4) input (each window's origin, offset by
# channel), for the 3-D sample: no 3-D max pool here yet
_D, _H, _W = np.meshgrid(np.arange(2), np.arange(2), np.arange(2), indexing="ij")
_IDX3 = (
    (32 * _D + 8 * _H + 2 * _W)[None, None] + np.array([0, 21])[None, :, None, None, None]
).astype(np.int64)
