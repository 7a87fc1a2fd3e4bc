"""Adam and AdamW (decoupled weight decay), in torch's single-tensor arithmetic."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _step_tensor, _use_grad, _zeros_state


class Adam(Optimizer):
    """``torch.optim.Adam`` (Kingma & Ba, 2014), with amsgrad, weight_decay and maximize.

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.tensor([1.0], requires_grad=True)
        >>> opt = torch.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([0.9000], requires_grad=True)
    """

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay or self._decoupled)
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        """One Adam update; returns the closure's loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            amsgrad, maximize = group["amsgrad"], group["maximize"]
            decoupled = group.get("decoupled_weight_decay", self._decoupled)
            for p, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_state(p)
                    state["exp_avg_sq"] = _zeros_state(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_state(p)
                if maximize:
                    g = -g
                x = p._data
                state["step"]._data += 1
                step = float(state["step"]._data)
                if wd != 0:
                    if decoupled:
                        x *= 1 - lr * wd
                    else:
                        g = g + wd * x
                m = state["exp_avg"]._data
                v = state["exp_avg_sq"]._data
                m += (1 - beta1) * (g - m)  # lerp_(grad, 1 - beta1)
                v *= beta2
                v += (1 - beta2) * g * g
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bc2_sqrt = bias_correction2**0.5
                if amsgrad:
                    vm = state["max_exp_avg_sq"]._data
                    np.maximum(vm, v, out=vm)
                    denom = np.sqrt(vm) / bc2_sqrt
                else:
                    denom = np.sqrt(v) / bc2_sqrt
                denom += eps
                x += (-step_size) * m / denom
                p._bump_version()
        return loss


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with decoupled weight decay ``p *= 1 - lr * weight_decay``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.optim.AdamW([torch.ones(1, requires_grad=True)]).defaults["weight_decay"]
        0.01
    """

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
