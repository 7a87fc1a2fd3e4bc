"""autograd.functional and func transforms: torch's examples, return structures and errors,
finite differences always, and torch's values where torch is installed (test plan A6)."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd import func as jfunc
from jupyter_autograd.autograd import functional as F

from ._torch import require as require_torch


def _fd_jac(f, x, eps=1e-6):
    """Central-difference Jacobian of an array function, shape out.shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        cols.append((f(x + e.reshape(x.shape)) - f(x - e.reshape(x.shape))) / (2 * eps))
    out = np.stack(cols, -1)
    return out.reshape(np.shape(cols[0]) + x.shape)


def _np(f):
    return lambda a: f(ja.tensor(a)).detach().numpy()


def cube_sum(t):
    return (t**3).sum()


def mlp(x, w1=None, w2=None):
    rng = np.random.default_rng(1)
    w1 = ja.tensor(rng.normal(size=(3, 4))) if w1 is None else w1
    w2 = ja.tensor(rng.normal(size=(4, 2))) if w2 is None else w2
    return ja.tanh(x @ w1) @ w2


def test_torch_documented_values():
    assert (
        repr(F.jacobian(lambda t: (t + 1) ** 2, ja.tensor([1.0, 2.0])))
        == "tensor([[4., 0.],\n        [0., 6.]])"
    )
    assert F.jacobian(lambda t: t * 2, ja.eye(2)).shape == (2, 2, 2, 2)
    assert (
        repr(F.hessian(cube_sum, ja.tensor([1.0, 2.0])))
        == "tensor([[ 6.,  0.],\n        [ 0., 12.]])"
    )
    for fn in (F.vhp, F.hvp):
        assert (
            repr(fn(cube_sum, ja.tensor([1.0, 2.0]), ja.ones(2)))
            == "(tensor(9.), tensor([ 6., 12.]))"
        )


def test_vjp_v_none_error():
    with pytest.raises(
        RuntimeError,
        match="^The vector v can only be None if the user-provided function returns a single Tensor with a single element.$",
    ):
        F.vjp(lambda t: t * 2, ja.ones(3))
    with pytest.raises(
        TypeError,
        match="The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the value at index 0 has type <class 'list'>.",
    ):
        F.jacobian(cube_sum, ([1.0],))
    with pytest.raises(RuntimeError, match="v has invalid size: should be torch.Size"):
        F.jvp(lambda t: t, ja.ones(3), ja.ones(2))


def test_return_structures():
    a, b = ja.ones(2), ja.ones(3)
    single = F.jacobian(lambda x, y: x.sum() * y, (a, b))
    assert isinstance(single, tuple) and [j.shape for j in single] == [(3, 2), (3, 3)]
    multi = F.jacobian(lambda x, y: (x * 2, y.sum()), (a, b))
    assert [[j.shape for j in row] for row in multi] == [[(2, 2), (2, 3)], [(2,), (3,)]]
    h = F.hessian(lambda x, y: (x.sum() * y).sum(), (a, b))
    assert [[j.shape for j in row] for row in h] == [[(2, 2), (2, 3)], [(3, 2), (3, 3)]]


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_of_mlp_matches_finite_differences(strategy, rng):
    x = rng.normal(size=3)
    j = F.jacobian(mlp, ja.tensor(x), vectorize=True, strategy=strategy).numpy()
    np.testing.assert_allclose(j, _fd_jac(_np(mlp), x), atol=1e-8, rtol=1e-6)


def test_forward_mode_needs_vectorize_like_torch():
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(mlp, ja.ones(3), strategy="forward-mode")


def test_products_match_finite_differences(rng):
    x = rng.normal(size=3)
    v = rng.normal(size=3)
    u = rng.normal(size=2)
    J = _fd_jac(_np(mlp), x)
    f = lambda t: (mlp(t) ** 2).sum()
    H = _fd_jac(lambda a: _fd_grad(f, a), x, eps=1e-4)
    np.testing.assert_allclose(F.vjp(mlp, ja.tensor(x), ja.tensor(u))[1].numpy(), u @ J, atol=1e-8)
    np.testing.assert_allclose(F.jvp(mlp, ja.tensor(x), ja.tensor(v))[1].numpy(), J @ v, atol=1e-8)
    np.testing.assert_allclose(F.hvp(f, ja.tensor(x), ja.tensor(v))[1].numpy(), H @ v, atol=1e-6)
    np.testing.assert_allclose(F.vhp(f, ja.tensor(x), ja.tensor(v))[1].numpy(), v @ H, atol=1e-6)
    np.testing.assert_allclose(F.hessian(f, ja.tensor(x)).numpy(), H, atol=1e-6)


def _fd_grad(f, a):
    x = ja.tensor(a, requires_grad=True)
    (g,) = ja.autograd.grad(f(x), x)
    return g.numpy()


def test_create_graph_and_strict():
    x = ja.tensor([1.0, 2.0], requires_grad=True)
    out, g = F.vjp(cube_sum, x, create_graph=True)
    assert g.requires_grad
    (gg,) = ja.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [6.0, 12.0])
    out, g = F.vjp(cube_sum, x)
    assert not g.requires_grad and not out.requires_grad
    with pytest.raises(
        RuntimeError, match="Output 0 of the user-provided function does not require gradients."
    ):
        F.jacobian(lambda t: ja.ones(2), ja.ones(2), strict=True)
    np.testing.assert_allclose(
        F.jacobian(lambda t: ja.ones(2), ja.ones(2)).numpy(), np.zeros((2, 2))
    )


