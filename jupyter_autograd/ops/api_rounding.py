"""The public rounding, remainder, rounded-division and bitwise functions (``remainder``, ``fmod``,
``floor_divide``, ``div(rounding_mode=)``, ``trunc``/``fix``, ``frac``, ``round(decimals=)``,
``bitwise_*``): torch's argument checks, type promotion and ``out=``, then a row of
:mod:`.rounding` (the bitwise functions are not differentiable and run NumPy directly).
"""

from __future__ import annotations

import numpy as np

from .out import out_call
from .rounding import (
    DIV_MODE,
    FLOOR_DIVIDE,
    FLOOR_DIVIDE_,
    FMOD,
    FMOD_SCALAR,
    FRAC,
    REMAINDER,
    REMAINDER_SCALAR,
    REMAINDER_SCALAR_TENSOR,
    ROUND_DECIMALS,
    TRUNC,
)


# ---------------------------------------------------------------- the public functions
def _kernel_error(name: str, t) -> NotImplementedError:
    from .api import scalar_type

    dev = "cpu" if t._data.__class__ is np.ndarray else "cuda"
    return NotImplementedError(f"\"{name}_{dev}\" not implemented for '{scalar_type(t)}'")


def _orig(orig, promoted):
    """The inputs a promoted op records: the originals where a cast was made (torch promotes
    inside the kernel: no ToCopyBackward0), None where none was."""
    return None if all(o is q for o, q in zip(orig, promoted)) else orig


def _promoted(a, b):
    """Both operands in torch's result type (a Tensor first; ``b`` a Tensor or a number)."""
    from ..tensor import Tensor
    from .dispatch import as_operand, promote_data

    if not isinstance(b, Tensor) and not isinstance(b, (int, float, bool)):
        b = as_operand(b, a)
    if isinstance(b, Tensor) and a._data.shape != b._data.shape:
        # torch's kernels broadcast before they dispatch on the dtype: its shape error first
        try:
            np.broadcast_shapes(a._data.shape, b._data.shape)
        except ValueError:
            from .api_compare import _broadcast_error

            _broadcast_error(a._data.shape, b._data.shape)
    return promote_data(a, b)


def _binary(name, a, b, scalar_row, tensor_row, kernel):
    """remainder / fmod: a number divisor keeps the one-input row (torch's Scalar overload)."""
    from ..tensor import Tensor
    from .dispatch import apply, apply1

    if not isinstance(a, Tensor):
        return _reversed(name, a, b)
    orig = (a, b)
    a, b = _promoted(a, b)
    if a._data.dtype.kind == "b":
        raise _kernel_error(kernel, a)
    if isinstance(b, Tensor):
        return apply(tensor_row, (a, b), None, _orig(orig, (a, b)))
    return apply1(scalar_row, a, {"other": b})


def _reversed(name, a, b):
    """``5.0 % x``: torch's remainder(Scalar, Tensor), recorded but not differentiable."""
    from .dispatch import apply

    orig = (a, b)
    b, a = _promoted(b, a)
    if name != "remainder":
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}"
        )
    return apply(REMAINDER_SCALAR_TENSOR, (a, b), None, _orig(orig, (a, b)))


def remainder(input, other, *, out=None):
    """Python's modulus, with the sign of the divisor (RemainderBackward0 for a number
    divisor, RemainderBackward1 for a tensor); integer division by zero raises.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([-2.5, 1.5], requires_grad=True)
        >>> x % 1.0
        tensor([0.5000, 0.5000], grad_fn=<RemainderBackward0>)
    """
    if out is not None:
        return out_call("remainder", remainder, (input, other), {}, out)
    return _binary("remainder", input, other, REMAINDER_SCALAR, REMAINDER, "remainder")


def fmod(input, other, *, out=None):
    """C's fmod, with the sign of the dividend (FmodBackward0 / FmodBackward1)."""
    if out is not None:
        return out_call("fmod", fmod, (input, other), {}, out)
    return _binary("fmod", input, other, FMOD_SCALAR, FMOD, "fmod")


def floor_divide_inplace(input, other):
    """``x.floor_divide_(y)`` / ``x //= y``: torch names the in-place op in its error."""
    return floor_divide(input, other, _row=FLOOR_DIVIDE_)


