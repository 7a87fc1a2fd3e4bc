"""Padding rows: ``constant_pad_nd`` (ConstantPadNdBackward0) and the reflection / replication
pads of the last 1, 2 or 3 dims (ReflectionPad2DBackward0...), each with its backward as a row
(...BackwardBackward0) so that gradients of gradients are recorded.

``pad`` lists (left, right) pairs from the last dim backwards, as ``F.pad``; negative values crop.
"""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, AUTO_LINEAR, defop


def _pairs(pad, ndim):
    """``{axis: (left, right)}`` from F.pad's flat list (last dim first)."""
    return {ndim - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}


# ---------------------------------------------------------------- constant
def _constant_fwd(xp, x, p):
    pairs = _pairs(p["pad"], x.ndim)
    shape = list(x.shape)
    src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for ax, (lo, hi) in pairs.items():
        n = x.shape[ax]
        shape[ax] = n + lo + hi
        src[ax] = slice(max(-lo, 0), n - max(-hi, 0))
        dst[ax] = slice(max(lo, 0), max(lo, 0) + max(n - max(-lo, 0) - max(-hi, 0), 0))
    value = p.get("value", 0)
    out = xp.full(tuple(shape), value, x.dtype) if value else xp.zeros(tuple(shape), x.dtype)
    out[tuple(dst)] = x[tuple(src)]
    return out


def _constant_vjp(xp, g, x, out, p):
    q = {"pad": tuple(-v for v in p["pad"]), "value": 0}
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(CONSTANT_PAD, g, q)
    return _constant_fwd(xp, g, q)


CONSTANT_PAD = defop(
    "constant_pad_nd",
    node="ConstantPadNdBackward0",
    inputs=("self",),
    saved=("pad",),
    fwd=_constant_fwd,
    vjp=_constant_vjp,
    complex=AS_WRITTEN,
    jvp=lambda xp, t, x, out, p: _constant_fwd(xp, t[0], {"pad": p["pad"]}),
    sample={
        "kind": "cases",
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-1, 1, (2, 3, 4))],
                lambda tt, x: tt.nn.functional.pad(x, (1, -1, 2, 0), value=0.5),
            )
        ],
    },
)


# ---------------------------------------------------------------- reflect / replicate
def _index(mode, n, lo, hi):
    """Source index of each output position along one axis."""
    j = np.arange(-lo, n + hi)
    if mode == "reflect":
        j = np.abs(j)
        j = np.where(j > n - 1, 2 * (n - 1) - j, j)
    else:
        j = np.clip(j, 0, n - 1)
    return j


def _index_fwd(mode):
    def fwd(xp, x, p):
        for ax, (lo, hi) in _pairs(p["padding"], x.ndim).items():
            if lo or hi:
                x = xp.take(x, xp.asarray(_index(mode, x.shape[ax], lo, hi)), axis=ax)
        return x

    return fwd


def _index_bwd(mode):
    """The adjoint: each output position's gradient added back to its source position."""

    def bwd(xp, g, p):
        for ax, (lo, hi) in _pairs(p["padding"], g.ndim).items():
            if not (lo or hi):
                continue
            n = g.shape[ax] - lo - hi
            idx = _index(mode, n, lo, hi)
            every = (slice(None),) * ax
            inner = max(lo, 0), max(lo, 0) + n - max(-lo, 0) - max(-hi, 0)
            gx = xp.zeros(g.shape[:ax] + (n,) + g.shape[ax + 1 :], g.dtype)
            gx[every + (slice(max(-lo, 0), n - max(-hi, 0)),)] = g[every + (slice(*inner),)]
            for j in list(range(inner[0])) + list(range(inner[1], g.shape[ax])):
                gx[every + (int(idx[j]),)] += g[every + (j,)]
            g = gx
        return g

    return bwd


def _pad_rows(mode, d):
    title = "Reflection" if mode == "reflect" else "Replication"
    name = f"{title.lower()}_pad{d}d"
    fwd, bwd = _index_fwd(mode), _index_bwd(mode)
    rows = {}

    def vjp(xp, g, x, out, p):
        if xp.is_txp:
            from .dispatch import apply1

            return apply1(rows["bwd"], g, p)
        return bwd(xp, g, p)

    def vjp_bwd(xp, h, g, out, p):
        if xp.is_txp:
            from .dispatch import apply1

            return apply1(rows["fwd"], h, p)
        return fwd(xp, h, p)

    pad = (2, 1, 1, 0, 1, 2)[: 2 * d]
    shape = ((1, 2, 4), (1, 2, 3, 4), (1, 1, 3, 3, 3))[d - 1]  # small: gradgradcheck runs on them

    def cases(rng):
        return [
            (
                None,
                [rng.uniform(-1, 1, shape)],
                lambda tt, x: tt.nn.functional.pad(x, pad, mode=mode),
            )
        ]

    def bwd_cases(rng):
        from .conv import _through_grad

        x0 = rng.uniform(-1, 1, shape)
        out_shape = tuple(
            n + pad[2 * (len(shape) - 1 - i)] + pad[2 * (len(shape) - 1 - i) + 1]
            if len(shape) - 1 - i < d
            else n
            for i, n in enumerate(shape)
        )

        def run(lib, v):
            return _through_grad(lib, x0, lambda t: lib.nn.functional.pad(t, pad, mode=mode), v)

        return [(None, [rng.uniform(-1, 1, out_shape)], run)]

    rows["fwd"] = defop(
        name,
        node=f"{title}Pad{d}DBackward0",
        inputs=("self",),
        saved=("padding", "self"),
        fwd=fwd,
        vjp=vjp,
        reads=((0,),),  # torch's {mode}_pad{d}d_backward(grad, self, padding): self is saved
        jvp=AUTO_LINEAR,
        complex=AS_WRITTEN,
        sample={"kind": "cases", "cases": cases},
    )
    rows["bwd"] = defop(
        name + "_backward",
        node=f"{title}Pad{d}DBackwardBackward0",
        inputs=("grad_output",),
        saved=("padding",),
        fwd=bwd,
        vjp=vjp_bwd,
        jvp=AUTO_LINEAR,
        sample={"kind": "cases", "cases": bwd_cases},
        complex=AS_WRITTEN,
    )
    return rows["fwd"]


PAD_ROWS = {(mode, d): _pad_rows(mode, d) for mode in ("reflect", "replicate") for d in (1, 2, 3)}
