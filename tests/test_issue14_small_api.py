"""The smaller API points of issue 14 in the func stream's area, against torch."""

from __future__ import annotations

import numpy as np
import pytest

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


_FNS = {
    "sin": lambda m, x: x.sin(),
    "exp": lambda m, x: x.exp(),
    "tanh_mul": lambda m, x: x.tanh() * x,
    "pow": lambda m, x: x**3,
    "div": lambda m, x: x / (x * x + 1),
    "matmul_sum": lambda m, x: (
        (m.ones(3, 3, dtype=m.float64) * 0.5 + m.eye(3, dtype=m.float64)) @ x
    ),
    "softmax": lambda m, x: x.exp() / x.exp().sum(),
    "sigmoid_mean": lambda m, x: x.sigmoid().mean(),
    "sum_dim": lambda m, x: (x.unsqueeze(0) * x.unsqueeze(1)).sum(1),
    "relu_log1p": lambda m, x: x.relu().log1p(),
}


@pytest.mark.parametrize("name", sorted(_FNS))
def test_forward_ad_tangents_are_differentiable(name):
    """A tangent computed from a primal that requires grad has a grad_fn (torch computes it with
    differentiable ops), and reverse mode through it gives torch's second derivatives."""
    torch = require_torch()
    f = _FNS[name]

    def run(m):
        x = m.tensor([0.25, -1.25, 2.0], dtype=m.float64, requires_grad=True)
        v = m.tensor([1.0, 0.5, -2.0], dtype=m.float64)
        fw = m.autograd.forward_ad
        with fw.dual_level():
            y = f(m, fw.make_dual(x, v))
            t = fw.unpack_dual(y).tangent
        has_fn = t.grad_fn is not None
        (g,) = m.autograd.grad(t.sum(), x)
        return t.detach().numpy(), g.numpy(), has_fn, t.requires_grad

    (to, go, fo, ro), (tt, gt, ft, rt) = run(ja), run(torch)
    np.testing.assert_allclose(to, tt, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(go, gt, rtol=1e-10, atol=1e-12)
    assert (fo, ro) == (ft, rt) == (True, True)


def test_forward_ad_tangent_without_grad_has_no_graph():
    torch = require_torch()

    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            t = fw.unpack_dual(fw.make_dual(m.ones(2), m.ones(2)).sin()).tangent
        with m.no_grad(), fw.dual_level():
            x = m.ones(2, requires_grad=True)
            t2 = fw.unpack_dual(fw.make_dual(x, m.ones(2)).sin()).tangent
        return t.grad_fn is None, t.requires_grad, t2.requires_grad

    assert run(ja) == run(torch)
