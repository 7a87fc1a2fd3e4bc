"""Module hooks: the handle hook registrations return, and the global hooks of
``torch.nn.modules.module`` (``register_module_forward_hook`` and the rest) that run for every
module's call, before the module's own."""

from __future__ import annotations

import itertools
from collections import OrderedDict

_HOOK_IDS = itertools.count()


class RemovableHandle:
    """Handle returned by hook registration; ``remove()`` unregisters the hook."""

    def __init__(self, *dicts) -> None:
        self.id = next(_HOOK_IDS)
        self._dicts = dicts

    def remove(self) -> None:
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *args) -> None:
        self.remove()


_MIXED_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. "
    "Please use only one of them."
)


_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_is_full_backward_hook: list = [None]
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()


def any_global_hooks() -> bool:
    return bool(
        _global_forward_hooks
        or _global_forward_pre_hooks
        or _global_backward_hooks
        or _global_backward_pre_hooks
    )


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook run before every module's own."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False) -> RemovableHandle:
    """A forward hook run before every module's own."""
    handle = RemovableHandle(_global_forward_hooks, _global_forward_hooks_with_kwargs)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    """The deprecated (non-full) backward hook, for every module."""
    if _global_is_full_backward_hook[0] is True:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them."
        )
    _global_is_full_backward_hook[0] = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A full backward pre-hook for every module."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A full backward hook for every module."""
    if _global_is_full_backward_hook[0] is False:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them."
        )
    _global_is_full_backward_hook[0] = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle
