"""``torch.cuda``: is a GPU usable, how many, and a few device utilities.

CuPy is imported the first time one of these is called, never at ``import jupyter_autograd``.
Without CuPy or a GPU, ``is_available()`` is False and ``device_count()`` is 0; making a
``device="cuda"`` tensor then raises a ``RuntimeError`` naming ``pip install jupyter-autograd[cuda]``.

Example:
    >>> import jupyter_autograd as torch
    >>> dev = "cuda" if torch.cuda.is_available() else "cpu"
    >>> torch.ones(2, device=dev).sum().item()
    2.0
"""

from __future__ import annotations

from .backend import _BACKENDS, canonical_device, device

_current = [0]


def _backend():
    return _BACKENDS["cuda"]


def is_available() -> bool:
    """True when CUDA tensors can be made (CuPy imports and sees at least one GPU).

    Example:
        >>> import jupyter_autograd as torch
        >>> isinstance(torch.cuda.is_available(), bool)
        True
    """
    return bool(_backend().is_available())


def device_count() -> int:
    """The number of usable GPUs (0 without CuPy or a GPU)."""
    return int(_backend().device_count()) if is_available() else 0


def is_initialized() -> bool:
    return is_available()


def init() -> None:
    """Initialise CUDA now (raises the install hint when it is unusable)."""
    _require()


def _require():
    be = _backend()
    if not be.is_available():
        be.xp()  # raises the RuntimeError with the install hint
    return be


def _index(dev) -> int:
    if dev is None:
        return _current[0]
    if isinstance(dev, int):
        return dev
    d = device(dev)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return d.index if d.index is not None else _current[0]


def current_device() -> int:
    """The index of the current CUDA device (always 0 here: one device is used)."""
    _require()
    return _current[0]


def set_device(dev) -> None:
    """Select the current device; only index 0 is supported by this engine."""
    idx = _index(dev)
    if idx < 0:
        return
    n = device_count()
    if idx >= max(n, 1) or idx != 0:
        raise RuntimeError(
            f"CUDA error: invalid device ordinal (jupyter_autograd uses cuda:0 only; got {idx})"
        )
    _current[0] = idx


def get_device_name(dev=None) -> str:
    """The GPU's name, e.g. ``'NVIDIA H200'``."""
    return _require().device_name(_index(dev))


def synchronize(dev=None) -> None:
    """Wait until all queued GPU work is done (use it before timing GPU code)."""
    _require().synchronize(_index(dev))


def memory_allocated(dev=None) -> int:
    """Bytes held by the array memory pool of the device."""
    return int(_require().memory_allocated(_index(dev)))


def empty_cache() -> None:
    """Return cached, unused GPU memory to the driver (CuPy's memory pools)."""
    be = _backend()
    if be.is_available():
        mod = be.xp()
        for pool in ("get_default_memory_pool", "get_default_pinned_memory_pool"):
            f = getattr(mod, pool, None)
            if f is not None:
                f().free_all_blocks()


def manual_seed(seed: int) -> None:
    """Seed random numbers for CUDA tensors.

    Random tensors for any device are drawn on the host from the default generator and then
    moved, so the same seed gives the same values on ``cpu`` and ``cuda``; this seeds that
    generator (as ``torch.manual_seed`` does).
    """
    from .random import default_generator

    default_generator.manual_seed(seed)


manual_seed_all = manual_seed


def current_device_obj():
    return canonical_device("cuda")
