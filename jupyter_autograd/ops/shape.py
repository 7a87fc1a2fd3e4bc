"""Shape rows (all linear: their JVP is the forward applied to the tangent)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .indexing import torch_indices
from .registry import (
    AS_WRITTEN,
    AUTO_ELEMENT_WISE,
    AUTO_LINEAR,
    ELEMENTWISE,
    RESHAPE,
    ShiftDims,
    defop,
)


def _shape_op(name, node, fwd, vjp, saved=(), sample=None, torch=None, batch=None):
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=fwd,
        vjp=vjp,
        jvp=AUTO_LINEAR,
        sample=sample or {"domain": (-3, 3), "kind": name},
        torch=torch,
        complex=AS_WRITTEN,
        batch=batch,
    )


VIEW = _shape_op(
    "view",
    "ViewBackward0",
    lambda xp, x, p: xp.reshape(x, p["size"]),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("self_sym_sizes",),
    torch=lambda torch, x, size: x.reshape(size),
    batch=RESHAPE,
)
# reshape of a tensor that is not contiguous but can be viewed in the new shape: torch's
# reshape records _reshape_alias there (a view of a contiguous tensor records view)
RESHAPE_ALIAS = _shape_op(
    "_reshape_alias",
    "ReshapeAliasBackward0",
    lambda xp, x, p: xp.reshape(x, p["size"]),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("self_sym_sizes",),
    batch=RESHAPE,
)
UNSAFE_VIEW = _shape_op(
    "_unsafe_view",
    "UnsafeViewBackward0",
    lambda xp, x, p: xp.reshape(x, p["size"]),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("self_sym_sizes",),
    torch=lambda torch, x, size: x.reshape(size),
    batch=RESHAPE,
)


def _swap(xp, x, p):
    """transpose of a 0-d tensor (dims 0 and -1 both wrap to 0) is a view of it, still
    recorded as TransposeBackward0 as in torch."""
    return xp.swapaxes(x, p["dim0"], p["dim1"]) if x.ndim else x[...]


TRANSPOSE = _shape_op(
    "transpose.int",
    "TransposeBackward0",
    lambda xp, x, p: _swap(xp, x, p),
    lambda xp, g, x, out, p: _swap(xp, g, p),
    saved=("dim0", "dim1"),
    torch=lambda torch, x, dim0, dim1: x.transpose(dim0, dim1),
    batch=ShiftDims("dim0", "dim1"),
)
T = _shape_op(
    "t",
    "TBackward0",
    lambda xp, x, p: x.swapaxes(0, 1) if x.ndim == 2 else x,
    lambda xp, g, x, out, p: g.swapaxes(0, 1) if g.ndim == 2 else g,
    torch=lambda torch, x: x.t(),
    batch=lambda xp, t, x, out, p: t[0].swapaxes(-1, -2) if x[0].ndim == 2 else t[0],
)
PERMUTE = _shape_op(
    "permute",
    "PermuteBackward0",
    lambda xp, x, p: xp.transpose(x, p["dims"]),
    lambda xp, g, x, out, p: xp.transpose(g, tuple(int(i) for i in np.argsort(p["dims"]))),
    saved=("dims",),
    torch=lambda torch, x, dims: x.permute(dims),
    batch=lambda xp, t, x, out, p: xp.transpose(
        t[0], (0, *(d % max(x[0].ndim, 1) + 1 for d in p["dims"]))
    ),
)
SQUEEZE = _shape_op(
    "squeeze",
    "SqueezeBackward0",
    lambda xp, x, p: xp.reshape(x, tuple(s for s in x.shape if s != 1)),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("self_sym_sizes",),
    torch=lambda torch, x: x.squeeze(),
    batch=RESHAPE,
)
SQUEEZE_DIM = _shape_op(
    "squeeze.dim",
    "SqueezeBackward1",
    lambda xp, x, p: xp.reshape(x, p["out_shape"]),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("dim", "self_sym_sizes"),
    torch=lambda torch, x, dim: x.squeeze(dim),
    batch=RESHAPE,
)
# squeeze(dims), a tuple of dims (torch's squeeze.dims overload)
SQUEEZE_DIMS = _shape_op(
    "squeeze.dims",
    "SqueezeBackward2",
    lambda xp, x, p: xp.reshape(x, p["out_shape"]),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("dim", "self_sym_sizes"),
    torch=lambda torch, x, dim: x.squeeze(dim),
    batch=RESHAPE,
)
# matmul(1-D, 2-D) squeezes its result in place: torch's squeeze_.dim (SqueezeBackward4)
SQUEEZE_INPLACE_DIM = _shape_op(
    "squeeze_.dim",
    "SqueezeBackward4",
    lambda xp, x, p: xp.reshape(x, p["out_shape"]),
    lambda xp, g, x, out, p: xp.reshape(g, p["self_sym_sizes"]),
    saved=("dim", "self_sym_sizes"),
    batch=RESHAPE,
)
UNSQUEEZE = _shape_op(
    "unsqueeze",
    "UnsqueezeBackward0",
    lambda xp, x, p: xp.expand_dims(x, p["dim"]),
    lambda xp, g, x, out, p: xp.squeeze(g, axis=p["dim"]),
    saved=("dim",),
    torch=lambda torch, x, dim: x.unsqueeze(dim),
    batch=RESHAPE,
)


def _expand(xp, x, p):
    """NumPy's broadcast_to is read-only even where no element repeats: an expand that only
    adds leading 1s (or keeps the shape) is then a plain view, writable as torch's (fuzz seeds
    404266, 423748, 434010: in-place writes into such an expand were refused)."""
    size = tuple(p["size"])
    if x.size and math.prod(size) == x.size:
        return xp.reshape(x, size)
    return xp.broadcast_to(x, size)


EXPAND = _shape_op(
    "expand",
    "ExpandBackward0",
    _expand,
    lambda xp, g, x, out, p: g,  # the engine sums the broadcast dims back
    saved=("self_sym_sizes",),
    torch=lambda torch, x, size: x.expand(size),
    batch=lambda xp, t, x, out, p: xp.broadcast_to(
        xp.reshape(t[0], t[0].shape[:1] + (1,) * (out.ndim - x[0].ndim) + x[0].shape),
        t[0].shape[:1] + out.shape,
    ),
)


def _repeat_fwd(xp, x, p):
    reps = p["repeats"]
    x = xp.reshape(x, (1,) * (len(reps) - x.ndim) + x.shape)
    return xp.tile(x, reps)


# repeat: view the output as (r0, s0, r1, s1, ...) and sum the repeat axes
def _repeat_vjp(xp, g, x, out, p):
    reps = p["repeats"]
    shape = p["self_sym_sizes"]
    full = (1,) * (len(reps) - len(shape)) + tuple(shape)
    inter = []
    for r, s in zip(reps, full):
        inter += [r, s]
    g = xp.reshape(g, tuple(inter))
    g = xp.sum(g, axis=tuple(range(0, 2 * len(reps), 2)))
    return xp.reshape(g, shape)


REPEAT = _shape_op(
    "repeat",
    "RepeatBackward0",
    _repeat_fwd,
    _repeat_vjp,
    saved=("repeats", "self_sym_sizes"),
    torch=lambda torch, x, repeats: x.repeat(*repeats),
)
FLIP = _shape_op(
    "flip",
    "FlipBackward0",
    # a copy, as torch's flip (NumPy's is a view: an in-place op on one would change the other)
    # (a 0-d tensor has nothing to reverse; torch accepts dim 0 there)
    lambda xp, x, p: xp.flip(x, p["dims"]).copy() if x.ndim else x.copy(),
    lambda xp, g, x, out, p: xp.flip(g, p["dims"]) if g.ndim else g,
    saved=("dims",),
    torch=lambda torch, x, dims: torch.flip(x, dims),
    batch=ShiftDims("dims"),
)
CLONE = _shape_op(
    "clone",
    "CloneBackward0",
    lambda xp, x, p: x.copy(),
    lambda xp, g, x, out, p: g,
    torch=lambda torch, x: x.clone(),
    batch=ELEMENTWISE,
)
# the first .grad of a leaf under backward(create_graph=True) is a recorded copy, as in torch
# (clone_obey_contract: new_empty_strided(...).copy_(grad)): CopyBackwards has two edges, the
# destination's (None: a fresh tensor, passed as None here) and the source's
COPY_BACKWARDS = defop(
    "_copy_backwards",
    node="CopyBackwards",
    inputs=("self", "src"),
    fwd=lambda xp, dst, x, p: x.copy(),
    vjp=(lambda xp, g, dst, x, out, p: xp.zeros_like(g), lambda xp, g, dst, x, out, p: g),
    jvp=lambda xp, t, x, out, p: t[1].copy(),
    complex=AS_WRITTEN,
    batch=ELEMENTWISE,
    sample={"domain": (-3, 3), "kind": "_copy_backwards"},
)
ALIAS = _shape_op(
    "alias",
    "AliasBackward0",
    # an array view; a graph Tensor (higher-order rules) is viewed in its own shape
    lambda xp, x, p: (
        (x.view(tuple(x.shape)) if xp.is_txp else x.view()) if hasattr(x, "view") else x
    ),
    lambda xp, g, x, out, p: g,
    torch=lambda torch, x: x[:],
    batch=ELEMENTWISE,
)


# dtype conversion: the gradient is converted back by the engine (it casts to the input dtype)
def _to_copy_fwd(xp, x, p):
    dt = p["dtype"]
    if x.dtype.kind == "c" and dt.kind == "b":  # torch: nonzero real or imaginary part, silently
        return x != 0
    if x.dtype.kind == "c" and dt.kind != "c":
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2
        )
        x = x.real
    return x.astype(dt)


TO_COPY = _shape_op(
    "_to_copy",
    "ToCopyBackward0",
    _to_copy_fwd,
    lambda xp, g, x, out, p: _copy_back(xp, g, p),
    torch=lambda torch, x, dtype: x.to(dtype),
    batch=ELEMENTWISE,
)


def _copy_back(xp, g, p):
    """``x.to(device)``: the gradient goes back to the device x came from."""
    dev = p.get("device")
    if dev is None:
        return g
    if xp.is_txp:
        return g.to(dev)
    from ..backend import move_array

    return move_array(g, dev)


# ---------------------------------------------------------------- indexing
def _select_fwd(xp, x, p):
    # basic indexing: a view of x, as torch's select
    return x[(slice(None),) * p["dim"] + (p["index"], Ellipsis)]  # Ellipsis: 0-d view, not a scalar


SELECT = defop(
    "select.int",
    node="SelectBackward0",
    inputs=("self",),
    saved=("dim", "index", "self_sym_sizes"),
    complex=AS_WRITTEN,
    fwd=_select_fwd,
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(
        g, (slice(None),) * p["dim"] + (p["index"],), p["self_sym_sizes"]
    ),
    jvp=AUTO_LINEAR,
    sample={"domain": (-3, 3), "kind": "select"},
    torch=lambda torch, x, dim, index: x.select(dim, index),
    batch=ShiftDims("dim"),
)


def _slice_key(p):
    return (slice(None),) * p["dim"] + (slice(p["start"], p["end"], p["step"]),)


SLICE = defop(
    "slice.Tensor",
    node="SliceBackward0",
    inputs=("self",),
    complex=AS_WRITTEN,
    saved=("dim", "end", "self_sym_sizes", "start", "step"),
    fwd=lambda xp, x, p: x[_slice_key(p)],
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(g, _slice_key(p), p["self_sym_sizes"]),
    jvp=lambda xp, t, x, out, p: t[0][_slice_key(p)],
    sample={"domain": (-3, 3), "kind": "slice"},
    torch=lambda torch, x, dim, start, end, step: x.narrow(
        dim, start, max(0, (min(end, x.shape[dim]) - start))
    ).__getitem__((slice(None),) * dim + (slice(None, None, step),)),
    batch=ShiftDims("dim"),
)
# advanced indexing (integer arrays, boolean masks): repeated indices accumulate
INDEX = defop(
    "index.Tensor",
    node="IndexBackward0",
    inputs=("self",),
    saved=("indices", "self_sym_sizes"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: x[p["key"]],
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(g, p["key"], p["self_sym_sizes"]),
    jvp=lambda xp, t, x, out, p: t[0][p["key"]],
    sample={"domain": (-3, 3), "kind": "index"},
    torch=None,
)
# masked_fill(self, mask, value): the gradient is zero where the value was written
MASKED_FILL = defop(
    "masked_fill.Scalar",
    node="MaskedFillBackward0",
    inputs=("self",),
    saved=("mask",),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.where(p["mask"], xp.asarray(p["value"], dtype=x.dtype), x),
    vjp=lambda xp, g, x, out, p: xp.where(p["mask"], 0.0, g),
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (-3, 3), "kind": "masked_fill"},
    torch=lambda torch, x: x.masked_fill(x > 0, 0.5),
)


def _index_select_key(p):
    return (slice(None),) * p["dim"] + (p["index"],)


# index_select: repeated indices accumulate their gradients (index_add)
INDEX_SELECT = defop(
    "index_select",
    node="IndexSelectBackward0",
    inputs=("self",),
    saved=("dim", "index", "self_sym_sizes"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.take(x, p["index"], axis=p["dim"]),
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(g, _index_select_key(p), p["self_sym_sizes"]),
    jvp=lambda xp, t, x, out, p: xp.take(t[0], p["index"], axis=p["dim"]),
    sample={"domain": (-3, 3), "kind": "index_select"},
    torch=lambda torch, x: x.index_select(0, torch.tensor([0, 2, 2])),
)
# The scatter used by the gradients above, as an op so that create_graph can differentiate it.
SCATTER = defop(
    "_index_put_zeros",
    node="IndexPutBackward0",
    inputs=("values",),
    saved=("indices",),
    complex=AS_WRITTEN,
    fwd=lambda xp, g, p: xp.scatter_add_zeros(g, p["key"], p["shape"]),
    vjp=lambda xp, g, v, out, p: g[p["key"]],
    jvp=lambda xp, t, x, out, p: xp.scatter_add_zeros(t[0], p["key"], p["shape"]),
    sample={"domain": (-3, 3), "kind": "scatter"},
)
PUT_ALONG = defop(
    "_put_along_axis_zeros",
    node="ScatterBackward0",
    inputs=("src",),
    saved=("dim", "index"),
    complex=AS_WRITTEN,
    fwd=lambda xp, g, p: xp.put_along_axis_zeros(g, p["index"], p["dim"], p["shape"]),
    vjp=lambda xp, g, v, out, p: xp.take_along_axis(g, p["index"], axis=p["dim"]),
    jvp=lambda xp, t, x, out, p: xp.put_along_axis_zeros(t[0], p["index"], p["dim"], p["shape"]),
    sample={"domain": (-3, 3), "kind": "put_along"},
)


def _gather_fwd(xp, x, p):
    """torch.gather: the result has the index's shape; outside ``dim`` the index may be smaller
    than the input (NumPy's take_along_axis would broadcast it to the input's size)."""
    idx, d = p["index"], p["dim"]
    if idx.shape != x.shape:
        if idx.ndim != x.ndim:
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        for i, (n, m) in enumerate(zip(idx.shape, x.shape)):
            if i != d and n > m:
                raise RuntimeError(
                    f"Size does not match at dimension {i} expected index {list(idx.shape)} to be no "
                    f"larger than self {list(x.shape)} apart from dimension {d}"
                )
        x = x[tuple(slice(None) if i == d else slice(0, n) for i, n in enumerate(idx.shape))]
    if idx.size:
        n = x.shape[d]
        bad = (idx < 0) | (idx >= n)
        if bad.any():
            raise RuntimeError(
                f"index {int(idx[bad].reshape(-1)[0])} is out of bounds for dimension {d} with size {n}"
            )
    return xp.take_along_axis(x, idx, axis=d)


TAKE_ALONG = defop(
    # torch saves self (its gradient reads self's sizes): an in-place change of self is refused
    "gather",
    node="GatherBackward0",
    inputs=("self",),
    saved=("dim", "index", "self", "sparse_grad=False"),
    complex=AS_WRITTEN,
    fwd=_gather_fwd,
    vjp=lambda xp, g, x, out, p: xp.scatter_add_zeros(
        g, _along_key(xp, p["index"], p["dim"]), x.shape
    ),
    jvp=AUTO_LINEAR,
    sample={"domain": (-3, 3), "kind": "gather"},
    torch=lambda torch, x, dim, index: torch.gather(x, dim, index),
)


def _along_key(xp, index, dim):
    """Advanced-index key equivalent to take_along_axis(., index, dim) (for scatter-add)."""
    idx = index._data if hasattr(index, "_data") else index
    # open grids made by the index's own array module: a GPU index gets GPU grids
    from ..autograd.engine import xp_of

    m = xp_of(idx)
    nd = idx.ndim
    grids = [
        m.arange(n).reshape((1,) * k + (n,) + (1,) * (nd - k - 1)) for k, n in enumerate(idx.shape)
    ]
    grids[dim] = idx
    return tuple(grids)


# x[key] = v out of place: the gradient of x is zero at key, v gets g[key] (summed if broadcast)
def _index_put_self_vjp(xp, g, x, v, out, p):
    if p.get("accumulate"):
        return g  # index_put_(..., accumulate=True) adds to every element of self
    from ..autograd.engine import xp_of

    m = xp_of(g._data if hasattr(g, "_data") else g)  # the mask lives on g's device
    mask = m.ones(p["shape"], dtype=bool)
    mask[p["key"]] = False
    return xp.where(mask, g, 0.0)


INDEX_PUT = defop(
    "index_put",
    node="IndexPutBackward0",
    inputs=("self", "values"),
    saved=("accumulate=False", "indices"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, v, p: _index_put_fwd(xp, x, v, p),
    vjp=(_index_put_self_vjp, lambda xp, g, x, v, out, p: g[p["key"]]),
    jvp=lambda xp, t, x, out, p: _index_put_fwd(xp, t[0], t[1], p),
    sample={"domain": (-3, 3), "kind": "index_put"},
)


def index_add_at(r, key, v) -> None:
    """``r[key] += v`` with repeated indices adding up (index_put_'s accumulate=True)."""
    from ..autograd.engine import xp_of

    xp_of(r).add_at(r, key, v)


def _index_put_fwd(xp, x, v, p):
    if "indices" not in p:  # saved as torch's (not read: the key is)
        p["indices"] = torch_indices(p["key"], x.ndim)
    r = x.copy()
    if p.get("accumulate"):
        xp.add_at(r, p["key"], v)
    else:
        r[p["key"]] = v
    return r


# ---------------------------------------------------------------- joining and splitting
def _cat_fwd(xp, *arrays_and_p):
    *arrays, p = arrays_and_p
    return xp.concatenate(_cat_parts(arrays, p), axis=p["dim"])


def _cat_parts(arrays, p):
    """The operands cat joins: torch skips legacy empty 1-D tensors (still inputs of the node,
    given an empty gradient)."""
    skip = p.get("skip")
    return [a for i, a in enumerate(arrays) if i not in skip] if skip else arrays


def _cat_vjp(xp, g, i, metas, p):
    skip = p.get("skip")
    if skip and i in skip:
        return xp.reshape(g, (-1,))[:0]
    d = p["dim"]
    start = sum(p["sizes"][:i])
    key = (slice(None),) * d + (slice(start, start + p["sizes"][i]),)
    return g[key]


CAT = defop(
    "cat",
    node="CatBackward0",
    inputs=("tensors",),
    saved=("dim",),
    complex=AS_WRITTEN,
    fwd=_cat_fwd,
    vjp=(_cat_vjp,),
    variadic=True,
    jvp=lambda xp, t, x, out, p: xp.concatenate(_cat_parts(t, p), axis=p["dim"]),
    sample={"domain": (-3, 3), "kind": "cat"},
    torch=lambda torch, *ts, dim: torch.cat(ts, dim),
)


def _stack_fwd(xp, *arrays_and_p):
    *arrays, p = arrays_and_p
    return xp.stack(arrays, axis=p["dim"])


STACK = defop(
    "stack",
    node="StackBackward0",
    inputs=("tensors",),
    saved=("dim",),
    complex=AS_WRITTEN,
    fwd=_stack_fwd,
    vjp=(lambda xp, g, i, metas, p: xp.take(g, i, axis=p["dim"]),),
    variadic=True,
    jvp=lambda xp, t, x, out, p: xp.stack(t, axis=p["dim"]),
    sample={"domain": (-3, 3), "kind": "stack"},
    torch=lambda torch, *ts, dim: torch.stack(ts, dim),
)


def _split_fwd(xp, x, p):
    d = p["dim"]
    offs = [int(o) for o in np.cumsum(p["sizes"])[:-1]]  # host ints: valid for any array module
    return (
        tuple(xp.split(x, offs, axis=d))
        if len(p["sizes"]) > 1
        else (x[(slice(None),) * d + (slice(0, p["sizes"][0]),)],)
    )


SPLIT = defop(
    "split_with_sizes",
    node="SplitWithSizesBackward0",
    inputs=("self",),
    complex=AS_WRITTEN,
    saved=("dim", "self_sym_sizes", "split_sizes"),
    fwd=_split_fwd,
    vjp=lambda xp, g, x, out, p: xp.concatenate(list(g), axis=p["dim"]),
    jvp=AUTO_LINEAR,
    n_out=-1,
    sample={"domain": (-3, 3), "kind": "split"},
    torch=None,
)
UNBIND = defop(
    "unbind.int",
    node="UnbindBackward0",
    inputs=("self",),
    saved=("dim",),
    complex=AS_WRITTEN,
    # basic indexing: each output is a view of x, as torch's unbind
    fwd=lambda xp, x, p: tuple(
        x[(slice(None),) * p["dim"] + (i, Ellipsis)] for i in range(x.shape[p["dim"]])
    ),
    vjp=lambda xp, g, x, out, p: xp.stack(list(g), axis=p["dim"]),
    jvp=lambda xp, t, x, out, p: tuple(
        xp.take(t[0], i, axis=p["dim"]) for i in range(t[0].shape[p["dim"]])
    ),
    n_out=-1,
    sample={"domain": (-3, 3), "kind": "unbind"},
    torch=None,
)
