"""ReLU's gradient is cut by a bit mask (ops.xp keep_where): the same values as torch's
threshold_backward for every shape, layout and float dtype, inf and nan included."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

_X = [-1.0, 0.0, -0.0, 2.0, np.nan, 3.0, -5.0, 0.5]
_G = [np.inf, np.nan, -2.0, -3.0, 4.0, np.nan, -np.inf, -1.0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("layout", ["0-d", "1-d", "2-d", "transposed", "strided"])
def test_relu_gradient_matches_torch(dtype, layout):
    torch = require_torch()
    x = np.array(_X, dtype=dtype)
    g = np.array(_G, dtype=dtype)
    if layout == "0-d":
        x, g = x[3:4].reshape(()), g[0:1].reshape(())
    elif layout == "2-d":
        x, g = x.reshape(2, 4), g.reshape(2, 4)
    elif layout == "transposed":
        x, g = x.reshape(2, 4).T, g.reshape(2, 4).T
    elif layout == "strided":
        x, g = x[::2], g[::2]
    grads = []
    for m in (ja, torch):
        t = m.tensor(x, requires_grad=True)
        m.relu(t).backward(m.tensor(g))
        grads.append(t.grad.numpy())
    ours, theirs = grads
    assert ours.dtype == theirs.dtype
    assert np.array_equal(ours, theirs, equal_nan=True)
    assert np.array_equal(np.signbit(ours), np.signbit(theirs))  # +0 where cut, as torch
