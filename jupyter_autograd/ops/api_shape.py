"""Public layout functions beyond ``api.py``: roll, rot90, diagonal, diag_embed, tril/triu,
tile, movedim, the ``atleast_*``/``*stack``/``*split`` families, ``sum_to_size`` and the
``*_copy`` variants, composed from rows with torch's node names."""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from .._size import _wrap_dim
from ..tensor import Tensor
from . import api as A
from . import api_layout as AL
from . import layout as LY
from .dispatch import apply1

__all__ = [
    "alias_copy",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal",
    "diagonal_copy",
    "dsplit",
    "dstack",
    "expand_copy",
    "fill",
    "fliplr",
    "flipud",
    "hsplit",
    "moveaxis",
    "movedim",
    "narrow_copy",
    "permute_copy",
    "ravel",
    "roll",
    "rot90",
    "row_stack",
    "split_with_sizes",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "tensor_split",
    "tile",
    "transpose_copy",
    "tril",
    "triu",
    "unbind_copy",
    "unfold_copy",
    "unsafe_chunk",
    "unsafe_split",
    "unsqueeze_copy",
    "view_copy",
    "vsplit",
    "zero_",
]


def _tuple(x):
    if isinstance(x, Tensor):
        return tuple(int(v) for v in x.tolist()) if x.ndim else (int(x.item()),)
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def roll(input, shifts, dims=None) -> Tensor:
    """Shift elements cyclically along ``dims`` (the flattened tensor without dims)."""
    shifts, dims = _tuple(shifts), () if dims is None else _tuple(dims)
    if dims and len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if not dims and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    nd = input.ndim
    if dims and not nd:
        AL._no_scalar_dim(input, dims[0])
    return apply1(LY.ROLL, input, {"shifts": shifts, "dims": tuple(_wrap_dim(d, nd) for d in dims)})


def rot90(input, k=1, dims=(0, 1)) -> Tensor:
    """Rotate by ``k`` quarter turns in the plane of ``dims`` (Rot90Backward0)."""
    dims = _tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    return apply1(LY.ROT90, input, {"k": k, "dims": (d0, d1)})


def unfold(input, dimension, size, step) -> Tensor:
    """``Tensor.unfold``: windows of ``size`` every ``step`` along ``dimension``, as a new last dim."""
    nd = input.ndim
    d = _wrap_dim(dimension, nd)
    n = input.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply1(
        LY.UNFOLD,
        input,
        {
            "dimension": d,
            "size": size,
            "step": step,
            "n_windows": (n - size) // step + 1,
            "self_sym_sizes": input._data.shape,
        },
    )


def diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor:
    """The diagonal over ``dim1``/``dim2``, as a last dimension (DiagonalBackward0)."""
    nd = input.ndim
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply1(
        LY.DIAGONAL,
        input,
        {"offset": offset, "dim1": d1, "dim2": d2, "self_sym_sizes": input._data.shape},
    )


def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """Tensors whose diagonals (over ``dim1``/``dim2``) are the last dim of ``input``."""
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply1(LY.DIAG_EMBED, input, {"offset": offset, "dim1": d1, "dim2": d2})


def diag(input, diagonal=0) -> Tensor:
    """A vector's diagonal matrix (DiagEmbedBackward0) or a matrix's diagonal (DiagonalBackward0)."""
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")
    return globals()["diagonal"](input, diagonal, 0, 1)


def diagflat(input, offset=0) -> Tensor:
    return diag_embed(A.reshape(input, (-1,)), offset, 0, 1)


def tril(input, diagonal=0) -> Tensor:
    """Lower triangle (below and on diagonal ``diagonal``) of the last two dims."""
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return apply1(LY.TRIL, input, {"diagonal": diagonal})


def triu(input, diagonal=0) -> Tensor:
    """Upper triangle of the last two dims (TriuBackward0)."""
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return apply1(LY.TRIU, input, {"diagonal": diagonal})


def tile(input, dims) -> Tensor:
    """``repeat`` with ``dims`` padded by ones in front (RepeatBackward0)."""
    dims = _tuple(dims)
    dims = (1,) * builtins.max(0, input.ndim - len(dims)) + dims
    return A.repeat(input, dims)


