"""Grad modes (thread-local, as in PyTorch): no_grad, enable_grad, set_grad_enabled, inference_mode."""

from __future__ import annotations

import functools
import inspect
import threading

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]


class _State(threading.local):
    """Per-thread grad mode; __init__ runs once in each thread, so a new thread starts with
    grad enabled (and the flags are plain per-thread attributes: the fastest lookup)."""

    def __init__(self) -> None:
        self.grad_enabled = True
        self.inference = False


STATE = _State()


def is_grad_enabled() -> bool:
    """Whether operations are recorded for autograd in this thread.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.is_grad_enabled()
        True
    """
    return STATE.grad_enabled


def is_inference_mode_enabled() -> bool:
    """Whether ``inference_mode`` is active in this thread."""
    return STATE.inference


class _DecoratorContextManager:
    """Context manager usable as a decorator; generators run each step under the mode."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return decorate_context

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator_context(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:  # noqa: BLE001 - forwarded into the generator
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value

        return generator_context

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording, as ``torch.no_grad`` (context manager or decorator).

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __enter__(self) -> None:
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = False

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside ``no_grad``, as ``torch.enable_grad``.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.no_grad():
        ...     with torch.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    def __enter__(self) -> None:
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = True

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode: works as a plain call and as a context manager, as in torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> with torch.set_grad_enabled(False):
        ...     torch.is_grad_enabled()
        False
        >>> torch.is_grad_enabled()
        True
    """

    def __init__(self, mode: bool) -> None:
        self.prev = STATE.grad_enabled
        self.mode = bool(mode)
        STATE.grad_enabled = self.mode

    def __call__(self, func):
        STATE.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        STATE.grad_enabled = self.mode

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and the tensors made inside are inference tensors (``is_inference()``).

    Example:
        >>> import jupyter_autograd as torch
        >>> with torch.inference_mode():
        ...     y = torch.ones(2) * 2
        >>> y.is_inference()
        True
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self.prev = (STATE.grad_enabled, STATE.inference)
        if self.mode:
            STATE.grad_enabled = False
            STATE.inference = True
        else:
            STATE.inference = False

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled, STATE.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
