"""Adamax, NAdam, RAdam, Adadelta, Rprop and ASGD: torch's single-tensor updates written with
this library's tensor ops, op for op (lerp_, addcmul_, addcdiv_, ... in torch's order), so the
numbers follow torch's."""

from __future__ import annotations

import numpy as np

from ..ops.api import maximum
from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _step_tensor, _use_grad, _zeros_state


def _scalar(v: float) -> Tensor:
    return Tensor._wrap(np.array(v, np.float32))


def _check(lr, eps=0.0, betas=(0.0, 0.0), weight_decay=0.0) -> None:
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _real(*ts):
    return [t if t is None or not t.is_complex() else t.view_as_real() for t in ts]


class _Single(Optimizer):
    """The loop every optimizer here shares: each parameter with a gradient, its state made on
    first use, then the subclass's update."""

    _name = ""

    @_use_grad
    def step(self, closure=None):
        """One update; returns the closure's loss."""
        loss = self._closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError(f"{self._name} does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(state, p, group)
                grad = p.grad if not group["maximize"] else -p.grad
                self._update(p, grad, state, group)
        return loss


class Adamax(_Single):
    """Adam with the infinity norm: ``exp_inf = max(beta2 * exp_inf, |g| + eps)``."""

    _name = "Adamax"

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["step"] = _step_tensor()
        state["exp_avg"] = _zeros_state(p)
        state["exp_inf"] = _zeros_state(p)

    def _update(self, param, grad, state, group) -> None:
        beta1, beta2 = group["betas"]
        step_t = state["step"]
        step_t += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        param, grad, exp_avg, exp_inf = _real(param, grad, state["exp_avg"], state["exp_inf"])
        exp_avg.lerp_(grad, 1 - beta1)
        maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
        bias_correction = 1 - beta1 ** step_t.item()
        clr = group["lr"] / bias_correction
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(_Single):
    """Adam with Nesterov momentum (and torch's momentum decay schedule)."""

    _name = "NAdam"

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["step"] = _step_tensor()
        state["mu_product"] = _scalar(1.0)
        state["exp_avg"] = _zeros_state(p)
        state["exp_avg_sq"] = _zeros_state(p)

    def _update(self, param, grad, state, group) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        mu_product, step_t = state["mu_product"], state["step"]
        param, grad, exp_avg, exp_avg_sq = _real(param, grad, state["exp_avg"], state["exp_avg_sq"])
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = grad.add(param, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product.item()))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))


class RAdam(_Single):
    """Rectified Adam: plain momentum SGD until the variance estimate is tractable."""

    _name = "RAdam"

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["step"] = _step_tensor()
        state["exp_avg"] = _zeros_state(p)
        state["exp_avg_sq"] = _zeros_state(p)

    def _update(self, param, grad, state, group) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        step_t = state["step"]
        param, grad, exp_avg, exp_avg_sq = _real(param, grad, state["exp_avg"], state["exp_avg_sq"])
        step_t += 1
        step = step_t.item()
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = grad.add(param, alpha=wd)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            adaptive_lr = bias_correction2**0.5 / exp_avg_sq.sqrt().add_(eps)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


class Adadelta(_Single):
    """Adadelta: steps scaled by the running RMS of past updates over that of gradients."""

    _name = "Adadelta"

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["step"] = _step_tensor()
        state["square_avg"] = _zeros_state(p)
        state["acc_delta"] = _zeros_state(p)

    def _update(self, param, grad, state, group) -> None:
        rho, eps = group["rho"], group["eps"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        complex_param = param.is_complex()
        square_avg, acc_delta, grad = _real(state["square_avg"], state["acc_delta"], grad)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        if complex_param:
            delta = delta.view_as_complex()
        param.add_(delta, alpha=-group["lr"])


class Rprop(_Single):
    """Resilient backpropagation: per-element step sizes grown or shrunk by the gradient's sign
    agreement, the update the sign of the gradient times them."""

    _name = "Rprop"

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["step"] = _step_tensor()
        state["prev"] = _zeros_state(p)
        lr = group["lr"]
        fill = complex(lr, lr) if p.is_complex() else lr
        state["step_size"] = Tensor._wrap(np.full_like(p.grad._data, fill))

    def _update(self, param, grad, state, group) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        state["step"] += 1
        grad, prev, param, step_size = _real(grad, state["prev"], param, state["step_size"])
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


class ASGD(_Single):
    """Averaged SGD: SGD with a decaying step, and ``ax`` the running average of the iterates."""

    _name = "ASGD"

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["step"] = _step_tensor()
        state["eta"] = _scalar(group["lr"])
        state["mu"] = _scalar(1.0)
        state["ax"] = _zeros_state(p)

    def _update(self, param, grad, state, group) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        mu, eta, step_t = state["mu"], state["eta"], state["step"]
        grad, param, ax = _real(grad, param, state["ax"])
        step_t += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = step_t.item()
        eta.copy_(_scalar(lr / (1 + lambd * lr * step) ** alpha))
        mu.copy_(_scalar(1 / max(1, step - t0)))
