"""Reduction rows: var/std, logsumexp, vector norms, softmax/log_softmax and cumsum.

The basic reductions (sum, mean, prod, max/min/amax/amin, max/min over a dim) are
:mod:`.reduction_basic`, imported first (the registry order); import them from there."""

from __future__ import annotations

import numpy as np

from .backward_rows import LOG_SOFTMAX_BACKWARD_DATA, SOFTMAX_BACKWARD_DATA
from .backward_rows import softmax_kernel as _softmax_kernel
from .reduction_basic import _count, _real_jvp, _red_sample
from .registry import (
    AS_WRITTEN,
    HOLOMORPHIC,
    UNDEFINED_GRAD,
    Refuse,
    ShiftDims,
    defop,
    no_complex_autograd,
)

_INF = float("inf")
_NAN = float("nan")


# var: d/dx_i = 2 (x_i - mean) / (N - correction), torch's var_backward to the letter where the
# degrees of freedom are <= 0: over all elements inf where x_i differs from the mean and nan where
# it does not; over dims 2 / (N - correction) as it comes (inf for 0, negative below). Computed
# under errstate: torch never warns about them (api.var warns its own way)
def _var_vjp(xp, g, x, out, p):
    dims = p["dim"]
    n = (
        _count(x.shape, dims) if dims is not None else int(np.prod(x.shape))
    )  # x may be a Tensor (create_graph)
    dof = n - p["correction"]
    with np.errstate(all="ignore"):
        # torch's var_backward: (2 / (N - correction)) * grad * (self - self.mean(dim, True)),
        # the grad unsqueezed where dims were reduced away (only when self.dim() > 1)
        if not n:  # an empty input (NumPy warns on empty means)
            mean = x
        elif dims is None or x.ndim == 0:
            mean = xp.mean(x)
        else:
            mean = xp.mean(x, axis=dims, keepdims=True)
        if dims is None or x.ndim == 0:
            if dof <= 0:
                f = xp.where(x == mean, _NAN, _INF)
                # (a graph where of two numbers is float64: in g's dtype, no ToCopy node)
                return g * (f.to(g.dtype) if xp.is_txp else f)
        elif not p["keepdim"] and x.ndim > 1:
            g = xp.expand_dims(g, dims)
        return xp.mul_scalar(g, 2.0 / dof if dof else _INF) * (x - mean)


def _var_fwd(xp, x, p):
    dims = p["dim"]
    n = _count(x.shape, dims) if dims is not None else x.size
    with np.errstate(all="ignore"):
        if n - p["correction"] > 0:
            return xp.var(x, axis=dims, ddof=p["correction"], keepdims=p["keepdim"])
        # torch divides the sum of squared distances by max(0, N - correction): nan for a
        # constant or empty slice, inf otherwise (NumPy would divide by the negative count);
        # |d|^2 keeps a complex input's variance real
        d = xp.abs(x - xp.sum(x, axis=dims, keepdims=True) / n if n else x)
        return xp.sum(d * d, axis=dims, keepdims=p["keepdim"]) / 0.0


VAR = defop(
    "var.correction",
    node="VarBackward0",
    inputs=("self",),
    saved=("correction", "dim", "keepdim", "self"),
    complex=AS_WRITTEN,
    fwd=_var_fwd,
    vjp=_var_vjp,
    jvp=lambda xp, t, x, out, p: _real_jvp(
        xp, _var_vjp(xp, 1.0 + 0 * out, x[0], out, p), t[0], p["dim"], p["keepdim"]
    ),
    sample=_red_sample({"dim": None, "correction": 1, "keepdim": False}, min_numel=2, kind="var"),
    torch=lambda torch, x, dim, correction, keepdim: torch.var(
        x, dim, correction=correction, keepdim=keepdim
    ),
)


# std = sqrt(var): d std = d var / (2 std), zero where std is zero (a constant slice), as
# torch's std_backward masks it
def _std_vjp(xp, g, x, out, p):
    # torch's std_backward: var_backward((grad / (result * 2)).masked_fill_(result == 0, 0))
    with np.errstate(all="ignore"):
        gv = xp.masked_fill(g / xp.mul_scalar(out, 2), out == 0, 0.0)
    return _var_vjp(xp, gv, x, out, p)


STD = defop(
    "std.correction",
    node="StdBackward0",
    inputs=("self",),
    saved=("correction", "dim", "keepdim", "result", "self"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.sqrt(_var_fwd(xp, x, p)),
    vjp=_std_vjp,
    jvp=lambda xp, t, x, out, p: _real_jvp(
        xp, _std_vjp(xp, 1.0 + 0 * out, x[0], out, p), t[0], p["dim"], p["keepdim"]
    ),
    sample=_red_sample({"dim": None, "correction": 1, "keepdim": False}, min_numel=2, kind="var"),
    torch=lambda torch, x, dim, correction, keepdim: torch.std(
        x, dim, correction=correction, keepdim=keepdim
    ),
)


# logsumexp: shift by the max so that exp never overflows (test plan A7)
def _logsumexp_fwd(xp, x, p):
    dims = p["dim"]
    with np.errstate(all="ignore"):  # an empty or all -inf slice gives -inf, silently as torch
        if x.size == 0:
            return xp.log(xp.sum(xp.exp(x), axis=dims, keepdims=p["keepdim"]))
        # a complex input is shifted by the max of its real parts, as torch
        m = xp.amax(xp.real(x) if x.dtype.kind == "c" else x, axis=dims, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        r = xp.log(xp.sum(xp.exp(x - m), axis=dims, keepdims=True)) + m
    return r if p["keepdim"] else xp.squeeze(r, axis=dims)


def _logsumexp_vjp(xp, g, x, out, p):
    # torch's logsumexp_backward: grad * (self - result).exp(), both unsqueezed
    if not p["keepdim"] and x.ndim:
        g = xp.expand_dims(g, p["dim"])
        out = xp.expand_dims(out, p["dim"])
    with np.errstate(all="ignore"):
        return g * xp.exp(x - out)


LOGSUMEXP = defop(
    "logsumexp",
    node="LogsumexpBackward0",
    inputs=("self",),
    saved=("dim", "keepdim", "result", "self"),
    complex=HOLOMORPHIC,
    fwd=_logsumexp_fwd,
    vjp=_logsumexp_vjp,
    jvp=lambda xp, t, x, out, p: xp.sum(
        _logsumexp_vjp(xp, 1.0 + 0 * out, x[0], out, p) * t[0], axis=p["dim"], keepdims=p["keepdim"]
    ),
    sample=_red_sample({"dim": 0, "keepdim": False}, needs_dim=True),
    torch=lambda torch, x, dim, keepdim: torch.logsumexp(x, dim, keepdim=keepdim),
)


# vector norm ||x||_p = sum(|x|^p)^(1/p); ord 0 counts the nonzeros, +-inf is max/min |x|.
# A general p is accumulated in float64 for float32 input, as torch's CPU kernel does.


def _norm_fwd(xp, x, p):
    o = p["ord"]
    dims = p["dim"]
    k = p["keepdim"]
    a = xp.abs(x)
    if o == 2:
        return xp.sqrt(xp.sum(a * a, axis=dims, keepdims=k))
    if o == 1:
        return xp.sum(a, axis=dims, keepdims=k)
    if o == _INF:
        return xp.amax(a, axis=dims, keepdims=k)
    if o == -_INF:
        return xp.amin(a, axis=dims, keepdims=k)
    if o == 0:
        nz = a != 0
        return xp.sum(nz if xp.is_txp else nz.astype(a.dtype), axis=dims, keepdims=k)
    with np.errstate(all="ignore"):  # |0|^p for p < 0 is inf, and the norm 0, without a warning
        if not xp.is_txp and x.dtype == np.float32:
            return (xp.sum(a.astype(np.float64) ** o, axis=dims, keepdims=k) ** (1.0 / o)).astype(
                x.dtype
            )
        return xp.sum(a**o, axis=dims, keepdims=k) ** (1.0 / o)


# torch's norm_backward, case by case: zero where the norm (or, for p < 1, the element) is zero;
# for +-inf the gradient is shared evenly by the elements whose |x| is the norm (or NaN)
def _norm_vjp(xp, g, x, out, p):
    o = p["ord"]
    dims = p["dim"]
    if dims is not None and not p["keepdim"] and x.ndim:  # torch's unsqueeze_multiple
        g = xp.expand_dims(g, dims)
        out = xp.expand_dims(out, dims)
    if o == 1:
        return xp.sgn(x) * g
    with np.errstate(all="ignore"):
        if o == 2:
            return g * xp.masked_fill(x / out, out == 0, 0.0)
        if o == _INF or o == -_INF:
            a = xp.abs(x)
            mask = (a == out) | (a != a)  # noqa: PLR0124 - nan test that every array namespace has
            count = xp.sum(mask, axis=dims, keepdims=True)
            return xp.sgn(x) * ((g / count) * mask)
        if o < 1:
            scaled = xp.sgn(x) * xp.masked_fill(xp.pow_scalar(xp.abs(x), o - 1), x == 0, 0.0)
            return scaled * g * xp.pow_scalar(out, 1 - o)
        scaled = (
            xp.sgn(x) * xp.pow_scalar(xp.abs(x), o - 1)
            if o < 2
            else x * xp.pow_scalar(xp.abs(x), o - 2)
        )
        return scaled * xp.masked_fill(g / xp.pow_scalar(out, o - 1), out == 0, 0.0)


def _norm_jvp(xp, t, x, out, p):
    if p["ord"] == 0:
        return xp.sum(xp.real(t[0]), axis=p["dim"], keepdims=p["keepdim"]) * 0
    return _real_jvp(xp, _norm_vjp(xp, 1.0 + 0 * out, x[0], out, p), t[0], p["dim"], p["keepdim"])


def _norm_cases(rng):
    x = rng.uniform(-3, 3, (3, 4))
    x = x + np.sign(x) * 0.1  # away from 0, where |x| and |x|^p have no derivative to check
    distinct = x + np.arange(12).reshape(3, 4) * 1e-1
    out = []
    for o, dim, xx in (
        (2, None, x),
        (1, 1, x),
        (3, 0, x),
        (1.5, 1, x),
        (0.5, None, x),
        (-1, 1, x),
        (float("inf"), None, distinct),
        (-float("inf"), 1, distinct),
    ):
        out.append(
            (
                lambda t, o=o, d=dim: _api()._vector_norm(t, o, d, False),
                [xx],
                lambda tt, t, o=o, d=dim: tt.linalg.vector_norm(t, o, d),
            )
        )
    return out


def _api():
    from . import api

    return api


NORM = defop(
    "linalg_vector_norm",
    node="LinalgVectorNormBackward0",
    inputs=("self",),
    complex=AS_WRITTEN,
    saved=("dim", "keepdim", "ord", "result", "self"),
    fwd=_norm_fwd,
    vjp=_norm_vjp,
    jvp=_norm_jvp,
    sample={"reduce": True, "cases": _norm_cases},
    torch=lambda torch, x, ord, dim, keepdim: torch.linalg.vector_norm(
        x, ord, dim, keepdim=keepdim
    ),
)
# ord 0 counts nonzeros: torch records the node but its backward sends no gradient (the
# inputs' .grad stays None), which the NO_GRAD-like marker below says to the engine
NORM0 = defop(
    "linalg_vector_norm.ord0",
    node="LinalgVectorNormBackward0",
    inputs=("self",),
    complex=AS_WRITTEN,
    saved=("dim", "keepdim", "ord", "result", "self"),
    fwd=_norm_fwd,
    vjp=UNDEFINED_GRAD,
    jvp=_norm_jvp,
    reads=((0, -1),),  # torch saves (and checks) self and the result for every order
    sample={
        "reduce": True,
        "cases": lambda rng: [
            (
                lambda t: _api()._vector_norm(t, 0, None, False),
                [rng.uniform(-3, 3, (3, 4))],
                lambda tt, t: tt.linalg.vector_norm(t, 0),
            )
        ],
    },
    torch=lambda torch, x, dim, keepdim: torch.linalg.vector_norm(x, 0, dim, keepdim=keepdim),
)


def _softmax_fwd(xp, x, p):
    d = p["dim"]
    if x.size == 0:
        return x.copy()
    e = xp.exp(x - xp.keep_reduce(x, d, "max"))
    return e / xp.keep_reduce(e, d, "sum")


# d softmax: y * (g - sum(g * y))
SOFTMAX = defop(
    "_softmax",
    node="SoftmaxBackward0",
    inputs=("self",),
    saved=("dim", "result"),
    batch=ShiftDims("dim"),
    complex=Refuse(
        NotImplementedError, _softmax_kernel("softmax"), empty=no_complex_autograd("_softmax")
    ),
    fwd=_softmax_fwd,
    # torch: _softmax_backward_data(grad, result, dim, dtype), an op of its own (backward_rows)
    vjp=lambda xp, g, x, out, p: xp.call(SOFTMAX_BACKWARD_DATA, g, out, p=p),
    jvp=lambda xp, t, x, out, p: out * (t[0] - xp.sum(t[0] * out, axis=p["dim"], keepdims=True)),
    sample=_red_sample({"dim": -1}, needs_dim=True, single_dim=True),
    torch=lambda torch, x, dim: torch.softmax(x, dim),
)


def _log_softmax_fwd(xp, x, p):
    d = p["dim"]
    if x.size == 0:
        return x.copy()
    s = x - xp.keep_reduce(x, d, "max")
    return s - xp.log(xp.keep_reduce(xp.exp(s), d, "sum"))


# d log_softmax: g - softmax * sum(g)
LOG_SOFTMAX = defop(
    "_log_softmax",
    node="LogSoftmaxBackward0",
    inputs=("self",),
    saved=("dim", "result"),
    batch=ShiftDims("dim"),
    complex=Refuse(
        NotImplementedError,
        _softmax_kernel("log_softmax"),
        empty=no_complex_autograd("_log_softmax"),
    ),
    fwd=_log_softmax_fwd,
    vjp=lambda xp, g, x, out, p: xp.call(LOG_SOFTMAX_BACKWARD_DATA, g, out, p=p),
    jvp=lambda xp, t, x, out, p: t[0] - xp.sum(xp.exp(out) * t[0], axis=p["dim"], keepdims=True),
    sample=_red_sample({"dim": -1}, needs_dim=True, single_dim=True),
    torch=lambda torch, x, dim: torch.log_softmax(x, dim),
)


# cumsum: the gradient is the reversed cumulative sum of the incoming gradient
def _cumsum_vjp(xp, g, x, out, p):
    if g.ndim == 0:
        return g
    d = p["dim"]
    return xp.flip(xp.cumsum(xp.flip(g, d), axis=d), d)


CUMSUM = defop(
    "cumsum",
    node="CumsumBackward0",
    inputs=("self",),
    saved=("dim",),
    batch=ShiftDims("dim"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.cumsum(x, axis=p["dim"]) if x.ndim else x.copy(),
    vjp=_cumsum_vjp,
    jvp=lambda xp, t, x, out, p: xp.cumsum(t[0], axis=p["dim"]) if t[0].ndim else t[0],
    sample={"domain": (-3, 3), "kind": "cumsum"},
    torch=lambda torch, x, dim: torch.cumsum(x, dim),
)
