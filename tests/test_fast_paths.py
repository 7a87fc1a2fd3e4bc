"""The shortcuts the training step takes give the general path's answers.

Each case here is large or shaped enough to take a shortcut that the registry sweep's small
samples never reach: the transposed reduction of a short class axis, the nll_loss target check
that leaves the upper bound to the forward's indexing, and F.linear's AddmmBackward0 over
TBackward0 (recorded through apply, compared with torch.addmm's node).
"""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops.xp import NPX

F = ja.nn.functional


@pytest.mark.parametrize("shape", [(300, 3), (40, 5, 7), (64, 1), (1000, 16), (1000, 40)])
@pytest.mark.parametrize("how", ["max", "sum"])
def test_short_last_axis_reduction(shape, how):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    x[3, ...] = np.nan if how == "max" else x[3, ...]  # NaN propagates like NumPy's max
    want = getattr(x, how)(axis=-1, keepdims=True)
    got = NPX.keep_reduce(x, x.ndim - 1, how)
    assert got.shape == want.shape and got.dtype == want.dtype
    # the row's terms are added in another order: float32 rounding of the sum of magnitudes
    tol = 1e-6 * np.nanmax(np.abs(x).sum(-1))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=tol, equal_nan=True)


def _log_softmax_ref(x):
    s = x - x.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("shape", [(300, 3), (20, 6, 10)])
def test_log_softmax_and_softmax_on_class_axes(shape):
    rng = np.random.default_rng(1)
    x = rng.normal(size=shape) * 5
    g = rng.normal(size=shape)
    t = ja.tensor(x, requires_grad=True)
    out = F.log_softmax(t, -1)
    np.testing.assert_allclose(out.detach().numpy(), _log_softmax_ref(x), rtol=1e-12, atol=1e-12)
    out.backward(ja.tensor(g))
    sm = np.exp(_log_softmax_ref(x))
    np.testing.assert_allclose(
        t.grad.numpy(), g - sm * g.sum(-1, keepdims=True), rtol=1e-12, atol=1e-12
    )
    t2 = ja.tensor(x, requires_grad=True)
    y = F.softmax(t2, -1)
    np.testing.assert_allclose(y.detach().numpy(), sm, rtol=1e-12, atol=1e-12)
    y.backward(ja.tensor(g))
    np.testing.assert_allclose(
        t2.grad.numpy(), sm * (g - (g * sm).sum(-1, keepdims=True)), rtol=1e-12, atol=1e-12
    )


def test_cross_entropy_targets_checked_on_every_path():
    logits = ja.zeros(300, 3, requires_grad=True)
    y = ja.tensor(np.arange(300) % 3)
    loss = F.cross_entropy(logits, y)
    assert abs(loss.item() - np.log(3)) < 1e-6
    loss.backward()
    np.testing.assert_allclose(logits.grad.numpy().sum(axis=1), 0, atol=1e-7)
    for bad, value in ((3, 3), (-1, -1), (7, 7)):
        yy = y.clone()
        yy[5] = bad
        with pytest.raises(IndexError, match=rf"^Target {value} is out of bounds\.$"):
            F.cross_entropy(logits, yy)
    yy = y.clone()
    yy[5] = -100  # ignored, not an error
    assert np.isfinite(F.cross_entropy(logits, yy).item())
    assert logits.grad is not None  # the failed calls recorded nothing that ran backward


def test_linear_node_matches_the_general_record():
    lin = ja.nn.Linear(4, 3)
    x = ja.randn(5, 4, requires_grad=True)
    fast = lin(x)
    general = ja.addmm(lin.bias, x, lin.weight.t())
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    for a, b in ((fast.grad_fn, general.grad_fn),):
        assert type(a) is type(b)
        assert [type(f).__name__ for f, _ in a.next_functions] == [
            type(f).__name__ for f, _ in b.next_functions
        ]
        assert a._saved_mat1 is x and a._saved_mat2.shape == (4, 3)
        assert a._saved_alpha == 1 and a._saved_beta == 1
    g = ja.randn(5, 3)
    fast.backward(g)
    want = [t.grad.numpy().copy() for t in (x, lin.weight, lin.bias)]
    for t in (x, lin.weight, lin.bias):
        t.grad = None
    general.backward(g)
    for w, t in zip(want, (x, lin.weight, lin.bias)):
        np.testing.assert_allclose(w, t.grad.numpy(), rtol=1e-6)
    # modifying a saved input in place is caught, as for any recorded op
    y = lin(x)
    with ja.no_grad():
        lin.weight.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    # no grad anywhere: nothing recorded
    with ja.no_grad():
        assert lin(x).grad_fn is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bias_gradient_column_sum(dtype):
    """A broadcast bias's gradient over a batch of rows is summed by BLAS (ones @ g)."""
    rng = np.random.default_rng(2)
    g = rng.normal(size=(300, 64)).astype(dtype)
    g[7, 3], g[9, 5] = np.inf, np.nan
    b = ja.zeros(64, dtype=getattr(ja, dtype), requires_grad=True)
    x = ja.zeros(300, 64, dtype=getattr(ja, dtype))
    (x + b).backward(ja.tensor(g))
    assert b.grad.dtype == getattr(ja, dtype) and b.grad.shape == (64,)
    want = g.sum(axis=0)
    np.testing.assert_allclose(
        b.grad.numpy(),
        want,
        rtol=1e-5 if dtype == "float32" else 1e-12,
        atol=1e-4 if dtype == "float32" else 1e-12,
    )
    assert np.isposinf(b.grad.numpy()[3]) and np.isnan(b.grad.numpy()[5])
    b.grad.numpy()[0] += 1  # the leaf owns its gradient: the shared ones vector is untouched
    b.grad = None
    (x + b).backward(ja.ones(300, 64, dtype=getattr(ja, dtype)))
    np.testing.assert_array_equal(b.grad.numpy(), np.full(64, 300.0))


def test_relu_gradient_passes_nan_as_torch():
    """threshold_backward: only result <= 0 cuts the gradient (a NaN result lets it through)."""
    x = ja.tensor([float("nan"), -1.0, 0.0, 2.0], requires_grad=True)
    y = x.relu()
    y.backward(ja.ones(4))
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 0.0, 1.0])
    with ja.autograd.forward_ad.dual_level():
        d = ja.autograd.forward_ad.make_dual(ja.tensor([float("nan"), -1.0, 2.0]), ja.ones(3))
        t = ja.autograd.forward_ad.unpack_dual(d.relu()).tangent
    np.testing.assert_array_equal(t.numpy(), [1.0, 0.0, 1.0])
