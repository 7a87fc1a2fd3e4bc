"""``out=``: the one mechanism every function that takes it goes through, with torch's semantics.

torch writes the result into ``out`` and returns ``out`` itself. Before computing it refuses,
when grad mode is on and ``out`` or an input requires grad (``add(): functions with out=...
arguments don't support automatic differentiation, but one of the arguments requires grad.``);
after, it checks that the result's dtype can be cast to ``out``'s (``result type Float can't be
cast to the desired output type Long``), resizes an ``out`` of another shape (with a
deprecation UserWarning unless ``out`` was empty) and refuses an ``out`` that partly overlaps
an input or whose elements overlap each other.

A function with ``out=`` starts with ``if out is not None: return out_call(...)``: nothing is
added to the path without ``out``.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from ..autograd.engine import device_mismatch, same_device
from ..grad_mode import STATE
from ..tensor import Tensor

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)
_NO_AUTOGRAD = (
    "{name}(): functions with out=... arguments don't support automatic "
    "differentiation, but one of the arguments requires grad."
)
_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to "
    "tensor refer to a single memory location. Please clone() the tensor before "
    "performing the operation."
)
_INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor "
    "refers to a single memory location. Please clone() the tensor before "
    "performing the operation."
)


def _scalar_name(dt: np.dtype) -> str:
    from .. import _dtype

    return _dtype.from_numpy_dtype(dt)._legacy[: -len("Tensor")]


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """torch's canCast: no complex to real, no floating to integral, nothing but bool to bool."""
    if src.kind == "c" and dst.kind != "c":
        return False
    if src.kind in "fc" and dst.kind in "iub":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _inputs(values):
    """The tensors among a call's arguments (lists of tensors too, for cat/stack)."""
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, Tensor))


def check_out(name: str, out, inputs=(), differentiable: bool = True) -> None:
    """torch's checks before computing into ``out``: a Tensor, and no autograd through it."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if (
        differentiable
        and STATE.grad_enabled
        and (out._requires_grad or any(t._requires_grad for t in _inputs(inputs)))
    ):
        raise RuntimeError(_NO_AUTOGRAD.format(name=name))


def _dtype_error(rule, r, o, inputs):
    """The error torch raises when ``out``'s dtype does not suit the result, or None.

    ``rule``: "cast" (TensorIterator ops: the result must be castable, torch's canCast),
    "found" (structured kernels that want the result's dtype exactly), "expected" (the
    matrix products), "any" (no check: reductions, comparisons), or ``rule(r, o, inputs)``."""
    if rule == "any" or r.dtype == o.dtype and rule in ("found", "expected"):
        return None
    if rule == "cast":
        if can_cast(r.dtype, o.dtype):
            return None
        return RuntimeError(
            f"result type {_scalar_name(r.dtype)} can't be cast to the desired "
            f"output type {_scalar_name(o.dtype)}"
        )
    if rule == "found":
        return RuntimeError(
            f"Found dtype {_scalar_name(o.dtype)} but expected {_scalar_name(r.dtype)}"
        )
    if rule == "expected":
        from .._dtype import cpp_name

        return RuntimeError(
            f"Expected out tensor to have dtype {cpp_name(r.dtype)}, "
            f"but got {cpp_name(o.dtype)} instead"
        )
    return rule(r, o, inputs)


def out_call(
    name: str,
    fn,
    args: tuple,
    kwargs: dict,
    out,
    differentiable: bool = True,
    dtype_rule="cast",
    resize_first: bool = False,
):
    """``fn(*args, **kwargs)`` computed as usual, then written into ``out`` (returned). Called
    by the public function itself: the resize warning names that function's caller."""
    check_out(name, out, args, differentiable)
    result = fn(*args, **kwargs)
    return write(
        out,
        result,
        tuple(_inputs(args)),
        stacklevel=4,
        dtype_rule=dtype_rule,
        resize_first=resize_first,
    )


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """The stacklevel, for a warning issued in :func:`write`, of the first frame outside the
    package (the user's line, however many wrappers such as NumPy keyword names lie between)."""
    f, level = sys._getframe(2), 2
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f, level = f.f_back, level + 1
    return level


_WARNED: set = set()


def warn_once(message: str) -> None:
    """A UserWarning at the user's line, once per process: torch's TORCH_WARN_ONCE (its
    deprecation notices) warns the first time only, whatever Python's warning filters say."""
    if message in _WARNED:
        return
    _WARNED.add(message)
    warnings.warn(message, UserWarning, stacklevel=_user_stacklevel())


def write(
    out: Tensor,
    result: Tensor,
    inputs=(),
    stacklevel: int = 2,
    dtype_rule="cast",
    warn_resize: bool = True,
    resize_first: bool = False,
) -> Tensor:
    """Copy ``result`` into ``out`` as torch does: dtype check (before the resize, or after it
    for the kernels that resize first), resize (warned at ``stacklevel``), overlap checks,
    version bump."""
    r = result._data
    o = out._data
    if not same_device(o, r):
        raise device_mismatch([result, out])
    err = None if resize_first else _dtype_error(dtype_rule, r, o, inputs)
    if err is not None:
        raise err
    if o.shape != r.shape:
        if o.size and warn_resize:
            warnings.warn(
                _RESIZED.format(old=list(o.shape), new=list(r.shape)),
                UserWarning,
                stacklevel=max(stacklevel, _user_stacklevel()),
            )
        out._data = o = _empty_like(o, r.shape)
    elif o.size > 1 and 0 in o.strides:
        raise RuntimeError(_INTERNAL_OVERLAP)
    if resize_first:
        err = _dtype_error(dtype_rule, r, o, inputs)
        if err is not None:
            raise err
    for t in inputs:
        d = t._data
        if (
            d is not o
            and d.__class__ is np.ndarray
            and o.__class__ is np.ndarray
            and np.may_share_memory(d, o)
        ):
            same = (
                d.shape == o.shape
                and d.strides == o.strides
                and d.__array_interface__["data"][0] == o.__array_interface__["data"][0]
            )
            if not same and np.shares_memory(d, o):
                raise RuntimeError(_PARTIAL_OVERLAP)
    o[...] = r
    out._bump_version()
    return out


def _empty_like(a, shape):
    from ..autograd.engine import xp_of

    return xp_of(a).empty(shape, a.dtype)


def fill_factory(name: str, out: Tensor, shape, dtype, value_fn, warn_resize: bool = False):
    """``zeros(..., out=)`` and the other factories: torch resizes ``out`` without a warning,
    takes its dtype (refusing a different ``dtype=``) and fills it with ``value_fn(shape,
    dtype)``."""
    from .. import _dtype

    check_out(f"aten::{name}", out)
    o = out._data
    if dtype is not None and _dtype.to_numpy_dtype(dtype) != o.dtype:
        raise RuntimeError(
            f"dtype {_scalar_name(_dtype.to_numpy_dtype(dtype))} does not match dtype of out "
            f"parameter ({_scalar_name(o.dtype)})"
        )
    if o.shape != tuple(shape):
        out._data = o = _empty_like(o, tuple(shape))
    o[...] = value_fn(tuple(shape), o.dtype)
    out._bump_version()
    return out
