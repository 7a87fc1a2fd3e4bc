"""Every fast entry gives the general path's answer.

The Tensor methods on the hot path (``x.tanh()``, ``x + 0.5``, ``a * b``) are built from their
registry row by ``dispatch.unary_method`` / ``binary_method`` and take ``dispatch.apply1``
(one tensor input, Python scalars as input slots). Each is found here by the row it was built
from (``method._row``), run beside ``dispatch.apply`` (the general path) on the same inputs,
and compared: value, dtype, ``requires_grad``, the node's name, its ``next_functions``, what it
saved, and the gradients of a backward through it (and a second-order one for smooth rows).
"""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops import dispatch
from jupyter_autograd.ops.registry import OPS

_METHODS = sorted(
    (name, m)
    for name, m in vars(ja.Tensor).items()
    if callable(m) and getattr(m, "_row", None) is not None
)
_SCALAR = 0.75


def _input(op, dtype, rg=True):
    lo, hi = (op.sample or {}).get("domain", (-0.9, 0.9))
    lo, hi = max(lo, -0.9), min(hi, 0.9)
    if lo >= hi:
        lo, hi = (op.sample or {}).get("domain")
    x = np.random.default_rng(0).uniform(lo, hi, (3, 4))
    x = np.where(np.abs(x) < 0.05, 0.3, x) if lo < 0 < hi else x
    return ja.tensor(x, dtype=dtype, requires_grad=rg)


def _graph(t):
    fn = t.grad_fn
    if fn is None:
        return None
    saved = sorted(a for a in dir(fn) if a.startswith("_saved_"))
    return (
        type(fn).__name__,
        [type(f).__name__ if f is not None else None for f, _ in fn.next_functions],
        saved,
    )


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert _graph(a) == _graph(b)


def _grads(out, inputs, second):
    g = ja.autograd.grad(out.sum(), inputs, create_graph=second, allow_unused=True)
    if not second:
        return [x.numpy() if x is not None else None for x in g]
    gg = (
        ja.autograd.grad(
            sum(x.sum() for x in g if x is not None and x.requires_grad), inputs, allow_unused=True
        )
        if any(x is not None and x.requires_grad for x in g)
        else ()
    )
    return [x.detach().numpy() for x in g] + [x.numpy() if x is not None else None for x in gg]


def _both(run_fast, run_general, inputs, second):
    fast, general = run_fast(), run_general()
    _same(fast, general)
    for a, b in zip(_grads(run_fast(), inputs, second), _grads(run_general(), inputs, second)):
        if a is None or b is None:
            assert a is b
        else:
            np.testing.assert_array_equal(a, b)


def test_the_hot_path_methods_are_found():
    names = {n for n, _ in _METHODS}
    assert {"tanh", "exp", "sigmoid", "__add__", "__mul__"} <= names, names


@pytest.mark.parametrize("dtype", [ja.float32, ja.float64])
@pytest.mark.parametrize(("name", "method"), _METHODS, ids=[n for n, _ in _METHODS])
def test_fast_entry_matches_the_general_path(name, method, dtype):
    op = method._row
    second = bool(op.smooth)
    x = _input(op, dtype)
    if len(op.inputs) == 1:
        _both(lambda: method(x), lambda: dispatch.apply(op, (x,)), [x], second)
        return
    # binary rows: tensor <op> float (the scalar an input slot) and tensor <op> tensor
    _both(lambda: method(x, _SCALAR), lambda: dispatch.apply(op, (x, _SCALAR)), [x], second)
    y = _input(op, dtype) * 0.5 + 0.25
    y = y.detach().requires_grad_()
    _both(lambda: method(x, y), lambda: dispatch.apply(op, (x, y)), [x, y], second)


