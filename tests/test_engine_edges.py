"""``grad_fn.next_functions`` as torch 2.13 (the fuzzer's class nondiff-edges): inputs a row
marks non-differentiable (where's condition, embedding's indices, a loss's target) have no
edge; cat/stack keep ``(None, 0)`` for inputs that need no gradient, and legacy empty 1-D
tensors stay inputs of cat's node (the result requires grad through them)."""

from __future__ import annotations

import pytest

from ._differential import compare
from ._torch import require as require_torch

PROGRAMS = {
    "no_edge_for_nondifferentiable_inputs": """
x = torch.tensor([1.0, -2.0], requires_grad=True)
c = torch.ones(2)
emit(next_names(torch.where(x > 0, x, x * 2).grad_fn), next_names(torch.where(x > 0, x, c).grad_fn),
     next_names(torch.where(x > 0, c, x).grad_fn))
w = torch.ones(3, 2, requires_grad=True)
emit(next_names(torch.nn.functional.embedding(torch.tensor([0, 1]), w).grad_fn))
emit(next_names(torch.nn.functional.cross_entropy(torch.ones(2, 3, requires_grad=True), torch.tensor([0, 1])).grad_fn))
emit(next_names(torch.nn.functional.nll_loss(torch.ones(2, 3, requires_grad=True), torch.tensor([0, 1])).grad_fn))
emit(next_names(x.gather(0, torch.tensor([0])).grad_fn), next_names(x[torch.tensor([0])].grad_fn))
torch.where(x > 0, x, c).sum().backward()
emit(x.grad)
""",
    "cat_keeps_every_input": """
x = torch.tensor([1.0, -2.0], requires_grad=True)
c = torch.ones(2)
emit(next_names(torch.cat([x, c]).grad_fn), next_names(torch.stack([c, x]).grad_fn))
e0 = torch.zeros(0, requires_grad=True)
y = torch.ones(2, 2, requires_grad=True)
r = torch.cat([e0, y])
emit(r, next_names(r.grad_fn))
r.sum().backward()
emit(e0.grad, y.grad)
r = torch.cat([y, e0], 1)
emit(next_names(r.grad_fn), r.grad_fn._saved_dim)
emit(torch.cat([e0, torch.ones(2, 2)]).requires_grad)
emit(str(torch.cat([torch.zeros(0), torch.zeros(0, dtype=torch.float64)]).dtype))
""",
    "cat_of_empty_inputs_only": """
x = torch.zeros(0, requires_grad=True)
r = torch.cat([x, x, torch.zeros(0)])
emit(r, next_names(r.grad_fn))
r.sum().backward()
emit(x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_edges_as_torch(name):
    compare(PROGRAMS[name], require_torch())
