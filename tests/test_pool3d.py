"""adaptive_avg_pool3d / nn.AdaptiveAvgPool3d against torch: values, gradients and the
double-backward row, forward AD, None sizes, unbatched input, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch

SIZES = [
    ((2, 3, 5, 6, 7), (2, 3, 4)),
    ((2, 3, 5, 6, 7), (None, 2, 1)),
    ((3, 4, 4, 4), 2),
    ((1, 2, 3, 5, 7), (3, 5, 7)),
    ((1, 2, 3, 5, 7), (4, 7, 9)),
    ((2, 1, 3, 3, 3), 1),
]


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
        x = lib.tensor(
            np.random.default_rng(0).standard_normal((2, 2, 5, 4, 3)), requires_grad=True
        )
        y = lib.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2))
        (g,) = lib.autograd.grad((y * y).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), [x])
        saved = sorted(
            (a, getattr(g.grad_fn, a))
            for a in dir(g.grad_fn)
            if a.startswith("_saved_grad_output_sym")
        )
        res.append((y.grad_fn.name(), g.grad_fn.name(), saved, gg.numpy()))
    assert res[0][:3] == res[1][:3]
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-10)


ERRORS = [
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(5, 6, 7), 2),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 3, 5, 6, 7), (2, 2)),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 3, 5, 6, 7), -1),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 0, 4, 4, 4), 2),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(
        lib.ones(2, 3, 4, 4, 4, dtype=lib.complex64), 2
    ),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    compare_errors(ERRORS[i], require_torch())


def test_module_matches_torch():
    torch = require_torch()
    compare_repr(lambda lib: lib.nn.AdaptiveAvgPool3d((2, None, 3)), torch)
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5, 6))
    compare(lambda lib, t: lib.nn.AdaptiveAvgPool3d((2, None, 3))(t), [x], torch)


AVG3 = [
    (
        (2, 3, 5, 6, 7),
        {
            "kernel_size": (2, 3, 2),
            "stride": (1, 2, 2),
            "padding": 1,
            "ceil_mode": True,
            "count_include_pad": False,
        },
    ),
    ((2, 3, 5, 6, 7), {"kernel_size": 2}),
    ((3, 5, 6, 7), {"kernel_size": 3, "stride": 2, "padding": 1, "divisor_override": 5}),
    ((1, 2, 5, 5, 5), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
]


@pytest.mark.parametrize("i", range(len(AVG3)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_avg_pool3d_matches_torch(i, dtype):
    torch = require_torch()
    shape, kw = AVG3[i]
    x = np.random.default_rng(i).standard_normal(shape)
    compare(lambda lib, t: lib.nn.functional.avg_pool3d(t, **kw), [x], torch, dtype)
    compare_jvp(lambda lib, t: lib.nn.functional.avg_pool3d(t, **kw), [x], torch, dtype)


def test_avg_pool3d_double_backward_matches_torch():
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        x = lib.tensor(
            np.random.default_rng(0).standard_normal((1, 2, 4, 5, 3)), requires_grad=True
        )
        y = lib.nn.functional.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False)
        (g,) = lib.autograd.grad((y * y).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), [x])
        res.append(
            (
                y.grad_fn.name(),
                g.grad_fn.name(),
                y.grad_fn._saved_kernel_size,
                y.grad_fn._saved_stride,
                g.grad_fn._saved_count_include_pad,
                gg.numpy(),
            )
        )
    assert res[0][:5] == res[1][:5]
    np.testing.assert_allclose(res[0][5], res[1][5], rtol=1e-10)


@pytest.mark.parametrize("shape", [(2, 6, 5, 5), (2, 6, 7), (1, 4, 3, 3, 3)])
def test_local_response_norm_matches_torch(shape):
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal(shape)
    o, t = compare(
        lambda lib, a: lib.nn.functional.local_response_norm(a, 3, alpha=0.1, beta=0.6, k=2.0),
        [x],
        torch,
        "float64",
    )
    chain = []
    for y in (o, t):
        names, n = [], y.grad_fn
        while n is not None:
            names.append(n.name())
            nxt = [f for f, _ in n.next_functions if f is not None and "Accumulate" not in f.name()]
            n = nxt[-1] if nxt else None
        chain.append(names)
    assert chain[0] == chain[1]


ERRORS3 = [
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(2, 3, 5, 6, 7), 3, padding=2),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(2, 3, 5, 6, 7), 0),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(2, 3, 5, 6, 7), 2, stride=0),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(5, 6, 7), 2),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(2, 3, 5, 6, 7), 8),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(2, 3, 5, 6, 7), 2, divisor_override=0),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(2, 3, 5, 6, 7), (2, 2)),
    lambda lib: lib.nn.functional.local_response_norm(lib.ones(2, 3), 2),
]


@pytest.mark.parametrize("i", range(len(ERRORS3)))
def test_avg_pool3d_errors_match_torch(i):
    compare_errors(ERRORS3[i], require_torch())


def test_avg_pool3d_and_lrn_modules_match_torch():
    torch = require_torch()
    compare_repr(
        lambda lib: lib.nn.Sequential(
            lib.nn.AvgPool3d(2),
            lib.nn.AvgPool3d(
                (2, 3, 1),
                stride=1,
                padding=1,
                ceil_mode=True,
                count_include_pad=False,
                divisor_override=3,
            ),
            lib.nn.LocalResponseNorm(2),
        ),
        torch,
    )
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 4, 4))
    compare(
        lambda lib, t: lib.nn.AvgPool3d(2, stride=1, padding=1)(lib.nn.LocalResponseNorm(2)(t)),
        [x],
        torch,
    )
