"""Shape and layout ops (``reshape``, ``view``, ``transpose``, ``cat``, ``split``, ``gather``...)
in torch's signatures."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype
from .._size import _wrap_dim
from ..tensor import Tensor
from . import reduction as RD
from . import shape as SH
from ._api_base import _cat_out_rule, _dims, _float, _index_select_checks, _promote_all, _t
from .api_compare import _broadcast_error
from .dispatch import apply, apply1
from .out import out_call


# ---------------------------------------------------------------- shapes
def _shape_arg(shape, fn="reshape", arg="shape"):
    """The sizes of a ``*sizes`` argument (one sequence or ints); none at all is torch's
    TypeError (its argument parser requires them, even where ``()`` would do)."""
    if (
        len(shape) == 1
        and isinstance(shape[0], (tuple, list, Tensor.__mro__[0].__class__))
        and not isinstance(shape[0], int)
    ):
        shape = tuple(shape[0])
    elif not shape:
        raise missing_sizes(fn, arg)
    return tuple(int(s) for s in shape)


def missing_sizes(fn, arg) -> TypeError:
    """torch's argument-parser error for a call without its required sizes."""
    if arg is None:  # a method with overloads: torch lists them
        return TypeError(
            f"{fn}() received an invalid combination of arguments - got (), but "
            "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
        )
    return TypeError(f'{fn}() missing 1 required positional arguments: "{arg}"')


def _infer_shape(shape, numel):
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 and numel == 0:  # torch's infer_size: any size would do
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def reshape(input, *shape) -> Tensor:
    """Same data in a new shape; one dimension may be -1. A view (ViewBackward0) where the
    strides allow one, else a copy (UnsafeViewBackward0 over CloneBackward0), as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(2, 3, requires_grad=True)
        >>> x.reshape(-1).grad_fn, x.t().reshape(-1).grad_fn
        (<ViewBackward0 object at 0x...>, <UnsafeViewBackward0 object at 0x...>)
    """
    d = input._data
    shape = _infer_shape(_shape_arg(shape), d.size)
    if _viewable(d, shape):
        row = SH.VIEW if d.flags.c_contiguous or d.__class__ is not np.ndarray else SH.RESHAPE_ALIAS
        return apply1(row, input, {"size": shape, "self_sym_sizes": d.shape})
    copy = apply1(SH.CLONE, input)
    return apply1(SH.UNSAFE_VIEW, copy, {"size": shape, "self_sym_sizes": d.shape})


def view(input, *shape) -> Tensor:
    """The same memory in a new shape (ViewBackward0); torch's error where no view can exist."""
    d = input._data
    shape = _infer_shape(_shape_arg(shape, "view", None), d.size)
    if not _viewable(d, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return apply1(SH.VIEW, input, {"size": shape, "self_sym_sizes": d.shape})


def _viewable(d, shape) -> bool:
    """Whether ``d`` can take ``shape`` without copying (torch's computeStride criterion)."""
    if d.flags.c_contiguous or d.size <= 1:
        return True
    if d.__class__ is np.ndarray:
        try:
            np.reshape(d, shape, copy=False)
        except ValueError:
            return False
        return True
    return d.reshape(shape).base is not None  # other array libraries: did it view?


def flatten(input, start_dim=0, end_dim=-1) -> Tensor:
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s = _wrap_dim(start_dim, nd)
    e = _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    return reshape(input, shp[:s] + (-1,) + shp[e + 1 :])


def unflatten(input, dim, sizes) -> Tensor:
    """Dimension ``dim`` as ``sizes`` (one may be -1), with torch's unflatten messages."""
    d = _wrap_dim(dim, input._data.ndim)
    shp = input._data.shape
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        sizes = _infer_shape(sizes, shp[d])
    except RuntimeError as e:
        if "can be any value" in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({shp[d]}) in the input tensor"
        ) from None
    # torch's view: splitting one dim is a view of any strides (ViewBackward0, fuzz 716050)
    return view(input, *(shp[:d] + sizes + shp[d + 1 :]))


def transpose(input, dim0, dim1) -> Tensor:
    nd = input._data.ndim
    return apply1(SH.TRANSPOSE, input, {"dim0": _wrap_dim(dim0, nd), "dim1": _wrap_dim(dim1, nd)})


swapaxes = swapdims = transpose