def floor_divide(input, other, *, out=None, _row=None):
    """``input // other``, rounded toward minus infinity. Torch records a ``NotImplemented``
    node: backward through it raises ``derivative for aten::floor_divide is not implemented``."""
    from ..tensor import Tensor
    from .dispatch import apply

    if out is not None:
        return out_call("aten::floor_divide", floor_divide, (input, other), {}, out)
    if isinstance(input, Tensor):
        a, b = _promoted(input, other)
    else:
        b, a = _promoted(other, input)
    t = a if isinstance(a, Tensor) else b  # promoted: its dtype is the result's
    if t._data.dtype.kind == "b":
        raise _kernel_error("div_floor", t)
    return apply(_row or FLOOR_DIVIDE, (a, b), None, _orig((input, other), (a, b)))


def div_rounded(input, other, rounding_mode):
    """``div(..., rounding_mode='floor' | 'trunc')`` (DivBackward2, zero gradient)."""
    from ..tensor import Tensor
    from .dispatch import apply

    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    if not isinstance(input, Tensor):
        b, a = _promoted(other, input)
    else:
        a, b = _promoted(input, other)
    t = a if isinstance(a, Tensor) else b
    if t._data.dtype.kind == "b":
        raise _kernel_error(f"div_{rounding_mode}", t)
    return apply(DIV_MODE, (a, b), {"rounding_mode": rounding_mode}, _orig((input, other), (a, b)))


def _unary_rounding(row, name, input, int_ok=True):
    from .dispatch import apply1

    kind = input._data.dtype.kind
    if kind == "b":
        raise _kernel_error(name, input)
    if kind in "iu":
        if not int_ok:
            raise _kernel_error(name, input)
        return input.clone()
    return apply1(row, input)


def trunc(input, *, out=None):
    """Round toward zero (TruncBackward0: zero gradient).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([1.5, -2.5], requires_grad=True).trunc()
        tensor([ 1., -2.], grad_fn=<TruncBackward0>)
    """
    if out is not None:
        return out_call("trunc", trunc, (input,), {}, out, dtype_rule="found")
    return _unary_rounding(TRUNC, "trunc_vml", input)


fix = trunc


def frac(input, *, out=None):
    """``input - trunc(input)`` (FracBackward0: the gradient passes unchanged)."""
    if out is not None:
        return out_call("frac", frac, (input,), {}, out, dtype_rule="found")
    return _unary_rounding(FRAC, "frac", input, int_ok=False)


def round_decimals(input, decimals):
    """``round(x, decimals=d)`` (RoundBackward1)."""
    from .dispatch import apply1

    if input._data.dtype.kind not in "fc":
        raise _kernel_error("round", input)
    return apply1(ROUND_DECIMALS, input, {"decimals": int(decimals)})


# ---------------------------------------------------------------- bitwise (integers and bools)
def _bitwise(fn, name, kinds="iub"):
    def op(input, other, *, out=None):
        from ..tensor import Tensor

        if out is not None:
            if (
                not isinstance(other, Tensor)
                and out._data.size
                and isinstance(input, Tensor)
                and out._data.shape != input._data.shape
            ):
                _warn_resize_twice(out, input)
            return out_call(f"aten::{name}", op, (input, other), {}, out)
        if isinstance(input, Tensor):
            a, b = _promoted(input, other)
        else:
            b, a = _promoted(other, input)
        t = a if isinstance(a, Tensor) else b
        if t._data.dtype.kind not in kinds:
            raise _kernel_error(name, t)
        from .api import _operands

        ad, bd = _operands(a, b)
        r = fn(ad, bd)
        return Tensor._wrap(
            r
            if hasattr(r, "shape") and r.__class__ is not np.bool_
            else np.asarray(r, t._data.dtype)
        )

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of integer or bool tensors (no gradient), as torch."
    return op


def _warn_resize_twice(out, input):
    """torch's Scalar overloads of the bitwise ops resize ``out`` through two kernels: its
    resize warning shows twice. The first one here, the second from out_call."""
    import warnings

    from .out import _RESIZED

    warnings.warn(
        _RESIZED.format(old=list(out._data.shape), new=list(input._data.shape)),
        UserWarning,
        stacklevel=4,
    )


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise(np.left_shift, "lshift", "iu")  # the shifts have no bool loop
bitwise_right_shift = _bitwise(np.right_shift, "rshift", "iu")


def bitwise_not(input, *, out=None):
    """``~input`` for integer and bool tensors."""
    from ..tensor import Tensor

    if out is not None:
        return out_call("aten::bitwise_not", bitwise_not, (input,), {}, out, dtype_rule="found")
    if input._data.dtype.kind not in "iub":
        raise _kernel_error("bitwise_not", input)
    return Tensor._wrap(np.invert(input._data))
