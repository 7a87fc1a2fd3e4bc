"""Rows that write into a copy of ``self`` at computed places: scatter (value, src, add, reduce),
index_add/copy/fill/reduce, index_put, put/take, masked_scatter/select, and the
select/slice/diagonal scatters. ``p["key"]`` is the NumPy index of the written places (built
once by the API function, on the input's device)."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, Refuse, defop, no_complex_autograd


def _copy(xp, x):
    return x + 0 if xp.is_txp else x.copy()


def _mask_out(xp, g, key, shape):
    """``g`` with zeros at ``key`` (the places the op overwrote)."""
    from ..autograd.engine import xp_of

    m = xp_of(g._data if hasattr(g, "_data") else g)
    keep = m.ones(shape, dtype=bool)
    keep[key] = False
    return xp.where(keep, g, 0.0)


def _put(xp, x, v, key, accumulate=False):
    r = x.copy()
    if accumulate:
        xp.add_at(r, key, v)
    else:
        r[key] = v
    return r


def _case(call, *arrays):
    return lambda rng: [
        (None, [np.asarray(a, float) for a in arrays], lambda tt, *ts: call(tt, *ts))
    ]


_X = np.arange(12.0).reshape(3, 4) * 0.3 - 1.5
_I = np.array([[0, 2, 1, 1], [2, 0, 0, 2]])


def _idx(m, a):
    return m.tensor(a)


def torch_indices(key, ndim):
    """torch's ``indices`` of an index_put_ from our NumPy key: the index arrays, None for each
    dim a slice or the Ellipsis takes, trailing Nones dropped (what torch saves)."""
    key = key if key.__class__ is tuple else (key,)
    taken = sum(getattr(k, "ndim", 1) if getattr(k, "dtype", None) == bool else 1 for k in key)
    res = []
    for k in key:
        if k is Ellipsis:
            res += [None] * max(ndim - taken + 1, 0)
        elif hasattr(k, "shape"):
            res.append(k)
        else:
            res.append(None)
    while res and res[-1] is None:
        res.pop()
    return res


# ---------------------------------------------------------------- writes at a key
# self's overwritten places get no gradient, the written values get g there
# torch's saved values per row (the index arrays are in p under torch's names, beside the key
# the rules write with), and which gradient reads which (index_copy keeps source for source's
# gradient only): None when the rules' code says
_SAVES = {
    "index_copy": (
        ("self", "source"),
        ("dim", "index", "source", "source_dim"),
        (("index",), (1, "index")),
    ),
    "scatter.src": (("self", "src"), ("dim", "index"), None),
    "put.replace": (
        ("self", "source"),
        ("accumulate=False", "index", "source"),
        (("index",), (1, "index")),
    ),
    "index_add": (
        ("self", "source"),
        ("alpha", "dim", "index", "source", "source_dim"),
        ((), (1, "index")),
    ),
    "scatter_add": (("self", "src"), ("dim", "index"), ((), ("index",))),
    "put": (("self", "source"), ("accumulate=True", "index", "source"), (("index",), (1, "index"))),
}
PUT_KEY = {}
for _name, _node, _call in (
    (
        "index_put.values",
        "IndexPutBackward0",
        lambda m, x, v: m.index_put(x, (_idx(m, [0, 2]),), v),
    ),
    ("index_copy", "IndexCopyBackward0", lambda m, x, v: m.index_copy(x, 0, _idx(m, [2, 0]), v)),
    ("select_scatter", "SelectScatterBackward0", lambda m, x, v: m.select_scatter(x, v[0], 0, 1)),
    ("slice_scatter", "SliceScatterBackward0", lambda m, x, v: m.slice_scatter(x, v, 0, 0, 3, 2)),
    (
        "scatter.src",
        "ScatterBackward0",
        lambda m, x, v: m.scatter(
            x, 0, _idx(m, [[0, 2, 1, 1], [2, 0, 0, 2]]).narrow(0, 0, 1), v[:1]
        ),
    ),
    ("put.replace", "PutBackward0", lambda m, x, v: m.put(x, _idx(m, [1, 5, 2]), v[0, :3])),
):
    _ins, _saved, _reads = _SAVES.get(_name, (("self", "src"), ("key",), None))
    PUT_KEY[_name] = defop(
        _name,
        node=_node,
        inputs=_ins,
        saved=_saved,
        reads=_reads,
        complex=no_complex_autograd(_name.split(".")[0])
        if _name in ("select_scatter", "slice_scatter")
        else AS_WRITTEN,
        fwd=lambda xp, x, v, p: _put(xp, x, v, p["key"]),
        vjp=(
            lambda xp, g, x, v, out, p: _mask_out(xp, g, p["key"], p["shape"]),
            lambda xp, g, x, v, out, p: g[p["key"]],
        ),
        jvp=lambda xp, t, x, out, p: _put(xp, t[0], t[1], p["key"]),
        sample={"cases": _case(_call, _X, np.arange(8.0).reshape(2, 4) - 3)},
    )


def _diagonal_scatter_fwd(xp, x, v, p):
    r = x.copy()
    y = np.moveaxis(r, (p["dim1"], p["dim2"]), (-2, -1))  # a view: writing into it writes r
    y[p["key"]] = v
    return r


def _diagonal_scatter_self(xp, g, x, v, out, p):
    from .layout import _diag_perm

    perm, inv = _diag_perm(len(p["shape"]), p["dim1"], p["dim2"])
    moved = tuple(p["shape"][i] for i in perm)
    return xp.transpose(_mask_out(xp, xp.transpose(g, perm), p["key"], moved), inv)


def _diagonal_of(xp, g, p):
    from .layout import _diagonal_fwd

    return _diagonal_fwd(xp, g, p)


DIAGONAL_SCATTER = defop(
    "diagonal_scatter",
    node="DiagonalScatterBackward0",
    inputs=("self", "src"),
    complex=AS_WRITTEN,
    saved=("dim1", "dim2", "offset"),
    fwd=_diagonal_scatter_fwd,
    vjp=(_diagonal_scatter_self, lambda xp, g, x, v, out, p: _diagonal_of(xp, g, p)),
    jvp=lambda xp, t, x, out, p: _diagonal_scatter_fwd(xp, t[0], t[1], p),
    sample={
        "cases": _case(lambda m, x, v: m.diagonal_scatter(x, v[0, :3], 0), _X, np.ones((2, 4)))
    },
)
# scatter(self, dim, index, value): a number written at the places
SCATTER_VALUE = defop(
    "scatter.value",
    node="ScatterBackward1",
    inputs=("self",),
    saved=("dim", "index", "value"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: _put(xp, x, p["value"], p["key"]),
    vjp=lambda xp, g, x, out, p: _mask_out(xp, g, p["key"], p["shape"]),
    jvp=lambda xp, t, x, out, p: _put(xp, t[0], 0, p["key"]),
    sample={"cases": _case(lambda m, x: m.scatter(x, 1, _idx(m, _I), 2.5), _X)},
)
INDEX_FILL = defop(
    "index_fill.int_Scalar",
    node="IndexFillBackward0",
    inputs=("self",),
    saved=("dim", "index", "value"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: _put(xp, x, p["value"], p["key"]),
    vjp=lambda xp, g, x, out, p: _mask_out(xp, g, p["key"], p["shape"]),
    jvp=lambda xp, t, x, out, p: _put(xp, t[0], 0, p["key"]),
    sample={"cases": _case(lambda m, x: m.index_fill(x, 1, _idx(m, [0, 3]), -1.0), _X)},
)
INDEX_FILL_TENSOR = defop(
    "index_fill.int_Tensor",
    node="IndexFillBackward1",
    inputs=("self", "value"),
    saved=("dim", "index"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, v, p: _put(xp, x, v, p["key"]),
    vjp=(
        lambda xp, g, x, v, out, p: _mask_out(xp, g, p["key"], p["shape"]),
        # each filled place once, however often the index names it
        lambda xp, g, x, v, out, p: xp.sum(g - _mask_out(xp, g, p["key"], p["shape"])),
    ),
    jvp=lambda xp, t, x, out, p: _put(xp, t[0], t[1], p["key"]),
    sample={
        "cases": _case(lambda m, x, v: m.index_fill(x, 1, _idx(m, [0, 3]), v.sum()), _X, [1.0, 2.0])
    },
)


# ---------------------------------------------------------------- accumulating writes
def _add_at(xp, x, v, p):
    return x + xp.scatter_add_zeros(v, p["key"], p["shape"])


ADD_KEY = {}
for _name, _node, _call in (
    (
        "index_add",
        "IndexAddBackward0",
        lambda m, x, v: m.index_add(x, 0, _idx(m, [2, 2]), v, alpha=0.5),
    ),
    (
        "scatter_add",
        "ScatterAddBackward0",
        lambda m, x, v: m.scatter_add(x, 0, _idx(m, [[0, 2, 1, 1], [2, 0, 0, 2]]), v),
    ),
    (
        "index_put.accumulate",
        "IndexPutBackward0",
        lambda m, x, v: m.index_put(x, (_idx(m, [0, 0]),), v, accumulate=True),
    ),
    (
        "put",
        "PutBackward0",
        lambda m, x, v: m.put(x, _idx(m, [1, 5, 1]), v[0, :3], accumulate=True),
    ),
):
    _ins, _saved, _reads = _SAVES.get(_name, (("self", "source"), ("key",), None))
    ADD_KEY[_name] = defop(
        _name,
        node=_node,
        inputs=_ins,
        saved=_saved,
        reads=_reads,
        complex=AS_WRITTEN,
        fwd=lambda xp, x, v, p: _add_at(xp, x, v * p["alpha"] if p.get("alpha", 1) != 1 else v, p),
        vjp=(
            lambda xp, g, x, v, out, p: g,
            lambda xp, g, x, v, out, p: (
                g[p["key"]] * p["alpha"] if p.get("alpha", 1) != 1 else g[p["key"]]
            ),
        ),
        jvp=lambda xp, t, x, out, p: _add_at(
            xp, t[0], t[1] * p["alpha"] if p.get("alpha", 1) != 1 else t[1], p
        ),
        sample={"cases": _case(_call, _X, np.arange(8.0).reshape(2, 4) - 3)},
    )
# take(self, index): flat gather; the gradient accumulates where an index repeats
TAKE = defop(
    "take",
    node="TakeBackward0",
    inputs=("self",),
    saved=("index", "self"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: x[p["key"]],
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(g, p["key"], p["shape"]),
    reads=((0,),),  # torch's take_backward(grad, self, index): self is saved
    jvp=lambda xp, t, x, out, p: t[0][p["key"]],
    sample={"cases": _case(lambda m, x: m.take(x, _idx(m, [[0, 11], [5, 5]])), _X)},
)
# masked_select: the selected values, in order; the gradient goes back to them
MASKED_SELECT = defop(
    "masked_select",
    node="MaskedSelectBackward0",
    inputs=("self",),
    saved=("mask", "self"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.broadcast_to(x, p["shape"])[p["key"]],
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(g, p["key"], p["shape"]),
    reads=((0,),),  # torch's masked_select_backward(grad, self, mask): self is saved
    jvp=lambda xp, t, x, out, p: xp.broadcast_to(t[0], p["shape"])[p["key"]],
    sample={"cases": _case(lambda m, x: m.masked_select(x, m.tensor(_X > 0.1)), _X)},
)


def _masked_fill_value_vjp(xp, g, x, v, out, p):
    """torch's masked_fill_backward: grad.masked_select(mask).sum()."""
    if xp.is_txp:
        from .api_index import masked_select

        return masked_select(g, xp.const(p["mask"], g)).sum()
    return xp.asarray(g[p["key"]].sum())


