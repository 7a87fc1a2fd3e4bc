"""Engine defects of issue 13, each compared with torch: hooks that change a gradient's type or
size, ``backward(inputs=[non_leaf])`` and custom Functions that save their own outputs (test
plan B2, C3 and C4 for custom Functions; C6, reentrant backward, is in test_engine_reentrant.py)."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import pytest

import jupyter_autograd as torch

from ._differential import compare
from ._torch import require as require_torch

# ---------------------------------------------------------------- hooks (torch's check_result)
HOOK_PROGRAMS = {
    "tensor_hook_dtype": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g.double())
y.sum().backward()
""",
    "tensor_hook_size": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g[:2])
y.sum().backward()
""",
    "leaf_hook_named_dtype": """
def myhook(g):
    return g.double()
x = torch.ones(3, requires_grad=True)
x.register_hook(myhook)
(x * 2).sum().backward()
""",
    "leaf_hook_size": """
def myhook(g):
    return g.sum()
x = torch.ones(3, requires_grad=True)
x.register_hook(myhook)
(x * 2).sum().backward()
""",
    "hook_returns_int": """
x = torch.ones(3, requires_grad=True)
x.register_hook(lambda g: 5)
(x * 2).sum().backward()
""",
    "hook_without_name": """
import functools
def f(g, k):
    return g.double()
x = torch.ones(3, requires_grad=True)
x.register_hook(functools.partial(f, k=1))
(x * 2).sum().backward()
""",
    "complex_hook_dtype": """
x = torch.ones(3, dtype=torch.complex64, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g.abs())
y.abs().sum().backward()
""",
    "node_hook_size": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: (gi[0][:2], None))
y.sum().backward()
""",
    "node_hook_dtype": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: (gi[0].double(), None))
y.sum().backward()
""",
    "node_hook_count": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: (gi[0],))
y.sum().backward()
""",
    "node_hook_list": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: [gi[0], None])
y.sum().backward()
""",
    "node_hook_fills_none": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: (gi[0], torch.ones(())))
y.sum().backward()
""",
    "node_prehook_size": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_prehook(lambda go: (go[0][:2],))
y.sum().backward()
""",
    "node_prehook_dtype": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.register_prehook(lambda go: (go[0].double(),))
y.sum().backward()
""",
    "accumulate_grad_hook_count": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (go[0],))
y.sum().backward()
""",
    "accumulate_grad_prehook_dtype": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.grad_fn.next_functions[0][0].register_prehook(lambda go: (go[0].double(),))
y.sum().backward()
""",
    "custom_function_node_hook_size": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.ones(3, requires_grad=True)
y = F.apply(x)
y.grad_fn.register_hook(lambda gi, go: (gi[0][:1],))
y.sum().backward()
""",
    "good_hooks_still_work": """
x = torch.ones(3, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g * 2)
y.retain_grad()
x.register_hook(lambda g: g + 1)
y.sum().backward()
emit(x.grad, y.grad)
""",
}


@pytest.mark.parametrize("name", sorted(HOOK_PROGRAMS))
def test_hooks_may_not_change_type_or_size(name):
    compare(HOOK_PROGRAMS[name], require_torch())


def test_hook_messages_without_torch():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.double())
    with pytest.raises(
        RuntimeError,
        match=r"^hook '<lambda>' has changed the type of value "
        r"\(was torch.FloatTensor got torch.DoubleTensor\)$",
    ):
        y.sum().backward()

    def shrink(g):
        return g[:1]

    x = torch.ones(3, requires_grad=True)
    x.register_hook(shrink)
    with pytest.raises(RuntimeError, match=r"^hook 'shrink' has changed the size of value$"):
        (x * 2).sum().backward()


# ---------------------------------------------------------------- backward(inputs=[non-leaf])
INPUTS_PROGRAMS = {
    "non_leaf_input": """
x = torch.ones(3, requires_grad=True)
h = x * 2
loss = (h * h).sum()
loss.backward(inputs=[h], retain_graph=True)
emit(h.retains_grad, h.grad, x.grad)
loss.backward(inputs=[h], retain_graph=True)
emit(h.grad)
""",
    "non_leaf_node_is_run_and_freed": """
x = torch.ones(3, requires_grad=True)
h = x.exp()
loss = (h * h).sum()
loss.backward(inputs=[h])
emit(h.grad)
(h * 3).sum().backward()
""",
    "unused_non_leaf_input": """
