"""In-place writes whose source shares memory with the destination, Tensor.index_put_ and the
in-place view ops unsqueeze_/squeeze_, as torch 2.13 (the fuzzer's class memory-overlap-checks):
copy_ and binary in-place ops refuse a source that partly overlaps the destination (a full
overlap, x.add_(x), is allowed); index_put_ (x[idx] = v) refuses any overlap; strided
(non-dense) operands are not checked, as torch's TooHard."""

from __future__ import annotations

import pytest

import jupyter_autograd as torch

from ._differential import compare
from ._torch import require as require_torch

OVERLAP = [
    "x = torch.ones(2, 2); x[torch.tensor([1, 0])] = x",
    "x = torch.ones(2, 2); x[torch.tensor([1, 0])] = x[0]",
    "x = torch.ones(2, 2); x[0] = x[1]",
    "x = torch.ones(2, 2); x[0] = x[0]",
    "x = torch.arange(4.); x[1:] = x[:3]",
    "x = torch.arange(4.); x[:] = x.flip(0)",
    "x = torch.ones(2, 2); x[torch.tensor([True, False])] = x[1]",
    "x = torch.ones(2, 2); x[torch.tensor([True, False])] = x[:1]",
    "x = torch.ones(3); x.add_(x)",
    "x = torch.ones(3); x.copy_(x)",
    "x = torch.arange(4.); x[1:].copy_(x[:3])",
    "x = torch.arange(4.); x.add_(x.flip(0))",
    "x = torch.ones(2, 2); x.t().add_(x)",
    "x = torch.arange(6.).view(2, 3); x[:, :2].copy_(x[:, 1:])",
    "x = torch.arange(6.).view(2, 3); x[0].mul_(x[:, 0].sum())",
    "x = torch.ones(2, 3); x[:, torch.tensor([0, 1])] = x[:, 1:]",
    "x = torch.ones(2); x[torch.tensor([0, 0])] = torch.tensor([1., 2.])",
    "x = torch.ones(3).expand(2, 3); x.index_put_((torch.tensor([0]),), torch.tensor(2.))",
    "x = torch.arange(4., requires_grad=True) * 1; x[1:].mul_(x[:3])",
    "x = torch.zeros(2, 0).expand(2, 2, 0).detach(); x.add_(torch.ones(1, requires_grad=True))",
    # the same memory through a size-1 dim (fuzz seed 402214): torch's expand gives the new
    # dim the stride unsqueeze gives, so the two are a full overlap, not a partial one
    "x = torch.ones(2, 2, 2); x[None] = x.squeeze(-1)",
    "x = torch.ones(2, 2, 2); x[0:1] = x[0]",
    "x = torch.ones(2, 2, 2); x.unsqueeze(0).copy_(x)",
]

PROGRAMS = {
    "index_put_": """
x = torch.ones(3, requires_grad=True)
y = x * 1
emit(y.index_put_((torch.tensor([0]),), torch.tensor(5.)), y.grad_fn)
z = torch.zeros(3)
emit(z.index_put_((torch.tensor([0, 0]),), torch.tensor([1., 2.]), accumulate=True))
z = torch.zeros(3)
emit(z.index_put((torch.tensor([1]),), torch.tensor(3.)), z)
w = torch.zeros(3).index_put((torch.tensor([0, 0]),), x[:2], accumulate=True)
emit(w)
w.sum().backward()
emit(x.grad)
m = torch.zeros(2, 3, requires_grad=True) * 1
m.index_put_((torch.tensor([1]), torch.tensor([2])), x[0], accumulate=True)
m.sum().backward()
emit(m, x.grad)
""",
    "unsqueeze_squeeze_": """
x = torch.ones(2, 3, requires_grad=True)
y = x * 2
v0 = y._version
emit(y.unsqueeze_(0).shape, y.grad_fn, y._version - v0, y.grad_fn._saved_dim)
emit(y.squeeze_(0).shape, y.grad_fn, y._version - v0)
emit(y.unsqueeze_(-1).squeeze_().shape, y.grad_fn)
y.sum().backward()
emit(x.grad)
z = torch.ones(1, 3)
emit(z.squeeze_().shape, z.squeeze_(0).shape, z._version)
w = torch.ones(1, 3, requires_grad=True) * 1
emit(w.squeeze_((0,)).shape, w.grad_fn)
b = torch.ones(2, 3) * 1
v = b[0]
emit(v.unsqueeze_(0), b.shape, v._base is b)
torch.ones(3).unsqueeze_(5)
""",
    "unsqueeze_of_leaf_refused": """
torch.ones(2, requires_grad=True).unsqueeze_(0)
""",
}


@pytest.mark.parametrize("src", OVERLAP)
def test_overlap_as_torch(src):
    compare(src + "\nemit(x)", require_torch())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_index_put_and_view_inplace_as_torch(name):
    compare(PROGRAMS[name], require_torch())


def test_partial_overlap_refused_without_torch():
    x = torch.arange(4.0)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        x[1:] = x[:3]
    x.add_(x)  # a full overlap is allowed
    assert x.tolist() == [0.0, 2.0, 4.0, 6.0]
