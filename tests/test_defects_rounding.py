"""Rounding, remainders, rounded division, clamping and bitwise ops against torch (issue 13):
none of them may silently drop ``requires_grad`` (``x.trunc()`` records TruncBackward0, ``x %
1.0`` RemainderBackward0, ``x // 2`` torch's NotImplemented node whose backward raises), each
with torch's values (signed zeros too), gradients, dtypes and errors; integer division by zero
raises torch's ``ZeroDivisionError``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ._oracle import assert_as_torch
from ._torch import require as require_torch

X = [1.5, -2.5, 0.3, -0.7, 3.0, -3.0, 0.0, 2.25]
O = [2.0, -1.0, 0.5, 0.5, 1.5, 1.5, -2.0, -0.75]

FLOAT_EXPRS = [
    "x.trunc()",
    "x.fix()",
    "t.trunc(x)",
    "x.frac()",
    "x.floor()",
    "x.ceil()",
    "x.round()",
    "x.round(decimals=1)",
    "x.round(decimals=0)",
    "x.round(decimals=-1)",
    "x % 1.0",
    "x % -1.5",
    "x % 2",
    "t.remainder(x, 1.5)",
    "x % o",
    "t.remainder(x, o)",
    "t.fmod(x, 1.5)",
    "t.fmod(x, -1.5)",
    "t.fmod(x, o)",
    "x.fmod(o)",
    "x.remainder(o)",
    "t.div(x, 2., rounding_mode='floor')",
    "t.div(x, 2., rounding_mode='trunc')",
    "t.div(x, o, rounding_mode='floor')",
    "t.div(x, o, rounding_mode='trunc')",
    "x.div(-2, rounding_mode='floor')",
    "x.sign()",
    "x.clamp(-1, 1)",
    "x.clamp(min=0.)",
    "x.clamp(max=0.)",
    "x.clamp_min(0.)",
    "x.clamp_max(0.)",
    "x.clip(-1, 1)",
    "x.clamp(o)",
    "x.clamp(max=o)",
    "x.clamp(-o, o.abs())",
    "x.clamp(o, -o)",
    "x.clamp(t.tensor(0.), 1.)",
    "x.clamp_min(o)",
    "x.clamp_max(o)",
    "t.clamp(x, min=o, max=2.)",
    "t.clamp_min(x, o)",
    "t.clamp_max(x, o)",
]


def _program(expr, dtype="float32", backward=True):
    def program(t):
        x = t.tensor(X, dtype=getattr(t, dtype), requires_grad=True)
        o = t.tensor(O, dtype=getattr(t, dtype), requires_grad=True)
        y = eval(expr, {"t": t, "x": x, "o": o})
        if not backward:
            return y
        gx, go = t.autograd.grad(y.sum(), (x, o), allow_unused=True)
        return y, gx, go

    return program


@pytest.mark.parametrize("expr,dtype", list(itertools.product(FLOAT_EXPRS, ["float32", "float64"])))
def test_rounding_ops_record_torchs_node_and_gradient(expr, dtype):
    torch = require_torch()
    assert_as_torch(torch, _program(expr, dtype))


@pytest.mark.parametrize(
    "expr",
    [
        "x // 2",
        "x // o",
        "5.0 // x",
        "t.floor_divide(x, 2)",
        "5.0 % x",
        "2 % x",
        "x.clone().floor_divide_(2)",
    ],
)
def test_not_differentiable_ops_record_notimplemented(expr):
    """torch records a NotImplemented node (requires_grad stays True) whose backward raises."""
    torch = require_torch()
    assert_as_torch(torch, _program(expr, backward=False))
    assert_as_torch(torch, _program(expr))


def test_inplace_rounding_records_the_same_nodes():
    torch = require_torch()
    for expr in [
        "x.clone().trunc_()",
        "x.clone().fix_()",
        "x.clone().frac_()",
        "x.clone().remainder_(1.5)",
        "x.clone().fmod_(o)",
        "x.clone().clamp_min_(0.)",
        "x.clone().clamp_(o, 2.)",
    ]:
        assert_as_torch(torch, _program(expr))

    def imod(t):
        y = t.tensor(X, requires_grad=True) * 1
        y %= 2
        return y

    assert_as_torch(torch, imod)


def test_clamp_with_tensor_bounds_random():
    """ClampBackward0 against torch on random bounds, min > max and ties included."""
    torch = require_torch()
    rng = np.random.default_rng(0)
    for _ in range(20):
        xs, lo, hi = (np.round(rng.uniform(-2, 2, 8), 1) for _ in range(3))
        lo[:2] = xs[:2]  # ties with the lower bound
        hi[2:4] = xs[2:4]  # and with the upper

        def program(t, xs=xs, lo=lo, hi=hi):
            x, a, b = (t.tensor(v, requires_grad=True) for v in (xs, lo, hi))
            y = t.clamp(x, a, b)
            return (y,) + t.autograd.grad((y * t.arange(8.0)).sum(), (x, a, b))

        assert_as_torch(torch, program)


INT_EXPRS = [
    "i // 0",
    "i % 0",
    "i // z",
    "i % z",
    "t.div(i, 0, rounding_mode='floor')",
    "t.div(i, 0, rounding_mode='trunc')",
    "t.fmod(i, 0)",
    "t.remainder(i, 0)",
    "i // 2",
    "i % 2",
    "i // -2",
    "i % -2",
    "t.fmod(i, -2)",
    "t.div(i, 2, rounding_mode='trunc')",
    "t.div(i, -2, rounding_mode='floor')",
    "5 % i",
    "5 // i",
    "5. // i",
    "i % 1.5",
    "i // 1.5",
    "t.fmod(i, 0.)",
    "t.remainder(i, 0.)",
    "i // 0.",
    "b % 2",
    "b // 2",
    "2 // b",
    "b // b",
    "b % b",
    "t.fmod(b, 2)",
    "t.fmod(b, b)",
    "t.div(b, 2, rounding_mode='floor')",
    "t.div(b, True, rounding_mode='trunc')",
    "t.div(i, 2, rounding_mode='x')",
    "u // 0",
    "i.trunc()",
    "i.frac()",
    "i.round()",
    "i.round(decimals=1)",
    "b.floor()",
    "b.trunc()",
    "b.round()",
    "b.ceil()",
    "b.frac()",
    "i.clamp(0.5, 2.5)",
    "i.clamp(0, 2)",
    "b.clamp(0, 1)",
    "i.clamp_min(0.5)",
    "i.clamp(t.tensor([0.5, 0.5, 0.5]))",
    "x.detach() // 0",
    "x.detach() % 0",
    "x.detach() % 1.5",
    "t.tensor([-3.]) % 1.5",
    "t.tensor([3.]) % -1.5",
    "t.fmod(t.tensor([-3.]), 1.5)",
]


@pytest.mark.parametrize("expr", INT_EXPRS)
def test_integer_and_bool_division_as_torch(expr):
    torch = require_torch()

    def program(t):
        env = {
            "t": t,
            "i": t.tensor([5, -3, 7]),
            "z": t.tensor([0, 1, 2]),
            "b": t.tensor([True, False, True]),
            "u": t.tensor([3], dtype=t.uint8),
            "x": t.tensor([1.5, -2.5, 0.0]),
        }
        return eval(expr, env)

    assert_as_torch(torch, program)


BITWISE = [
    "i & j",
    "i | j",
    "i ^ j",
    "~i",
    "~b",
    "b & c",
    "b | c",
    "b ^ c",
    "b ^ True",
    "i & b",
    "b & i",
    "i & 1",
    "i ^ True",
    "b & 1",
    "3 & i",
    "3 | i",
    "3 ^ i",
    "i << 1",
    "i >> 1",
    "1 << i.abs()",
    "i << b",
    "b << 1",
    "x & x",
    "x | 1",
    "x & 1",
    "1 & x",
    "~x",
    "i & 1.5",
    "x << 1",
    "t.bitwise_and(i, j)",
    "t.bitwise_not(i)",
    "t.bitwise_not(x)",
    "t.bitwise_xor(b, c)",
]


@pytest.mark.parametrize("expr", BITWISE)
def test_bitwise_operators_as_torch(expr):
    """``^`` on integers is bitwise (not logical); floats are refused with torch's errors."""
    torch = require_torch()

    def program(t):
        env = {
            "t": t,
            "i": t.tensor([5, -3, 12]),
            "j": t.tensor([3, 3, 10]),
            "b": t.tensor([True, False, True]),
            "c": t.tensor([True, True, False]),
            "x": t.tensor([1.5, -2.5, 0.0]),
        }
        return eval(expr, env)

    assert_as_torch(torch, program)