# masked_fill with a 0-d tensor value (torch's masked_fill.Tensor, whatever requires grad)
MASKED_FILL_TENSOR = defop(
    "masked_fill.Tensor",
    node="MaskedFillBackward1",
    inputs=("self", "value"),
    saved=("mask",),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, v, p: xp.where(p["mask"], v.astype(x.dtype), x),
    vjp=(
        lambda xp, g, x, v, out, p: xp.masked_fill(g, p["mask"], 0.0),
        _masked_fill_value_vjp,
    ),
    jvp=lambda xp, t, x, out, p: xp.where(p["mask"], t[1], t[0]),
    sample={"cases": _case(lambda m, x, v: m.masked_fill(x, m.tensor(_X > 0.1), v), _X, 0.7)},
)


# masked_scatter: the first count(mask) source values fill the masked places, in order
def _masked_scatter_fwd(xp, x, v, p):
    r = xp.broadcast_to(x, p["shape"]).copy()
    r[p["key"]] = xp.reshape(v, (-1,))[: p["count"]]
    return r


def _masked_scatter_src(xp, g, x, v, out, p):
    n = int(np.prod(p["source_shape"]))
    flat = xp.scatter_add_zeros(g[p["key"]], (np.arange(p["count"]),), (n,))
    return xp.reshape(flat, p["source_shape"])


MASKED_SCATTER = defop(
    "masked_scatter",
    node="MaskedScatterBackward0",
    inputs=("self", "source"),
    complex=AS_WRITTEN,
    saved=("mask", "source_sym_sizes"),
    fwd=_masked_scatter_fwd,
    vjp=(lambda xp, g, x, v, out, p: _mask_out(xp, g, p["key"], p["shape"]), _masked_scatter_src),
    jvp=lambda xp, t, x, out, p: _masked_scatter_fwd(xp, t[0], t[1], p),
    sample={
        "cases": _case(
            lambda m, x, v: m.masked_scatter(x, m.tensor(_X > 0.1), v), _X, np.arange(12.0) - 6
        )
    },
)


# ---------------------------------------------------------------- scatter_reduce / index_reduce
_IDENTITY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "amax": -np.inf, "amin": np.inf}
_UFUNC = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
}


def _raw(a):
    return a._data if hasattr(a, "_data") else a


def _reduce_raw(x, v, key, reduce, include_self):
    """scatter_reduce on arrays (any device: NumPy functions dispatch): (result, hits per place)."""
    r = x.copy()
    hits = np.zeros_like(x, dtype=np.int64)
    np.add.at(hits, key, 1)
    if not include_self:
        r = np.where(hits > 0, x.dtype.type(_IDENTITY[reduce]), r)
    _UFUNC[reduce].at(r, key, v)
    if reduce == "mean":
        n = np.maximum(hits + (1 if include_self else 0), 1)
        r = (r / n).astype(x.dtype) if x.dtype.kind == "f" else r // n
    return r, hits


