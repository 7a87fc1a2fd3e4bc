"""``nn.Parameter``: a leaf Tensor that a Module registers as one of its parameters."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..tensor import Tensor, _new_vc


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning one to a Module attribute registers it.

    Shares memory with ``data``; ``requires_grad`` defaults to True; prints as torch does.

    Args:
        data: the initial values (a Tensor; an empty float tensor when omitted).
        requires_grad: whether the parameter requires gradient.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Parameter(torch.ones(2))
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
    """

    _is_param = True

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            arr = np.empty((0,), _dtype.get_default_dtype().np)
        elif isinstance(data, Tensor):
            arr = data._data
        else:
            arr = np.asarray(data)
        t = Tensor.__new__(cls)
        t._data = arr
        t._requires_grad = False
        if requires_grad:
            if arr.dtype.kind not in "fc":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            t._requires_grad = True
        if isinstance(data, Tensor):
            if data._vc is None:
                data._vc = _new_vc()
            t._vc = data._vc
        return t

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor.__init__ is the legacy constructor)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        res = Parameter(Tensor._wrap(self._data.copy()), self._requires_grad)
        if self._grad is not None:
            res._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = res
        return res

    def __reduce_ex__(self, proto):
        return (Parameter, (Tensor._wrap(self._data), self._requires_grad))


class Buffer(Tensor):
    """Marker type accepted by ``register_buffer`` and Module attribute assignment (torch 2.5+)."""

    def __new__(cls, data, *, persistent: bool = True):
        t = Tensor.__new__(cls)
        t._data = data._data
        t._requires_grad = data._requires_grad
        t.persistent = persistent
        return t

    def __init__(self, data, *, persistent: bool = True) -> None:
        pass
