"""Defects the fuzzer found in the registry, fixed at their row, each against torch."""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ja

from .._torch import require as require_torch


def _both(fn):
    torch = require_torch()
    return fn(torch), fn(ja)


def test_flip_is_a_copy():
    """torch.flip copies; a NumPy view would let an in-place op on the input change it
    (fuzz class flip-aliasing)."""
    def prog(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        y = x.flip(0)
        x.add_(10)
        z = y.clone()
        y.mul_(2)
        return y.tolist(), x.tolist(), z.tolist()

    theirs, mine = _both(prog)
    assert mine == theirs


def test_maximum_minimum_gradient_at_nan():
    """A nan operand keeps its gradient (torch masks only where the other side wins); ties
    split it (fuzz class minmax-nan-grad)."""
    def prog(lib):
        out = []
        for f in (lib.maximum, lib.minimum):
            a = lib.tensor([float("nan"), 1.0, 2.0, 0.0], dtype=lib.float64, requires_grad=True)
            b = lib.tensor([1.0, float("nan"), 2.0, 5.0], dtype=lib.float64, requires_grad=True)
            f(a, b).backward(lib.tensor([1.0, 2.0, 4.0, 8.0], dtype=lib.float64))
            out.append((a.grad.tolist(), b.grad.tolist()))
        return out

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)


def test_sign_and_sgn_of_nan_are_zero():
    """torch.sign(nan) and torch.sgn(nan) are 0 (NumPy's sign gives nan; fuzz class sign-nan),
    and so is abs's gradient at nan (grad * sgn(x))."""
    def prog(lib):
        x = lib.tensor([float("nan"), -2.0, 0.0, 3.0], requires_grad=True)
        x.abs().backward(lib.ones(4))
        return x.sign().tolist(), x.sgn().tolist(), x.grad.tolist()

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)