def t(input) -> Tensor:
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return apply1(SH.T, input)


def permute(input, *dims) -> Tensor:
    dims = _shape_arg(dims, "permute", "dims")
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    return apply1(SH.PERMUTE, input, {"dims": tuple(_wrap_dim(d, nd) for d in dims)})


def squeeze(input, dim=None) -> Tensor:
    shp = input._data.shape
    if dim is None:
        return apply1(SH.SQUEEZE, input, {"self_sym_sizes": shp})
    if not shp:
        _dims(dim, 0)
        if isinstance(dim, (list, tuple)):  # squeeze.dims (SqueezeBackward2), even on 0-d
            return apply1(
                SH.SQUEEZE_DIMS,
                input,
                {"dim": (0,) * len(dim), "out_shape": (), "self_sym_sizes": shp},
            )
        return apply1(SH.SQUEEZE_DIM, input, {"dim": 0, "out_shape": (), "self_sym_sizes": shp})
    dims = _dims(dim, input._data.ndim)
    out_shape = tuple(s for i, s in enumerate(shp) if not (i in dims and s == 1))
    op = SH.SQUEEZE_DIM if not isinstance(dim, (list, tuple)) else SH.SQUEEZE_DIMS
    return apply1(
        op,
        input,
        {
            "dim": dims[0] if op is SH.SQUEEZE_DIM else dims,
            "out_shape": out_shape,
            "self_sym_sizes": shp,
        },
    )


def unsqueeze(input, dim) -> Tensor:
    return apply1(SH.UNSQUEEZE, input, {"dim": _wrap_dim(dim, input._data.ndim + 1)})


def expand(input, *sizes) -> Tensor:
    """Broadcast to a larger shape without copying (ExpandBackward0); -1 keeps a dimension."""
    sizes = _shape_arg(sizes, "expand", "size")
    shp = input._data.shape
    full = _expanded_shape(input, sizes)
    return apply1(SH.EXPAND, input, {"size": full, "self_sym_sizes": shp})


def _expanded_shape(input, sizes) -> tuple:
    """The shape ``input.expand(*sizes)`` has, or torch's error for sizes it cannot take."""
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(
            f"expand({_type_string(input)}{{{list(shp)}}}, size={list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(shp)})"
        )
    lead = len(sizes) - len(shp)
    full = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # torch checks from the last dimension
        s = sizes[i]
        if s == -1:
            if i < lead:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )
            s = shp[i - lead]
        elif i >= lead and shp[i - lead] != s and shp[i - lead] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size "
                f"({shp[i - lead]}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                f"Tensor sizes: {list(shp)}"
            )
        full[i] = s
    return tuple(full)


def _type_string(t) -> str:
    """torch's Tensor::toString: the legacy type name, or ``CPUBoolType`` for the dtypes that
    have none (bool, complex)."""
    name = t.type()
    if t._data.dtype.kind not in "bc":
        return name
    dev = t.device.type
    return (
        f"{'CPU' if dev == 'cpu' else dev.upper()}{name.rsplit('.', 1)[-1][: -len('Tensor')]}Type"
    )


def expand_as(input, other) -> Tensor:
    return expand(input, other._data.shape)


def broadcast_to(input, shape) -> Tensor:
    return expand(input, tuple(shape))


def repeat(input, *sizes) -> Tensor:
    sizes = _shape_arg(sizes, "repeat", "repeats")
    if len(sizes) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    return apply1(SH.REPEAT, input, {"repeats": sizes, "self_sym_sizes": input._data.shape})


