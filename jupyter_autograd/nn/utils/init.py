"""``torch.nn.utils.skip_init``: a module built without running its parameter initialization."""

from __future__ import annotations

import inspect


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialized.

    torch builds the module on the meta device and allocates empty storage after; here it is
    built normally with the random generator's state put back, so, as in torch, the
    initialization draws nothing from it (the values are as arbitrary as torch's empty ones).
    """
    from ...random import get_rng_state, set_rng_state
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")  # noqa: TRY004  (torch's type)
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
    return module.to(final_device)
