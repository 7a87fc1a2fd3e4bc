"""The seed tutorial, run with ``import jupyter_autograd as torch`` and with real torch 2.13 on
the same w and b, prints exactly the same text (addresses aside)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pytest

import jupyter_autograd

from ._torch import require as require_torch

TUTORIAL = """
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.tensor(W, requires_grad=True)
b = torch.tensor(B, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(w)
print(b)
print(z)
print(loss)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
print(z.grad_fn.next_functions)
print(loss.grad_fn.next_functions)
print(z.grad_fn.next_functions[0][0].next_functions)
print(z.grad_fn.next_functions[1][0].variable is b)
loss.backward()
print(w.grad)
print(b.grad)
print(z.is_leaf, w.is_leaf, x.is_leaf)
z = torch.matmul(x, w)+b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
print(z_det)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
print(out)
inp = torch.range(0, 5, requires_grad=True)
out = (inp + 1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\\nSecond call\\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\\nCall after zeroing gradients\\n", inp.grad)
inp = torch.eye(5, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\\nSecond call\\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\\nCall after zeroing gradients\\n", inp.grad)
print(out.grad_fn, out.grad_fn.next_functions)
"""

ADDR = re.compile(r"0x[0-9a-fA-F]+")


def run_tutorial(module, W, B):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(TUTORIAL, {"torch": module, "W": W, "B": B})  # noqa: S102 - our own fixed script
    return ADDR.sub("0xADDR", buf.getvalue())


@pytest.fixture
def weights():
    rng = np.random.default_rng(7)
    return rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)


def test_tutorial_runs_and_matches_known_values(weights):
    W, B = weights
    text = run_tutorial(jupyter_autograd, W, B)
    assert "Gradient function for z = <AddBackward0 object at 0xADDR>" in text
    assert (
        "Gradient function for loss = <BinaryCrossEntropyWithLogitsBackward0 object at 0xADDR>"
        in text
    )
    assert (
        "((<SqueezeBackward4 object at 0xADDR>, 0), (<AccumulateGrad object at 0xADDR>, 0))" in text
    )
    assert "((<AddBackward0 object at 0xADDR>, 0), (None, 0))" in text
    assert "tensor([ 2.,  4.,  6.,  8., 10., 12.])" in text
    assert "tensor([[8., 4., 4., 4., 4.]," in text


def test_tutorial_prints_exactly_what_torch_prints(weights):
    torch = require_torch()
    W, B = weights
    ours = run_tutorial(jupyter_autograd, W, B)
    theirs = run_tutorial(torch, W, B)
    assert ours.splitlines() == theirs.splitlines()
