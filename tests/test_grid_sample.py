"""Issue 14 (teaching code, the spatial transformer tutorial): F.affine_grid and F.grid_sample
(4-D, bilinear and nearest, zeros/border/reflection padding, both align_corners) as torch's:
grad_fn names, values and gradients to the input and to theta, argument errors. Values to
float32 rounding: torch's vectorized kernel rounds its multiply-adds differently."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch


def _run(t, ac):
    F = t.nn.functional
    t.manual_seed(0)
    img = t.randn(2, 3, 5, 6, requires_grad=True)
    theta = (t.eye(2, 3).expand(2, 2, 3) + 0.3 * t.randn(2, 2, 3)).requires_grad_()
    grid = F.affine_grid(theta, img.size(), align_corners=ac)
    names = [grid.grad_fn.name()]
    nums = [grid.detach().reshape(-1).numpy().copy()]
    total = 0
    for mode in ("bilinear", "nearest"):
        for pm in ("zeros", "border", "reflection"):
            out = F.grid_sample(img, grid * 1.3, mode=mode, padding_mode=pm, align_corners=ac)
            names.append(out.grad_fn.name())
            nums.append(out.detach().reshape(-1).numpy().copy())
            total = total + (out**2).mean()
    total.backward()
    nums += [theta.grad.reshape(-1).numpy().copy(), img.grad.reshape(-1).numpy().copy()]
    return names, np.concatenate(nums)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_and_grid_sample_as_torch(align_corners):
    torch = require_torch()
    (a, x), (b, y) = _run(ja, align_corners), _run(torch, align_corners)
    assert a == b
    np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-5)


def _errors(t):
    F = t.nn.functional
    out = []
    for bad in (
        lambda: F.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 1, 1, 2), mode="area"),
        lambda: F.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 1, 1, 2), padding_mode="wrap"),
        lambda: F.affine_grid(t.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False),
        lambda: F.affine_grid(t.zeros(1, 2, 3, dtype=t.int64), (1, 1, 2, 2)),
    ):
        try:
            bad()
        except ValueError as e:
            out.append(str(e))
    return out


def test_grid_errors_as_torch():
    torch = require_torch()
    assert _errors(ja) == _errors(torch)
