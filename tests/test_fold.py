"""F.unfold / F.fold (im2col / col2im rows) and nn.Unfold / nn.Fold against torch: values,
gradients, graphs (each the other's backward), forward AD, saved values, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch

UNFOLD = [
    ((2, 3, 5, 4), ((2, 3),), {"padding": 1, "stride": (2, 1)}),
    ((1, 2, 6, 6), (3,), {"dilation": 2}),
    ((3, 5, 4), (2,), {}),
    ((2, 1, 4, 7), ((1, 3),), {"stride": 2, "padding": (0, 2), "dilation": (1, 2)}),
]
FOLD = [
    ((2, 12, 9), ((4, 5), 2), {"dilation": (1, 2)}),
    ((1, 18, 12), ((5, 4), (2, 3)), {"padding": 1, "stride": (2, 1)}),
    ((8, 4), ((3, 3), 2), {}),
    ((2, 4, 16), ((6, 6), 2), {"stride": 2, "padding": 1}),
]


@pytest.mark.parametrize("i", range(len(UNFOLD)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unfold_matches_torch(i, dtype):
    torch = require_torch()
    shape, args, kw = UNFOLD[i]
    x = np.random.default_rng(i).standard_normal(shape)
    compare(lambda lib, t: lib.nn.functional.unfold(t, *args, **kw), [x], torch, dtype)
    compare_jvp(lambda lib, t: lib.nn.functional.unfold(t, *args, **kw), [x], torch, dtype)


@pytest.mark.parametrize("i", range(len(FOLD)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fold_matches_torch(i, dtype):
    torch = require_torch()
    shape, args, kw = FOLD[i]
    x = np.random.default_rng(i).standard_normal(shape)
    compare(lambda lib, t: lib.nn.functional.fold(t, *args, **kw), [x], torch, dtype)
    compare_jvp(lambda lib, t: lib.nn.functional.fold(t, *args, **kw), [x], torch, dtype)


def test_saved_values_and_double_backward_match_torch():
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        x = lib.tensor(np.arange(40.0).reshape(1, 2, 5, 4), requires_grad=True)
        y = lib.nn.functional.unfold(x, (2, 3), padding=1, stride=(2, 1))
        z = lib.nn.functional.fold(y, (5, 4), (2, 3), padding=1, stride=(2, 1))
        (g,) = lib.autograd.grad((z * z).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [x])
        saved = [
            (a, getattr(y.grad_fn, a))
            for a in dir(y.grad_fn)
            if a.startswith("_saved_") and a != "_saved_names"
        ]
        saved += [
            (a, getattr(z.grad_fn, a))
            for a in dir(z.grad_fn)
            if a.startswith("_saved_") and a != "_saved_names"
        ]
        res.append((saved, g.grad_fn.name(), z.detach().numpy().tolist(), gg.numpy().tolist()))
    assert res[0] == res[1]


ERRORS = [
    lambda lib: lib.nn.functional.unfold(lib.ones(5, 4), 2),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), 6),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), 0),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), 2, stride=0),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), 2, padding=-1),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), 2, dilation=0),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 4), (2, 2, 2)),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 4, 5, 6), 2),
    lambda lib: lib.nn.functional.fold(lib.ones(2, 18, 12), (5, 4), (2, 2)),
    lambda lib: lib.nn.functional.fold(
        lib.ones(2, 18, 12), (5, 5), (2, 3), padding=1, stride=(2, 1)
    ),
    lambda lib: lib.nn.functional.fold(lib.ones(12), (5, 4), (2, 3)),
    lambda lib: lib.nn.functional.fold(lib.ones(2, 8, 4), (1, 1), 2),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    compare_errors(ERRORS[i], require_torch())


def test_modules_match_torch():
    torch = require_torch()
    compare_repr(
        lambda lib: lib.nn.Sequential(
            lib.nn.Unfold(2, padding=1), lib.nn.Fold((4, 5), 2, stride=2)
        ),
        torch,
    )
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4))
    compare(
        lambda lib, t: lib.nn.Fold((4, 4), 2, stride=2)(lib.nn.Unfold(2, stride=2)(t)),
        [x],
        torch,
        "float64",
    )