def flip(input, dims) -> Tensor:
    """``dims`` reversed (FlipBackward0, a copy); a 0-d tensor takes dim 0 / -1 as torch."""
    if isinstance(dims, int):
        dims = (dims,)
    dims = tuple(_wrap_dim(d, input._data.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        dup = next(d for i, d in enumerate(dims) if d in dims[:i])
        raise RuntimeError(f"dim {dup} appears multiple times in the list of dims")
    return apply1(SH.FLIP, input, {"dims": dims})


def clone(input, *, memory_format=None) -> Tensor:
    return apply1(SH.CLONE, input)


def cat(tensors, dim=0, *, out=None) -> Tensor:
    """Concatenate along ``dim`` (CatBackward0)."""
    if out is not None:
        return out_call("cat", cat, (tensors, dim), {}, out, dtype_rule=_cat_out_rule)
    tensors = [_t(x) for x in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    # torch skips legacy empty 1-D tensors of shape (0,) (they stay inputs of the node)
    skip = {i for i, x in enumerate(tensors) if x._data.ndim == 1 and x._data.shape[0] == 0}
    ts = [x for i, x in enumerate(tensors) if i not in skip]
    if not ts:  # all legacy empty: the first one's values, every one an input of the node
        ts, skip = [tensors[0]], set(range(1, len(tensors))) or None
    elif not skip:
        skip = None
    nd = ts[0]._data.ndim
    if nd == 0:
        _cat_zero_dim(tensors)
    try:
        d = _wrap_dim(dim, nd)
    except IndexError:
        _cat_zero_dim(tensors)
        raise
    ref = ts[0]._data.shape
    for i, x in enumerate(ts):
        s = x._data.shape
        if len(s) != nd:
            _cat_zero_dim(tensors)
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {len(s)}"
            )
        for j in range(nd):
            if j != d and s[j] != ref[j]:
                _cat_zero_dim(tensors)
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref[j]} "
                    f"but got size {s[j]} for tensor number {i} in the list."
                )
    if skip is None:
        # the result type counts the skipped empty tensors too (torch: bool with complex (0,) is complex)
        pts = _promote_all(ts, tensors, inside=True)
        return apply(
            SH.CAT,
            tuple(pts),
            {"dim": d, "sizes": [x._data.shape[d] for x in ts]},
            None if pts is ts else tuple(ts),
        )
    pts = _promote_all(tensors, inside=True)
    sizes = [0 if i in skip else x._data.shape[d] for i, x in enumerate(pts)]
    return apply(
        SH.CAT,
        tuple(pts),
        {"dim": d, "sizes": sizes, "skip": frozenset(skip)},
        None if pts is tensors else tuple(tensors),
    )


concat = concatenate = cat


def _cat_zero_dim(tensors) -> None:
    """torch's first check of cat (before the dim and the shapes): no 0-d tensor anywhere."""
    for i, x in enumerate(tensors):
        if not x._data.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")


def stack(tensors, dim=0, *, out=None) -> Tensor:
    """Stack along a new dimension (StackBackward0)."""
    if out is not None:
        return out_call(
            "stack", stack, (tensors, dim), {}, out, dtype_rule=_cat_out_rule, resize_first=True
        )
    tensors = [_t(x) for x in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._data.shape
    for i, x in enumerate(tensors):
        if x._data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                f"{list(x._data.shape)} at entry {i}"
            )
    d = _wrap_dim(dim, len(ref) + 1)
    pts = _promote_all(tensors, inside=True)
    return apply(SH.STACK, tuple(pts), {"dim": d}, None if pts is tensors else tuple(tensors))


def hstack(tensors):
    tensors = [_t(x) for x in tensors]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    return cat([x if x._data.ndim > 1 else reshape(x, (1, -1)) for x in map(_t, tensors)], 0)


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size, or of the given sizes (one multi-output node)."""
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n > 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
            )
        # torch: one piece (of size 0) for an empty dimension
        sizes = ([s] * (n // s) + ([n % s] if n % s else [])) if s > 0 and n else [0]
        node = "SplitBackward0"
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                f"dimension {d}), but got split_sizes={sizes}"
            )
        node = "SplitWithSizesBackward0"
    res = apply(
        SH.SPLIT,
        (tensor,),
        {"dim": d, "sizes": sizes, "split_sizes": sizes, "self_sym_sizes": tensor._data.shape},
    )
    if node == "SplitBackward0" and res and res[0].grad_fn is not None:
        _rename_node(res[0].grad_fn, _SPLIT_NODE)
    return res


def _rename_node(node, cls):
    node.__class__ = cls


_SPLIT_NODE = type("SplitBackward0", (SH.SPLIT.node_cls,), {})
_SPLIT_NODE.__module__ = "builtins"


def chunk(input, chunks, dim=0):
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if n == 0:  # torch: ``chunks`` empty pieces (split_with_sizes)
        return split(input, [0] * chunks, d)
    return split(input, -(-n // chunks), d)


def _no_scalar_dim(input, dim) -> None:
    """torch's maybe_wrap_dim without wrap_scalar (unbind, roll): a 0-d tensor has no dims."""
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def unbind(input, dim=0):
    d = _wrap_dim(dim, input._data.ndim)
    _no_scalar_dim(input, d)  # (torch names the wrapped dim)
    return apply(SH.UNBIND, (input,), {"dim": d})


