"""``torch.nn.utils.convert_parameters``: parameters to one flat vector and back."""

from __future__ import annotations

from ...ops.api_layout import cat
from ...tensor import Tensor


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (a differentiable copy)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters) -> None:
    """Set each parameter's ``.data`` to its slice of ``vec``, in order."""
    if not isinstance(vec, Tensor):
        cls = type(vec)
        module = cls.__module__ if cls.__module__ not in ("", "builtins") else ""
        name = f"{module}.{cls.__qualname__}" if module else cls.__qualname__
        raise TypeError(f"expected torch.Tensor, but got: {name}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param
