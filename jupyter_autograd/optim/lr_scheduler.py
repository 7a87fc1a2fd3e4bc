"""Learning-rate schedulers as ``torch.optim.lr_scheduler``: the chainable forms, step for
step as torch's (values, ``state_dict`` contents and order); ``ReduceLROnPlateau`` and
``CosineAnnealingWarmRestarts`` are in :mod:`._lr_plateau`, ``CyclicLR`` and ``OneCycleLR`` in
:mod:`._lr_cyclic`."""

from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from ._lr_base import (  # noqa: F401  (torch's names, public in this module)
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _lrs,
    _LRScheduler,
    _warn_get_lr_called_within_step,
)
from ._lr_cyclic import CyclicLR, OneCycleLR
from ._lr_plateau import (
    ChainedScheduler,
    CosineAnnealingWarmRestarts,
    ReduceLROnPlateau,
    SequentialLR,
)


def _lambdas(optimizer, lr_lambda) -> list:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


class _LambdaState:
    """state_dict without the lambdas themselves: a callable object's ``__dict__`` instead."""

    def state_dict(self) -> dict:
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return sd

    def load_state_dict(self, state_dict: dict) -> None:
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_LambdaState, LRScheduler):
    """The base lr times ``lr_lambda(epoch)``."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """The current lr times ``lr_lambda(epoch)`` at each step."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [
            group["lr"] * fn(self.last_epoch)
            for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    Example:
        >>> import jupyter_autograd as torch
        >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> for _ in range(4):
        ...     opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.25]
    """

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each milestone epoch."""

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [
            group["lr"] * self.gamma ** self.milestones[self.last_epoch]
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list:
        milestones = sorted(self.milestones.elements())
        return [
            base * self.gamma ** bisect_right(milestones, self.last_epoch) for base in self.base_lrs
        ]


class ConstantLR(LRScheduler):
    """The lr times ``factor`` until ``total_iters`` epochs have passed."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [
            base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """The lr's factor goes linearly from ``start_factor`` to ``end_factor``."""

    def __init__(
        self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or equal "
                "to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        d = self.end_factor - self.start_factor
        return [
            group["lr"]
            * (1.0 + d / (self.total_iters * self.start_factor + (self.last_epoch - 1) * d))
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list:
        return [
            base
            * (
                self.start_factor
                + (self.end_factor - self.start_factor)
                * min(self.total_iters, self.last_epoch)
                / self.total_iters
            )
            for base in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch.

    Example:
        >>> import jupyter_autograd as torch
        >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """The base lr decayed by ``(1 - epoch / total_iters) ** power``."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        decay_factor = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay_factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [
            base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base in self.base_lrs
        ]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the base lr down to ``eta_min`` over ``T_max`` epochs (SGDR form).

    Example:
        >>> import jupyter_autograd as torch
        >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
        >>> opt.step(); sched.step()
        >>> round(sched.get_last_lr()[0], 4)
        0.5
    """

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min
                + (base - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                for base in self.base_lrs
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base, group in zip(self.base_lrs, groups)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list:
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base in self.base_lrs
        ]


__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]