def movedim(input, source, destination) -> Tensor:
    """Move dims ``source`` to positions ``destination`` (PermuteBackward0)."""
    src, dst = _tuple(source), _tuple(destination)
    nd = input.ndim
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    src = [_wrap_dim(d, nd) for d in src]
    dst = [_wrap_dim(d, nd) for d in dst]
    if nd == 0:  # dims 0 and -1 name the scalar itself: torch returns an alias
        return A.apply1(A.SH.ALIAS, input)
    order = [d for d in range(nd) if d not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return A.permute(input, tuple(perm))


moveaxis = movedim


def ravel(input) -> Tensor:
    return A.view(input if input.is_contiguous() else A.clone(input), -1)


def sum_to_size(input, *size) -> Tensor:
    """Sum the broadcast dims away so the result has ``size`` (SumBackward1)."""
    if not size:
        raise AL.missing_sizes("sum_to_size", "size")
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    shape = input.shape
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = list(range(lead)) + [
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1
    ]
    if not dims:
        return input
    r = A.sum(input, dims, keepdim=True)
    return A.view(r, size) if lead else r


def _as_tuple_call(fn):
    def wrapped(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(fn(t) for t in tensors[0])
        if len(tensors) == 1:
            return fn(tensors[0])
        return tuple(fn(t) for t in tensors)

    wrapped.__name__ = fn.__name__
    return wrapped


@_as_tuple_call
def atleast_1d(t):
    return A.reshape(t, (1,)) if t.ndim == 0 else t


@_as_tuple_call
def atleast_2d(t):
    if t.ndim == 0:
        return A.reshape(t, (1, 1))
    return A.unsqueeze(t, 0) if t.ndim == 1 else t


@_as_tuple_call
def atleast_3d(t):
    if t.ndim == 0:
        return A.reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return A.unsqueeze(A.unsqueeze(t, 0), -1)
    return A.unsqueeze(t, -1) if t.ndim == 2 else t


def column_stack(tensors) -> Tensor:
    return A.cat([A.reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors], 1)


def dstack(tensors) -> Tensor:
    return A.cat(list(atleast_3d(list(tensors))), 2)


row_stack = A.vstack


def tensor_split(input, indices_or_sections, dim=0):
    """Split into ``n`` near-equal parts or at the given indices (views: SliceBackward0)."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios.ndim > 1 or ios.dtype.is_floating_point:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have int64 dtype and be 0-D or 1-D"
            )
        ios = ios.item() if ios.ndim == 0 else ios.tolist()
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds = np.cumsum([0] + [q + 1] * r + [q] * (ios - r)).tolist()
    else:
        idx = [int(i) for i in ios]
        bounds = [0] + idx + [n]
    out = []
    for a, b in itertools.pairwise(bounds):
        a, b = builtins.min(builtins.max(a, 0), n), builtins.min(builtins.max(b, 0), n)
        out.append(A.narrow(input, d, a, builtins.max(b - a, 0)))
    return tuple(out)


def _dir_split(name, dim, min_dims):
    def fn(input, indices_or_sections):
        if input.ndim < min_dims:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                f"tensor with {input.ndim} dimensions!"
            )
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int):
            s = indices_or_sections
            if s == 0 or input.shape[d] % s:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {input.shape[d]} is not divisible by the split_size {s}!"
                )
        return tensor_split(input, indices_or_sections, d)

    fn.__name__ = fn.__qualname__ = name
    return fn


hsplit = _dir_split("hsplit", 1, 1)
vsplit = _dir_split("vsplit", 0, 2)
dsplit = _dir_split("dsplit", 2, 3)


def fliplr(input) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return A.flip(input, (1,))


def flipud(input) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return A.flip(input, (0,))


def split_with_sizes(input, split_sizes, dim=0):
    return A.split(input, list(split_sizes), dim)


def _renamed(results, suffix_or_name, copy=True):
    """Results of a composed op shown under torch's node name (``ExpandBackward0_copy``...),
    copied out of the input's memory where torch copies."""
    multi = isinstance(results, (tuple, list))
    for r in results if multi else (results,):
        fn = r.grad_fn
        if fn is not None:
            name = (
                suffix_or_name
                if not suffix_or_name.startswith("_")
                else type(fn).__name__ + suffix_or_name
            )
            fn.__class__ = _subclass(type(fn), name)
        if copy:
            r._data = np.array(r._data) if r._data.__class__ is np.ndarray else r._data.copy()
            r._base = None
    return results


_SUBCLASSES: dict = {}


def _subclass(cls, name):
    key = (cls, name)
    sub = _SUBCLASSES.get(key)
    if sub is None:
        sub = _SUBCLASSES[key] = type(name, (cls,), {})
        sub.__module__ = "builtins"
    return sub


def unsafe_split(input, split_size, dim=0):
    return _renamed(A.split(input, split_size, dim), "UnsafeSplitBackward0", copy=False)


def unsafe_chunk(input, chunks, dim=0):
    return _renamed(A.chunk(input, chunks, dim), "UnsafeSplitBackward0", copy=False)


def _copy_variant(fn, name):
    def f(input, *args, **kwargs):
        return _renamed(fn(input, *args, **kwargs), "_copy")

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``{name[:-5]}`` into new memory (torch's ``{name}``)."
    return f


expand_copy = _copy_variant(lambda x, size, implicit=False: A.expand(x, size), "expand_copy")
permute_copy = _copy_variant(A.permute, "permute_copy")
t_copy = _copy_variant(A.t, "t_copy")
transpose_copy = _copy_variant(A.transpose, "transpose_copy")
unsqueeze_copy = _copy_variant(A.unsqueeze, "unsqueeze_copy")
squeeze_copy = _copy_variant(A.squeeze, "squeeze_copy")
view_copy = _copy_variant(lambda x, *size: x.view(*size), "view_copy")
alias_copy = _copy_variant(lambda x: A.apply1(A.SH.ALIAS, x), "alias_copy")
diagonal_copy = _copy_variant(diagonal, "diagonal_copy")
unbind_copy = _copy_variant(A.unbind, "unbind_copy")
split_with_sizes_copy = _copy_variant(split_with_sizes, "split_with_sizes_copy")
unfold_copy = _copy_variant(unfold, "unfold_copy")


def narrow_copy(input, dim, start, length) -> Tensor:
    return _renamed(A.narrow(input, dim, start, length), "NarrowCopyBackward0")


def zero_(input) -> Tensor:
    return input.zero_()


def fill(input, value) -> Tensor:
    """A tensor like ``input`` filled with ``value`` (FillBackward0; a 0-d tensor value:
    FillBackward1, which passes the summed gradient to the value)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                "dimensions."
            )
        return A.apply(LY.FILL_TENSOR, (input, value.to(input.dtype)))
    return apply1(LY.FILL, input, {"value": value})
