"""Rows that select values by computed indices (sort, topk, kthvalue, median, mode, cummax/
cummin) and the cumulative rows cumprod and logcumsumexp.

The selecting rows take their indices in ``p`` (computed once by the API function, which also
returns them): the forward gathers, the gradient scatters back to the selected places (torch's
value_selecting_reduction_backward), the JVP gathers the tangent."""

from __future__ import annotations

import numpy as np

from .registry import AUTO_LINEAR, HOLOMORPHIC, Refuse, defop, kernel_refuses
from .shape import _along_key
from .xp import isnan


def _expand(idx, d):
    """``idx`` with a size-1 dim inserted at d (a method, so device arrays stay put)."""
    return idx.reshape(idx.shape[:d] + (1,) + idx.shape[d:])


def _gather(xp, x, p):
    if x.ndim == 0:
        return x + 0 if xp.is_txp else x.copy()
    idx = p["indices"]
    d = p["dim"]
    if not p.get("keepdim", True):
        idx = _expand(idx, d)
    r = xp.take_along_axis(x, idx, d)
    return r if p.get("keepdim", True) else xp.squeeze(r, d)


def _scatter(xp, g, x, out, p):
    """The gradient of :func:`_gather`: g put back where the values came from (summed where an
    index repeats, as in cummax)."""
    if not p["self_sym_sizes"]:
        return xp.reshape(g, ())
    idx = p["indices"]
    d = p["dim"]
    if not p.get("keepdim", True):
        idx = _expand(idx, d)
        g = xp.expand_dims(g, d)
    if p.get("repeats"):
        return xp.scatter_add_zeros(g, _along_key(xp, idx, d), p["self_sym_sizes"])
    return xp.put_along_axis_zeros(g, idx, d, p["self_sym_sizes"])


def _selecting(name, node, saved, cases, complex):
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        # the indices are the op's second result: torch saves them after the kernel ran
        saved_outputs=("indices",),
        # cummax/cummin's backward takes self (cummaxmin_backward): saved and version-checked
        reads=((0,),) if "self" in saved else None,
        fwd=_gather,
        vjp=_scatter,
        complex=complex,
        jvp=AUTO_LINEAR,
        smooth=False,
        sample={"cases": cases},
    )


def _cases(call, shape=(3, 5)):
    """Samples with distinct values (so that every selection is unambiguous)."""

    def make(rng):
        n = int(np.prod(shape))
        x = rng.permutation(n).reshape(shape) * 0.37 + rng.uniform(-0.1, 0.1, shape)
        return [(None, [x], lambda tt, t: call(tt, t))]

    return make


SORT = _selecting(
    "sort",
    "SortBackward0",
    ("dim", "indices", "self_sym_sizes"),
    _cases(lambda m, t: m.sort(t, 1, descending=True)[0]),
    Refuse(RuntimeError, " Sort does not support complex dtypes on CPU"),
)
TOPK = _selecting(
    "topk",
    "TopkBackward0",
    ("dim", "indices", "self_sym_sizes"),
    _cases(lambda m, t: m.topk(t, 2, 1)[0]),
    Refuse(RuntimeError, " topk does not support complex dtypes on CPU"),
)
KTHVALUE = _selecting(
    "kthvalue",
    "KthvalueBackward0",
    ("dim", "indices", "keepdim", "self_sym_sizes"),
    _cases(lambda m, t: m.kthvalue(t, 2, 1)[0]),
    kernel_refuses("kthvalue_cpu"),
)
MEDIAN_DIM = _selecting(
    "median.dim",
    "MedianBackward1",
    ("dim", "indices", "keepdim", "self_sym_sizes"),
    _cases(lambda m, t: m.median(t, 0)[0]),
    kernel_refuses("median_out"),
)
NANMEDIAN_DIM = _selecting(
    "nanmedian.dim",
    "NanmedianBackward1",
    ("dim", "indices", "keepdim", "self_sym_sizes"),
    _cases(lambda m, t: m.nanmedian(t, 1, True)[0]),
    kernel_refuses("median_out"),
)
MODE = _selecting(
    "mode",
    "ModeBackward0",
    ("dim", "indices", "keepdim", "self_sym_sizes"),
    _cases(lambda m, t: m.mode(t, 1)[0]),
    kernel_refuses("mode_cpu"),
)
CUMMAX = _selecting(
    "cummax",
    "CummaxBackward0",
    ("dim", "indices", "self"),
    _cases(lambda m, t: m.cummax(t, 1)[0]),
    kernel_refuses("cummax_cpu"),
)
CUMMIN = _selecting(
    "cummin",
    "CumminBackward0",
    ("dim", "indices", "self"),
    _cases(lambda m, t: m.cummin(t, 0)[0]),
    kernel_refuses("cummin_cpu"),
)


