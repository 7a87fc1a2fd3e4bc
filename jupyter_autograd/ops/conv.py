"""Convolution rows, for any number of spatial dims (conv1d/2d/3d and their transposes).

``convolution`` (ConvolutionBackward0) runs as im2col + GEMM: the input's sliding windows are
copied into a ``(N, groups, C/groups * prod(kernel), prod(out))`` matrix (one strided view,
one copy) and multiplied by the weight, one BLAS call per image and group. Everything else is
written with three kernels on raw arrays, all bilinear:

    F(x, w)      the convolution (no bias);
    Bi(g, w)     its adjoint in x (``conv_transpose``): gradient of the input, a col2im;
    Bw(x, g)     its adjoint in w: gradient of the weight.

A transposed convolution's forward is ``Bi``. The two VJPs of ``convolution`` are rows of their
own (ConvolutionBackwardBackward0, as torch names the node of a gradient of a gradient), whose
own VJPs are again these kernels, so gradients of any order are recorded.
"""

from __future__ import annotations

import itertools
import math

from .registry import HOLOMORPHIC, defop


def _out_size(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _windows(xp, x, ksize, p):
    """(x padded, then viewed as (N, C, *kernel, *out)): the sliding windows, without a copy."""
    pad, stride, dil = p["padding"], p["stride"], p["dilation"]
    spatial = x.shape[2:]
    if any(pad):
        buf = xp.zeros(x.shape[:2] + tuple(n + 2 * q for n, q in zip(spatial, pad)), x.dtype)
        buf[(slice(None), slice(None)) + tuple(slice(q, q + n) for n, q in zip(spatial, pad))] = x
        x = buf
    else:
        x = xp.ascontiguousarray(x)
    out = p.get("y_out")  # the windows of a transposed convolution's output_padding rows are
    if out is None:  # not counted: its F-geometry's output is the transposed input's size
        out = tuple(
            _out_size(n, k, s, q, d) for n, k, s, q, d in zip(spatial, ksize, stride, pad, dil)
        )
    st = x.strides
    shape = x.shape[:2] + tuple(ksize) + out
    strides = (
        st[:2]
        + tuple(a * d for a, d in zip(st[2:], dil))
        + tuple(a * s for a, s in zip(st[2:], stride))
    )
    return xp.lib.stride_tricks.as_strided(x, shape, strides), out


def _cols(xp, x, ksize, p):
    """im2col: ``(N, groups, C/groups * prod(kernel), L)`` and the output's spatial size."""
    win, out = _windows(xp, x, ksize, p)
    n, c = x.shape[:2]
    g = p["groups"]
    return xp.ascontiguousarray(win).reshape(n, g, (c // g) * math.prod(ksize), math.prod(out)), out


def _F(xp, x, w, p, cols=None):
    """The convolution of x (N, C, *S) with w (OC, C/groups, *K), without bias."""
    n = x.shape[0]
    oc, g = w.shape[0], p["groups"]
    if cols is None:
        cols, out = _cols(xp, x, w.shape[2:], p)
    else:
        out = p["_out"]
    if g == 1:
        y = xp.matmul(w.reshape(oc, -1), cols.reshape(n, cols.shape[2], cols.shape[3]))
    else:
        y = xp.matmul(w.reshape(g, oc // g, -1), cols)
    return y.reshape((n, oc) + out), cols, out


def _Bi(xp, gy, w, x_shape, p):
    """Adjoint of F in x: ``dcols = w^T gy`` scattered back over the windows (col2im).

    The batch is put last, ``(C, *kernel, *out, N)``, so that each kernel offset's scatter is one
    add over runs of ``out_w * N`` contiguous elements (in NCHW the runs are ``out_w`` long:
    measured 6x slower for LeNet's second layer)."""
    n, oc = gy.shape[:2]
    g = p["groups"]
    ksize, out = tuple(w.shape[2:]), tuple(gy.shape[2:])
    cg = w.shape[1]
    gt = xp.ascontiguousarray(xp.moveaxis(gy, 0, -1))  # (OC, *out, N)
    if g == 1:
        dc = xp.matmul(w.reshape(oc, -1).T, gt.reshape(oc, -1))
    else:
        wt = xp.swapaxes(w.reshape(g, oc // g, -1), 1, 2)
        dc = xp.matmul(wt, gt.reshape(g, oc // g, -1))
    dc = dc.reshape((g * cg,) + ksize + out + (n,))
    pad, stride, dil = p["padding"], p["stride"], p["dilation"]
    spatial = tuple(x_shape[2:])
    buf = xp.zeros((g * cg,) + tuple(s + 2 * q for s, q in zip(spatial, pad)) + (n,), dc.dtype)
    for k in itertools.product(*(range(s) for s in ksize)):
        sl = tuple(
            slice(ki * d, ki * d + s * (o - 1) + 1, s) for ki, d, s, o in zip(k, dil, stride, out)
        )
        buf[(slice(None),) + sl] += dc[(slice(None),) + k]
    if any(pad):
        buf = buf[(slice(None),) + tuple(slice(q, q + s) for s, q in zip(spatial, pad))]
    return xp.ascontiguousarray(xp.moveaxis(buf, -1, 0))


def _Bw(xp, x, gy, w_shape, p, cols=None):
    """Adjoint of F in w: ``sum over images of gy cols^T``."""
    n, oc = gy.shape[:2]
    g = p["groups"]
    if cols is None:
        cols, _ = _cols(xp, x, w_shape[2:], p)
    lsz = cols.shape[3]
    if g == 1:
        gw = xp.matmul(gy.reshape(n, oc, lsz), xp.swapaxes(cols.reshape(n, -1, lsz), 1, 2))
    else:
        gw = xp.matmul(gy.reshape(n, g, oc // g, lsz), xp.swapaxes(cols, 2, 3))
    return gw.sum(axis=0).reshape(w_shape)


def _raw(xp, kind, a, b, p):
    """One kernel on raw arrays: ``F(a, b)``, ``Bi(a, b)`` or ``Bw(a, b)``."""
    if kind == "F":
        return _F(xp, a, b, p)[0]
    if kind == "Bi":
        return _Bi(xp, a, b, p["x_shape"], p)
    return _Bw(xp, a, b, p["w_shape"], p)


def _flip(p, transposed):
    # (a backward row's saved operand, "input" or "weight", stays with that row)
    q = {k: v for k, v in p.items() if not k.startswith("_") and k not in _OPERANDS}
    q["transposed"] = transposed
    q["bias_sym_sizes_opt"] = None
    return q


_OPERANDS = ("input", "weight")


def _recorded(kind, a, b, p):
    """One kernel on Tensors (a gradient being recorded): through the row that computes it."""
    from .dispatch import apply

    if kind == "F":
        return apply(CONVOLUTION, (a, b, None), _flip(p, False))
    if kind == "Bi":
        return apply(CONVOLUTION, (a, b, None), _flip(p, True))
    return apply(CONV_BACKWARD_WEIGHT, (a, b), _flip(p, False))


def _kernel(xp, kind, a, b, p):
    return _recorded(kind, a, b, p) if xp.is_txp else _raw(xp, kind, a, b, p)


def _bias_shape(p):
    return (1, -1) + (1,) * len(p["stride"])


# ---------------------------------------------------------------- convolution
def _conv_fwd(xp, x, w, b, p):
    if p["transposed"]:
        y = _Bi(xp, x, w, p["x_shape"], p)
    else:
        y, cols, out = _F(xp, x, w, p)
        p["_cols"], p["_out"] = cols, out  # the weight's gradient reuses the windows
    if b is not None:
        y += b.reshape(_bias_shape(p))
    return y


def _conv_vjp_input(xp, g, x, w, b, out, p):
    if xp.is_txp:
        from .dispatch import apply

        q = _flip(p, p["transposed"])
        q["input"] = x  # torch's ConvolutionBackwardBackward0 saves the three operands
        return apply(CONV_BACKWARD_INPUT, (g, w), q)
    if p["transposed"]:
        return _F(xp, g, w, p)[0]
    return _Bi(xp, g, w, x.shape, p)


def _conv_vjp_weight(xp, g, x, w, b, out, p):
    if xp.is_txp:
        from .dispatch import apply

        q = _flip(p, p["transposed"])
        q["weight"] = w  # (see _conv_vjp_input)
        return apply(CONV_BACKWARD_WEIGHT, (x, g), q)
    if p["transposed"]:
        return _Bw(xp, g, x, w.shape, p)
    return _Bw(xp, x, g, w.shape, p, p.get("_cols"))


def _conv_vjp_bias(xp, g, x, w, b, out, p):
    return xp.sum(g, axis=(0,) + tuple(range(2, g.ndim)))


def _conv_jvp(xp, t, x, out, p):
    kind = "Bi" if p["transposed"] else "F"
    xx, w, b = x
    q = _flip(p, p["transposed"])
    y = _raw(xp, kind, t[0], w, q) + _raw(xp, kind, xx, t[1], q)
    if b is not None and hasattr(t[2], "shape"):
        y = y + t[2].reshape(_bias_shape(p))
    return y


def _conv_cases(rng):
    specs = [  # small: the complex gradgradcheck differentiates element by element
        (
            (1, 2, 5, 4),
            (2, 2, 3, 2),
            {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)},
            "conv2d",
        ),
        ((1, 4, 5), (4, 2, 3), {"stride": 2, "padding": 1, "groups": 2}, "conv1d"),
        (
            (1, 2, 3, 3),
            (2, 2, 2, 2),
            {"stride": 2, "padding": 1, "output_padding": 1},
            "conv_transpose2d",
        ),
    ]
    out = []
    for xs, ws, kw, name in specs:
        oc = ws[1] if "transpose" in name else ws[0]
        arrays = [rng.uniform(-1, 1, xs), rng.uniform(-1, 1, ws), rng.uniform(-1, 1, (oc,))]
        out.append(
            (
                None,
                arrays,
                lambda tt, x, w, b, n=name, k=kw: getattr(tt.nn.functional, n)(
                    *_same_dtype(tt, x, w, b), **k
                ),
            )
        )
    return out


def _same_dtype(lib, *ts):
    """The sample's tensors in one dtype (a complex-step check makes one input complex; a
    convolution takes one dtype, as torch's)."""
    cplx = [t for t in ts if t is not None and t.is_complex()]
    if not cplx:
        return ts
    return tuple(t if t is None or t.is_complex() else t.to(cplx[0].dtype) for t in ts)


CONVOLUTION = defop(
    "convolution",
    node="ConvolutionBackward0",
    inputs=("input", "weight", "bias"),
    saved=(
        "bias_sym_sizes_opt",
        "dilation",
        "groups",
        "input",
        "output_padding",
        "padding",
        "stride",
        "transposed",
        "weight",
    ),
    fwd=_conv_fwd,
    vjp=(_conv_vjp_input, _conv_vjp_weight, _conv_vjp_bias),
    jvp=_conv_jvp,
    sample={"kind": "cases", "cases": _conv_cases},
    complex=HOLOMORPHIC,
    doc="conv1d/2d/3d and conv_transpose: im2col + GEMM",
)


# ---------------------------------------------------------------- its two VJPs, as rows
# The input's gradient: Bi(g, w) for a convolution, F(g, w) for a transposed one.
def _bin_kind(p):
    return "F" if p["transposed"] else "Bi"


def _bin_vjp_grad(xp, h, g, w, out, p):
    # <Bi(g, w), h> = <g, F(h, w)>;  <F(g, w), h> = <g, Bi(h, w)>
    return _kernel(xp, "Bi" if p["transposed"] else "F", h, w, p)


def _bin_vjp_weight(xp, h, g, w, out, p):
    # d/dw <Bi(g, w), h> = Bw(h, g);  d/dw <F(g, w), h> = Bw(g, h)
    return _kernel(xp, "Bw", g, h, p) if p["transposed"] else _kernel(xp, "Bw", h, g, p)


def _bin_jvp(xp, t, x, out, p):
    k = _bin_kind(p)
    return _raw(xp, k, t[0], x[1], p) + _raw(xp, k, x[0], t[1], p)


def _through_grad(lib, leaf, f, v):
    """``d/d leaf sum(f(leaf) * v)`` recorded (create_graph): a function of ``v`` and of whatever
    ``f`` closes over, computed by ``f``'s backward rows. Under no_grad (the finite differences)
    the result is detached, elsewhere it keeps its graph and forward-mode tangent. A complex
    ``v`` gives ``conj`` of torch's conjugate-convention gradient: ``J^T v``, holomorphic in v."""
    numeric = not lib.is_grad_enabled()
    with lib.enable_grad():
        t = lib.tensor(leaf, requires_grad=True)
        s = (f(t) * v).sum()
        if s.is_complex():
            (g,) = lib.autograd.grad(s, (t,), lib.ones_like(s), create_graph=True)
            g = g.conj().resolve_conj()
        else:
            (g,) = lib.autograd.grad(s, (t,), create_graph=True)
    return g.detach() if numeric else g


def _backward_cases(which):
    def cases(rng):
        x = rng.uniform(-1, 1, (1, 2, 4, 3))
        xt = rng.uniform(-1, 1, (1, 2, 7, 5))
        w = rng.uniform(-1, 1, (2, 2, 2, 2))
        wt = rng.uniform(-1, 1, (2, 2, 3, 2))
        kw = {"stride": 2, "padding": 1}

        def conv(lib, transposed):
            F = lib.nn.functional
            return F.conv_transpose2d if transposed else F.conv2d

        if which == "input":  # gradient of the input: a function of the weight and grad_output

            def run(lib, ww, v, transposed=False):
                ww, v = _same_dtype(lib, ww, v)
                leaf = xt[:, :2, :3, :3] if transposed else x
                return _through_grad(
                    lib,
                    leaf.astype(complex) if v.is_complex() else leaf,
                    lambda t: conv(lib, transposed)(t, ww, **kw),
                    v,
                )

            args = [(w, (1, 2, 3, 2), False), (wt, (1, 2, 5, 4), True)]
        else:  # gradient of the weight: a function of the input and grad_output

            def run(lib, xx, v, transposed=False):
                xx, v = _same_dtype(lib, xx, v)
                leaf = wt if transposed else w
                return _through_grad(
                    lib,
                    leaf.astype(complex) if v.is_complex() else leaf,
                    lambda t: conv(lib, transposed)(xx, t, **kw),
                    v,
                )

            args = [(x, (1, 2, 3, 2), False), (xt[:, :2, :3, :3], (1, 2, 5, 4), True)]
        return [
            (None, [a, rng.uniform(-1, 1, vs)], lambda tt, a, v, tr=tr: run(tt, a, v, tr))
            for a, vs, tr in args
        ]

    return cases


_BWD_SAVED = (
    "dilation",
    "grad_output",
    "groups",
    "input",
    "output_padding",
    "padding",
    "stride",
    "transposed",
    "weight",
)

CONV_BACKWARD_INPUT = defop(
    "convolution_backward.input",
    node="ConvolutionBackwardBackward0",
    inputs=("grad_output", "weight"),
    saved=_BWD_SAVED,
    fwd=lambda xp, g, w, p: _raw(xp, _bin_kind(p), g, w, p),
    vjp=(_bin_vjp_grad, _bin_vjp_weight),
    reads=((0, 1), (0, 1)),  # torch's one formula reads grad_output, input and weight
    jvp=_bin_jvp,
    sample={"kind": "cases", "cases": _backward_cases("input")},
    complex=HOLOMORPHIC,
)


# The weight's gradient: Bw(x, g) for a convolution, Bw(g, x) for a transposed one.
def _bw_args(p, x, g):
    return (g, x) if p["transposed"] else (x, g)


def _bw_vjp_input(xp, h, x, g, out, p):
    # d/dA Bw(A, B) -> Bi(B, h);  d/dB Bw(A, B) -> F(A, h)
    return _kernel(xp, "F", g, h, p) if p["transposed"] else _kernel(xp, "Bi", g, h, p)


def _bw_vjp_grad(xp, h, x, g, out, p):
    return _kernel(xp, "Bi", x, h, p) if p["transposed"] else _kernel(xp, "F", x, h, p)


def _bw_jvp(xp, t, x, out, p):
    a, b = _bw_args(p, x[0], x[1])
    ta, tb = _bw_args(p, t[0], t[1])
    return _raw(xp, "Bw", ta, b, p) + _raw(xp, "Bw", a, tb, p)


CONV_BACKWARD_WEIGHT = defop(
    "convolution_backward.weight",
    node="ConvolutionBackwardBackward0",
    inputs=("input", "grad_output"),
    saved=_BWD_SAVED,
    fwd=lambda xp, x, g, p: _raw(xp, "Bw", *_bw_args(p, x, g), p),
    vjp=(_bw_vjp_input, _bw_vjp_grad),
    reads=((0, 1), (0, 1)),
    jvp=_bw_jvp,
    sample={"kind": "cases", "cases": _backward_cases("weight")},
    complex=HOLOMORPHIC,
)
