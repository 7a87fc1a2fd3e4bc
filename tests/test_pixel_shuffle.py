"""pixel_shuffle / pixel_unshuffle and their modules against torch: values, gradients and their
graphs (each the other's backward), forward AD, batch dims, complex input, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch

CASES = [
    ("pixel_shuffle", (2, 8, 3, 2), 2),
    ("pixel_shuffle", (9, 2, 3), 3),
    ("pixel_shuffle", (2, 1, 4, 2, 2), 2),
    ("pixel_shuffle", (1, 3, 2, 2), 1),
    ("pixel_unshuffle", (2, 3, 4, 6), 2),
    ("pixel_unshuffle", (1, 6, 6), 3),
    ("pixel_unshuffle", (2, 1, 2, 4, 2), 2),
]


@pytest.mark.parametrize("i", range(len(CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pixel_shuffle_matches_torch(i, dtype):
    torch = require_torch()
    fn, shape, r = CASES[i]
    x = np.random.default_rng(i).standard_normal(shape)
    compare(lambda lib, t: getattr(lib.nn.functional, fn)(t, r), [x], torch, dtype)
    compare_jvp(lambda lib, t: getattr(lib.nn.functional, fn)(t, r), [x], torch, dtype)


@pytest.mark.parametrize("fn", ["pixel_shuffle", "pixel_unshuffle"])
def test_double_backward_records_the_inverse(fn):
    torch = require_torch()
    names = []
    for lib in (ja, torch):
        x = lib.tensor(np.arange(32.0).reshape(2, 4, 2, 2), requires_grad=True)
        y = getattr(lib.nn.functional, fn)(x, 2)
        (g,) = lib.autograd.grad((y * y).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [x])
        names.append(
            (
                y.grad_fn.name(),
                g.grad_fn.name(),
                y.grad_fn._saved_upscale_factor
                if fn == "pixel_shuffle"
                else y.grad_fn._saved_downscale_factor,
                gg.numpy().tolist(),
            )
        )
    assert names[0] == names[1]


def test_complex_input_matches_torch():
    torch = require_torch()
    z = np.arange(16).reshape(1, 4, 2, 2) * (1 + 2j)
    a = ja.nn.functional.pixel_shuffle(ja.tensor(z), 2)
    b = torch.nn.functional.pixel_shuffle(torch.tensor(z), 2)
    assert repr(a) == repr(b)


ERRORS = [
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(2, 8, 3, 3), 3),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(8, 3), 2),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(2, 8, 3, 3), 0),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(2, 8, 3, 3), -2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(2, 8, 3, 3), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(2, 8, 4, 3), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(3, 3), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(2, 8, 3, 3), 0),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    compare_errors(ERRORS[i], require_torch())


def test_modules_match_torch():
    torch = require_torch()
    compare_repr(
        lambda lib: lib.nn.Sequential(lib.nn.PixelShuffle(3), lib.nn.PixelUnshuffle(2)), torch
    )
    x = np.random.default_rng(0).standard_normal((2, 9, 2, 2))
    compare(
        lambda lib, t: lib.nn.PixelUnshuffle(3)(lib.nn.PixelShuffle(3)(t)), [x], torch, "float64"
    )
