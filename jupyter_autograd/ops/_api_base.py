"""Helpers the public op functions (``ops/api*.py``) share: operands as tensors, dims,
torch's Tensor-only argument checks."""

from __future__ import annotations

from .. import _dtype
from .._size import _wrap_dim
from ..grad_mode import STATE
from ..tensor import Tensor
from .dispatch import as_operand


def _xp(t):
    """The array namespace of a tensor's device (NumPy, CuPy)."""
    from ..autograd.engine import xp_of

    return xp_of(t._data)


_SCALARS = (int, float, bool, complex)


def _t(x, like=None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if like is not None:
        return as_operand(x, like) if not isinstance(x, _SCALARS) else _scalar_tensor(x, like)
    from ..factories import tensor

    return tensor(x)


def _scalar_tensor(v, like: Tensor) -> Tensor:
    from ..factories import tensor

    return tensor(v, device=like.device)


def _dims(dim, ndim: int):
    """``dim`` as a sorted tuple of wrapped dims (None: all). A 0-d tensor accepts dim 0 and
    -1, as torch does, and has nothing to reduce over: ()."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
    else:
        dims = (_wrap_dim(dim, ndim),)
    return dims if ndim else ()


def invalid_combination(name, args, kwargs, overloads, method=False) -> TypeError:
    """torch's arg-parser error for a call that matches none of ``overloads`` (each a tuple of
    ``(type, name)`` positional parameters, type ``"Tensor"`` or ``"Number"``; the function
    forms add ``*, Tensor out = None``). A method call with as many arguments as an overload
    also says which of them did not match it, as torch's.

    Example:
        >>> str(invalid_combination("lerp", (1.0,), {}, ((("Tensor", "end"),),), method=True))
        "lerp() received an invalid combination of arguments - got (float), but expected one of:\\n * (Tensor end)\\n      didn't match because some of the arguments have invalid types: (!float!)\\n"
    """

    def tname(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    def fits(v, kind):
        # (torch's invalid_arguments marks any Python number against a Number parameter too)
        return kind == "Tensor" and isinstance(v, Tensor)

    got = ", ".join([tname(a) for a in args] + [f"{k}={tname(v)}" for k, v in kwargs.items()])
    lines = []
    for params in overloads:
        sig = ", ".join(f"{kind} {n}" for kind, n in params)
        lines.append(f" * ({sig})" if method else f" * ({sig}, *, Tensor out = None)")
        if method and not kwargs and len(args) == len(params):
            marked = ", ".join(
                tname(a) if fits(a, kind) else f"!{tname(a)}!" for a, (kind, _) in zip(args, params)
            )
            lines.append(
                f"      didn't match because some of the arguments have invalid types: ({marked})"
            )
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but "
        "expected one of:\n" + "".join(line + "\n" for line in lines)
    )


def check_tensor_args(name, names, args, first=1) -> None:
    for i, (n, v) in enumerate(zip(names, args)):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{name}(): argument '{n}' (position {i + first}) must be Tensor, not {type(v).__name__}"
            )


def _float(x: Tensor) -> Tensor:
    """Integer inputs of float functions (exp, sqrt...) are promoted to the default dtype."""
    if x._data.dtype.kind in "iub":
        return x.to(_dtype.get_default_dtype())
    return x


def _out_dtype(out):
    """sum/prod into ``out`` accumulate in out's dtype, as torch's (a float input summed into a
    Long out is truncated first)."""
    return out.dtype if isinstance(out, Tensor) else None


def _cat_out_rule(r, o, inputs):
    from .out import can_cast

    if can_cast(r.dtype, o.dtype):
        return None
    return TypeError(
        f"torch.cat(): input types can't be cast to the desired output type "
        f"{_dtype.from_numpy_dtype(o.dtype)._legacy[:-6]}"
    )


def _mv_out_rule(r, o, inputs):
    if r.dtype == o.dtype:
        return None
    from .out import _dtype_error

    if r.shape != o.shape:
        return _dtype_error("expected", r, o, inputs)
    names = [
        _dtype.from_numpy_dtype(d)._legacy[:-6]
        for d in (o.dtype, inputs[0]._data.dtype, inputs[1]._data.dtype)
    ]
    return RuntimeError(
        f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and {names[2]}"
    )


def _dot_out_rule(r, o, inputs):
    if r.dtype == o.dtype:
        return None
    return RuntimeError(
        f"result dtype {_dtype.from_numpy_dtype(o.dtype)._legacy[:-6]} does not match "
        f"input dtype {_dtype.from_numpy_dtype(r.dtype)._legacy[:-6]}"
    )


def _clamp_out_rule(lo, hi):
    """clamp with number bounds wants the result's dtype exactly; with tensor bounds it casts."""
    return "cast" if isinstance(lo, Tensor) or isinstance(hi, Tensor) else "found"


def _promote_all(ts, among=None, inside=False):
    """``ts`` in the result type of ``among`` (default: ``ts``); ``inside``: the casts are not
    recorded (torch promotes inside the op: its node has edges to the original tensors, which
    the caller passes to ``apply(record_inputs=...)``). ``ts`` itself when no cast is needed."""
    among = ts if among is None else among
    dts = {x._data.dtype for x in among}
    if len(dts) == 1:
        return ts
    rt = _dtype.result_type([(1, x._data.dtype) for x in among])
    dt = _dtype.from_numpy_dtype(rt)
    with _casts_inside(inside):
        return [x if x._data.dtype == rt else x.to(dt) for x in ts]


class _casts_inside:
    """Grad mode off for casts that torch does inside the op (nothing recorded), when ``on``."""

    __slots__ = ("on", "prev")

    def __init__(self, on) -> None:
        self.on = on

    def __enter__(self) -> None:
        if self.on:
            self.prev = STATE.grad_enabled
            STATE.grad_enabled = False

    def __exit__(self, *exc) -> None:
        if self.on:
            STATE.grad_enabled = self.prev


def _index_select_checks(shape, d, idx) -> None:
    """torch's CPU checks of an index_select's index (NumPy would count a negative index from
    the end): a vector of int32/int64; an empty axis of a tensor of 2 or more dims refuses any
    index; along dim 1 of one, or any dim of an empty one, torch's kernels name the first index
    out of bounds in a RuntimeError; elsewhere an IndexError."""
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not shape and idx.size != 1:  # a 0-d tensor takes a one-element index only
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    if idx.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if not idx.size:
        return
    n = shape[d] if shape else 1
    bad = (idx < 0) | (idx >= n)
    if len(shape) > 1 and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if not bad.any():
        return
    if len(shape) > 1 and (d == 1 or 0 in shape):
        first = int(idx.reshape(-1)[bad.reshape(-1).argmax()])
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={first} axis_dim={n}")
    raise IndexError("index out of range in self")