def test_functional_matches_torch(rng):
    torch = require_torch()
    x = rng.normal(size=3)
    v = rng.normal(size=3)

    def f(m):
        return lambda t: (m.tanh(t) * t.exp()).sum()

    def g(m):
        return lambda t: m.sigmoid(t) * t

    tF = torch.autograd.functional
    pairs = [
        (F.jacobian(g(ja), ja.tensor(x)), tF.jacobian(g(torch), torch.tensor(x))),
        (F.hessian(f(ja), ja.tensor(x)), tF.hessian(f(torch), torch.tensor(x))),
        (
            F.jvp(g(ja), ja.tensor(x), ja.tensor(v))[1],
            tF.jvp(g(torch), torch.tensor(x), torch.tensor(v))[1],
        ),
        (
            F.vjp(g(ja), ja.tensor(x), ja.tensor(v))[1],
            tF.vjp(g(torch), torch.tensor(x), torch.tensor(v))[1],
        ),
        (
            F.hvp(f(ja), ja.tensor(x), ja.tensor(v))[1],
            tF.hvp(f(torch), torch.tensor(x), torch.tensor(v))[1],
        ),
        (
            F.vhp(f(ja), ja.tensor(x), ja.tensor(v))[1],
            tF.vhp(f(torch), torch.tensor(x), torch.tensor(v))[1],
        ),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------ torch.func
def test_func_transforms_match_finite_differences(rng):
    x = rng.normal(size=3)
    J = _fd_jac(_np(mlp), x)
    np.testing.assert_allclose(jfunc.jacrev(mlp)(ja.tensor(x)).numpy(), J, atol=1e-8)
    np.testing.assert_allclose(jfunc.jacfwd(mlp)(ja.tensor(x)).numpy(), J, atol=1e-8)
    f = lambda t: (mlp(t) ** 2).sum()
    np.testing.assert_allclose(jfunc.grad(f)(ja.tensor(x)).numpy(), _fd_jac(_np(f), x), atol=1e-8)
    H = _fd_jac(lambda a: _fd_grad(f, a), x, eps=1e-4)
    np.testing.assert_allclose(jfunc.hessian(f)(ja.tensor(x)).numpy(), H, atol=1e-6)
    v = rng.normal(size=3)
    _out, jv = jfunc.jvp(mlp, (ja.tensor(x),), (ja.tensor(v),))
    np.testing.assert_allclose(jv.numpy(), J @ v, atol=1e-8)
    _out, fn = jfunc.vjp(mlp, ja.tensor(x))
    u = rng.normal(size=2)
    np.testing.assert_allclose(fn(ja.tensor(u))[0].numpy(), u @ J, atol=1e-8)
    _out, lin = jfunc.linearize(mlp, ja.tensor(x))
    np.testing.assert_allclose(lin(ja.tensor(v)).numpy(), J @ v, atol=1e-8)


def test_func_argnums_aux_nesting_and_vmap():
    x, y = ja.tensor(2.0), ja.tensor(3.0)
    gx, gy = jfunc.grad(lambda a, b: a * b * b, argnums=(0, 1))(x, y)
    assert (gx.item(), gy.item()) == (9.0, 12.0)
    g, aux = jfunc.grad(lambda a: (a**2, "aux"), has_aux=True)(x)
    assert g.item() == 4.0 and aux == "aux"
    g, (v, aux) = jfunc.grad_and_value(lambda a: (a**2, 7), has_aux=True)(x)
    assert (g.item(), v.item(), aux) == (4.0, 4.0, 7)
    assert jfunc.grad(jfunc.grad(jfunc.grad(lambda a: a**4)))(x).item() == 48.0
    with pytest.raises(
        RuntimeError,
        match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims",
    ):
        jfunc.grad(lambda a: a * 2)(ja.ones(2))
    batched = jfunc.vmap(jfunc.grad(lambda a: (a**3).sum()))(ja.tensor([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(batched.numpy(), [[3.0, 12.0], [27.0, 48.0]])
    assert jfunc.vmap(ja.dot, in_dims=(0, None))(ja.ones(4, 2), ja.ones(2)).shape == (4,)


def test_func_matches_torch_func(rng):
    torch = require_torch()
    x = rng.normal(size=3)

    def f(m):
        return lambda t: (m.sin(t) * t).sum()

    pairs = [
        (jfunc.grad(f(ja))(ja.tensor(x)), torch.func.grad(f(torch))(torch.tensor(x))),
        (jfunc.hessian(f(ja))(ja.tensor(x)), torch.func.hessian(f(torch))(torch.tensor(x))),
        (jfunc.jacrev(ja.sin)(ja.tensor(x)), torch.func.jacrev(torch.sin)(torch.tensor(x))),
        (jfunc.jacfwd(ja.sin)(ja.tensor(x)), torch.func.jacfwd(torch.sin)(torch.tensor(x))),
        (jfunc.vmap(ja.sin)(ja.tensor(x)), torch.func.vmap(torch.sin)(torch.tensor(x))),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)
