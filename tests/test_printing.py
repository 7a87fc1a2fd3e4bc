"""Tensor printing follows torch/_tensor_str.py (spec section 4); golden strings verified on 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as torch

from ._torch import require as require_torch

GOLDEN = [
    (lambda: torch.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: torch.tensor([0.1, 1234.5678]), "tensor([1.0000e-01, 1.2346e+03])"),
    (lambda: torch.tensor([0.0001, 0.5]), "tensor([1.0000e-04, 5.0000e-01])"),
    (lambda: torch.tensor([0.00012345]), "tensor([0.0001])"),
    (lambda: torch.tensor(123456789.0), "tensor(1.2346e+08)"),
    (lambda: torch.tensor([1.0, 2.0, 300.0]), "tensor([  1.,   2., 300.])"),
    (lambda: torch.tensor([-1.5, 2.25]), "tensor([-1.5000,  2.2500])"),
    (
        lambda: torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
        "tensor([   nan,    inf,   -inf, 1.5000])",
    ),
    (lambda: torch.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
    (lambda: torch.tensor([0.0, 0.0, 0.0]), "tensor([0., 0., 0.])"),
    (lambda: torch.tensor(3.0, requires_grad=True), "tensor(3., requires_grad=True)"),
    (
        lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),
        "tensor([1., 2.], dtype=torch.float64, requires_grad=True)",
    ),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: torch.tensor([1, 2], dtype=torch.int32), "tensor([1, 2], dtype=torch.int32)"),
    (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: torch.tensor([], dtype=torch.int64), "tensor([], dtype=torch.int64)"),
    (
        lambda: torch.tensor([1.0, 2.0], dtype=torch.float16),
        "tensor([1., 2.], dtype=torch.float16)",
    ),
    (lambda: torch.ones(2, 2), "tensor([[1., 1.],\n        [1., 1.]])"),
    (lambda: torch.ones(2, 1, 2), "tensor([[[1., 1.]],\n\n        [[1., 1.]]])"),
    (
        lambda: torch.tensor([1.7351, 0.5572, 0.1072, 1.0172, 0.2912], requires_grad=True) * 1,
        "tensor([1.7351, 0.5572, 0.1072, 1.0172, 0.2912], grad_fn=<MulBackward0>)",
    ),
    (
        lambda: torch.tensor(
            [1.1006, -1.0712, 0.1227, -0.5663, 0.3731, -0.8920, -1.5091, 0.3704, 1.4565],
            dtype=torch.float64,
            requires_grad=True,
        ),
        (
            "tensor([ 1.1006, -1.0712,  0.1227, -0.5663,  0.3731, -0.8920, -1.5091,  0.3704,\n"
            "         1.4565], dtype=torch.float64, requires_grad=True)"
        ),
    ),
]


@pytest.mark.parametrize("make,expected", GOLDEN)
def test_golden_repr(make, expected):
    assert repr(make()) == expected
    assert str(make()) == expected


def test_suffix_wraps_to_a_new_line():
    x = torch.tensor([1.7351, 0.5572, 0.1072, 1.0172, 0.2912, 1.0, 2.0, 3.0], requires_grad=True)
    s = repr(x.exp())
    assert s.endswith("\n       grad_fn=<ExpBackward0>)")


def test_summarisation_over_threshold():
    s = repr(torch.arange(2000.0))
    assert s.startswith("tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,")
    s2 = repr(torch.arange(2000).reshape(40, 50))
    assert "..." in s2 and s2.count("\n") < 10


def test_set_printoptions():
    torch.set_printoptions(precision=2)
    try:
        assert repr(torch.tensor([1.2345])) == "tensor([1.23])"
    finally:
        torch.set_printoptions(profile="default")


def test_parameter_like_and_int_default_dtype_omitted():
    assert repr(torch.arange(3)) == "tensor([0, 1, 2])"
    assert repr(torch.tensor([[1, 20], [300, 4]])) == "tensor([[  1,  20],\n        [300,   4]])"


@pytest.mark.parametrize("seed", range(8))
def test_random_tensors_print_as_torch(seed):
    t = require_torch()
    rng = np.random.default_rng(seed)
    for shape in [(), (7,), (3, 4), (2, 3, 4), (30, 40)]:
        for scale in (1.0, 1e-5, 1e5, 1e9):
            a = (rng.standard_normal(shape) * scale).astype(np.float32)
            assert repr(torch.tensor(a)) == repr(t.tensor(a))
            assert repr(torch.tensor(a.astype(np.float64))) == repr(t.tensor(a.astype(np.float64)))
    ints = rng.integers(-1000, 1000, size=(5, 7))
    assert repr(torch.tensor(ints)) == repr(t.tensor(ints))
