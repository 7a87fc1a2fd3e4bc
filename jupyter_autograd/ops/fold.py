"""``im2col`` (Im2ColBackward0, ``F.unfold``) and ``col2im`` (Col2ImBackward0, ``F.fold``): sliding
blocks of a batched image laid out as columns, and summed back; each is the other's gradient.

Blocks are read (and written) as strided slices of a padded buffer, one kernel offset at a time;
a column's rows are ordered channel, kernel row, kernel column, and its blocks row-major, as torch.
"""

from __future__ import annotations

from .registry import AS_WRITTEN, AUTO_LINEAR, defop


def blocks(n, k, d, pad, s):
    """The number of sliding blocks along one spatial dim."""
    return (n + 2 * pad - d * (k - 1) - 1) // s + 1


def _slices(p, oh, ow):
    (kh, kw), (dh, dw), (sh, sw) = p["kernel_size"], p["dilation"], p["stride"]
    for i in range(kh):
        for j in range(kw):
            yield (
                slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                slice(j * dw, j * dw + sw * (ow - 1) + 1, sw),
            )


def _im2col(xp, x, p):
    """(N, C, H, W) -> (N, C kh kw, L); an unbatched (C, H, W) gives (C kh kw, L)."""
    squeeze = x.ndim == 3
    if squeeze:
        x = x[None]
    n, c, h, w = x.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (
        p["kernel_size"],
        p["dilation"],
        p["padding"],
        p["stride"],
    )
    oh, ow = blocks(h, kh, dh, ph, sh), blocks(w, kw, dw, pw, sw)
    if ph or pw:
        buf = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), x.dtype)
        buf[:, :, ph : ph + h, pw : pw + w] = x
    else:
        buf = x
    out = xp.empty((n, c, kh * kw, oh, ow), x.dtype)
    for k, (rs, cs) in enumerate(_slices(p, oh, ow)):
        out[:, :, k] = buf[:, :, rs, cs]
    out = out.reshape(n, c * kh * kw, oh * ow)
    return out[0] if squeeze else out


def _col2im(xp, x, p):
    """(N, C kh kw, L) -> (N, C, H, W) with H, W = ``output_size``: overlapping blocks add up."""
    squeeze = x.ndim == 2
    if squeeze:
        x = x[None]
    h, w = p["output_size"]
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (
        p["kernel_size"],
        p["dilation"],
        p["padding"],
        p["stride"],
    )
    oh, ow = blocks(h, kh, dh, ph, sh), blocks(w, kw, dw, pw, sw)
    n = x.shape[0]
    c = x.shape[1] // (kh * kw)
    cols = x.reshape(n, c, kh * kw, oh, ow)
    buf = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), x.dtype)
    for k, (rs, cs) in enumerate(_slices(p, oh, ow)):
        buf[:, :, rs, cs] += cols[:, :, k]
    out = buf[:, :, ph : ph + h, pw : pw + w]
    out = xp.ascontiguousarray(out) if (ph or pw) else out
    return out[0] if squeeze else out


def _im2col_vjp(xp, g, x, out, p):
    q = {
        "output_size": (p["self_sym_argsize_minus_2"], p["self_sym_argsize_minus_1"]),
        **{k: p[k] for k in ("kernel_size", "dilation", "padding", "stride")},
    }
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(COL2IM, g, q)
    return _col2im(xp, g, q)


def _col2im_vjp(xp, g, x, out, p):
    q = {k: p[k] for k in ("kernel_size", "dilation", "padding", "stride")}
    q["self_sym_argsize_minus_1"], q["self_sym_argsize_minus_2"] = g.shape[-1], g.shape[-2]
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(IM2COL, g, q)
    return _im2col(xp, g, q)


def _cases(fn, shape, args, kw):
    def cases(rng):
        return [
            (
                None,
                [rng.standard_normal(shape)],
                lambda tt, t: getattr(tt.nn.functional, fn)(t, *args, **kw),
            )
        ]

    return cases


IM2COL = defop(
    "im2col",
    node="Im2ColBackward0",
    inputs=("self",),
    saved=(
        "dilation",
        "kernel_size",
        "padding",
        "self_sym_argsize_minus_1",
        "self_sym_argsize_minus_2",
        "stride",
    ),
    fwd=_im2col,
    vjp=_im2col_vjp,
    jvp=AUTO_LINEAR,
    complex=AS_WRITTEN,
    sample={
        "kind": "cases",
        "cases": _cases("unfold", (2, 3, 5, 4), ((2, 3),), {"padding": 1, "stride": (2, 1)}),
    },
)
COL2IM = defop(
    "col2im",
    node="Col2ImBackward0",
    inputs=("self",),
    saved=("dilation", "kernel_size", "padding", "stride"),
    fwd=_col2im,
    vjp=_col2im_vjp,
    jvp=AUTO_LINEAR,
    complex=AS_WRITTEN,
    sample={
        "kind": "cases",
        "cases": _cases("fold", (2, 12, 9), ((4, 5), 2), {"dilation": (1, 2)}),
    },
)
