"""Leaves may keep the gradient array the engine computed, but never one someone else can see."""

import jupyter_autograd as torch


def test_two_leaves_fed_the_same_gradient_do_not_alias():
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    (a + b).sum().backward()
    (a * 2).sum().backward()  # in-place accumulation into a.grad only
    assert a.grad.tolist() == [3.0, 3.0, 3.0]
    assert b.grad.tolist() == [1.0, 1.0, 1.0]


def test_seed_gradient_is_not_stolen():
    a = torch.ones(3, requires_grad=True)
    v = torch.tensor([1.0, 2.0, 3.0])
    (a + 0).backward(v)
    (a + 0).backward(v)
    assert v.tolist() == [1.0, 2.0, 3.0]
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


def test_gradient_shown_to_a_hook_is_not_stolen():
    a = torch.ones(3, requires_grad=True)
    kept = []
    a.register_hook(lambda g: kept.append(g))
    (a * 2).sum().backward()
    (a * 2).sum().backward()
    assert kept[0].tolist() == [2.0, 2.0, 2.0]
    assert a.grad.tolist() == [4.0, 4.0, 4.0]


def test_view_of_upstream_gradient_is_copied():
    a = torch.ones(2, 3, requires_grad=True)
    y = a.reshape(6) * 1.0
    y.backward(torch.ones(6))
    y2 = a.reshape(6) * 1.0
    y2.backward(torch.ones(6))
    assert a.grad.tolist() == [[2.0] * 3] * 2


def test_custom_function_returning_a_held_tensor_is_not_stolen():
    held = torch.tensor([5.0, 5.0])

    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return held

    x = torch.ones(2, requires_grad=True)
    Fn.apply(x).sum().backward()
    Fn.apply(x).sum().backward()
    assert held.tolist() == [5.0, 5.0]
    assert x.grad.tolist() == [10.0, 10.0]
