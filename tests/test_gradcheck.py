"""The checkers themselves (test plan A2/A3): torch's defaults and messages, and mutation tests
showing they reject wrong first- and second-order gradients."""

from __future__ import annotations

import re

import pytest

import jupyter_autograd as ja
from jupyter_autograd.autograd import GradcheckError, gradcheck, gradgradcheck
from jupyter_autograd.ops import OPS
from jupyter_autograd.ops.dispatch import apply1
from jupyter_autograd.ops.registry import defop

from ._torch import require as require_torch


def _x(rng, *shape):
    return ja.tensor(rng.uniform(-1, 1, size=shape), dtype=ja.float64, requires_grad=True)


def test_defaults_match_torch():
    import inspect

    sig = inspect.signature(gradcheck)
    assert sig.parameters["eps"].default == 1e-6
    assert sig.parameters["atol"].default == 1e-5
    assert sig.parameters["rtol"].default == 1e-3
    assert issubclass(GradcheckError, RuntimeError)


def test_float32_input_warns_with_torch_text(rng):
    x = ja.tensor(rng.uniform(size=3), dtype=ja.float32, requires_grad=True)
    with pytest.warns(UserWarning) as rec:
        gradcheck(ja.sin, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)
    msgs = [str(w.message) for w in rec]
    assert (
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "
    ) in msgs


@pytest.fixture
def patched_sin():
    """Swap the sin row's VJP for a test, restoring it afterwards."""
    op = OPS["sin"]
    saved = op.vjp

    def patch(rule):
        op.vjp = (rule,)

    yield patch
    op.vjp = saved


def test_mutation_first_order_is_rejected(rng, patched_sin):
    x = _x(rng, 4)
    assert gradcheck(ja.sin, (x,))
    patched_sin(lambda xp, g, x, out, p: g * xp.cos(x) * 1.001)  # 0.1% too large
    # A1's tolerance catches a 0.1% error; torch's default rtol=1e-3 sits exactly at it
    with pytest.raises(
        GradcheckError,
        match=re.escape(
            "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor("
        ),
    ):
        gradcheck(ja.sin, (x,), atol=1e-8, rtol=1e-6)
    assert gradcheck(ja.sin, (x,), atol=1e-8, rtol=1e-6, raise_exception=False) is False
    patched_sin(lambda xp, g, x, out, p: g * xp.cos(x) * 1.01)
    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        gradcheck(ja.sin, (x,))  # default tolerances


def test_failure_message_layout_matches_torch(rng, patched_sin):
    x = ja.tensor([0.5], dtype=ja.float64, requires_grad=True)
    patched_sin(lambda xp, g, x, out, p: g * 0)
    with pytest.raises(GradcheckError) as e:
        gradcheck(ja.sin, (x,))
    assert (
        str(e.value)
        == "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([[0.8776]], dtype=torch.float64)\nanalytical:tensor([[0.]], dtype=torch.float64)\n"
    )


def _detached(xp, x):
    """x with its value but none of its graph (what a buggy double-backward rule would use)."""
    return ja.Tensor._wrap(x._data) if xp.is_txp else x


CUBE_BAD2 = None


def _cube_bad2():
    global CUBE_BAD2
    if CUBE_BAD2 is None:
        # d/dx x^3 = 3 x^2 is right in value, but under create_graph the x^2 is cut from the graph,
        # so the second derivative comes out as 0 instead of 6 x g
        CUBE_BAD2 = defop(
            "_test_cube_bad_second_order",
            node="TestCubeBackward0",
            inputs=("self",),
            saved=("self",),
            fwd=lambda xp, x, p: x * x * x,
            vjp=lambda xp, g, x, out, p: g * 3 * _detached(xp, x) * _detached(xp, x),
            jvp=lambda xp, t, x, out, p: t[0] * 3 * x[0] * x[0],
        )
        OPS.pop(CUBE_BAD2.name)  # a throwaway row: keep the registry as the other tests see it
    return CUBE_BAD2


def test_mutation_second_order_is_rejected_by_gradgradcheck_only(rng):
    op = _cube_bad2()
    x = _x(rng, 3)
    f = lambda t: apply1(op, t)
    assert gradcheck(f, (x,), atol=1e-8, rtol=1e-6)
    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        gradgradcheck(f, (x,))
    assert gradgradcheck(ja.sin, (x,))


def test_not_reentrant_and_not_multiplied_by_grad_output(rng):
    calls = []

    class Drift(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * 2 + (len(calls) > 3) * 1e-3 * g

    x = _x(rng, 2)
    with pytest.raises(
        GradcheckError,
        match="Backward is not reentrant, i.e., running backward with same input and grad_output multiple times gives different values, although analytical gradient matches numerical gradient.The tolerance for nondeterminism was 0.0.",
    ):
        gradcheck(Drift.apply, (x,), atol=1e-2, rtol=1e-2)

    class Constant(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 0 + x.detach() * 1

        @staticmethod
        def backward(ctx, g):
            return g * 0 + 1  # ignores grad_output

    y = ja.tensor([1.0], dtype=ja.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(Constant.apply, (y,))


def test_forward_ad_check_catches_a_wrong_tangent(rng):
    op = OPS["sin"]
    saved = op.jvp
    x = _x(rng, 3)
    try:
        assert gradcheck(ja.sin, (x,), check_forward_ad=True)
        op.jvp = lambda xp, t, x, out, p: t[0] * xp.cos(x[0]) * 1.01
        with pytest.raises(
            GradcheckError,
            match="Jacobian computed with forward mode mismatch for output 0 with respect to input 0",
        ):
            gradcheck(ja.sin, (x,), check_forward_ad=True)
    finally:
        op.jvp = saved


def test_multiple_inputs_and_outputs(rng):
    a, b = _x(rng, 2, 3), _x(rng, 3)
    assert gradcheck(lambda a, b: (a * b, (a + b).sum(0)), (a, b))
    assert gradgradcheck(lambda a, b: (a * b).tanh(), (a, b))
    c = ja.tensor([1.0, 2.0], dtype=ja.float64)  # not requiring grad: skipped
    assert gradcheck(lambda a, c: a.sum(1) * c.sum(), (a, c))


def test_no_input_requires_grad():
    with pytest.raises(
        ValueError, match="gradcheck expects at least one input tensor to require gradient"
    ):
        gradcheck(ja.sin, (ja.ones(2, dtype=ja.float64),))


def test_matches_torch_verdicts(rng):
    torch = require_torch()
    a = rng.uniform(0.5, 1.5, size=(2, 2))
    for fn in ("sin", "exp", "sqrt"):
        ours = gradgradcheck(getattr(ja, fn), (ja.tensor(a, requires_grad=True),))
        theirs = torch.autograd.gradgradcheck(
            getattr(torch, fn), (torch.tensor(a, requires_grad=True),)
        )
        assert ours == theirs is True
