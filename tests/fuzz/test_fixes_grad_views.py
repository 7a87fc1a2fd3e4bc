"""Gradients that torch returns as views: ``autograd.grad`` hands back what its engine made, so a
gradient that flowed through unchanged is the ``grad_outputs`` tensor itself, a view op's is a
view of it, a real input of a complex op gets the real part of the gradient (handle_r_to_c), and
``torch.complex``'s two are the real and imaginary parts of one gradient: an in-place change of
one shows in the others' values and versions (fuzz class grad-views-share-version)."""

from __future__ import annotations

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch

# (mean's gradient is a 0-stride broadcast here, a fresh tensor in torch: open class strided-checks)
UNARY = {
    "sum": lambda lib, x: x.sum(),
    "view": lambda lib, x: x.view(3, 1),
    "t": lambda lib, x: x.view(3, 1).t(),
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "reshape": lambda lib, x: x.reshape(3, 1),
    "flatten": lambda lib, x: x.view(3, 1).flatten(),
    "squeeze": lambda lib, x: x.view(3, 1).squeeze(1),
    "permute": lambda lib, x: x.view(3, 1).permute(1, 0),
    "contiguous": lambda lib, x: x.view(3, 1).t().contiguous(),
    "view_as": lambda lib, x: x.view_as(x),
    "clone": lambda lib, x: x.clone(),
    "add0": lambda lib, x: x + 0,
    "add-other": lambda lib, x: x + lib.ones(3),
    "alias": lambda lib, x: x[...],
    "mul2": lambda lib, x: x * 2,
    "neg": lambda lib, x: -x,
    "narrow": lambda lib, x: x.narrow(0, 0, 3),
    "to-complex": lambda lib, x: x.to(lib.complex128),
}
BINARY = {
    "complex": lambda lib, a, b: lib.complex(a, b),
    "complex-mul": lambda lib, a, b: lib.complex(a, b) * 1,
    "polar": lambda lib, a, b: lib.polar(a, b),
    "a+1j*b": lambda lib, a, b: a + 1j * b,
    "add": lambda lib, a, b: a + b,
}


def _observe(lib, results, g):
    """For each result in turn: an in-place change, then every tensor's version and values."""
    out = [[r is g for r in results], [r is s for r in results for s in results]]
    for k, r in enumerate(results):
        try:
            r.add_(1)
        except RuntimeError as e:  # an expanded gradient (sum's) refuses, as torch's does
            out.append(str(e))
        out.append(
            (
                k,
                [t._version for t in (*results, g)],
                [[complex(v) for v in t.detach().reshape(-1).tolist()] for t in (*results, g)],
            )
        )
    return out


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_is_the_seed_or_its_view_as_in_torch(name):
    def prog(lib):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = UNARY[name](lib, x)
        g = lib.ones_like(y)
        results = lib.autograd.grad(y, [x], g)
        return _observe(lib, results, g)

    torch = require_torch()
    assert prog(ja) == prog(torch)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("with_output", [False, True])
def test_two_gradients_share_what_torchs_share(name, with_output):
    """``autograd.grad(y, [a, b(, y)])``: the results' versions move together where torch's
    are views of one tensor."""

    def prog(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        y = BINARY[name](lib, a, b)
        z = +y
        g = lib.ones_like(y) * (1 + 2j if y.dtype.is_complex else 1)
        results = lib.autograd.grad(z, [a, b, y] if with_output else [a, b], g)
        return _observe(lib, results, g)

    torch = require_torch()
    assert prog(ja) == prog(torch)


def test_fuzz_reproducer():
    def prog(lib):
        x1 = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        x2 = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        t3 = lib.complex(x1, x2)
        t6 = +t3
        t11 = lib.autograd.grad(t6, [x1, t3], grad_outputs=lib.tensor([1j]))
        t11[0][...] = -1.5
        return t11[1]._version, t11[1].tolist(), t11[0]._base is t11[1]

    torch = require_torch()
    assert prog(ja) == prog(torch) == (1, [-1.5 + 1j], True)
