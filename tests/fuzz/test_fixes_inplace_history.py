"""What an in-place change does to a tensor's history, its retained ``.grad`` and its checks, on
every path that rebases a history: built-in in-place ops, ``x[...] = v``, ``copy_``, and custom
Functions that ``ctx.mark_dirty`` an input, on tensors and on views of every kind (including
empty ones), compared with torch (fuzz class custom-mark-dirty)."""

from __future__ import annotations

import itertools

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch


def _functions(lib):
    class AddOneInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a.add_(1)

        @staticmethod
        def backward(ctx, g):
            return g

    class AddOneTwoOutputs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a.add_(1), a * 2

        @staticmethod
        def backward(ctx, g, h):
            return g + 2 * h

    return AddOneInplace, AddOneTwoOutputs


VIEWS = {
    "none": None,
    "row": lambda t: t[0],
    "column": lambda t: t[:, 1],
    "t": lambda t: t.t(),
    "view": lambda t: t.view(4),
    "diagonal": lambda t: t.diagonal(),
    "unbind": lambda t: t.unbind(0)[1],
    "empty": lambda t: t[:, :0],
    "empty-rows": lambda t: t[2:],
    "narrow0": lambda t: t.narrow(1, 0, 0),
    "empty-view": lambda t: t[:0].view(0, 3),
    "detached-view": lambda t: t.detach()[0].requires_grad_(),
}
OPS = {
    "custom": lambda lib, fns, v: fns[0].apply(v),
    "custom-two": lambda lib, fns, v: fns[1].apply(v)[0],
    "add_": lambda lib, fns, v: v.add_(1),
    "mul_w": lambda lib, fns, v: v.mul_(lib.ones(1, requires_grad=True)),
    "zero_": lambda lib, fns, v: v.zero_(),
    "copy_": lambda lib, fns, v: v.copy_(lib.zeros(v.shape)),
    "setitem": lambda lib, fns, v: v.__setitem__(..., 3.0),
}


def _info(t):
    try:
        g = t.grad
        return [
            None if g is None else g.tolist(),
            t.grad_fn.name() if t.grad_fn is not None else None,
            t.retains_grad,
            t.requires_grad,
            t.is_leaf,
        ]
    except RuntimeError as e:
        return str(e)


def _program(lib, view, op):
    """A non-leaf (and its view) that retain grad, a backward, the in-place change, and what
    the tensors hold and what a second backward gives."""
    fns = _functions(lib)
    x = lib.ones(2, 2, requires_grad=True)
    t = x * 2
    v = VIEWS[view](t) if VIEWS[view] else t
    t.retain_grad()
    if v is not t and v.grad_fn is not None:
        v.retain_grad()
    (t.sum() + (v.sum() if v is not t else 0)).backward(retain_graph=True)
    try:
        OPS[op](lib, fns, v)
        err = None
    except RuntimeError as e:
        err = str(e)
    out = [err, _info(t), _info(v)]
    try:
        (t.sum() + v.sum()).backward(retain_graph=True)
        out += [_info(t), _info(v), x.grad.tolist()]
    except RuntimeError as e:
        out.append(str(e))
    return out


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_inplace_rebase_keeps_or_drops_grad_as_torch(view):
    """torch's _wrap_outputs drops the .grad of a tensor a custom Function marks dirty (its
    old value belongs to the history it no longer has); a built-in in-place op keeps it. The
    checks come in torch's order: leaf, several outputs with a dirty view, then the view's own
    (made in no_grad mode, by a function returning several views, of a leaf)."""
    torch = require_torch()
    bad = [
        (op, a, b)
        for op in OPS
        for a, b in [(_program(torch, view, op), _program(ja, view, op))]
        if a != b
    ]
    assert not bad, bad


def test_mark_dirty_errors_in_torchs_order():
    def prog(lib):
        fns = _functions(lib)
        out = []
        makers = (
            lambda x: x[0],
            lambda x: (x * 2).unbind(0)[1],
            lambda x: x.unbind(0)[1],
            lambda x: (x * 2)[0],
            lambda x: x.detach()[0].requires_grad_(),
        )
        for f, mk in itertools.product((fns[0].apply, fns[1].apply), makers):
            x = lib.ones(2, 2, requires_grad=True)
            v = mk(x)
            try:
                f(v)
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e)[:100])
        return out

    torch = require_torch()
    assert prog(ja) == prog(torch)


def test_copy_backwards_is_a_cpp_node():
    def prog(lib):
        t = lib.ones(2, requires_grad=True) * 2
        t.copy_(lib.zeros(2))
        return type(t.grad_fn).__name__, t.grad_fn.name()

    torch = require_torch()
    assert prog(ja) == prog(torch) == ("CopyBackwards", "torch::autograd::CopyBackwards")
