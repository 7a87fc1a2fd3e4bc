"""Reentrant backward (test plan C6): backward called inside a custom Function's backward,
nested deep, keeping grad mode and errors, compared with torch."""

from __future__ import annotations

import pytest

import jupyter_autograd as torch
from jupyter_autograd.autograd import executor

from ._torch import require as require_torch


def _reentrant_function(lib):
    class Reenter(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if ctx.depth > 0:
                with lib.enable_grad():
                    a = lib.ones(1, requires_grad=True)
                    Reenter.apply(a, ctx.depth - 1).sum().backward()
                    ctx.inner = a.grad.item()
            return g * 2, None

    return Reenter


@pytest.mark.parametrize("depth", [200, 2000])
def test_c6_reentrant_backward_nested_deep(depth):
    Reenter = _reentrant_function(torch)
    x = torch.ones(1, requires_grad=True)
    y = Reenter.apply(x, depth)
    y.sum().backward()
    assert x.grad.item() == 2.0 and y.grad_fn.inner == 2.0


def test_c6_reentrant_backward_keeps_grad_mode_and_errors():
    class Inner(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if ctx.depth == 0:
                raise ValueError("boom at the bottom")
            with torch.enable_grad():
                a = torch.ones(1, requires_grad=True)
                Inner.apply(a, ctx.depth - 1).sum().backward()
            return g, None

    x = torch.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="boom at the bottom") as info:
        Inner.apply(x, 40).sum().backward()  # two threads deep
    # the traceback reaches the user's raise, across the engine's threads (test plan D5)
    tb = info.value.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_name == "backward" and tb.tb_frame.f_locals["ctx"].depth == 0
    assert torch.is_grad_enabled()


def test_c6_too_deep_nesting_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(executor, "MAX_REENTRANT_DEPTH", 300)
    Reenter = _reentrant_function(torch)
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="reentrant backward nested more than 300 levels deep"):
        Reenter.apply(x, 1000).sum().backward()
    # the engine is usable afterwards, at any depth up to the limit
    Reenter.apply(x, 250).sum().backward()
    assert x.grad.item() == 2.0


def test_c6_matches_torch_at_depth_200():
    th = require_torch()
    for lib in (th, torch):
        Reenter = _reentrant_function(lib)
        x = lib.ones(1, requires_grad=True)
        y = Reenter.apply(x, 200)
        y.sum().backward()
        assert x.grad.item() == 2.0