def narrow(input, dim, start, length) -> Tensor:
    """torch's narrow: its checks, then always a slice (SliceBackward0, even over the whole
    dimension)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        start = int(start.item())
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply1(
        SH.SLICE,
        input,
        {
            "dim": d,
            "start": start,
            "end": start + length,
            "step": 1,
            "self_sym_sizes": input._data.shape,
        },
    )


def select(input, dim, index) -> Tensor:
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at dimension {d}"
        )
    return apply1(
        SH.SELECT, input, {"dim": d, "index": index % n, "self_sym_sizes": input._data.shape}
    )


def gather(input, dim, index, *, sparse_grad=False) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.size == 0 and idx.ndim != input._data.ndim:  # torch allows any empty index
        return reshape(reshape(input, (-1,))[:0], idx.shape)
    if input._data.ndim == 0:
        return reshape(gather(reshape(input, (1,)), 0, Tensor._wrap(idx.reshape(-1))), idx.shape)
    return apply1(
        SH.TAKE_ALONG, input, {"dim": d, "index": idx, "self_sym_sizes": input._data.shape}
    )


def masked_fill(input, mask, value) -> Tensor:
    """``value`` where ``mask`` is True (MaskedFillBackward0; MaskedFillBackward1 for a 0-d
    tensor value, as torch's masked_fill.Tensor)."""
    mask = _t(mask)
    if isinstance(value, Tensor):
        from .api_index import masked_fill_tensor

        return masked_fill_tensor(input, mask, value)
    if mask._data.dtype.kind != "b":
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    return apply1(SH.MASKED_FILL, input, {"mask": mask._data, "value": value})


def index_select(input, dim, index) -> Tensor:
    """Rows (along ``dim``) picked by an integer index (IndexSelectBackward0)."""
    d = _wrap_dim(dim, input._data.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    _index_select_checks(input._data.shape, d, idx)
    if input._data.ndim == 0:  # torch: a 0-d tensor indexed by a one-element index
        input, idx = reshape(input, (1,)), idx.reshape(-1)
        return reshape(
            apply1(SH.INDEX_SELECT, input, {"dim": 0, "index": idx, "self_sym_sizes": (1,)}), ()
        )
    # (_index_select_checks refused every index out of range, in torch's words)
    return apply1(
        SH.INDEX_SELECT, input, {"dim": d, "index": idx, "self_sym_sizes": input._data.shape}
    )


def cumsum(input, dim, *, dtype=None) -> Tensor:
    """Cumulative sum along ``dim`` (CumsumBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.cumsum(torch.tensor([1., 2., 3.]), 0)
        tensor([1., 3., 6.])
    """
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "iub" and input._data.dtype != np.int64:
        input = input.to(_dtype.int64)
    return apply1(RD.CUMSUM, input, {"dim": _wrap_dim(dim, input._data.ndim)})


def diag(input, diagonal=0) -> Tensor:
    if input._data.ndim == 1:
        n = input._data.shape[0]
        from ..factories import zeros

        z = zeros(n, n, dtype=input.dtype)
        idx = np.arange(n)
        return apply(SH.INDEX_PUT, (z, input), {"key": (idx, idx), "shape": (n, n)})
    n = builtins.min(input._data.shape)
    idx = np.arange(n)
    return apply1(
        SH.INDEX, input, {"key": (idx, idx), "indices": None, "self_sym_sizes": input._data.shape}
    )


def broadcast_tensors(*tensors):
    """Expand tensors to their common broadcast shape."""
    ts = [_t(x) for x in tensors]
    try:
        shape = np.broadcast_shapes(*[x._data.shape for x in ts])
    except ValueError:
        _broadcast_error(ts[0]._data.shape, ts[1]._data.shape)
    return tuple(x if x._data.shape == shape else expand(x, shape) for x in ts)


def broadcast_shapes(*shapes):
    from ..tensor import Size

    return Size(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def erf(input, *, out=None) -> Tensor:
    """The error function (ErfBackward0), as ``torch.erf``."""
    if out is not None:
        return out_call("erf", erf, (input,), {}, out)
    from . import nn_ops

    return apply1(nn_ops.ERF, _float(input))
