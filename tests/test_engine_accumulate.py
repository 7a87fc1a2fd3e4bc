"""Engine defects the differential fuzzer found (issue #13, stream views), each a program run
under torch and under jupyter_autograd: how AccumulateGrad accumulates (in place, versions,
read-only first gradients), its checks on leaves that left the graph, in-place broadcasting,
and gradients that custom Functions and registry rows hand on."""

from __future__ import annotations

import pytest

from ._differential import compare
from ._torch import require as require_torch

PROGRAMS = {
    # grad-accumulates-in-place: the second backward adds into the existing .grad in place
    "accumulate_in_place": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
g = x.grad
emit(g._version)
(x * 3).sum().backward()
emit(g, x.grad is g, g._version)
""",
    "accumulate_into_grad_with_graph": """
x = torch.tensor([1.0], requires_grad=True)
(x * x).sum().backward(create_graph=True)
g = x.grad
emit(g, g._version)
(x * 2).backward()
emit(x.grad is g, x.grad, g._version)
""",
    "accumulate_copied_seed_is_version_1": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
s = torch.tensor([1.0, 1.0])
x.backward(s)
emit(x.grad._version, x.grad is s)
x.backward(s)
emit(x.grad, x.grad._version, s)
""",
    # create-graph-read-only: the first gradient under create_graph is a copy (writable)
    "create_graph_then_plain_backward": """
x = torch.tensor([1.0], requires_grad=True)
x.sum().backward(create_graph=True)
emit(x.grad, x.grad._version)
x.backward(torch.tensor([1.0]))
emit(x.grad)
""",
    # leaf-moved-into-graph / detach-inplace-leaf-in-graph (leaves)
    "leaf_moved_into_graph": """
x = torch.ones(2, requires_grad=True)
w = torch.round(x)
x.detach_()
x.div_(w)
x.backward(torch.ones(2))
""",
    "detached_leaf_receives_nothing": """
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
x.detach_()
y.backward()
emit(x.grad, x.requires_grad)
""",
    "leaf_without_requires_grad_receives_nothing": """
x = torch.tensor([1.0, 3.0], requires_grad=True)
w = torch.tensor([2.0, 2.0], requires_grad=True)
y = (x * w).sum()
x.requires_grad_(False)
y.backward()
emit(x.grad, w.grad)
""",
    # inplace-broadcast-shape: the result may not be larger than the target
    "inplace_broadcast_leading_one": """
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([[1.0, 1.0, 1.0]])
x -= y
""",
    "inplace_broadcast_add_": """
x = torch.tensor([1.0, 2.0, 3.0])
x.add_(torch.ones(1, 3))
""",
    # empty-write-version: pow(scalar, x) saves x as torch does, so a write into it is caught
    "pow_scalar_saves_exponent": """
x = torch.zeros(2, 0, requires_grad=True)
y = torch.pow(1.5, x)
with torch.no_grad():
    x[..., 0:1] = torch.zeros(0)
emit(x._version)
y.backward(torch.zeros(2, 0))
""",
    "pow_scalar_exponent_modified": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.pow(2.0, x)
with torch.no_grad():
    x.mul_(2)
y.sum().backward()
""",
    "pow_zero_base_gradient": """
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = torch.pow(0.0, x)
y.sum().backward()
emit(y, x.grad)
""",
    # custom-grad-validation: a 0-d gradient of a 0-d input is a host array like any other
    "custom_zero_dim_gradient": """
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
x = torch.tensor(1.0, requires_grad=True)
y = Scale.apply(x, 0.5)
y2 = Scale.apply(y, -1)
z = y2.round().expand_as(x)
z.backward(torch.tensor(-1.9375))
emit(x.grad)
w = Scale.apply(torch.tensor(2.0, requires_grad=True).sum(), 3.0)
w.backward()
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_engine_defects_as_torch(name):
    compare(PROGRAMS[name], require_torch())