def _reduce_fwd(xp, x, v, p):
    return _reduce_raw(x, v, p["key"], p["reduce"], p["include_self"])[0]


def _coefficients(x, v, out, p):
    """torch's scatter_reduce_backward as coefficients (arrays, from the raw values):
    grad_self = g * S, grad_src = (g * P)[key] * Q + (g * R)[key] * T."""
    key, reduce, inc = p["key"], p["reduce"], p["include_self"]
    _, hits = _reduce_raw(x, v, key, "sum", inc)
    one_x, one_v = np.ones_like(x), np.ones_like(v)
    zero_x = np.zeros_like(x)
    R = T = None
    if reduce == "sum":
        S, P, Q = one_x, one_x, one_v
    elif reduce == "mean":
        n = np.maximum(hits + (1 if inc else 0), 1).astype(x.dtype)
        S = P = one_x / n
        Q = one_v
    elif reduce == "prod":
        # exclusive products, exact where self or src hold zeros (one zero at a place)
        ms = np.where(x == 0, x.dtype.type(1), x)
        S = _reduce_raw(ms, v, key, "prod", inc)[0] / ms
        zero = v == 0
        nz = np.zeros_like(x)
        np.add.at(nz, key, zero.astype(x.dtype))
        single = zero & (nz[key] == 1)
        P = _reduce_raw(x, np.where(single, v.dtype.type(1), v), key, "prod", inc)[0]
        Q = single.astype(x.dtype)
        R = out
        T = np.where(single, zero_x[key], one_v / np.where(zero, v.dtype.type(1), v))
    else:  # amax/amin: the gradient shared by every value equal to the result
        self_is = (x == out).astype(x.dtype)  # torch counts self even where it was excluded
        src_is = (v == out[key]).astype(x.dtype)
        n = self_is.copy()
        np.add.at(n, key, src_is)
        P = one_x / np.where(n == 0, x.dtype.type(1), n)
        S, Q = self_is * P, src_is
    if not inc:
        S = np.where(hits > 0, zero_x, S)
    return S, P, Q, R, T


