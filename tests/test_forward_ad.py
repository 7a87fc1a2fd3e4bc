"""Forward-mode AD: torch's dual API and printing, and every registry row's JVP rule against the
reverse-mode Jacobian times the tangent (float64; hypothesis-drawn shapes for elementwise rows)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jupyter_autograd as ja
import jupyter_autograd.autograd.forward_ad as fwAD
from jupyter_autograd.ops import NOT_IMPLEMENTED, OPS

from ._op_samples import Unsampleable, cases
from ._torch import require as require_torch

ALL = sorted(OPS)
ELEMENTWISE = [
    n
    for n in ALL
    if not (OPS[n].sample or {}).get("kind") and not (OPS[n].sample or {}).get("reduce")
]


def _out0(r):
    return r[0] if isinstance(r, tuple) else r


def test_dual_api_and_printing_match_torch():
    with fwAD.dual_level() as lvl:
        assert lvl == 0
        x = fwAD.make_dual(ja.tensor([2.0, 3.0]), ja.tensor([1.0, 1.0]))
        y = x * x
        assert repr(y) == "tensor([4., 9.], tangent=tensor([4., 6.]))"
        u = fwAD.unpack_dual(y)
        assert isinstance(u, fwAD.UnpackedDualTensor) and u._fields == ("primal", "tangent")
        assert repr(u) == "UnpackedDualTensor(primal=tensor([4., 9.]), tangent=tensor([4., 6.]))"
        assert fwAD.unpack_dual(ja.ones(2)).tangent is None
    assert repr(y) == "tensor([4., 9.])"  # tangents end with their level
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None  # and do not leak into the next one


def test_dual_api_errors():
    with pytest.raises(
        RuntimeError,
        match="Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level\\(\\) first.",
    ):
        fwAD.make_dual(ja.ones(2), ja.ones(2))
    with fwAD.dual_level():
        with pytest.raises(
            RuntimeError,
            match=r"Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size \[2\] while the given forward gradient is of size \[3\].",
        ):
            fwAD.make_dual(ja.ones(2), ja.ones(3))
        with pytest.raises(
            RuntimeError, match="Nested forward mode AD is not supported at the moment"
        ):
            fwAD.enter_dual_level()
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(ja.tensor([1, 2]), ja.ones(2))


def test_matches_torch_on_a_composite():
    torch = require_torch()
    a = np.array([0.3, 1.7, -0.4])
    v = np.array([1.0, -2.0, 0.5])

    def f(m, x):
        return (m.tanh(x) * x.exp()).sum() + m.softmax(x, 0)

    with fwAD.dual_level():
        ours = fwAD.unpack_dual(f(ja, fwAD.make_dual(ja.tensor(a), ja.tensor(v)))).tangent.numpy()
    tf = torch.autograd.forward_ad
    with tf.dual_level():
        theirs = tf.unpack_dual(
            f(torch, tf.make_dual(torch.tensor(a), torch.tensor(v)))
        ).tangent.numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_make_dual_keeps_reverse_graph():
    w = ja.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(w, ja.ones(2))
        y = (d * d).sum()
        assert fwAD.unpack_dual(y).tangent.item() == 6.0
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])


def _reverse_jv(f, arrays, tangents):
    """J·v from the reverse-mode Jacobian (one backward per output element)."""
    ins = tuple(ja.tensor(a) for a in arrays)
    jac = ja.autograd.functional.jacobian(f, ins)
    total = 0
    for j, t in zip(jac, tangents):
        j = j.numpy()
        out_shape = j.shape[: j.ndim - t.ndim]
        total = total + j.reshape(int(np.prod(out_shape)), t.size) @ t.reshape(-1)
    return np.asarray(total).reshape(out_shape)


def _forward_jv(f, arrays, tangents):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(ja.tensor(a), ja.tensor(t)) for a, t in zip(arrays, tangents)]
        out = f(*duals)
        tan = fwAD.unpack_dual(out).tangent
        return np.zeros(out.shape) if tan is None else tan.numpy()


def _check(case, rng):
    f = lambda *xs: _out0(case.ours(*xs))
    tangents = [rng.uniform(-1, 1, size=a.shape) for a in case.arrays]
    fw = _forward_jv(f, case.arrays, tangents)
    rv = _reverse_jv(f, case.arrays, tangents)
    tol = case.rtol or 1e-10
    np.testing.assert_allclose(fw, rv, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ALL)
def test_every_op_tangent_equals_reverse_jacobian_times_v(name, rng):
    try:
        cs = cases(OPS[name], rng)
    except Unsampleable:
        pytest.skip(f"{name} has no sampler yet (test_ops_registry fails for it)")
    if OPS[name].jvp is NOT_IMPLEMENTED:  # torch has no forward-mode rule either: it refuses
        with pytest.raises(NotImplementedError, match=f"Trying to use forward AD with {name} "):
            _check(cs[0], rng)
        return
    for case in cs:
        _check(case, rng)


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_elementwise_tangents_on_broadcast_shapes(name, data):
    n = len(OPS[name].inputs)
    shapes = data.draw(
        mutually_broadcastable_shapes(num_shapes=n, max_dims=3, max_side=3, min_side=0)
    ).input_shapes
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    for case in cases(OPS[name], rng, shapes=list(shapes)):
        _check(case, rng)