def test_issue_cases():
    import jupyter_autograd as ja

    x = ja.tensor([1.5, -2.5], requires_grad=True)
    assert x.trunc().grad_fn.name() == "TruncBackward0"
    y = x % 1.0
    assert y.grad_fn.name() == "RemainderBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "expr",
    [
        "z.trunc()",
        "z.frac()",
        "z.round(decimals=1)",
        "z % 1.5",
        "t.remainder(z, z)",
        "t.fmod(z, 1.5)",
        "t.fmod(z, z)",
        "z // 2",
        "5.0 % z",
        "t.div(z, 2, rounding_mode='floor')",
        "t.div(z, 2, rounding_mode='trunc')",
        "z.clamp(z, z)",
        "z.clamp_min(0.)",
        "z.clamp_max(0.)",
        "z.clamp_min(z)",
        "z.clamp_max(z)",
        "F.softplus(z)",
        "F.logsigmoid(z)",
        "F.nll_loss(z.view(1, 2), t.tensor([0]))",
        "F.nll_loss(z.view(1, 2, 1, 1), t.tensor([[[0]]]))",
    ],
)
@pytest.mark.parametrize("grad", [False, True])
def test_complex_inputs_refused_as_torch(expr, grad):
    torch = require_torch()

    def program(t):
        z = t.tensor([1 + 1j, -2 + 0.5j], requires_grad=grad)
        return eval(expr, {"t": t, "F": t.nn.functional, "z": z})

    assert_as_torch(torch, program)


