"""``torch.nn.utils.clip_grad``: gradient clipping by total norm or by value, computed as
torch's (per-tensor norms grouped by device and dtype, stacked, then their norm)."""

from __future__ import annotations

import functools
import types
import warnings

from ...factories import tensor
from ...grad_mode import no_grad
from ...linalg import vector_norm
from ...ops.api_arith import clamp
from ...ops.api_layout import stack
from ...tensor import Tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return wrapper


def _grouped(tensors) -> list:
    groups: dict = {}
    for t in tensors:
        groups.setdefault((str(t.device), t.dtype), []).append(t)
    return list(groups.values())


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the tensors' norms: the norm of all their elements as one vector."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    first_device = tensors[0].device
    norms = [vector_norm(g, norm_type) for group in _grouped(tensors) for g in group]
    total_norm = vector_norm(stack([norm.to(first_device) for norm in norms]), norm_type)
    if error_if_nonfinite and total_norm.isnan().logical_or(total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    """Scale the gradients in place by ``max_norm / (total_norm + 1e-6)``, at most 1."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = clamp(clip_coef, max=1.0)
    for group in _grouped(grads):
        for g in group:
            g.mul_(clip_coef_clamped.to(g.device))


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the parameters' gradients in place to a total norm of at most ``max_norm``;
    returns the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=3,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of :func:`clip_grad_norm_`."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp every gradient in place to ``[-clip_value, clip_value]``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for group in _grouped(grads):
        for grad in group:
            grad.clamp_(min=-clip_value, max=clip_value)
