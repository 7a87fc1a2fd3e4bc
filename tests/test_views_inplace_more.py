"""In-place operations on views, as torch 2.13, continued from test_views_inplace.py: views
made under no_grad or inference mode, views of leaves, custom Functions returning views, and
the other view-producing ops. Every program runs under torch and under jupyter_autograd and must
show the same (values, gradients, grad_fn names, errors, warnings)."""

from __future__ import annotations

import pytest

from ._differential import compare
from ._torch import require as require_torch

PROGRAMS = {
    # ------------------------------------------------------------ views made in no_grad / inference
    "no_grad_view_requires_grad": """
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    v = x[0:2]
emit(v.requires_grad, v.is_leaf, v.grad_fn, v._base is x)
z = v * 2
emit(z.requires_grad, next_names(z.grad_fn))
z.sum().backward()
emit(v.grad, x.grad)
""",
    "no_grad_view_is_no_backward_root": """
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    v = x.view(-1)
emit(v.requires_grad, v.is_leaf, v.grad_fn)
v.backward(torch.ones(3))
""",
    "no_grad_view_in_autograd_grad": """
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    v = x[1:]
torch.autograd.grad(v, [x], torch.ones(2))
""",
    "no_grad_view_inplace": """
y = torch.ones(3, requires_grad=True) * 2
with torch.no_grad():
    w = y[0:2]
w.mul_(2)
""",
    "no_grad_view_of_leaf_inplace": """
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    w = x[0:2]
w.mul_(2)
""",
    "no_grad_view_base_modified": """
y = torch.ones(3, requires_grad=True) * 2
with torch.no_grad():
    w = y[0:2]
y.mul_(2)
emit(w._version, w.requires_grad)
emit(w.grad_fn)
""",
    "no_grad_view_and_inplace_both_in_no_grad": """
y = torch.ones(3, requires_grad=True) * 2
with torch.no_grad():
    w = y[0:2]
    w.mul_(2)
emit(y, y.grad_fn, y._version)
y.sum().backward()
""",
    "view_of_no_grad_view": """
y = torch.ones(3, requires_grad=True) * 2
with torch.no_grad():
    w = y[0:2]
u = w[0:1]
emit(u.requires_grad, u.grad_fn)
u.mul_(3)
""",
    "inference_mode_view_inplace": """
x = torch.ones(3, requires_grad=True)
y = x * 2
with torch.inference_mode():
    v = y[0:2]
emit(v.requires_grad, v.is_inference())
v.mul_(2)
""",
    "view_of_rg_leaf_base_modified_under_no_grad": """
w = torch.ones(3, requires_grad=True)
v = w[0:2]
with torch.no_grad():
    w.add_(1)
emit(v.requires_grad, v.grad_fn, next_names(v.grad_fn))
(v * 2).sum().backward()
emit(w.grad)
""",
    "view_of_plain_base_then_base_requires_grad": """
x = torch.ones(3)
v = x[0:2]
x.requires_grad_()
emit(v.requires_grad, v.grad_fn)
z = v * 2
emit(next_names(z.grad_fn))
z.sum().backward()
emit(x.grad, v.grad)
""",
    "view_of_plain_base_requires_grad_itself": """
x = torch.ones(3)
v = x[0:2]
v.requires_grad_()
emit(v.requires_grad, v.grad_fn, v.is_leaf)
(v * 2).sum().backward()
emit(x.grad, v.grad)
v.mul_(2)
""",
    # ------------------------------------------------------------ leaves, overlap
    "leaf_setitem": """
x = torch.ones(3, requires_grad=True)
x[0] = 5
""",
    "leaf_add_": """
x = torch.ones(3, requires_grad=True)
x.add_(5)
""",
    "view_of_leaf_mul_": """
x = torch.ones(3, requires_grad=True)
x[1:].mul_(5)
""",
    "view_of_view_of_leaf": """
x = torch.ones(3, 3, requires_grad=True)
x[1:][0].add_(1)
""",
    "leaf_inplace_under_no_grad": """
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    x[0] = 5
    x[1:].mul_(2)
emit(x, x._version)
""",
    "expand_inplace": """
x = torch.ones(3)
e = x.expand(2, 3)
e.add_(1)
""",
    "expand_inplace_requires_grad": """
x = torch.ones(3, requires_grad=True) * 1
e = x.expand(2, 3)
e.add_(1)
""",
    "expand_setitem_row_writes_through": """
x = torch.ones(3)
e = x.expand(2, 3)
e[0] = 5
emit(x, e, x._version)
""",
    "expand_setitem_column_overlaps": """
x = torch.ones(3)
e = x.expand(2, 3)
e[:, 0] = 5
""",
    "expand_fill_zero_allowed": """
x = torch.ones(1)
x.expand(4).fill_(2)
emit(x)
x.expand(4).zero_()
emit(x, x._version)
""",
    "expand_index_put_and_masked_fill_warn": """
x = torch.ones(1)
e = x.expand(4)
e[[0, 1]] = 5
emit(x)
e.masked_fill_(e > 0, 2)
emit(x, x._version)
""",
    "expand_other_inplace_ops_refused": """
for k in ["e.fill_(torch.tensor(5.))", "e.copy_(torch.ones(4))", "e.mul_(2)", "e.uniform_()",
          "e.clamp_(0, 1)", "e[:] = 5", "e[...] = 5", "e[1:] = 2", "e.relu_()"]:
    x = torch.ones(1)
    e = x.expand(4)
    try:
        exec(k)
    except RuntimeError as err:
        emit(k, str(err))
    emit(x)
""",
    "expand_of_leaf_requires_grad": """
x = torch.ones(3, requires_grad=True)
x.expand(2, 3).add_(1)
""",
    "detach_view_in_place": """
x = torch.ones(3, requires_grad=True) * 2
v = x[0:2]
v.detach_()
""",
    "detach_non_view_in_place": """
x = torch.ones(3, requires_grad=True) * 2
x.detach_()
emit(x.requires_grad, x.grad_fn, x.is_leaf)
""",
    # ------------------------------------------------------------ custom Functions and views
    "custom_function_returns_input": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(3, requires_grad=True)
h = x * 2
y = F.apply(h)
emit(y._base is h, y.grad_fn, y is h, y._is_view())
y.mul_(2)
""",
    "custom_function_returns_leaf_input": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(3, requires_grad=True)
y = F.apply(x)
emit(y._base is x, y.grad_fn, y._is_view())
y.mul_(2)
""",
    "custom_function_returns_view": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[0:2]
    @staticmethod
    def backward(ctx, g):
        return torch.cat([g, g.new_zeros(1)])
x = torch.ones(3, requires_grad=True)
h = x * 2
y = F.apply(h)
emit(y._base is h, y.grad_fn, y._is_view())
y.sum().backward()
emit(x.grad)
y.mul_(2)
""",
    "custom_function_view_base_modified": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[0:2]
    @staticmethod
    def backward(ctx, g):
        return torch.cat([g, g.new_zeros(1)])
x = torch.ones(3, requires_grad=True)
h = x * 2
y = F.apply(h)
h.mul_(2)
emit(y.grad_fn)
""",
    "custom_function_view_without_grad": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[0:2]
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(3)
y = F.apply(x)
emit(y._base is x, y.grad_fn, y.requires_grad)
y.mul_(2)
emit(x)
""",
    "custom_function_dirty_view": """
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
a = torch.ones(4, requires_grad=True)
y = a * 1
v = y[1:3]
r = Double.apply(v)
emit(r is v, y, y.grad_fn, next_names(y.grad_fn), v.grad_fn)
(y * y).sum().backward()
emit(a.grad)
""",
    "custom_function_dirty_leaf": """
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
Double.apply(torch.ones(2, requires_grad=True))
""",
    # ------------------------------------------------------------ hooks and retain_grad on views
    "retain_grad_moves_with_view": """
x = torch.ones(3, requires_grad=True)
y = x * 2
v = y[0:2]
v.retain_grad()
v.mul_(3)
emit(v.grad_fn, v.retains_grad)
y.sum().backward()
emit(v.grad, x.grad)
""",
    "retain_grad_moves_on_base": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.retain_grad()
y[0:2].mul_(3)
(y * y).sum().backward()
emit(y.grad, x.grad)
""",
    "retain_grad_on_non_view_inplace": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.retain_grad()
y.mul_(3)
(y * y).sum().backward()
emit(y.grad, x.grad)
""",
    "tensor_hook_on_view_before_inplace": """
x = torch.ones(3, requires_grad=True)
y = x * 2
v = y[0:2]
v.register_hook(lambda g: emit("hook", g))
v.mul_(3)
y.sum().backward()
emit(x.grad)
""",
    "tensor_hook_on_view_after_inplace": """
x = torch.ones(3, requires_grad=True)
y = x * 2
v = y[0:2]
v.mul_(3)
v.register_hook(lambda g: emit("hook", g))
(v * 1).sum().backward(retain_graph=True)
emit(x.grad)
""",
    # ------------------------------------------------------------ higher order, autograd.grad
    "double_backward_through_copyslices": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y[1:].mul_(x[1:])
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
emit(g)
emit(torch.autograd.grad(g.sum(), x))
""",
    "double_backward_through_regenerated_view": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
v = y[0:2]
y[2] = 0.0
(g,) = torch.autograd.grad((v ** 3).sum(), x, create_graph=True)
emit(g)
emit(torch.autograd.grad(g.sum(), x))
""",
    "autograd_grad_wrt_view_input": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
v = y[1:]
v.mul_(3)
emit(torch.autograd.grad(y.sum(), [x, y]))
""",
    "retain_graph_twice": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y[0:2].mul_(2)
y.sum().backward(retain_graph=True)
y.sum().backward()
emit(x.grad)
""",
    "backward_twice_without_retain": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y[0:2].mul_(x[0:2])
y.sum().backward()
y.sum().backward()
""",
    "integer_views": """
x = torch.arange(6).reshape(2, 3)
v = x[1]
v[0] = 100
x[0, 1:] += 7
emit(x, v, x._version, v._version)
""",
    "zero_size_view": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y[3:].mul_(2)
emit(y.grad_fn)
y.sum().backward()
emit(x.grad)
""",
    "strided_base": """
x = torch.arange(12.0).reshape(3, 4).requires_grad_()
y = (x * 1).t()
z = y.contiguous()
v = y[1:, ::2]
v.mul_(-1)
emit(y, z)
(y ** 2).sum().backward()
emit(x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_views_and_inplace_as_torch(name):
    compare(PROGRAMS[name], require_torch())
