"""In-place operations on views, as torch 2.13 (issue 13 item 3): CopySlices rebasing of the
base's history, regenerated view histories (AsStridedBackward0), the version counter shared by a
base and its views, and torch's errors where an in-place change cannot be tracked. Every program
runs under torch and under jupyter_autograd and must show the same (values, gradients, grad_fn
names, errors, warnings)."""

from __future__ import annotations

import gc
import re
import weakref

import pytest

import jupyter_autograd as torch
from jupyter_autograd import _errors as E

from ._differential import compare
from ._torch import require as require_torch

PROGRAMS = {
    # ------------------------------------------------------------ in-place on a view of a non-leaf
    "setitem_int_scalar": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y[0] = 5
emit(y, y.grad_fn, next_names(y.grad_fn))
y.sum().backward()
emit(x.grad)
""",
    "column_mul_": """
x = torch.ones(2, 3, requires_grad=True)
y = x * 2
v = y[:, 1]
emit(v, v._base is y, v._version, y._version)
v.mul_(2)
emit(v, next_names(v.grad_fn), y.grad_fn, next_names(y.grad_fn), v._version, y._version)
(y * y).sum().backward()
emit(x.grad)
""",
    "sibling_view_regenerated": """
x = torch.ones(2, 3, requires_grad=True)
y = x * 2
v = y[:, 1]
w = y[0]
v.mul_(2)
emit(w.grad_fn, next_names(w.grad_fn), w._version)
(w * 1).sum().backward()
emit(x.grad)
""",
    "base_inplace_seen_through_view": """
x = torch.ones(2, 3, requires_grad=True)
y = x * 2
w = y[0]
y.mul_(3)
emit(w, w.grad_fn, next_names(w.grad_fn), w._version)
w.sum().backward()
emit(x.grad)
""",
    "view_of_view_exp_": """
x = torch.ones(4, 3, requires_grad=True)
y = x * 2
v = y[1:3]
u = v[:, 0]
u.exp_()
emit(u.grad_fn, v.grad_fn, y.grad_fn, next_names(y.grad_fn), next_names(v.grad_fn))
(v * v).sum().backward()
emit(x.grad)
""",
    "inplace_on_view_twice": """
x = torch.ones(4, requires_grad=True)
y = x * 2
v = y[1:3]
v.mul_(3)
v.add_(1)
emit(v.grad_fn, y.grad_fn, next_names(y.grad_fn))
(y * y).sum().backward()
emit(x.grad)
""",
    "view_with_requires_grad_operand": """
x = torch.ones(4, requires_grad=True)
w = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * 2
y[1:3].add_(w * w)
emit(y, next_names(y.grad_fn))
(y * y).sum().backward()
emit(x.grad, w.grad)
""",
    "view_self_operand": """
x = torch.ones(4, requires_grad=True)
y = x * 2
v = y[1:3]
v.mul_(v)
emit(y, next_names(y.grad_fn))
y.sum().backward()
emit(x.grad)
""",
    "micrograd_more_ops": """
a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
c = a + b
d = a * b + b**3
c += c + 1
c += 1 + c + (-a)
d += d * 2 + (b + a).relu()
d += 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g += 10.0 / f
g.backward()
emit(g, a.grad, b.grad)
""",
    "transpose_view_inplace": """
x = torch.arange(6.0).reshape(2, 3).requires_grad_()
y = x * 1
t = y.t()
t[0].mul_(10)
emit(y, y.grad_fn, t.grad_fn)
(y ** 2).sum().backward()
emit(x.grad)
""",
    "reshape_view_inplace": """
x = torch.arange(6.0, requires_grad=True)
y = x * 1
v = y.view(2, 3)
v[1, 1:] = torch.tensor([7.0, 8.0])
emit(y, next_names(y.grad_fn))
(y ** 2).sum().backward()
emit(x.grad)
""",
    "squeeze_unsqueeze_views": """
x = torch.ones(3, 1, requires_grad=True)
y = x * 3
s = y.squeeze(1)
s[2] = 0.0
u = y.unsqueeze(0)
emit(u.grad_fn, s.grad_fn, y.grad_fn)
(y * u[0]).sum().backward()
emit(x.grad)
""",
    "setitem_requires_grad_value_into_plain": """
x = torch.zeros(3)
w = torch.ones(2, requires_grad=True)
v = x[0:2]
u = x[1:]
x[0:2] = w
emit(x, x.grad_fn, next_names(x.grad_fn), x.requires_grad, x.is_leaf)
emit(v.requires_grad, v.grad_fn, u.requires_grad, u.grad_fn)
(u * 3).sum().backward()
emit(w.grad)
""",
    "copy_into_view_of_plain": """
x = torch.zeros(3)
w = torch.ones(2, requires_grad=True)
x[0:2].copy_(w)
emit(x, next_names(x.grad_fn))
x.sum().backward()
emit(w.grad)
""",
    "fill_zero_setitem_names": """
y = torch.ones(3, requires_grad=True) * 2
y[0:2].fill_(3)
emit(y.grad_fn, next_names(y.grad_fn))
y[0:2].zero_()
emit(y.grad_fn, next_names(y.grad_fn))
y[1] = 7.0
emit(y.grad_fn, next_names(y.grad_fn))
""",
    "advanced_setitem": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y[[0, 1]] = 5
emit(y.grad_fn, next_names(y.grad_fn))
y[y > 3] = 0
emit(y.grad_fn, next_names(y.grad_fn))
y[torch.tensor([0, 2])] = torch.tensor([1.0, 2.0])
emit(y, y.grad_fn, next_names(y.grad_fn))
(y * x).sum().backward()
emit(x.grad)
""",
    "setitem_key_forms": """
y = torch.ones(3, requires_grad=True) * 2
m = torch.ones(3, 4, requires_grad=True) * 2
for k in ["y[...]", "y[:]", "y[0:3]", "m[:, :]", "m[..., :]", "m[None]", "m[:, None]", "m[0]",
          "m[0, :]", "m[:, 0]", "m[1:, 2]"]:
    exec(k + " = 5.0")
    t = y if k[0] == "y" else m
    emit(k, t.grad_fn, next_names(t.grad_fn))
emit(y, m)
""",
    "getitem_key_forms": """
y = torch.ones(3, requires_grad=True) * 2
m = torch.ones(3, 4, requires_grad=True) * 2
for k in ["y[:]", "y[0:3]", "y[::1]", "y[...]", "y[..., :]", "m[:, :]", "m[:]", "m[:, 0:4]",
          "m[..., 1:]", "m[:, None]", "m[None]", "m[0, :]", "y[None, ...]", "m[:, ...]"]:
    emit(k, eval(k).grad_fn)
""",
    "setitem_broadcast_values": """
y = torch.ones(3, 2, requires_grad=True) * 2
w = torch.ones(2, requires_grad=True)
y[0:2] = w
emit(next_names(y.grad_fn), next_names(y.grad_fn.next_functions[1][0]))
y[0:2] = torch.ones(1, 2, requires_grad=True)
emit(next_names(y.grad_fn), next_names(y.grad_fn.next_functions[1][0]))
y[0] = torch.ones(1, 1, 2, requires_grad=True)
emit(next_names(y.grad_fn), next_names(y.grad_fn.next_functions[1][0]))
y[0] = torch.ones((), requires_grad=True)
emit(y.grad_fn, next_names(y.grad_fn))
y[0, 0] = torch.ones((), requires_grad=True)
emit(y.grad_fn, next_names(y.grad_fn))
y[0, 0] = torch.ones((1,), requires_grad=True)
emit(y.grad_fn, next_names(y.grad_fn))
y[...] = torch.ones(2, requires_grad=True)
emit(y.grad_fn, next_names(y.grad_fn))
y[True] = 2
emit(y.grad_fn, next_names(y.grad_fn))
y[False] = 3
emit(y, y.grad_fn)
y.sum().backward()
emit(w.grad)
""",
    "inplace_names_on_non_views": """
y = torch.ones(3, requires_grad=True) * 2
y.fill_(3)
emit(y.grad_fn, next_names(y.grad_fn))
y.zero_()
emit(y.grad_fn, next_names(y.grad_fn))
y.fill_(torch.tensor(2.0))
emit(y.grad_fn, next_names(y.grad_fn))
y.copy_(torch.ones(3))
emit(y.grad_fn, next_names(y.grad_fn))
y.copy_(torch.ones(1, requires_grad=True))
emit(y.grad_fn, next_names(y.grad_fn))
y.copy_(torch.ones(3, dtype=torch.float64, requires_grad=True))
emit(y.grad_fn, next_names(y.grad_fn))
y.clamp_(0, 1)
emit(y.grad_fn, next_names(y.grad_fn))
y.masked_fill_(y > 0, 1.0)
emit(y, y.grad_fn, next_names(y.grad_fn))
""",
    "copy_gradients": """
a = torch.ones(3, requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
c = torch.tensor([4.0], requires_grad=True)
y = a * 2
y.copy_(b * b)
(y * 3).sum().backward()
emit(a.grad, b.grad)
z = a * 1
z[1:].copy_(c)
(z * z).sum().backward()
emit(a.grad, c.grad)
""",
    "fill_tensor_gradient": """
a = torch.ones(4, requires_grad=True)
v = torch.tensor(3.0, requires_grad=True)
y = a * 2
y[1:3].fill_(v)
(y * y).sum().backward()
emit(y, a.grad, v.grad)
""",
    "random_inplace_names": """
for k in ["uniform_()", "normal_()", "bernoulli_(0.5)", "bernoulli_(torch.full((3,), 0.5))",
          "random_(0, 5)", "random_(5)", "random_()", "exponential_()", "cauchy_()",
          "log_normal_()", "geometric_(0.5)"]:
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    eval("y." + k)
    emit(k, y.grad_fn, next_names(y.grad_fn), y._version)
    y.sum().backward()
    emit(x.grad)
    y = x * 2
    v = y[:]
    eval("v." + k)
    emit(y.grad_fn, v.grad_fn)
x = torch.ones(3, requires_grad=True)
x.uniform_()
""",
    # ------------------------------------------------------------ version counter
    "version_shared_base_views_detach": """
x = torch.ones(4, requires_grad=True)
y = x * 2
v = y[1:]
u = v[1:]
d = y.detach()
emit(y._version, v._version, u._version, d._version)
u.add_(1)
emit(y._version, v._version, u._version, d._version)
d.mul_(2)
emit(y._version, v._version, u._version, d._version, y)
""",
    "detach_view_modifies_saved": """
x = torch.ones(3, requires_grad=True)
y = x * 2
d = y.detach()
emit(d._base, d._is_view(), d._version)
z = y ** 2
d.zero_()
emit(y._version)
z.sum().backward()
""",
    "saved_view_then_base_inplace": """
x = torch.ones(4, requires_grad=True)
y = x * 2
v = y[1:3]
z = v * v
y.mul_(2)
z.sum().backward()
""",
    "saved_base_then_view_inplace": """
x = torch.ones(4, requires_grad=True)
y = x.exp()
z = y * y
y[0] = 1.0
z.sum().backward()
""",
    "result_saved_then_modified_in_place": """
x = torch.ones(3, requires_grad=True)
y = x * 1
y.exp_()
y.mul_(2)
y.sum().backward()
""",
    "result_saved_in_place_on_view": """
x = torch.ones(4, requires_grad=True)
y = x * 1
v = y[1:]
v.exp_()
emit(y, next_names(y.grad_fn))
y.sum().backward()
emit(x.grad)
y2 = x * 1
v2 = y2[1:]
v2.exp_()
y2[2] = 0.0
y2.sum().backward()
""",
    # ------------------------------------------------------------ multi-output views
    "unbind_inplace": """
y = torch.ones(2, 3, requires_grad=True) * 2
a, b = y.unbind()
emit(a.grad_fn, a._base is y, a._version)
a.mul_(2)
""",
    "unbind_base_modified_then_grad_fn": """
y = torch.ones(2, 3, requires_grad=True) * 2
a, b = y.unbind()
y.mul_(2)
emit(y)
emit(b.grad_fn)
""",
    "unbind_base_modified_then_used": """
y = torch.ones(2, 3, requires_grad=True) * 2
a, b = y.unbind()
y.mul_(2)
z = a * 2
""",
    "split_inplace": """
y = torch.ones(4, requires_grad=True) * 2
a, b = y.split(2)
b.add_(1)
""",
    "split_with_sizes_inplace": """
y = torch.ones(4, requires_grad=True) * 2
a, b = y.split([1, 3])
b.add_(1)
""",
    "chunk_inplace": """
y = torch.ones(4, requires_grad=True) * 2
a, b = y.chunk(2)
a.add_(1)
""",
    "unbind_without_grad_writes_through": """
y = torch.zeros(2, 3)
a, b = y.unbind()
a.add_(1)
b[1] = 5
emit(y, a._version, y._version)
""",
    "unbind_leaf": """
x = torch.zeros(2, 3, requires_grad=True)
a, b = x.unbind()
a.add_(1)
""",
    "unbind_under_no_grad_then_inplace": """
y = torch.ones(2, 3, requires_grad=True) * 2
with torch.no_grad():
    a, b = y.unbind()
a.add_(1)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_views_and_inplace_as_torch(name):
    compare(PROGRAMS[name], require_torch())


# ---------------------------------------------------------------- without torch
def test_setitem_on_non_leaf_rebases_history():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y[0] = 5
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert [type(f).__name__ if f else None for f, _ in y.grad_fn.next_functions] == [
        "MulBackward0",
        None,
    ]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def test_column_inplace_gradient_and_view_history():
    x = torch.ones(2, 3, requires_grad=True)
    y = x * 2
    v = y[:, 1]
    v.mul_(2)
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert v.grad_fn._saved_size == (2,) and v.grad_fn._saved_stride == (3,)
    assert v.grad_fn._saved_storage_offset == 1
    y.sum().backward()
    assert x.grad.tolist() == [[2.0, 4.0, 2.0], [2.0, 4.0, 2.0]]


def test_micrograd_program_without_torch():
    a = torch.tensor([-4.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    g = (c - d) ** 2 / 2.0
    g += 10.0 / (c - d) ** 2
    g.backward()
    assert abs(a.grad.item() - 138.83381924198252) < 1e-9
    assert abs(b.grad.item() - 645.5772594752186) < 1e-9


def test_error_messages_without_torch():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^" + re.escape(E.ERR_VIEW_LEAF_INPLACE) + "$"):
        x[0] = 5
    e = torch.ones(3).expand(2, 3)
    with pytest.raises(
        RuntimeError,
        match=r"^unsupported operation: more than one element of the "
        r"written-to tensor refers to a single memory location\. Please clone\(\) "
        r"the tensor before performing the operation\.$",
    ):
        e.add_(1)
    a, _ = (torch.ones(2, 3, requires_grad=True) * 2).unbind()
    with pytest.raises(
        RuntimeError,
        match=r"^Output 0 of Unbind is a view and is being modified "
        "inplace. This view is the output of a function that returns multiple "
        "views.",
    ):
        a.mul_(2)
    y = torch.ones(3, requires_grad=True) * 2
    with torch.no_grad():
        w = y[0:2]
    with pytest.raises(
        RuntimeError,
        match="^A view was created in no_grad mode and is being "
        "modified inplace with grad mode enabled.",
    ):
        w.mul_(2)


def test_c3_inplace_on_view_frees_graph_by_refcount():
    """CopySlices, its wrapped node and the regenerated view histories form no cycle."""
    gc.collect()
    gc.disable()
    try:
        x = torch.ones(1000, requires_grad=True)
        y = x * 2
        v = y[10:20]
        v.mul_(3)
        w = y[0:5]
        y[100:200] = 0.0
        (w * 1).sum()
        refs = [
            weakref.ref(y.grad_fn),
            weakref.ref(v.grad_fn),
            weakref.ref(w.grad_fn),
            weakref.ref(y),
        ]
        y.sum().backward()
        del y, v, w
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


def test_c4_views_and_inplace_leave_nothing_behind():
    w = torch.ones(32, requires_grad=True)

    def step():
        y = w * 1
        for i in range(8):
            y[i * 4 : (i + 1) * 4].mul_(1.01)
            v = y[::2]
            y[0] = v.sum() * 0.0
        (y * y).sum().backward()
        w.grad = None

    for _ in range(3):
        step()
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            step()
        assert gc.collect() == 0  # no reference cycle was made
    finally:
        gc.enable()
