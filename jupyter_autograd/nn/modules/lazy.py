"""Lazy layers: ``nn.LazyLinear(out_features)`` learns ``in_features`` from its first input.

Until then its parameters are :class:`UninitializedParameter` placeholders; the first call
materializes them with the input's last dimension, initializes them as ``Linear`` does (the
same random draws) and turns the module into a ``Linear``, as torch's ``cls_to_become``.

Example:
    >>> import jupyter_autograd as torch
    >>> m = torch.nn.LazyLinear(2)
    >>> m
    LazyLinear(in_features=0, out_features=2, bias=True)
    >>> m(torch.ones(4, 3)).shape
    torch.Size([4, 2])
    >>> m
    Linear(in_features=3, out_features=2, bias=True)
"""

from __future__ import annotations

from ... import factories
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["LazyLinear", "UninitializedParameter"]


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet; ``materialize(shape)`` makes it a Parameter."""

    cls_to_become = Parameter

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the parameter its shape (uninitialized values: the module initializes them)."""
        new = factories.empty(tuple(shape), device=device, dtype=dtype)
        self._data = new._data
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__


class LazyLinear(Linear):
    """``Linear`` whose ``in_features`` is inferred from the first input (``input.shape[-1]``)."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self._factory = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def initialize_parameters(self, input) -> None:
        """Materialize the parameters for ``input`` and initialize them as ``Linear`` does."""
        if not self.has_uninitialized_params():
            return
        self.in_features = int(input.shape[-1])
        self.weight.materialize((self.out_features, self.in_features), **self._factory)
        if self.bias is not None:
            self.bias.materialize((self.out_features,), **self._factory)
        self.reset_parameters()

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
            del self._factory
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)
