"""What a node saves, and what unpacking it checks, as torch 2.13's SavedVariable (the fuzzer's
classes saved-unneeded-inputs and detach-inplace-leaf-in-graph): a row keeps only what the
gradient of an input that requires grad reads (mm/addmm keep the other operand's array for its
layout, neither saved nor version-checked), a node that saved no tensor can run again after
backward freed it, and a saved input that had a history and was detached in place since is
refused."""

from __future__ import annotations

import pytest

import jupyter_autograd as torch

from ._differential import compare
from ._torch import require as require_torch

PROGRAMS = {
    "addmm_does_not_check_unneeded_operand": """
b = torch.ones(2)
m1 = torch.ones(3, 2)
m2 = torch.ones(2, 2, requires_grad=True)
y = torch.addmm(b, m1, m2)
with torch.no_grad():
    m2.mul_(2)
y.sum().backward()
emit(m2.grad)
""",
    "mm_checks_only_what_it_saved": """
m1 = torch.ones(3, 2, requires_grad=True)
m2 = torch.ones(2, 2)
y = torch.mm(m1, m2)
with torch.no_grad():
    m1.mul_(2)
y.sum().backward()
emit(m1.grad)
y = torch.mm(m1, m2)
with torch.no_grad():
    m2.mul_(2)
y.sum().backward()
""",
    "linear_weight_grad_layout": """
lin = torch.nn.Linear(3, 2)
lin(torch.ones(4, 3)).sum().backward()
emit(lin.weight.grad.stride(), lin.weight.grad.is_contiguous(), lin.bias.grad)
""",
    "second_backward_through_nodes_without_saved_tensors": """
x = torch.tensor([5.0, 7.0], requires_grad=True)
y = torch.tensor([3.0, 2.0])
for f in (lambda: torch.remainder(x, y), lambda: torch.fmod(x, y), lambda: x % 3, lambda: x.sum(),
          lambda: x + 1, lambda: x * 2, lambda: x / 2, lambda: x * y, lambda: x.pow(2), lambda: x[0:1] * 1):
    z = f().sum()
    z.backward()
    try:
        z.backward()
        emit("ran again")
    except RuntimeError as e:
        emit(str(e)[:50])
emit(x.grad)
""",
    "vector_norm_order_0_checks_saved_result": """
x = torch.zeros(0, requires_grad=True)
n = torch.linalg.vector_norm(x, 0, 0)
n.fill_(-1.0)
try:
    n.sum().backward()
except RuntimeError as e:
    emit(str(e))
y = torch.ones(3, requires_grad=True)
m = torch.linalg.vector_norm(y * 1, 0)
m.backward(retain_graph=True)
emit(y.grad)
with torch.no_grad():
    y.mul_(2)
m.backward()
""",
    "saved_nonleaf_detached_in_place": """
x = torch.tensor([1.0], requires_grad=True)
y = x.exp()
z = y * y
y.detach_()
z.backward()
""",
    "saved_result_or_unsaved_input_detached_in_place": """
x = torch.tensor([1.0], requires_grad=True)
y = x.exp()
z = y.exp()
y.detach_()
z.backward()
emit(x.grad)
y = x * 2
z = y + 1
y.detach_()
z.backward()
emit(x.grad)
""",
    "saved_nonleaf_detached_then_modified": """
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
z = y * x
y.detach_()
y.mul_(2)
z.backward()
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_saved_tensors_as_torch(name):
    compare(PROGRAMS[name], require_torch())


def test_detached_saved_input_refused_without_torch():
    x = torch.tensor([1.0], requires_grad=True)
    y = x.sin()
    z = y * y
    y.detach_()
    with pytest.raises(RuntimeError, match="has been detached in-place"):
        z.backward()
