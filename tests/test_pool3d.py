"""adaptive_avg_pool3d / nn.AdaptiveAvgPool3d against torch: values, gradients and the
double-backward row, forward AD, None sizes, unbatched input, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch

SIZES = [((2, 3, 5, 6, 7), (2, 3, 4)), ((2, 3, 5, 6, 7), (None, 2, 1)), ((3, 4, 4, 4), 2),
         ((1, 2, 3, 5, 7), (3, 5, 7)), ((1, 2, 3, 5, 7), (4, 7, 9)), ((2, 1, 3, 3, 3), 1)]


@pytest.mark.parametrize("i", range(len(SIZES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_avg_pool3d_matches_torch(i, dtype):
    torch = require_torch()
    shape, size = SIZES[i]
    x = np.random.default_rng(i).standard_normal(shape)
    compare(lambda lib, t: lib.nn.functional.adaptive_avg_pool3d(t, size), [x], torch, dtype)
    compare_jvp(lambda lib, t: lib.nn.functional.adaptive_avg_pool3d(t, size), [x], torch, dtype)


def test_double_backward_matches_torch():
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 2, 5, 4, 3)), requires_grad=True)
        y = lib.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2))
        (g,) = lib.autograd.grad((y * y).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), [x])
        saved = sorted((a, getattr(g.grad_fn, a)) for a in dir(g.grad_fn)
                       if a.startswith("_saved_grad_output_sym"))
        res.append((y.grad_fn.name(), g.grad_fn.name(), saved, gg.numpy()))
    assert res[0][:3] == res[1][:3]
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-10)


ERRORS = [
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(5, 6, 7), 2),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 3, 5, 6, 7), (2, 2)),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 3, 5, 6, 7), -1),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 0, 4, 4, 4), 2),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 3, 4, 4, 4, dtype=lib.complex64), 2),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    compare_errors(ERRORS[i], require_torch())


def test_module_matches_torch():
    torch = require_torch()
    compare_repr(lambda lib: lib.nn.AdaptiveAvgPool3d((2, None, 3)), torch)
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5, 6))
    compare(lambda lib, t: lib.nn.AdaptiveAvgPool3d((2, None, 3))(t), [x], torch)
