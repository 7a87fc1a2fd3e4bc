"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _use_grad


class SGD(Optimizer):
    """``torch.optim.SGD``: ``p -= lr * g`` with optional momentum buffer, as torch computes it.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3, as torch 2.x).
        momentum: momentum factor.
        dampening: dampening of the momentum.
        weight_decay: L2 penalty added to the gradient.
        nesterov: Nesterov momentum (needs momentum > 0 and zero dampening).
        maximize: ascend instead of descend.

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.tensor([1.0], requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([0.8000], requires_grad=True)
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ) -> None:
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            for p, g in self._params_with_grad(group):
                if maximize:
                    g = -g
                if wd != 0:
                    g = g + wd * p._data
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = Tensor._wrap(
                            g.copy()
                        )  # g.copy(): stays on g's device
                    else:
                        b = buf._data
                        b *= momentum
                        b += (1 - dampening) * g
                    g = g + momentum * buf._data if nesterov else buf._data
                p._data -= lr * g
                p._bump_version()
        return loss