@pytest.mark.parametrize(("name", "method"), _METHODS, ids=[n for n, _ in _METHODS])
def test_fast_entry_outside_recording(name, method):
    """no_grad, inference mode and inputs that do not require grad record nothing, as apply."""
    op = method._row
    x = _input(op, ja.float32, rg=False)
    args = (x,) if len(op.inputs) == 1 else (x, _SCALAR)
    _same(method(*args), dispatch.apply(op, args))
    xr = _input(op, ja.float32)
    with ja.no_grad():
        args = (xr,) if len(op.inputs) == 1 else (xr, _SCALAR)
        _same(method(*args), dispatch.apply(op, args))
    with ja.inference_mode():
        out = method(*args)
        assert out.is_inference() and out.grad_fn is None


def test_forward_ad_through_a_fast_entry():
    import jupyter_autograd.autograd.forward_ad as fwAD

    x = ja.tensor([0.1, 0.2, 0.3], dtype=ja.float64)
    t = ja.tensor([1.0, 2.0, 3.0], dtype=ja.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        got = fwAD.unpack_dual((d * 0.5).tanh() + 0.25).tangent
    y = np.tanh(0.5 * x.numpy())
    np.testing.assert_allclose(got.numpy(), (1 - y * y) * 0.5 * t.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["__add__", "__sub__", "__mul__"])
def test_binary_entry_with_two_tensors_takes_the_general_paths_answers(name):
    """``a <op> b`` of two floating tensors of one dtype goes through the row's entry: broadcast
    shapes, one operand without grad, a view operand, and shapes that do not broadcast give what
    apply gives (the last one its error, raised from the slow path)."""
    method = getattr(ja.Tensor, name)
    op = method._row
    a = ja.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    w = ja.tensor([0.5, 1.5, 2.5, 3.5], requires_grad=True)
    for make in (
        lambda: w,
        lambda: ja.tensor([0.5, 1.5, 2.5, 3.5]),
        lambda: a[1],
        lambda: (a * 2)[:, 1:2],  # a view of a non-leaf, made afresh for each backward
    ):
        _both(
            lambda m=make: method(a, m()), lambda m=make: dispatch.apply(op, (a, m())), [a], False
        )
        _both(
            lambda m=make: method(m(), a), lambda m=make: dispatch.apply(op, (m(), a)), [a], False
        )
    c = ja.ones(3)
    with pytest.raises(RuntimeError) as fast:
        method(a, c)
    with pytest.raises(RuntimeError) as general:
        dispatch.apply(op, (a, c))
    assert str(fast.value) == str(general.value)


@pytest.mark.parametrize("expr", ["x * 2.0", "x / 3.0", "x + 2.0", "x - 0.5", "x.tanh()"])
def test_a_second_backward_through_a_fast_entry_node_as_torch(expr):
    """A node keeping only a Python number (``x * 2.0``) is freed by backward as torch frees
    the number it saved (the entry marks it, node._frees); one keeping nothing can run again."""
    import torch

    def second(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = eval(expr, {"x": x}).sum()
        y.backward()
        try:
            y.backward()
        except RuntimeError as e:
            return str(e).split(".")[0]
        return x.grad.tolist()

    assert second(ja) == second(torch)


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - both paths must fail alike
        return type(e).__name__


_ONE_INPUT = sorted(n for n, op in OPS.items() if len(op.inputs) == 1)


@pytest.mark.parametrize("dtype", [ja.float64, ja.complex128, ja.int64])
@pytest.mark.parametrize("name", _ONE_INPUT)
def test_plain_entry_matches_the_general_path(name, dtype):
    """apply1's entry (the generated variant for plain calls: views, complex results, integer
    inputs) against apply, for every one-input row: the value, the node, or the error."""
    op = OPS[name]
    x = (_input(op, ja.float64) * 1).to(dtype)
    if dtype.is_floating_point or dtype.is_complex:
        x = x.detach().requires_grad_()
    fast = _outcome(lambda: dispatch.apply1(op, x))
    general = _outcome(lambda: dispatch.apply(op, (x,)))
    if isinstance(fast, str) or isinstance(general, str):
        assert fast == general
        return
    if isinstance(fast, tuple):
        for a, b in zip(fast, general):
            _same(a, b)
        return
    _same(fast, general)
