"""torch.autograd.grad / backward(inputs=...) and tensor hooks, and a backward that fails
midway, as torch 2.13's engine (the fuzzer's classes hooks-in-autograd-grad,
hook-check-in-autograd-grad, hooks-outside-inputs, backward-error-partial-accumulation).

torch evaluates, with ``inputs``, only the nodes that lead to an input or capture one; a node
that only captures runs its tensors' hooks first and the hooked gradient is returned, a node that
also runs is captured before them. A failing backward leaves accumulated the leaves whose
gradient was complete before the failure (torch runs AccumulateGrad as soon as it is ready)."""

from __future__ import annotations

import pytest

import jupyter_autograd as torch

from ._differential import compare
from ._torch import require as require_torch

_BOOM = """
class Boom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        raise ValueError("boom")

a = torch.ones(1, requires_grad=True)
b = torch.ones(1, requires_grad=True)
c = torch.ones(1, requires_grad=True)
"""

PROGRAMS = {
    "grad_runs_leaf_hooks": """
L = []
x = torch.tensor([1.0], requires_grad=True)
x.register_hook(lambda g: (L.append(g.item()), g * 10)[1])
emit(torch.autograd.grad(x * 2, [x]), L, x.grad)
""",
    "grad_of_nonleaf_input_that_also_runs": """
L = []
x = torch.tensor([1.0], requires_grad=True)
a = x * 3
a.register_hook(lambda g: (L.append(g.item()), g * 10)[1])
emit(torch.autograd.grad(a * 2, [a]), L)
emit(torch.autograd.grad(a * 2, [a, x]), L)
a.retain_grad()
emit(torch.autograd.grad(a * 2, [a]), L, a.grad)
""",
    "hook_check_on_root_in_grad": """
x = torch.tensor(1.0, requires_grad=True)
x.register_hook(lambda g: g.expand(3))
torch.autograd.grad(x, [x])
""",
    "hook_type_check_on_leaf_in_grad": """
x = torch.tensor(1.0, requires_grad=True)
x.register_hook(lambda g: g.double())
torch.autograd.grad(x * 1, [x])
""",
    "hook_check_on_root_outside_inputs": """
x = torch.tensor(1.0, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g.expand(3))
y.backward(inputs=[x])
""",
    "hooks_pruned_outside_inputs": """
L = []
x = torch.ones(2, requires_grad=True)
w = torch.ones(2, requires_grad=True)
a = x * 2
b = a * 3
c = w * 3
a.register_hook(lambda g: L.append("a"))
c.register_hook(lambda g: L.append("c"))
b.sum().backward(inputs=[b], retain_graph=True)
emit(L, b.grad)
emit(torch.autograd.grad((a * c).sum(), [x]), L)
(a * c).sum().backward(inputs=[x])
emit(L, x.grad, w.grad)
""",
    "hooks_and_retain_after_inplace_with_inputs": """
L = []
x = torch.ones(2, requires_grad=True)
a = x * 2
a.register_hook(lambda g: L.append(g.tolist()))
a.retain_grad()
a.mul_(3)
(a * 5).sum().backward(inputs=[a], retain_graph=True)
emit(L, a.grad, x.grad)
emit(torch.autograd.grad((a * 5).sum(), [a]), L)
""",
    "single_root_hooks_run_in_grad": """
x = torch.ones(1, requires_grad=True)
x.register_hook(lambda g: g * 10)
a = x * 2
a.register_hook(lambda g: g * 100)
o = torch.ones(1, requires_grad=True)
emit(torch.autograd.grad(a, [a], torch.ones(1), retain_graph=True))
emit(torch.autograd.grad(a, [a, x], torch.ones(1), retain_graph=True))
emit(torch.autograd.grad([a, x], [x], [torch.ones(1), torch.ones(1)], retain_graph=True))
emit(torch.autograd.grad(x, [x], torch.ones(1)))
emit(torch.autograd.grad(x, [o], torch.ones(1), allow_unused=True), x.grad)
a.retain_grad()
a.backward(torch.ones(1), inputs=[o], retain_graph=True)
emit(a.grad, x.grad, o.grad)
""",
    "leaf_hook_failure_stops_later_siblings": """
x1 = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
x8 = torch.ones(3, dtype=torch.float64, requires_grad=True)
t9 = torch.matmul(x1, x8)
x1.register_hook(lambda g: g[0])
try:
    t9.backward(torch.tensor([0.81, -2.17], dtype=torch.float64))
except RuntimeError as e:
    emit(str(e))
emit(x1.grad, x8.grad)
""",
    "setitem_advanced_index_views_value_without_leading_ones": """
y = torch.zeros(2, 3)
w = torch.ones(1, 3, requires_grad=True)
y[torch.tensor([0])] = w
emit(y, next_names(y.grad_fn), next_names(y.grad_fn.next_functions[1][0]))
y.sum().backward()
emit(w.grad)
z = torch.zeros(3)
v = torch.ones(2, requires_grad=True)
z[torch.tensor([0, 1])] = v
emit(next_names(z.grad_fn))
""",
    "failing_backward_accumulates_reached_leaves": _BOOM
    + """
try:
    (Boom.apply(a * b) + b * 2 + c * 3).sum().backward()
except ValueError as e:
    emit(str(e))
emit(a.grad, b.grad, c.grad)
try:
    ((Boom.apply(a) * b) * c).sum().backward()
except ValueError as e:
    emit(str(e))
emit(a.grad, b.grad, c.grad)
""",
    "failing_backward_with_leaf_hooks": _BOOM
    + """
b.register_hook(lambda g: g * 2)
try:
    (c * 5 + Boom.apply(a) + b * 2).sum().backward()
except ValueError as e:
    emit(str(e))
emit(a.grad, b.grad, c.grad)
""",
    "freed_custom_node_second_backward": """
class MulSaveInputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x

x = torch.ones(1, requires_grad=True)
w = torch.ones(1, requires_grad=True)
z = w - MulSaveInputs.apply(x, x)
z.backward()
try:
    z.backward()
except RuntimeError as e:
    emit(str(e)[:40])
emit(w.grad, x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_capture_hooks_and_failures_as_torch(name):
    compare(PROGRAMS[name], require_torch())


def test_grad_returns_hooked_leaf_gradient_without_torch():
    x = torch.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (g,) = torch.autograd.grad(x * 2, [x])
    assert g.tolist() == [20.0]


def test_failed_backward_keeps_complete_leaves_without_torch():
    class Boom(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    a, b = torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="boom"):
        (Boom.apply(a) + b * 2).sum().backward()
    assert a.grad is None
    assert b.grad.tolist() == [2.0]