# median of all elements: the gradient is shared by the elements equal to the median
def _even(xp, g, x, out, p):
    mask = (x == out) | (isnan(x) & isnan(out))
    return mask * (g / xp.sum(mask))


def _median_row(name, node):
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=("result", "self"),
        complex=kernel_refuses("median_cpu"),
        fwd=lambda xp, x, p: xp.reshape(x, (-1,))[p["index"]],
        vjp=_even,
        jvp=lambda xp, t, x, out, p: xp.sum(_even(xp, 1.0 + 0 * out, x[0], out, p) * t[0]),
        smooth=False,
        sample={"cases": _cases(lambda m, t: getattr(m, name)(t))},
    )


MEDIAN = _median_row("median", "MedianBackward0")
NANMEDIAN = _median_row("nanmedian", "NanmedianBackward0")


# cumprod: dy_j/dx_k = prod_{i<=j, i!=k} x_i, so grad_k = L_k S_k with L the exclusive cumprod and
# S_k = g_k + x_{k+1} S_{k+1} (exact with zeros, unlike reverse_cumsum(g y) / x)
def _cumprod_vjp(xp, g, x, out, p):
    d = p["dim"]
    if x.ndim == 0:
        return g
    n = x.shape[d]
    if n == 0:
        return g
    cols_x = [xp.take(x, k, axis=d) for k in range(n)]
    cols_g = [xp.take(g, k, axis=d) for k in range(n)]
    s = [None] * n
    s[n - 1] = cols_g[n - 1]
    for k in range(n - 2, -1, -1):
        s[k] = cols_g[k] + cols_x[k + 1] * s[k + 1]
    left = [None] * n
    left[0] = 1.0 + 0 * cols_x[0]
    for k in range(1, n):
        left[k] = left[k - 1] * cols_x[k - 1]
    return xp.stack([left[k] * s[k] for k in range(n)], axis=d)


def _cumprod_fwd(xp, x, p):
    return xp.cumprod(x, axis=p["dim"]) if x.ndim else x.copy()


def _cumprod_jvp(xp, t, x, out, p):
    # d y_j = sum_{k<=j} t_k prod_{i<=j, i!=k} x_i: the transposed recurrence, forward in j
    d = p["dim"]
    if x[0].ndim == 0:
        return t[0]
    n = x[0].shape[d]
    cols_x = [xp.take(x[0], k, axis=d) for k in range(n)]
    cols_t = [xp.take(t[0], k, axis=d) for k in range(n)]
    res, acc, prod = [], None, None
    for k in range(n):
        acc = cols_t[k] if k == 0 else acc * cols_x[k] + prod * cols_t[k]
        prod = cols_x[k] if k == 0 else prod * cols_x[k]
        res.append(acc)
    return xp.stack(res, axis=d) if n else t[0]


CUMPROD = defop(
    "cumprod",
    node="CumprodBackward0",
    inputs=("self",),
    saved=("dim", "self", "result"),
    complex=HOLOMORPHIC,
    fwd=_cumprod_fwd,
    vjp=_cumprod_vjp,
    jvp=_cumprod_jvp,
    sample={
        "cases": lambda rng: [
            (lambda t: t.cumprod(1), [rng.uniform(-2, 2, (3, 4))], lambda tt, t: t.cumprod(1)),
            (
                lambda t: t.cumprod(0),
                [np.array([[1.5, 0.0], [0.0, 2.0], [3.0, -1.0]])],
                lambda tt, t: t.cumprod(0),
            ),
        ]
    },
)