x = torch.ones(3, requires_grad=True)
h = x * 2
g = h * 3
(h * h).sum().backward(inputs=[g])
emit(g.grad, h.grad if h.retains_grad else None)
""",
    "leaf_and_non_leaf": """
x = torch.ones(3, requires_grad=True)
e = x.exp()
loss = (e * 2).sum()
loss.backward(inputs=[x, e])
emit(e.grad, x.grad)
""",
    "create_graph": """
x = torch.ones(3, requires_grad=True)
h = x * 2
(h ** 3).sum().backward(inputs=[h], create_graph=True)
emit(h.grad)
""",
    "autograd_backward_single_tensor": """
x = torch.ones(3, requires_grad=True)
h = x * 2
torch.autograd.backward((h * h).sum(), inputs=h)
emit(h.grad)
""",
    "autograd_grad_non_leaf": """
x = torch.ones(3, requires_grad=True)
h = x * 2
emit(torch.autograd.grad((h * h).sum(), [h, x]))
emit(h.retains_grad)
""",
}


@pytest.mark.parametrize("name", sorted(INPUTS_PROGRAMS))
def test_backward_inputs_non_leaf(name):
    compare(INPUTS_PROGRAMS[name], require_torch())


def test_backward_inputs_non_leaf_fills_grad_without_torch():
    x = torch.ones(3, requires_grad=True)
    h = x * 2
    (h * h).sum().backward(inputs=[h])
    assert h.retains_grad and h.grad.tolist() == [4.0, 4.0, 4.0] and x.grad is None


# ---------------------------------------------------------------- custom Functions saving outputs
EXP = """
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out
    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out
"""

SAVE_PROGRAMS = {
    "output_modified_in_place": EXP
    + """
x = torch.ones(3, requires_grad=True)
y = Exp.apply(x)
y.mul_(2)
y.sum().backward()
""",
    "output_modified_under_no_grad": EXP
    + """
x = torch.ones(3, requires_grad=True)
y = Exp.apply(x)
with torch.no_grad():
    y.add_(1)
y.sum().backward()
""",
    "output_modified_through_detach": EXP
    + """
x = torch.ones(3, requires_grad=True)
y = Exp.apply(x)
y.detach().zero_()
y.sum().backward()
""",
    "output_unmodified_double_backward": EXP
    + """
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = Exp.apply(x)
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
emit(g)
emit(torch.autograd.grad(g.sum(), x))
""",
    "saved_output_seen_in_backward": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out, x)
        return out
    @staticmethod
    def backward(ctx, g):
        out, x = ctx.saved_tensors
        emit(out.requires_grad, out.grad_fn is not None, out._version, out is seen[0], x is seen[1])
        return g * out
x = torch.ones(3, requires_grad=True)
seen = [None, x]
y = F.apply(x)
seen[0] = y
y.sum().backward()
emit(x.grad)
""",
    "saved_input_leaf_modified": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x
x = torch.ones(3, requires_grad=True)
y = F.apply(x)
with torch.no_grad():
    x.mul_(2)
y.sum().backward()
""",
    "saved_input_non_leaf_modified": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x
x = torch.ones(3, requires_grad=True)
h = x.exp()
y = F.apply(h)
h.mul_(2)
y.sum().backward()
""",
    "saved_intermediate": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        tmp = x * 3
        ctx.save_for_backward(tmp)
        ctx.tmp = tmp
        return x * 2
    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        emit(t.requires_grad, t.grad_fn, t is ctx.tmp)
        return g * t
x = torch.ones(3, requires_grad=True)
y = F.apply(x)
y.sum().backward(retain_graph=True)
emit(x.grad)
y.grad_fn.tmp.add_(1)
y.sum().backward()
""",
    "saved_non_differentiable_output": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(out, idx)
        return out, idx
    @staticmethod
    def backward(ctx, g, gi):
        out, idx = ctx.saved_tensors
        emit(idx.requires_grad, idx.grad_fn, out.requires_grad)
        return g * out
x = torch.ones(3, requires_grad=True)
y, i = F.apply(x)
y.sum().backward()
emit(x.grad)
""",
    "saved_dirty_output": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2
