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


def _even_vjp(xp, g, x, out, p):
    """torch's evenly_distribute_backward (masked_fill): where no element equals the saved
    result any more (a .data write), the gradient is zeros, not 0 * inf."""
    mask = (x == out) | (isnan(x) & isnan(out))
    return xp.where(mask, g / xp.sum(mask), 0)


def _median_row(name, node):
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=("result", "self"),
        complex=kernel_refuses("median_cpu"),
        fwd=lambda xp, x, p: xp.reshape(x, (-1,))[p["index"]],
        vjp=_even_vjp,
        jvp=lambda xp, t, x, out, p: xp.sum(_even(xp, 1.0 + 0 * out, x[0], out, p) * t[0]),
        smooth=False,
        sample={"cases": _cases(lambda m, t: getattr(m, name)(t))},
    )


MEDIAN = _median_row("median", "MedianBackward0")
NANMEDIAN = _median_row("nanmedian", "NanmedianBackward0")


def _cumprod_vjp(xp, g, x, out, p):
    """torch's cumprod_backward: it reads the saved result as well as the input (a ``.data``
    write into either changes the gradient as there). Without a zero in the input (the whole
    tensor), reversed_cumsum(result * grad) / input; with one, torch's masks: that formula
    before each slice's first zero, the product formula at it (with the result just before
    it), 0 after it. Under create_graph with a zero, torch's O(n^2) path reads the input only."""
    if len(x.shape) == 0:
        return g
    d = p["dim"] % x.ndim
    n = x.shape[d]
    if n <= 1 or int(np.prod(x.shape)) <= 1:
        return g
    w = out * g
    is_zero = x == 0
    if not bool(is_zero.any()):
        return xp.flip(xp.cumsum(xp.flip(w, (d,)), d), (d,)) / x
    if xp.is_txp:
        return _cumprod_vjp_exact(xp, g, x, d, n)
    zero = g.dtype.type(0)
    cs = xp.cumsum(is_zero, axis=d)
    before = cs == 0
    res = xp.where(
        before, xp.flip(xp.cumsum(xp.flip(xp.where(before, w, zero), d), axis=d), d) / x, zero
    )
    span = cs == 1  # [z1, z2): from the first zero to the second
    pos = xp.arange(n).reshape((1,) * d + (n,) + (1,) * (x.ndim - d - 1))
    z1 = xp.argmax(span, axis=d, keepdims=True)  # 0 where the slice has no zero
    first = (pos == z1) & span
    inner = span & ~first
    s = xp.sum(
        xp.cumprod(xp.where(inner, x, x.dtype.type(1)), axis=d) * xp.where(cs != 1, zero, g),
        axis=d,
        keepdims=True,
    )
    before_z1 = xp.take_along_axis(out, xp.maximum(z1 - 1, 0), d)
    s = s * xp.where(z1 == 0, out.dtype.type(1), before_z1)
    return xp.where(first, s, res)


def _cumprod_vjp_exact(xp, g, x, d, n):
    """torch's O(n^2) path (graph mode, a zero in the input): for each k the products with
    x_k omitted, prod(x[:k]) * cumprod(x[k+1:]), dotted with g[k:] (stacked, as torch's
    composite-compliant variant)."""
    from ..factories import ones

    shape = list(x.shape)
    shape[d] = 1
    one = ones(1, dtype=g.dtype).expand(*shape)
    cols = []
    for k in range(n):
        if k == 0:
            omitted = xp.concatenate([one, x.narrow(d, 1, n - 1).cumprod(d)], d)
        elif k == n - 1:
            omitted = x.narrow(d, 0, k).prod(d, keepdim=True)
        else:
            until = x.narrow(d, 0, k).prod(d, keepdim=True)
            after = x.narrow(d, k + 1, n - k - 1).cumprod(d)
            omitted = xp.concatenate([until, until.expand_as(after) * after], d)
        cols.append((g.narrow(d, k, n - k) * omitted).sum(d))
    return xp.stack(cols, d)


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
