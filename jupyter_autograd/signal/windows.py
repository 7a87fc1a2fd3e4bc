"""``torch.signal.windows``: the window functions, with torch's arguments and checks; each is a
sampled formula (no gradient flows into a window: ``requires_grad`` marks the result a leaf).

Example:
    >>> import jupyter_autograd as torch
    >>> torch.signal.windows.hann(4, sym=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .. import _dtype
from ..tensor import Tensor

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and getattr(layout, "name", "strided") != "strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _out(arr, dtype, device, requires_grad):
    from ..backend import move_array

    t = Tensor._wrap(move_array(np.asarray(arr, dtype=dtype.np), device or "cpu"))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _linspace(start, end, steps, dt):
    return np.linspace(start, end, steps).astype(dt)


def _window(name, M, dtype, layout, device, requires_grad, body, one_for_single=True):
    dtype = dtype or _dtype.get_default_dtype()
    _checks(name, M, dtype, layout)
    if M == 0:
        return _out(np.zeros(0), dtype, device, requires_grad)
    if M == 1 and one_for_single:
        return _out(np.ones(1), dtype, device, requires_grad)
    return _out(body(dtype.np), dtype, device, requires_grad)


def exponential(
    M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    c = (M if not sym and M > 1 else M - 1) / 2.0 if center is None else center

    def body(dt):
        k = _linspace(-c / tau, (-c + (M - 1)) / tau, M, dt)
        return np.exp(-np.abs(k))

    return _window("exponential", M, dtype, layout, device, requires_grad, body, False)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    def body(dt):
        c = np.pi / (M + 1 if not sym and M > 1 else M)
        return np.sin(_linspace(0.5 * c, (0.5 + (M - 1)) * c, M, dt))

    return _window("cosine", M, dtype, layout, device, requires_grad, body, False)


def gaussian(
    M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def body(dt):
        start = -(M if not sym and M > 1 else M - 1) / 2.0
        c = 1 / (std * np.sqrt(2))
        k = _linspace(start * c, (start + (M - 1)) * c, M, dt)
        return np.exp(-(k * k))

    return _window("gaussian", M, dtype, layout, device, requires_grad, body, False)


def kaiser(
    M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def body(dt):
        b = dt.type(beta)
        c = 2.0 * b / (M if not sym else M - 1)
        end = min(b, -b + (M - 1) * c)
        k = _linspace(-b, end, M, dt)
        return np.i0(np.sqrt(b * b - k * k)) / np.i0(b)

    return _window("kaiser", M, dtype, layout, device, requires_grad, body)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    def body(dt):
        c = 2 / (M if not sym else M - 1)
        return 1 - np.abs(_linspace(-1, -1 + (M - 1) * c, M, dt))

    return _window("bartlett", M, dtype, layout, device, requires_grad, body)


def general_cosine(
    M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))`` (``M`` for a periodic window)."""

    def body(dt):
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        if not a:
            raise ValueError("Coefficients cannot be empty")
        c = 2 * np.pi / (M if not sym else M - 1)
        k = _linspace(0, (M - 1) * c, M, dt)
        ai = np.array([(-1) ** i * w for i, w in enumerate(a)], dtype=dt)
        i = np.arange(ai.shape[0], dtype=dt)
        return (ai[:, None] * np.cos(i[:, None] * k)).sum(0)

    return _window("general_cosine", M, dtype, layout, device, requires_grad, body)


def general_hamming(
    M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    return general_cosine(
        M,
        a=[alpha, 1.0 - alpha],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return general_hamming(
        M,
        alpha=0.5,
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return general_cosine(
        M,
        a=[0.42, 0.5, 0.08],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return general_cosine(
        M,
        a=[0.3635819, 0.4891775, 0.1365995, 0.0106411],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )
