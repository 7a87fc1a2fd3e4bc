"""Threads (test plan D1-D4): thread-local grad mode, independent and shared backward."""

from __future__ import annotations

import threading

import numpy as np

import jupyter_autograd as torch
from jupyter_autograd import _errors as E


def test_d1_grad_mode_is_thread_local():
    x = torch.ones(2, requires_grad=True)
    for ctx in (torch.no_grad, lambda: torch.set_grad_enabled(False)):
        for _ in range(100):
            barrier = threading.Barrier(2)
            res = {}

            def a(ctx=ctx, barrier=barrier, res=res):
                with ctx():
                    barrier.wait()
                    res["a"] = (x * 2).requires_grad
                    barrier.wait()
                res["a_after"] = torch.is_grad_enabled()

            def b(barrier=barrier, res=res):
                barrier.wait()
                res["b"] = (x * 2).requires_grad
                barrier.wait()

            ta, tb = threading.Thread(target=a), threading.Thread(target=b)
            ta.start(), tb.start(), ta.join(), tb.join()
            assert res == {"a": False, "b": True, "a_after": True}
    assert torch.is_grad_enabled()


def test_d2_independent_backward_in_threads():
    errors = []

    def work():
        try:
            for _ in range(50):
                x = torch.rand(5, 5, dtype=torch.float64, requires_grad=True)
                y = (x * x + x * 3.5 - x * 1.0) * 0.5
                y.sum().backward()
                np.testing.assert_allclose(x.grad.numpy(), x.detach().numpy() + 1.25)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(10)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert not errors


def test_d3_shared_leaf_loses_no_update():
    for _ in range(5):
        x = torch.rand(4, dtype=torch.float64, requires_grad=True)

        def work(x=x):
            for _ in range(200):
                ((x * x) * 0.5 + x * 3.5).sum().backward()

        ts = [threading.Thread(target=work) for _ in range(10)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        np.testing.assert_allclose(x.grad.numpy(), 2000 * (x.detach().numpy() + 3.5))
    x = torch.rand(4, dtype=torch.float64, requires_grad=True)
    out = []
    ts = [
        threading.Thread(
            target=lambda: out.append(torch.autograd.grad(((x * x) * 0.5 + x * 3.5).sum(), x)[0])
        )
        for _ in range(10)
    ]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert len(out) == 10 and x.grad is None
    for g in out:
        np.testing.assert_allclose(g.numpy(), x.detach().numpy() + 3.5)


def test_d4_shared_graph_without_retain_graph():
    x = torch.rand(4, dtype=torch.float64, requires_grad=True)
    y = (x * x).sum()
    ok, errs = [], []

    def work():
        try:
            y.backward()
            ok.append(1)
        except RuntimeError as e:
            errs.append(str(e))

    ts = [threading.Thread(target=work) for _ in range(5)]
    [t.start() for t in ts]
    [t.join(timeout=30) for t in ts]
    assert not any(t.is_alive() for t in ts)
    assert len(ok) >= 1
    assert all("Specify retain_graph=True" in e for e in errs)
    assert errs == [] or all(e == E.ERR_BACKWARD_TWICE for e in errs)
    x.grad = None
    y = (x * x).sum()
    ts = [threading.Thread(target=lambda: y.backward(retain_graph=True)) for _ in range(5)]
    [t.start() for t in ts]
    [t.join(timeout=30) for t in ts]
    np.testing.assert_allclose(x.grad.numpy(), 5 * 2 * x.detach().numpy())
