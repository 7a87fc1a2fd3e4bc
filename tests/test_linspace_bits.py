"""torch.linspace bit for bit (issue 14: teaching code samples functions on a linspace grid, and
F.affine_grid builds its base grid with one): torch's CPU kernel computes the first half as
``start + step * i`` and the second as ``end - step * (steps - 1 - i)``, each one fused
multiply-add, in the dtype itself; NumPy's linspace differs in the last bits."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_bits_as_torch(dtype):
    torch = require_torch()
    for a, b in ((-1, 1), (0, 1), (-np.pi, np.pi), (0.1, 7.3), (2, -5), (1e-3, 1e3)):
        for n in (2, 3, 7, 12, 13, 16, 17, 100, 2000, 4097):
            ours = ja.linspace(a, b, n, dtype=getattr(ja, dtype)).numpy()
            theirs = torch.linspace(a, b, n, dtype=getattr(torch, dtype)).numpy()
            assert ours.tobytes() == theirs.tobytes(), (a, b, n)
