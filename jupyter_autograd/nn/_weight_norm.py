"""``torch._weight_norm`` and ``torch.norm_except_dim``: weight normalization ``v * (g /
||v||)``, the norm taken over every dimension but ``dim``, recorded as torch records them."""

from __future__ import annotations

from ..ops import api_layout as _layout

_NODES: dict = {}


def _interface_node(base):
    # torch's CPU _weight_norm runs _weight_norm_interface for dim 0 or the last dim: one
    # node, WeightNormInterfaceBackward0 (here the product's node renamed; its inputs are the
    # quotient's and v's nodes rather than g's and v's)
    cls = _NODES.get(base)
    if cls is None:
        cls = _NODES[base] = type("WeightNormInterfaceBackward0", (base,), {})
        cls.__module__ = "builtins"
    return cls


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (keeping that one; all of
    them for ``dim=-1``)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [v.size(0)] + [1] * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * (v.dim() - 1) + [v.size(v.dim() - 1)]
        return v.contiguous().view(-1, v.size(v.dim() - 1)).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))``."""
    if v.device != g.device:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{v.device} and {g.device}!"
        )
    fused = dim == 0 or dim == v.dim() - 1
    w = v.contiguous() * (g.contiguous() / norm_except_dim(v, 2, dim))
    if fused and w.grad_fn is not None:
        _layout._rename_node(w.grad_fn, _interface_node(type(w.grad_fn)))
    return w