# logcumsumexp: dy_j/dx_k = exp(x_k - y_j) for j >= k; summed in log space by sign of g, so
# that large inputs neither overflow nor lose the small terms
def _lcse(xp, x, d):
    if xp.is_txp:
        from .api_reduce import logcumsumexp

        return logcumsumexp(x, d)
    if x.dtype.kind != "c":
        return np.logaddexp.accumulate(x, axis=d) if x.size else x.copy()
    # complex: log(e^acc + e^x) term by term, the larger real part factored out
    out = x.copy()
    lead = (slice(None),) * (d % x.ndim)
    for k in range(1, x.shape[d]):
        a, b = out[lead + (k - 1,)], x[lead + (k,)]
        m = np.where(a.real >= b.real, a, b)
        out[lead + (k,)] = m + np.log1p(np.exp(np.where(a.real >= b.real, b, a) - m))
    return out


def _logcumsumexp_vjp(xp, g, x, out, p):
    d = p["dim"]
    if x.ndim == 0:
        return g
    if not xp.is_txp and x.dtype == np.float32:  # the two signed sums cancel: work in double
        f = np.float64
        return _logcumsumexp_vjp(xp, g.astype(f), x.astype(f), out.astype(f), p).astype(np.float32)
    if xp.is_txp or g.dtype.kind == "c":  # create_graph or complex: the direct sum of
        # g_j exp(x_k - y_j) (smooth; the log-space split by sign needs a real g)
        return xp.exp(x) * xp.flip(xp.cumsum(xp.flip(g * xp.exp(-out), (d,)), d), (d,))
    res = 0
    for sign in (1.0, -1.0):
        part = xp.where(g * sign > 0, g * sign, 0.0)
        with np.errstate(divide="ignore"):
            lg = xp.log(part) - out
        rev = xp.flip(_lcse(xp, xp.flip(lg, (d,)), d), (d,))
        res = res + sign * xp.exp(x + rev)
    return res


LOGCUMSUMEXP = defop(
    "logcumsumexp",
    node="LogcumsumexpBackward0",
    inputs=("self",),
    saved=("dim", "self", "result"),
    complex=HOLOMORPHIC,
    fwd=lambda xp, x, p: _lcse(xp, x, p["dim"]) if x.ndim else x.copy(),
    vjp=_logcumsumexp_vjp,
    jvp=lambda xp, t, x, out, p: _logcumsumexp_jvp(xp, t[0], x[0], out, p["dim"]),
    sample={
        "cases": lambda rng: [
            (
                lambda t: t.logcumsumexp(1),
                [rng.uniform(-3, 3, (3, 4))],
                lambda tt, t: t.logcumsumexp(1),
            )
        ]
    },
)


def _logcumsumexp_jvp(xp, t, x, out, d):
    # dy_j = sum_{k<=j} t_k exp(x_k - m) / sum_{k<=j} exp(x_k - m) (m the max along d); as
    # torch's logcumsumexp_jvp, 0 where that denominator is below 1e-13
    if x.ndim == 0:
        return t
    top = x.real if x.dtype.kind == "c" else x
    e = xp.exp(x - xp.amax(top, axis=d, keepdims=True)) if x.size else xp.exp(x)
    den = xp.cumsum(e, axis=d)
    return xp.where(abs(den) < 1e-13, 0.0, xp.cumsum(e * t, axis=d)) / den


# nansum: NaNs count as zero and get no gradient
NANSUM = defop(
    "nansum",
    node="NansumBackward0",
    inputs=("self",),
    saved=("dim", "keepdim", "self"),
    complex=Refuse(RuntimeError, "nansum on CPU does not support complex inputs"),
    fwd=lambda xp, x, p: xp.nansum(x, axis=p["dim"], keepdims=p["keepdim"]).astype(x.dtype),
    vjp=lambda xp, g, x, out, p: _nansum_vjp(xp, g, x, p),
    jvp=lambda xp, t, x, out, p: xp.sum(
        xp.where(isnan(x[0]), 0.0, t[0]), axis=p["dim"], keepdims=p["keepdim"]
    ),
    sample={
        "cases": lambda rng: [
            (lambda t: t.nansum(1), [rng.uniform(-3, 3, (3, 4))], lambda tt, t: t.nansum(1))
        ]
    },
)


def _nansum_vjp(xp, g, x, p):
    dims = p["dim"]
    if dims is not None and not p["keepdim"]:
        g = xp.reshape(g, tuple(1 if i in dims else s for i, s in enumerate(x.shape)))
    return xp.where(isnan(x), 0.0, xp.broadcast_to(g, x.shape))
