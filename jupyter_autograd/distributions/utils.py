"""``torch.distributions.utils``: broadcasting parameters, probabilities to logits and back,
lazily computed properties."""

from __future__ import annotations

import numbers

from .. import _dtype
from ..factories import empty, tensor
from ..grad_mode import enable_grad
from ..ops.api_layout import broadcast_tensors
from ..tensor import Tensor


def broadcast_all(*values):
    """The values (numbers become tensors of the first tensor's dtype) broadcast together."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        options = {"dtype": _dtype.get_default_dtype()}
        for value in values:
            if isinstance(value, Tensor):
                options = {"dtype": value.dtype, "device": value.device}
                break
        values = [v if isinstance(v, Tensor) else tensor(v, **options) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return empty(shape, dtype=dtype, device=device).normal_()


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(dim=-1)


def clamp_probs(probs):
    eps = _dtype.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """Computed (with grad enabled) on first access, then stored on the instance."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
