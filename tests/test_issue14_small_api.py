"""The smaller API points of issue 14 in the func stream's area, against torch."""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ja

from ._torch import require as require_torch


def _err(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return type(e).__name__, str(e)


def test_numpy_of_a_tensor_requiring_grad_under_no_grad():
    """torch's check is ``requires_grad and grad_enabled``: under no_grad numpy() is allowed."""
    torch = require_torch()

    def run(m):
        x = m.ones(2, requires_grad=True)
        with m.no_grad():
            a, b = x.numpy().tolist(), np.asarray(x, dtype=np.float64).tolist()
        return a, b, _err(lambda: x.numpy()), _err(lambda: np.asarray(x))

    assert run(ja) == run(torch)
