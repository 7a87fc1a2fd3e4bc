"""Engine reliability: depth, freeing, lifecycle, linear time, random programs, broadcasting and
numerical stability (test plan A4, A5, A7, B6, B10, C1-C5)."""

from __future__ import annotations

import gc
import time
import tracemalloc
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jupyter_autograd as torch
from jupyter_autograd.autograd.node import Node
from jupyter_autograd.ops import NOT_IMPLEMENTED, OPS
from jupyter_autograd.ops.registry import defop


# ---------------------------------------------------------------- C1, C2: depth
def test_c1_100k_chain_at_default_recursion_limit():
    import sys

    # nothing may raise the interpreter's limit to make deep graphs pass
    assert sys.getrecursionlimit() == 1000
    c = 1e-5
    x = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + y * c
    y.backward()  # its time is benchmarks/run.py's 100k-chain figure, not asserted here
    # backward repeats the forward's arithmetic (g + g*c per step), so it matches y to 1e-12;
    # against the exact power the 200,000 roundings allow ~1e-11
    assert abs(x.grad.item() - y.item()) / y.item() < 1e-12
    expected = (1 + c) ** 100_000
    assert abs(x.grad.item() - expected) / expected < 1e-10


@pytest.mark.parametrize("kind", ["chain", "skip"])
def test_c2_free_deep_graph_without_backward(kind):
    gc.disable()
    try:
        x = torch.ones(1, requires_grad=True)
        y = x * 1.0
        first = weakref.ref(y.grad_fn)
        prev = y
        for i in range(150_000 if kind == "chain" else 100_000):
            z = y * 1.0
            if kind == "skip" and i % 10 == 0:
                z = z + prev
                prev = y
            y = z
        del z, prev
        assert first() is not None
        del y
        assert first() is None
    finally:
        gc.enable()


# ---------------------------------------------------------------- C3: lifecycle
def _live_nodes():
    return sum(1 for o in gc.get_objects() if isinstance(o, Node))


@pytest.mark.parametrize("hook", ["none", "tensor", "tensor_capturing", "node", "post_acc"])
@pytest.mark.parametrize("mode", ["no_backward", "backward", "retain"])
def test_c3_node_lifecycle(hook, mode):
    gc.collect()
    gc.disable()
    try:
        x = torch.ones(3, requires_grad=True)
        y = x.exp()
        marker = weakref.ref(y.grad_fn)
        if hook == "tensor":
            y.register_hook(lambda g: g)
        elif hook == "tensor_capturing":
            fn = y.grad_fn
            y.register_hook(lambda g, fn=fn: g)
            del fn
        elif hook == "node":
            y.grad_fn.register_hook(lambda gi, go: None)
        elif hook == "post_acc":
            x.register_post_accumulate_grad_hook(lambda t: None)
        out = y.sum()
        if mode == "backward":
            assert y.grad_fn._saved  # alive before backward
            out.backward()
            assert y.grad_fn._saved is None  # freed right after backward
        elif mode == "retain":
            out.backward(retain_graph=True)
            assert y.grad_fn._saved  # kept
        del out, y
        if hook == "tensor_capturing":
            gc.collect()
        assert marker() is None
    finally:
        gc.enable()


def test_c3_engine_creates_no_cycle_for_saved_outputs():
    gc.collect()
    gc.disable()
    try:
        x = torch.ones(3, requires_grad=True)
        y = x.exp()  # saves its own result: kept as data, not as the Tensor
        r = weakref.ref(y)
        n = weakref.ref(y.grad_fn)
        del y
        assert r() is None and n() is None
    finally:
        gc.enable()


# ---------------------------------------------------------------- C4: no leak
def test_c4_no_leak_over_many_iterations():
    w = torch.ones(8, requires_grad=True)

    def step():
        y = w
        for _ in range(200):
            y = (y * 1.0001).tanh()
        y.sum().backward()
        w.grad = None

    for _ in range(10):
        step()
    gc.collect()
    nodes_before = _live_nodes()  # other tests' graphs may still be alive in this process
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    for _ in range(30):
        step()
    gc.collect()
    cur, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert cur - base < 1_000_000
    assert _live_nodes() <= nodes_before


# ---------------------------------------------------------------- C5: linear time
def _time(fn):
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def test_c5_linear_time_chain_and_indexing():
    def chain(n):
        x = torch.ones(2, requires_grad=True)
        y = x
        for _ in range(n):
            y = y * 1.0
        y.sum().backward()

    def index_sum(n):
        x = torch.ones(n, requires_grad=True)
        s = x[0]
        for i in range(1, n):
            s = s + x[i]
        s.backward()

    # 10x the size must cost 5x-25x the time (an O(n^2) backward gives ~100x)
    # the smallest of three measured ratios: load spikes on a shared CI machine only inflate them
    r1 = min(_time(lambda: chain(30_000)) / _time(lambda: chain(3_000)) for _ in range(3))
    r2 = min(_time(lambda: index_sum(6_000)) / _time(lambda: index_sum(600)) for _ in range(3))
    assert 4 <= r1 <= 25, r1
    assert 4 <= r2 <= 25, r2


