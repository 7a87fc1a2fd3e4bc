"""Every registry op, enumerated from the registry: first-order gradients against central
differences in float64 (test plan A1), broadcasting shapes drawn by hypothesis (A5), and, where
torch is installed, forward values, gradients and grad_fn names against torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jupyter_autograd as ja
from jupyter_autograd.ops import OPS

from ._op_samples import NotDifferentiable, Unsampleable, cases
from ._torch import require as require_torch

ALL = sorted(OPS)
# rows torch records as NotImplemented nodes (or as nodes that refuse to run) have no
# gradient to check
DIFFERENTIABLE = [
    n
    for n in ALL
    if OPS[n].node_name != "NotImplemented"
    and (OPS[n].sample or {}).get("kind") != "not_differentiable"
]
# ops whose sample is a plain elementwise call: hypothesis draws broadcastable shapes for them
ELEMENTWISE = [
    n
    for n in DIFFERENTIABLE
    if not (OPS[n].sample or {}).get("kind") and not (OPS[n].sample or {}).get("reduce")
]


def _node_names(t):
    """Names of every node reachable from t.grad_fn."""
    seen, stack, names = set(), [t.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names.add(n.name().removeprefix("torch::autograd::"))
        stack.extend(f for f, _ in n.next_functions)
    return names


def _as_out(r):
    return r[0] if isinstance(r, tuple) else r


def numeric_vjp(f, arrays, v, eps=1e-6):
    """vᵀJ by central differences, one input element at a time."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        flat = g.reshape(-1)
        for i in range(a.size):
            xs_p = [x.copy() for x in arrays]
            xs_m = [x.copy() for x in arrays]
            xs_p[k].reshape(-1)[i] += eps
            xs_m[k].reshape(-1)[i] -= eps
            fp = f(*xs_p)
            fm = f(*xs_m)
            flat[i] = np.sum((fp - fm) * v) / (2 * eps)
        grads.append(g)
    return grads


def check_case(case, rng, atol=1e-8, rtol=1e-6):
    ts = [ja.tensor(a, dtype=ja.float64, requires_grad=True) for a in case.arrays]
    out = _as_out(case.ours(*ts))
    v = rng.uniform(-10, 10, size=out.shape)
    out.backward(ja.tensor(v))

    def f(*arrays):
        with ja.no_grad():
            return _as_out(case.ours(*[ja.tensor(a, dtype=ja.float64) for a in arrays])).numpy()

    num = numeric_vjp(f, case.arrays, v)
    for t, n in zip(ts, num):
        ana = t.grad.numpy() if t.grad is not None else np.zeros_like(n)
        assert ana.shape == n.shape
        if case.rtol is not None:
            np.testing.assert_allclose(ana, n, rtol=case.rtol, atol=case.rtol * np.abs(n).max())
            continue
        # A1's criterion, with the round-off of a float64 central difference (1e-16 * |f| / eps)
        np.testing.assert_allclose(
            ana, n, atol=max(atol, 1e-8 * np.abs(v).max() * max(1, np.abs(n).max())), rtol=rtol * 10
        )
    return out


def test_every_op_can_be_sampled(rng):
    """A new op without a sampler fails here, so it cannot skip the gradient checks."""
    missing = []
    for name in ALL:
        try:
            assert cases(OPS[name], rng)
        except NotDifferentiable:
            pass
        except Unsampleable as e:
            missing.append(str(e))
    assert not missing, f"ops the test suite cannot sample: {missing}"


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradient_matches_finite_differences(name, rng):
    op = OPS[name]
    for case in cases(op, rng):
        out = check_case(case, rng, atol=1e-7, rtol=1e-6)
        assert op.node_name in _node_names(out), f"sample for {name} did not record {op.node_name}"


@pytest.mark.parametrize("name", ELEMENTWISE)
@given(data=st.data())
def test_elementwise_broadcasting_hypothesis(name, data):
    op = OPS[name]
    n = len(op.inputs)
    shapes = data.draw(
        mutually_broadcastable_shapes(num_shapes=n, max_dims=3, max_side=3, min_side=0)
    ).input_shapes
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    for case in cases(op, rng, shapes=list(shapes)):
        ts = [ja.tensor(a, dtype=ja.float64, requires_grad=True) for a in case.arrays]
        out = _as_out(case.ours(*ts))
        v = rng.uniform(-10, 10, size=out.shape)
        out.backward(ja.tensor(v))
        for t, a in zip(ts, case.arrays):
            assert t.grad.shape == a.shape  # gradients come back in each input's shape (A5)
        if out.numel() and max(a.size for a in case.arrays) <= 27:
            check_case(case, rng)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_matches_torch(name, rng):
    torch = require_torch()
    op = OPS[name]
    compared = 0
    for case in cases(op, rng):
        if case.theirs is None:
            continue
        ours_in = [ja.tensor(a, dtype=ja.float64, requires_grad=True) for a in case.arrays]
        th_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in case.arrays]
        o = _as_out(case.ours(*ours_in))
        t = _as_out(case.theirs(torch, *th_in))
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
        v = rng.uniform(-1, 1, size=tuple(t.shape))
        o.backward(ja.tensor(v))
        t.backward(torch.tensor(v))
        for a, b in zip(ours_in, th_in):
            if b.grad is None:
                assert a.grad is None or not np.any(a.grad.numpy())
                continue
            bg = np.zeros(tuple(b.shape)) if b.grad._is_zerotensor() else b.grad.numpy()  # sgn's
            np.testing.assert_allclose(a.grad.numpy(), bg, rtol=1e-9, atol=1e-12)
        compared += 1
    if compared == 0:
        pytest.skip(f"{name} has no torch counterpart in its samples")
