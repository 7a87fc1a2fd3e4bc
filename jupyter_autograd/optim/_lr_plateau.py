"""The schedulers of ``torch.optim.lr_scheduler`` that are not a chainable formula:
``ReduceLROnPlateau`` (driven by a metric), ``CosineAnnealingWarmRestarts`` (its own step),
``SequentialLR`` and ``ChainedScheduler`` (composing others), as torch's."""

from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from math import inf

from ._lr_base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _lrs,
    _warn_get_lr_called_within_step,
)
from .optimizer import Optimizer


def _check_schedulers(owner, optimizer, schedulers) -> None:
    name = owner.__class__.__name__
    for idx, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {idx} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(  # noqa: TRY004  (torch's exception type)
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{idx} in the given schedulers sequence."
            )
        if optimizer != s.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {s.__class__.__name__} at index {idx} has {s.optimizer}, which is "
                f"different from {optimizer.__class__.__name__}."
            )


class _Composite:
    """state_dict with each inner scheduler's own."""

    def state_dict(self) -> dict:
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict: dict) -> None:
        scheds = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = scheds
        for idx, s in enumerate(scheds):
            self._schedulers[idx].load_state_dict(s)


class SequentialLR(_Composite, LRScheduler):
    """Each scheduler in turn, switching at the milestones."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{self.__class__.__name__} expects at least one scheduler, but got no scheduler."
            )
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than "
                f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                f"and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Every scheduler's step, one after the other, each step."""

    def __init__(self, schedulers, optimizer=None) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{self.__class__.__name__} expects at least one scheduler to be chained, but "
                "got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` once the metric has not improved for ``patience`` steps."""

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(self.optimizer)
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None) -> None:
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self, epoch) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when `ReduceLROnPlateau` "
                    f"was initialized ({len(self.min_lrs)}), usually due to a new param group "
                    "being added to the optimizer. Please modify the `min_lrs` field to match the "
                    "length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a, best) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = inf if mode == "min" else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(
            mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode
        )


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, ``T_i`` growing by ``T_mult``."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(  # noqa: TRY004  (torch's exception type)
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base in self.base_lrs
        ]

    def step(self, epoch=None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)