# ---------------------------------------------------------------- A4: random programs
UNARY = ["exp", "tanh", "sin", "sigmoid", "neg"]
BINARY = ["add", "sub", "mul"]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a4_random_dag_programs(data):
    n_leaves = data.draw(st.integers(1, 4))
    n_ops = data.draw(st.integers(1, 30))
    prog = []
    for i in range(n_ops):
        avail = n_leaves + i
        if data.draw(st.booleans()):
            prog.append(
                ("u", data.draw(st.sampled_from(UNARY)), data.draw(st.integers(0, avail - 1)))
            )
        else:
            prog.append(
                (
                    "b",
                    data.draw(st.sampled_from(BINARY)),
                    data.draw(st.integers(0, avail - 1)),
                    data.draw(st.integers(0, avail - 1)),
                )
            )
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    leaves = [rng.uniform(-0.5, 0.5, size=(3,)) for _ in range(n_leaves)]

    def run(lib_vals, lib):
        vals = list(lib_vals)
        for ins in prog:
            if ins[0] == "u":
                vals.append(getattr(vals[ins[2]], ins[1])() if ins[1] != "neg" else -vals[ins[2]])
            else:
                a, b = vals[ins[2]], vals[ins[3]]
                vals.append(a + b if ins[1] == "add" else a - b if ins[1] == "sub" else a * b)
        return vals[-1]

    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in leaves]
    out = run(ts, torch)
    if not out.requires_grad:
        return
    out.sum().backward()
    eps = 1e-6
    for k, a in enumerate(leaves):
        num = np.zeros(3)
        for i in range(3):
            p = [x.copy() for x in leaves]
            m = [x.copy() for x in leaves]
            p[k][i] += eps
            m[k][i] -= eps
            with torch.no_grad():
                fp = run([torch.tensor(x, dtype=torch.float64) for x in p], torch).sum().item()
                fm = run([torch.tensor(x, dtype=torch.float64) for x in m], torch).sum().item()
            num[i] = (fp - fm) / (2 * eps)
        ana = ts[k].grad.numpy() if ts[k].grad is not None else np.zeros(3)
        np.testing.assert_allclose(ana, num, atol=1e-6, rtol=1e-5)


# ---------------------------------------------------------------- A5: broadcasting
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum", "minimum", "pow"])
def test_a5_broadcast_shapes(name):
    f = getattr(torch, name)
    a = torch.rand(3, 1, 5, dtype=torch.float64, requires_grad=True)
    b = torch.rand(4, 5, dtype=torch.float64, requires_grad=True)
    f(a + 0.5, b + 0.5).sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    a = torch.rand(4, 0, requires_grad=True)
    b = torch.rand(4, 1, requires_grad=True)
    f(a, b).sum().backward()
    assert a.grad.shape == (4, 0)
    assert b.grad.tolist() == [[0.0]] * 4
    s = torch.rand(3, requires_grad=True)
    # torch's maximum/minimum take Tensors only (a Python number is its TypeError)
    f(s + 0.5, torch.tensor(2.0) if name in ("maximum", "minimum") else 2.0).sum().backward()
    assert s.grad.shape == (3,)


# ---------------------------------------------------------------- A7: stability
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a7_stable_softmax_family(dtype):
    x = torch.tensor(
        [[709.78, -709.78, 0.0], [709.78, 709.78, -1.0]], dtype=dtype, requires_grad=True
    )
    s = torch.softmax(x, 1)
    assert torch.isfinite(s).all() and (s >= 0).all() and (s <= 1).all()
    np.testing.assert_allclose(
        s.detach().numpy().sum(1), 1.0, atol=1e-6 if dtype is torch.float32 else 1e-12
    )
    assert torch.isfinite(torch.log_softmax(x, 1)).all()
    assert torch.isfinite(torch.logsumexp(x, 1)).all()
    torch.logsumexp(x, 1).sum().backward()
    assert torch.isfinite(x.grad).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("xv", [40.0, -40.0, 800.0, -800.0, 1e4, -1e4])
@pytest.mark.parametrize("yv", [0.0, 1.0])
def test_a7_bce_with_logits_extremes(dtype, xv, yv):
    x = torch.tensor([xv], dtype=dtype, requires_grad=True)
    y = torch.tensor([yv], dtype=dtype)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x, y)
    expected = max(xv, 0) - xv * yv + np.log1p(np.exp(-abs(xv)))
    assert np.isfinite(loss.item())
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-6, atol=1e-12)
    loss.backward()
    sig = 1 / (1 + np.exp(-np.float64(xv))) if xv > -700 else 0.0
    np.testing.assert_allclose(x.grad.item(), sig - yv, atol=1e-7)


def test_a7_bce_log_clamped():
    p = torch.tensor([0.0])
    assert torch.nn.functional.binary_cross_entropy(p, torch.tensor([1.0])).item() == 100.0


# ---------------------------------------------------------------- B6, B10
def test_b6_unrelated_branch_never_runs():
    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    other = y.exp()
    called = []
    other.grad_fn.register_prehook(lambda g: called.append(1))
    out = (x * 2).sum() + other.sum()
    (gx,) = torch.autograd.grad(out, [x])
    assert gx.tolist() == [2.0, 2.0] and called == []


def test_b10_missing_derivative_raises_at_backward():
    name = "_test_no_derivative"
    op = defop(
        name,
        node="NoDerivativeBackward0",
        fwd=lambda xp, x, p: x * 2,
        vjp=NOT_IMPLEMENTED,
        sample={"kind": "__test_only__"},
    )
    try:
        from jupyter_autograd.ops.dispatch import apply1

        x = torch.ones(2, requires_grad=True)
        y = apply1(op, x)
        assert repr(y) == "tensor([2., 2.], grad_fn=<NoDerivativeBackward0>)"
        with pytest.raises(NotImplementedError, match=r"the derivative for .* is not implemented"):
            y.sum().backward()
    finally:
        del OPS[name]


def test_backward_inputs_accumulates_only_there():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [1.0, 1.0] and b.grad is None


def test_diamond_and_reuse():
    x = torch.tensor([2.0], requires_grad=True)
    a = x * 3
    y = a * a + a.exp() + x
    y.backward()
    np.testing.assert_allclose(x.grad.item(), 2 * 3 * 6 + 3 * np.exp(6.0) + 1, rtol=1e-6)