def _reduce_grad(xp, g, x, v, out, p, which):
    S, P, Q, R, T = _coefficients(_raw(x), _raw(v), _raw(out), p)
    if which == 0:
        return g * S
    gv = (g * P)[p["key"]] * Q
    return gv if R is None else gv + (g * R)[p["key"]] * T


def _reduce_jvp(xp, t, x, out, p):
    # the VJP's linear map, transposed: tangents scattered with the same coefficients
    S, P, Q, R, T = _coefficients(x[0], x[1], out, p)
    r = t[0] * S + P * xp.scatter_add_zeros(t[1] * Q, p["key"], p["shape"])
    return r if R is None else r + R * xp.scatter_add_zeros(t[1] * T, p["key"], p["shape"])


def _reduce_complex(kernel_prefix, name):
    def message(p, out):
        if p["reduce"] in ("amax", "amin"):
            return f"\"{kernel_prefix}_{p['reduce']}\" not implemented for '{{dtype}}'"
        return f"{name} does not support automatic differentiation for outputs with complex dtype."

    return message


def _reduce_row(name, node, call, complex, src="src"):
    return defop(
        name,
        node=node,
        inputs=("self", src),
        complex=complex,
        saved=("dim", "include_self", "index", "reduce", "self", src, "result"),
        fwd=_reduce_fwd,
        vjp=(
            lambda xp, g, x, v, out, p: _reduce_grad(xp, g, x, v, out, p, 0),
            lambda xp, g, x, v, out, p: _reduce_grad(xp, g, x, v, out, p, 1),
        ),
        jvp=_reduce_jvp,
        smooth=False,
        sample={"cases": _case(call, _X + 5, np.arange(8.0).reshape(2, 4) + 0.5)},
    )


SCATTER_REDUCE = _reduce_row(
    "scatter_reduce.two",
    "ScatterReduceBackward0",
    lambda m, x, v: m.scatter_reduce(x, 0, _idx(m, [[0, 2, 1, 1], [2, 0, 0, 2]]), v, "amax"),
    Refuse(
        lambda m: (NotImplementedError if m.startswith('"') else RuntimeError)(m),
        _reduce_complex("scatter_gather_tensor_cpu_reduce", "scatter_reduce"),
    ),
)
INDEX_REDUCE = _reduce_row(
    "index_reduce",
    "IndexReduceBackward0",
    lambda m, x, v: m.index_reduce(x, 0, _idx(m, [2, 2]), v, "prod"),
    no_complex_autograd("index_reduce"),
    src="source",  # torch's argument (and saved value) name
)
