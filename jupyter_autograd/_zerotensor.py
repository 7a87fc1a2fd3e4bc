"""torch's ZeroTensor: the zeros some backward formulas return without allocating them
(``at::_efficientzerotensor``: sgn's gradient for a real input), modelled as a read-only
NumPy array subclass, :class:`ZeroArray`.

It follows torch's ZeroTensor algebra where that shows: a product, quotient, negation or
conjugate with a ZeroTensor operand is one again (the gradient of ``(2 * x).sgn()`` reaching
``x`` through MulBackward0 is still a ZeroTensor), a sum with a normal tensor is that tensor,
views of one are ZeroTensors; any other operation computes on materialized zeros. Writing into
one raises torch's "ZeroTensors are immutable" (an in-place op, ``x.grad`` receiving a second
gradient, a copy into it); ``clone()`` materializes it.

Example:
    >>> import jupyter_autograd as torch
    >>> x = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> x.sgn().sum().backward()
    >>> x.grad
    tensor([0., 0.])
    >>> x.sum().backward()
    Traceback (most recent call last):
        ...
    RuntimeError: ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you want a mutable tensor.
"""

from __future__ import annotations

import numpy as np

ERR_IMMUTABLE = (
    "ZeroTensors are immutable. Please use the materialized zero tensor obtained "
    "using .clone() if you want a mutable tensor."
)
ERR_COPY = (
    "ZeroTensors are immutable. Please materialize the tensor using `.clone()`, if you "
    "want a mutable zero tensor."
)
ERR_NUMPY = " Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array."
ERR_TOLIST = "tolist() shouldn't be called on a tensor with unallocated storage"

# ufuncs whose result is a ZeroTensor when any operand is one (torch's ZeroTensor kernels)
_ABSORBING = frozenset((np.multiply, np.divide, np.conjugate))
_ADDITIVE = frozenset((np.add, np.subtract))


class ZeroArray(np.ndarray):
    """Zeros standing for a torch ZeroTensor (see the module docstring)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out is not None and any(isinstance(o, ZeroArray) for o in out):
            raise RuntimeError(ERR_IMMUTABLE)
        plain = [_plain(x) for x in inputs]
        result = getattr(ufunc, method)(*plain, **kwargs)
        if out is not None or method != "__call__":
            return result
        if not isinstance(result, np.ndarray):
            # a 0-d operation gives a NumPy scalar: a product with a ZeroTensor is one still
            # (0 * inf is 0 there, as torch's ZeroTensor mul)
            return (
                zeros_like(result)
                if isinstance(result, np.generic) and ufunc in _ABSORBING
                else result
            )
        zeros = [isinstance(x, ZeroArray) for x in inputs]
        if ufunc in _ABSORBING or (ufunc in _ADDITIVE and all(zeros)):
            return zeros_like(result)
        if ufunc in _ADDITIVE:  # 0 + b is b, 0 - b is -b, a +/- 0 is a: exactly
            a, b = plain
            if zeros[0]:
                return np.broadcast_to(b if ufunc is np.add else -b, result.shape).astype(
                    result.dtype
                )
            return np.broadcast_to(a, result.shape).astype(result.dtype)
        return result

    def __array_function__(self, func, types, args, kwargs):
        if func is np.copyto and isinstance(args[0] if args else kwargs.get("dst"), ZeroArray):
            raise RuntimeError(ERR_COPY)
        if func in _LIKE:
            # a new array shaped like a ZeroTensor is a normal one (NumPy would make the
            # subclass and then fill it: a rule's zeros_like(g) of a ZeroTensor gradient,
            # angle's after sgn's, raised; fuzz seeds 414441, 441826)
            kwargs = {**kwargs, "subok": False}
        return super().__array_function__(func, types, args, kwargs)

    def __setitem__(self, key, value):
        raise RuntimeError(ERR_IMMUTABLE)

    def fill(self, value):
        raise RuntimeError(ERR_IMMUTABLE)

    def astype(self, dtype, *args, **kwargs):
        """A materialized conversion (torch's ``to`` of a ZeroTensor is a normal tensor)."""
        return self.view(np.ndarray).astype(dtype, *args, **kwargs)

    def copy(self, order="C"):
        """A materialized copy (torch's clone of a ZeroTensor is a normal tensor)."""
        return np.array(self, order=order, subok=False)


_LIKE = frozenset({np.zeros_like, np.ones_like, np.empty_like, np.full_like})


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, ZeroArray) else x


def zeros_like(a) -> ZeroArray:
    """A ZeroTensor of ``a``'s shape and dtype."""
    z = np.zeros(np.shape(a), dtype=np.result_type(a)).view(ZeroArray)
    z.flags.writeable = False
    return z


def is_zero(a) -> bool:
    return a.__class__ is ZeroArray
