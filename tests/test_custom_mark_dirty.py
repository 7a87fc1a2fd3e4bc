"""A custom Function that modifies its input in place (ctx.mark_dirty), as torch 2.13 (the
fuzzer's class custom-mark-dirty): mark_dirty bumps the version before any check, a leaf that
requires grad is refused, outside grad mode the outputs that require grad come back as detached
aliases, and the in-place result type check refuses bool += 1."""

from __future__ import annotations

import pytest

from ._differential import compare
from ._torch import require as require_torch

_FN = """
class AddOneInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g

x = torch.tensor([1.0], requires_grad=True)
"""

PROGRAMS = {
    "leaf_refused_after_bump": _FN
    + """
try:
    AddOneInplace.apply(x)
except RuntimeError as e:
    emit(str(e))
emit(x._version, x)
""",
    "no_grad_gives_detached_aliases": _FN
    + """
y = x * 1
with torch.no_grad():
    z = AddOneInplace.apply(y)
    w = AddOneInplace.apply(x)
emit(z, z is y, y._version, w, w is x, x._version)
with torch.no_grad():
    v = (x * 1)[0:1]
    u = AddOneInplace.apply(v)
emit(u, v._version)
o = torch.ones(1)
emit(AddOneInplace.apply(o) is o, o._version)
""",
    "non_leaf_and_view": _FN
    + """
y = x * 1
z = AddOneInplace.apply(y)
emit(z is y, z.grad_fn, y._version)
v = (x * 1)[0:1]
z = AddOneInplace.apply(v)
emit(z.grad_fn, v._base.grad_fn)
z.sum().backward()
emit(x.grad)
""",
    "bool_plus_one_refused": _FN
    + """
b = torch.tensor([True])
try:
    AddOneInplace.apply(b)
except RuntimeError as e:
    emit(str(e))
for f in (lambda: b.add_(1), lambda: b.mul_(2), lambda: b.add_(True), lambda: torch.tensor([1]).add_(1.5)):
    try:
        emit(f())
    except RuntimeError as e:
        emit(str(e))
""",
    "view_of_leaf_refused": _FN
    + """
z = torch.tensor([[1.0], [2.0]], requires_grad=True)
try:
    AddOneInplace.apply(z.unsqueeze(2))
except RuntimeError as e:
    emit(str(e))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_mark_dirty_as_torch(name):
    compare(PROGRAMS[name], require_torch())