a = torch.ones(3, requires_grad=True)
h = a * 1
y = F.apply(h)
emit(y is h, y._version)
y.sum().backward()
emit(a.grad)
y2 = F.apply(a.clone())
y2.add_(1)
y2.sum().backward()
""",
    "saved_tensors_after_backward": EXP
    + """
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = Exp.apply(x)
y.sum().backward()
y.grad_fn.saved_tensors
""",
}


@pytest.mark.parametrize("name", sorted(SAVE_PROGRAMS))
def test_custom_function_saved_tensors(name):
    compare(SAVE_PROGRAMS[name], require_torch())


def _exp_function():
    ns = {"torch": torch}
    exec(EXP, ns)  # noqa: S102 - the same class as the torch comparison
    return ns["Exp"]


def test_custom_function_saved_output_version_checked_without_torch():
    y = _exp_function().apply(torch.ones(3, requires_grad=True))
    y.mul_(2)
    with pytest.raises(
        RuntimeError,
        match=r"\[torch.FloatTensor \[3\]\], which is output 0 of "
        r"Exp, is at version 1; expected version 0 instead",
    ):
        y.sum().backward()


@pytest.mark.parametrize("extra", ["plain", "dirty", "non_differentiable"])
def test_c3_custom_function_output_and_node_freed_by_refcount(extra):
    """The output a custom Function saves (or marks) is no reference cycle with its node."""

    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if extra == "dirty":
                x.mul_(2)
                ctx.mark_dirty(x)
                out = x
            else:
                out = x.exp()
            if extra == "non_differentiable":
                idx = x.argmax()
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(out, idx)
                return out, idx
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g, *rest):
            (out, *_) = ctx.saved_tensors
            return g * out

    gc.collect()
    gc.disable()
    try:
        x = torch.ones(1000, requires_grad=True)
        y = F.apply(x * 1 if extra == "dirty" else x)
        if extra == "non_differentiable":
            y = y[0]
        r, n = weakref.ref(y), weakref.ref(y.grad_fn)
        del y
        assert r() is None and n() is None
    finally:
        gc.enable()


HOOKS = ["none", "tensor", "tensor_capturing", "node", "node_capturing", "post_acc"]


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("mode", ["no_backward", "backward", "retain"])
def test_c3_custom_function_lifecycle(hook, mode):
    """Test plan C3's matrix for a custom Function that saves its input and its output."""

    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(x, out)
            return out

        @staticmethod
        def backward(ctx, g):
            _, out = ctx.saved_tensors
            return g * out

    gc.collect()
    gc.disable()
    try:
        x = torch.ones(3, requires_grad=True)
        y = F.apply(x)
        marker = weakref.ref(y.grad_fn)
        out_ref = weakref.ref(y)
        if hook == "tensor":
            y.register_hook(lambda g: g)
        elif hook == "tensor_capturing":
            fn = y.grad_fn
            y.register_hook(lambda g, fn=fn: g)
            del fn
        elif hook == "node":
            y.grad_fn.register_hook(lambda gi, go: None)
        elif hook == "node_capturing":
            fn = y.grad_fn
            fn.register_hook(lambda gi, go, fn=fn: None)
            del fn
        elif hook == "post_acc":
            x.register_post_accumulate_grad_hook(lambda t: None)
        out = y.sum()
        if mode == "backward":
            assert len(y.grad_fn.saved_tensors) == 2  # alive before backward
            out.backward()
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                _ = y.grad_fn.saved_tensors  # freed right after backward
        elif mode == "retain":
            out.backward(retain_graph=True)
            assert len(y.grad_fn.saved_tensors) == 2  # kept
        del out, y
        if hook.endswith("capturing"):
            gc.collect()
        assert marker() is None and out_ref() is None
    finally:
        gc.enable()


def test_c4_custom_function_no_leak():
    Exp = _exp_function()
    w = torch.ones(64, requires_grad=True)

    def step():
        y = w
        for _ in range(50):
            y = Exp.apply(y * 0.01)
        y.sum().backward()
        w.grad = None

    for _ in range(5):
        step()
    gc.collect()
    gc.disable()
    try:
        tracemalloc.start()
        for _ in range(10):
            step()
        first, _ = tracemalloc.get_traced_memory()
        for _ in range(20):
            step()
        cur, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        # with the cyclic GC off the whole time, the steps made no reference cycle at all
        assert gc.collect() == 0
    finally:
        gc.enable()
    # and kept nothing (one step's graph is ~100 KB; allocator free lists move a few tens)
    assert cur - first < 100_000