@pytest.mark.parametrize(
    "expr",
    [
        "x // 2.0",
        "x // t.ones(1)",
        "t.ones(1) // x",
        "x // x",
        "5.0 % x",
        "2 // x",
        "x.floor_divide(2)",
        "t.floor_divide(x, t.tensor(2.))",
        "x.clone().floor_divide_(2)",
    ],
)
def test_not_implemented_node_lists_only_inputs_that_require_grad(expr):
    """torch's NotImplemented node (its not-implemented fallback) has one edge per input that
    requires grad, is named torch::autograd::NotImplemented, and refuses backward."""
    torch = require_torch()

    def program(t):
        x = t.ones(1, requires_grad=True)
        y = eval(expr, {"t": t, "x": x})
        fn = y.grad_fn
        edges = [(type(f).__name__ if f is not None else None, n) for f, n in fn.next_functions]
        try:
            y.sum().backward()
        except RuntimeError as e:
            return fn.name(), type(fn).__name__, edges, str(e)
        return fn.name(), edges

    assert_as_torch(torch, program)


@pytest.mark.parametrize(
    "expr",
    [
        "e // z",
        "e % z",
        "torch.zeros(2, 0, dtype=torch.int32).remainder(z)",
        "torch.fmod(e, 0)",
        "e.floor_divide_(z)",
        "torch.div(e, z, rounding_mode='trunc')",
        "torch.ones(2, dtype=torch.int64) // z",
    ],
)
def test_integer_division_by_zero_refused_only_when_something_is_divided(expr):
    """An empty result runs no kernel: torch refuses nothing (fuzz seed 403596)."""
    torch = require_torch()
    outs = []
    for t in (torch, __import__("jupyter_autograd")):
        e, z = t.zeros(0, dtype=t.int64), t.tensor(0)
        try:
            outs.append(("ok", tuple(eval(expr, {"torch": t, "e": e, "z": z}).shape)))
        except RuntimeError as err:
            outs.append(("error", str(err)))
    assert outs[0] == outs[1]
