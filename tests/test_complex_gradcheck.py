"""gradcheck/gradgradcheck with complex inputs and outputs, as torch's slow mode: the same
verdicts, and on failure the same message (which part of which complex output or input, the
numerical and analytical Jacobians printed as torch prints them)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

Z = np.array([0.7 + 0.4j, -1.1 + 0.9j, 0.3 - 1.3j])
X = np.array([0.6, -0.8, 1.4])


def _mul_by(T, c, conj_in_backward):
    """x * c as a custom Function whose backward conjugates c (right) or not (the classic bug)."""

    class MulC(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * c

        @staticmethod
        def backward(ctx, g):
            return g * (c.conjugate() if conj_in_backward else c)

    return MulC.apply


def _jvp_wrong(T):
    """exp with a forward-mode rule that forgets nothing but multiplies by conj(exp)."""

    class Exp(T.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            # detached: torch's tangent would otherwise require grad (reverse over forward),
            # which ours never does (see the report), and its message would show CopySlices
            ctx.save_for_forward(output.detach())
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out.conj()

        @staticmethod
        def jvp(ctx, t):
            (out,) = ctx.saved_tensors
            return t * out.conj()

    return Exp.apply


CASES = {
    "holomorphic": (lambda T: lambda z: (z * z).exp() / (z + 3), "z", {}),
    "abs": (lambda T: lambda z: z.abs(), "z", {}),
    "conj_real_imag": (lambda T: lambda z: z.conj() * z.real + z.imag, "z", {}),
    "angle": (lambda T: lambda z: z.angle(), "z", {}),
    "r_to_c": (lambda T: lambda x: x * (1 + 2j) + x.exp(), "x", {}),
    "c_to_r_sum": (lambda T: lambda z: (z * z.conj()).real.sum(), "z", {}),
    "two_outputs": (lambda T: lambda z: (z.sin(), z.abs()), "z", {}),
    "forward_ad": (lambda T: lambda z: z.tanh() * z.conj(), "z", {"check_forward_ad": True}),
    "forward_ad_r_to_c": (lambda T: lambda x: x * (1 - 1j), "x", {"check_forward_ad": True}),
    "custom_right": (lambda T: _mul_by(T, 2 - 3j, True), "z", {}),
    "custom_wrong": (lambda T: _mul_by(T, 2 - 3j, False), "z", {}),
    "custom_wrong_r_to_c": (lambda T: _mul_by(T, 2 - 3j, False), "x", {}),
    "jvp_wrong": (
        lambda T: _jvp_wrong(T),
        "z",
        {"check_forward_ad": True, "check_backward_ad": False},
    ),
}


def _outcome(T, name, check):
    make, which, kw = CASES[name]
    a = Z if which == "z" else X
    x = T.tensor(a, requires_grad=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return repr(check(T)(make(T), (x,), **kw))
    except Exception as e:  # noqa: BLE001 - the failure itself is compared
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_complex_as_torch(name):
    torch = require_torch()
    assert _outcome(ja, name, lambda T: T.autograd.gradcheck) == _outcome(
        torch, name, lambda T: T.autograd.gradcheck
    )


@pytest.mark.parametrize(
    "name", ["holomorphic", "abs", "conj_real_imag", "r_to_c", "c_to_r_sum", "custom_wrong"]
)
def test_gradgradcheck_complex_as_torch(name):
    torch = require_torch()

    def check(T):
        def run(f, inputs, **kw):
            out = f(*inputs)
            outs = out if isinstance(out, tuple) else (out,)
            gos = tuple(
                T.tensor(
                    np.full(tuple(o.shape), 0.5 - 0.25j if o.is_complex() else 0.5),
                    dtype=o.dtype,
                    requires_grad=True,
                )
                for o in outs
            )
            return T.autograd.gradgradcheck(f, inputs, gos, **kw)

        return run

    assert _outcome(ja, name, check) == _outcome(torch, name, check)


def test_wrong_conjugate_is_caught_without_torch():
    f = _mul_by(ja, 2 - 3j, False)
    z = ja.tensor(Z, requires_grad=True)
    with pytest.raises(
        ja.autograd.GradcheckError,
        match="^While considering the imaginary part of "
        "complex outputs only, Jacobian mismatch for output 0 with respect to input 0",
    ):
        ja.autograd.gradcheck(f, (z,))
    assert ja.autograd.gradcheck(_mul_by(ja, 2 - 3j, True), (z,))
    assert ja.autograd.gradgradcheck(lambda z: (z * z).exp(), (z,))
