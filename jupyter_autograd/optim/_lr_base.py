"""The base class of the learning-rate schedulers, as torch's ``LRScheduler``."""

from __future__ import annotations

import warnings

from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _lrs(optimizer, key: str = "lr") -> list:
    return [group[key] for group in optimizer.param_groups]


class LRScheduler:
    """Base class: sets ``initial_lr`` on each group, then ``step()`` updates ``group["lr"]``."""

    # torch's flags: class attributes, set on the instance (so in its state_dict) by the
    # first step
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                        "trying to resume training from a checkpoint but haven't properly loaded "
                        "the optimizer state\n2. You're using last_epoch >= 0 for a fresh training "
                        "run (not recommended)"
                    )
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rates the last ``step()`` set."""
        return self._last_lr

    def get_lr(self) -> list:
        raise NotImplementedError

    def step(self, epoch=None) -> None:
        """Advance one epoch and write the new learning rates into the optimizer."""
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


class _LRScheduler(LRScheduler):
    pass


def _warn_get_lr_called_within_step(sched) -> None:
    if not sched._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=2,
        )
