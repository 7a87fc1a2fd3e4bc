"""Small classification datasets generated deterministically (no downloads): two moons and
interleaved spirals, for tutorials that train a classifier in seconds."""

from __future__ import annotations

import numpy as np

from . import _dtype
from .tensor import Tensor


def _as_tensors(x: np.ndarray, y: np.ndarray, dtype):
    dt = _dtype.to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().np
    return Tensor._wrap(np.ascontiguousarray(x, dtype=dt)), Tensor._wrap(y.astype(np.int64))


def make_moons(n_samples: int = 200, noise: float = 0.1, seed: int = 0, dtype=None):
    """Two interleaving half circles: ``(X, y)`` with X of shape (n_samples, 2), y in {0, 1}.

    The same ``seed`` always gives the same points (NumPy's PCG64).

    Example:
        >>> import jupyter_autograd as torch
        >>> X, y = torch.datasets.make_moons(100)
        >>> X.shape, y.shape, int(y.sum())
        (torch.Size([100, 2]), torch.Size([100]), 50)
    """
    rng = np.random.default_rng(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    x = np.concatenate(
        [
            np.stack([np.cos(t_out), np.sin(t_out)], 1),
            np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], 1),
        ]
    )
    y = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_in, np.int64)])
    if noise:
        x = x + rng.normal(0.0, noise, x.shape)
    perm = rng.permutation(n_samples)
    return _as_tensors(x[perm], y[perm], dtype)


def make_spiral(
    n_samples: int = 300, n_classes: int = 3, noise: float = 0.2, seed: int = 0, dtype=None
):
    """``n_classes`` interleaved spiral arms (the CS231n spiral): ``(X, y)``, X in roughly [-1, 1]².

    Example:
        >>> import jupyter_autograd as torch
        >>> X, y = torch.datasets.make_spiral(300, 3)
        >>> X.shape, sorted(set(y.tolist()))
        (torch.Size([300, 2]), [0, 1, 2])
    """
    rng = np.random.default_rng(seed)
    per = [
        n_samples // n_classes + (1 if k < n_samples % n_classes else 0) for k in range(n_classes)
    ]
    xs, ys = [], []
    for k, n in enumerate(per):
        r = np.linspace(0.0, 1.0, n)
        t = np.linspace(k * 4.0, (k + 1) * 4.0, n) + rng.normal(0.0, noise, n)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], 1))
        ys.append(np.full(n, k, np.int64))
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    perm = rng.permutation(n_samples)
    return _as_tensors(x[perm], y[perm], dtype)


def spiral(dtype=None):
    """The shipped spiral: 3 classes x 100 points, seed 0 (what the examples train on)."""
    return make_spiral(300, 3, 0.2, 0, dtype)


def moons(dtype=None):
    """The shipped two-moons: 200 points, noise 0.1, seed 0."""
    return make_moons(200, 0.1, 0, dtype)
