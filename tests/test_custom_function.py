"""Custom autograd.Function (issue 3 §4, test plan B7): torch's "Extending PyTorch" examples run
unchanged, ctx API, node naming, and invalid gradients rejected with torch's messages."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.autograd.function import once_differentiable

from ._torch import require as require_torch

# Verbatim from https://pytorch.org/docs/stable/notes/extending.html (Exp from the Function docs)
EXTENDING_EXAMPLES = """
import torch
from torch.autograd import Function

class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias

from torch.autograd import gradcheck

# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True))
test = gradcheck(LinearFunction.apply, input + (None,), eps=1e-6, atol=1e-4)
print(test)
input = input + (torch.randn(30, dtype=torch.double, requires_grad=True),)
print(gradcheck(LinearFunction.apply, input, eps=1e-6, atol=1e-4))
x = torch.randn(3, dtype=torch.double, requires_grad=True)
y = Exp.apply(x)
print(y.grad_fn)
y.sum().backward()
print(torch.allclose(x.grad, x.detach().exp()))
"""


def test_extending_pytorch_examples_run_unchanged_with_import_alias(tmp_path):
    script = tmp_path / "examples.py"
    script.write_text(EXTENDING_EXAMPLES)
    runner = textwrap.dedent(f"""
        import sys, runpy
        import jupyter_autograd
        sys.modules["torch"] = jupyter_autograd          # import jupyter_autograd as torch
        sys.modules["torch.autograd"] = jupyter_autograd.autograd
        runpy.run_path({str(script)!r}, run_name="__main__")
    """)
    r = subprocess.run(
        [sys.executable, "-c", runner], capture_output=True, text=True, timeout=120, check=False
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "True" and lines[1] == "True" and lines[3] == "True"
    assert lines[2].startswith("<torch.autograd.function.ExpBackward object at 0x")


class Exp(ja.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


def test_node_name_repr_and_ctx_identity():
    x = ja.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    node = y.grad_fn
    assert type(node).__name__ == "ExpBackward" and node.name() == "ExpBackward"
    assert type(node).__module__ == "torch.autograd.function"
    assert repr(node).startswith("<torch.autograd.function.ExpBackward object at 0x")
    assert node.next_functions[0][0].variable is x
    assert repr(y) == "tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)"


def test_matches_torch_names_and_grads():
    torch = require_torch()

    class TExp(torch.autograd.Function):
        forward = staticmethod(Exp.forward)
        backward = staticmethod(Exp.backward)

    a = np.array([0.3, -1.2])
    x = ja.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    Exp.apply(x).sum().backward()
    TExp.apply(tx).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert type(TExp.apply(tx).grad_fn).__name__ == "TExpBackward"


def test_saved_tensors_freed_after_backward():
    x = ja.tensor([1.0], requires_grad=True)
    y = Exp.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 * np.e])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_double_backward_through_custom_function():
    x = ja.tensor([0.5, 1.0], dtype=ja.float64, requires_grad=True)
    (g,) = ja.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (gg,) = ja.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([0.5, 1.0]))
    assert ja.autograd.gradgradcheck(Exp.apply, (x,))


def test_once_differentiable_backward_records_nothing():
    class Cube(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    x = ja.tensor([2.0], requires_grad=True)
    (g,) = ja.autograd.grad(Cube.apply(x), x, create_graph=True)
    assert g.item() == 12.0 and not g.requires_grad


def test_needs_input_grad_and_non_tensor_args():
    seen = {}

    class MulConstant(ja.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            seen["needs"] = ctx.needs_input_grad
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    x = ja.tensor([1.0, 2.0], requires_grad=True)
    y = MulConstant.apply(x, 3.0)
    assert seen["needs"] == (True, False)
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_setup_context_style_and_mark_non_differentiable():
    class SortWithIndex(ja.autograd.Function):
        @staticmethod
        def forward(x):
            idx = np.argsort(x.detach().numpy())
            return x[idx.tolist()], ja.tensor(idx.astype(np.float64))

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])
            ctx.idx = output[1]

        @staticmethod
        def backward(ctx, g, g_idx):
            assert not np.any(g_idx.numpy())  # materialized zeros for the unused output
            out = ja.zeros_like(g)
            out[ctx.idx.numpy().astype(int).tolist()] = g
            return out

    x = ja.tensor([3.0, 1.0, 2.0], requires_grad=True)
    s, i = SortWithIndex.apply(x)
    assert s.requires_grad and not i.requires_grad
    (s * ja.tensor([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [100.0, 1.0, 10.0])


def test_mark_dirty_in_place():
    class AddOneInPlace(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = ja.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    v0 = b._version
    c = AddOneInPlace.apply(b)
    assert c is b and b._version > v0 and b.grad_fn.name() == "AddOneInPlaceBackward"
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0])
    # torch's custom-Function wording ("has been used", not "is being used")
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad has been used in an in-place operation.",
    ):
        AddOneInPlace.apply(ja.tensor([1.0], requires_grad=True))


def _bad(ret):
    class MyFunction(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return ret(g)

    return MyFunction


def test_b7_wrong_shape_is_rejected_with_torch_message():
    x = ja.randn(5, 5, dtype=ja.float64, requires_grad=True)
    f = _bad(lambda g: ja.ones(10, dtype=ja.float64))
    with pytest.raises(
        RuntimeError,
        match=r"^Function MyFunctionBackward returned an invalid gradient at index 0 - got \[10\] but expected shape compatible with \[5, 5\]$",
    ):
        f.apply(x).sum().backward()


def test_b7_broadcastable_grad_is_summed_and_dtype_cast():
    x = ja.randn(5, 5, dtype=ja.float64, requires_grad=True)
    _bad(lambda g: ja.ones(3, 5, 5, dtype=ja.float32)).apply(x).sum().backward()
    assert x.grad.dtype == ja.float64  # cast to the input dtype, as torch
    np.testing.assert_allclose(x.grad.numpy(), np.full((5, 5), 3.0))


def test_b7_device_mismatch_message():
    x = ja.randn(3, dtype=ja.float64, requires_grad=True)

    class FakeCuda(ja.Tensor):
        pass

    fake = ja.Tensor._wrap(type("CupyLike", (), {"shape": (3,), "dtype": np.dtype("float64")})())
    fake.__class__ = FakeCuda
    FakeCuda.device = property(lambda self: "cuda:0")
    with pytest.raises(
        RuntimeError,
        match=r"Function MyFunctionBackward returned an invalid gradient at index 0 - expected device cpu but got cuda:0",
    ):
        _bad(lambda g: fake).apply(x).sum().backward()


def test_wrong_number_of_gradients():
    x = ja.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"function MyFunctionBackward returned an incorrect number of gradients \(expected 1, got 2\)",
    ):
        _bad(lambda g: (g, g)).apply(x).sum().backward()


def test_custom_function_jvp_for_forward_mode():
    import jupyter_autograd.autograd.forward_ad as fwAD

    class Square(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.x = x
            return x * x

        @staticmethod
        def backward(ctx, g):
            return 2 * ctx.x * g

        @staticmethod
        def jvp(ctx, t):
            return 2 * ctx.x * t

    with fwAD.dual_level():
        d = fwAD.make_dual(ja.tensor([3.0]), ja.tensor([1.0]))
        assert fwAD.unpack_dual(Square.apply(d)).tangent.item() == 6.0
