"""RMSprop and Adagrad, in torch's single-tensor arithmetic."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _real_views, _step_tensor, _use_grad, _zeros_state


class RMSprop(Optimizer):
    """``torch.optim.RMSprop`` with momentum, centered and weight decay options.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.optim.RMSprop([torch.ones(1, requires_grad=True)]).defaults["alpha"]
        0.99
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        """One RMSprop update; returns the closure's loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
            for p, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _zeros_state(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_state(p)
                    if centered:
                        state["grad_avg"] = _zeros_state(p)
                if maximize:
                    g = -g
                state["step"]._data += 1
                x = p._data
                if wd != 0:
                    g = g + wd * x
                sq = state["square_avg"]._data
                ga = state["grad_avg"]._data if centered else None
                buf = state["momentum_buffer"]._data if momentum > 0 else None
                x, g, sq, ga, buf = _real_views(x, g, sq, ga, buf)
                sq *= alpha
                sq += (1 - alpha) * g * g
                if centered:
                    ga += (1 - alpha) * (g - ga)
                    avg = np.sqrt(sq + (-1) * ga * ga)
                else:
                    avg = np.sqrt(sq)
                avg += eps
                if momentum > 0:
                    buf *= momentum
                    buf += g / avg
                    x += (-lr) * buf
                else:
                    x += (-lr) * g / avg
                p._bump_version()
        return loss


class Adagrad(Optimizer):
    """``torch.optim.Adagrad`` with lr decay, weight decay and an initial accumulator value.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.optim.Adagrad([torch.ones(1, requires_grad=True)]).defaults["eps"]
        1e-10
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        # torch creates the state eagerly
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _step_tensor()
                v = group["initial_accumulator_value"]
                if p._data.dtype.kind == "c":  # both parts of view_as_real start at it
                    v = complex(v, v)
                state["sum"] = Tensor._wrap(np.full_like(p._data, v))

    @_use_grad
    def step(self, closure=None):
        """One Adagrad update; returns the closure's loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, lr_decay, wd, eps = (
                group["lr"],
                group["lr_decay"],
                group["weight_decay"],
                group["eps"],
            )
            for p, g in self._params_with_grad(group):
                state = self.state[p]
                state["step"]._data += 1
                step = float(state["step"]._data)
                if group["maximize"]:
                    g = -g
                x = p._data
                if wd != 0:
                    g = g + wd * x
                clr = lr / (1 + (step - 1) * lr_decay)
                s = state["sum"]._data
                x, g, s = _real_views(x, g, s)
                s += g * g
                std = np.sqrt(s)
                std += eps
                x += (-clr) * g / std
                p._bump_version()
        return loss
