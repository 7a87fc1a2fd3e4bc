"""``conj()`` of a complex tensor is a view (torch's lazy conjugate bit): an in-place change of the
base shows through it, one of the conjugate (or of a view of either) shows in the base, and
``conj()`` of it aliases the base again; ``imag`` of a conjugate is torch's negative view of the
base's memory, written through as well (fuzz class conj-view-values). Random sequences of
in-place changes through the base, the conjugate and their views, compared with torch."""

from __future__ import annotations

import random

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch

WRITES = [
    "x.add_(1.0)",
    "c.mul_(2)",
    "c[0] = 5j",
    "x[1] = 7j",
    "v.sub_(1j)",
    "w.mul_(-1)",
    "c.real.add_(3)",
    "x.imag.mul_(2)",
    "c.copy_(c * 1j)",
    "x.zero_()",
    "c.fill_(2 - 1j)",
    "cc.add_(1j)",
    "c.imag.add_(1)",
    "v.imag.mul_(-2)",
    "x.real.sub_(0.5)",
]


def _run(lib, steps, grad, strided=False):
    vals = [1 + 1j, 2 - 1j, -0.5 + 3j]
    if strided:  # x is every other element of a longer tensor
        vals = [v for p in zip(vals, [9j, 8j, 7j]) for v in p]
    x0 = lib.tensor(vals, dtype=lib.complex128, requires_grad=grad)
    x = x0 * 1 if grad or strided else x0
    if strided:
        x = x[::2]
    c = x.conj()
    v = c[1:]
    w = x[:2]
    cc = c.conj()
    out = []
    for s in steps:
        try:
            exec(s, {"x": x, "c": c, "v": v, "w": w, "cc": cc})  # noqa: S102 - fixed statements
            err = None
        except RuntimeError as e:
            err = str(e)[:60]
        out.append((s, err, [(t.tolist(), t._version, t.is_conj()) for t in (x, c, v, w, cc)]))
    if grad:
        (c.real.sum() + 2 * c.imag.sum() + (x * x).abs().sum()).backward()
        out.append([complex(round(g.real, 6), round(g.imag, 6)) for g in x0.grad.tolist()])
    return out


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("grad", [False, True])
def test_conj_view_follows_its_base_both_ways(grad, strided):
    torch = require_torch()
    for seed in range(40):
        rng = random.Random(seed)
        steps = [rng.choice(WRITES) for _ in range(rng.randint(1, 5))]
        assert _run(ja, steps, grad, strided) == _run(torch, steps, grad, strided), steps


def test_fuzz_reproducer():
    def prog(lib):
        x = lib.tensor([1 + 1j])
        c = x.conj()
        x.add_(1.0)
        return c.tolist(), c._version

    torch = require_torch()
    assert prog(ja) == prog(torch) == ([2 - 1j], 1)
