"""Test plan A1/A4/A5 for complex tensors: hypothesis draws broadcastable shapes (0-d and
size-0 included) for every elementwise row accepting complex, and random DAG programs that mix
complex and real tensors (abs, angle, .real/.imag, complex(), promotion) with fan-out and
reuse; values and gradients equal torch's and central differences of the real and imaginary
parts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jupyter_autograd as ja
from jupyter_autograd.ops import OPS
from jupyter_autograd.ops.registry import Refuse

from ._op_samples import cases
from ._torch import require as require_torch

ELEMENTWISE = [
    n
    for n in sorted(OPS)
    if not {"kind", "reduce", "cases"} & set(OPS[n].sample or {})
    and not isinstance(OPS[n].complex, Refuse)
]


def _complex(rng, shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape) + 1j * rng.uniform(-1.5, 1.5, shape)


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a1_elementwise_complex_broadcasting(name, data):
    torch = require_torch()
    op = OPS[name]
    shapes = data.draw(
        mutually_broadcastable_shapes(num_shapes=len(op.inputs), max_dims=3, max_side=3, min_side=0)
    ).input_shapes
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    lo, hi = (op.sample or {}).get("domain", (-3, 3))
    (case,) = cases(op, rng, shapes=list(shapes))
    zs = [_complex(rng, a.shape, lo, hi) for a in case.arrays]
    o_in = [ja.tensor(z, requires_grad=True) for z in zs]
    t_in = [torch.tensor(z, requires_grad=True) for z in zs]
    o, t = case.ours(*o_in), case.theirs(torch, *t_in)
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-9, atol=1e-12)
    v = (
        _complex(rng, tuple(t.shape), -1, 1)
        if t.is_complex()
        else rng.uniform(-1, 1, tuple(t.shape))
    )
    o.backward(ja.tensor(v))
    t.backward(torch.tensor(v))
    for a, b, z in zip(o_in, t_in, zs):
        assert a.grad.shape == z.shape  # A5: each gradient comes back in its input's shape
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- A4: random programs
UNARY = [
    "exp",
    "tanh",
    "sin",
    "sigmoid",
    "neg",
    "conj",
    "sqrt",
    "abs",
    "angle",
    "real",
    "imag",
    "square",
]
BINARY = ["add", "sub", "mul", "div", "complex"]


def _program(data, n_leaves):
    prog = []
    for i in range(data.draw(st.integers(1, 20))):
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
    return prog


def _run(lib, leaves, prog):
    vals = list(leaves)
    for ins in prog:
        if ins[0] == "u":
            x, f = vals[ins[2]], ins[1]
            if f == "neg":
                y = -x
            elif f in ("real", "imag"):
                y = getattr(x, f) if x.is_complex() or f == "real" else x * 0
            elif f == "square":
                y = x * x
            elif f == "sqrt":
                y = (x * x + 1).sqrt()  # away from the branch point at 0
            else:
                y = getattr(x, f)()
        else:
            a, b = vals[ins[2]], vals[ins[3]]
            f = ins[1]
            if f == "complex":
                # complex(re, im) of two real tensors; otherwise a complex sum
                y = lib.complex(a, b) if not a.is_complex() and not b.is_complex() else a + b
            elif f == "div":
                y = a / (b * b + 1)
            else:
                y = getattr(lib, f)(a, b)
        vals.append(y)
    out = vals[-1]
    return (out.abs() if out.is_complex() else out).sum()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a4_random_complex_programs(data):
    torch = require_torch()
    n_leaves = data.draw(st.integers(1, 4))
    kinds = [data.draw(st.booleans()) for _ in range(n_leaves)]  # complex leaf or real
    prog = _program(data, n_leaves)
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    leaves = [_complex(rng, (3,), -0.7, 0.7) if c else rng.uniform(-0.7, 0.7, (3,)) for c in kinds]
    o_in = [ja.tensor(a, requires_grad=True) for a in leaves]
    t_in = [torch.tensor(a, requires_grad=True) for a in leaves]
    o, t = _run(ja, o_in, prog), _run(torch, t_in, prog)
    np.testing.assert_allclose(o.item(), t.item(), rtol=1e-10, atol=1e-12)
    if not t.requires_grad:
        return
    o.backward()
    t.backward()
    eps = 1e-6
    for k, (a, b, x) in enumerate(zip(o_in, t_in, leaves)):
        ta = b.grad.resolve_conj().numpy() if b.grad is not None else np.zeros_like(x)
        oa = a.grad.numpy() if a.grad is not None else np.zeros_like(x)
        np.testing.assert_allclose(oa, ta, rtol=1e-9, atol=1e-12)
        num = np.zeros_like(x)
        steps = (eps, 1j * eps) if x.dtype.kind == "c" else (eps,)
        for i in range(x.size):
            for part, step in enumerate(steps):
                p = [y.copy() for y in leaves]
                m = [y.copy() for y in leaves]
                p[k][i] += step
                m[k][i] -= step
                with ja.no_grad():
                    d = (
                        _run(ja, [ja.tensor(y) for y in p], prog).item()
                        - _run(ja, [ja.tensor(y) for y in m], prog).item()
                    ) / (2 * eps)
                num[i] += d if part == 0 else 1j * d
        # |.| has kinks where a complex value is 0: A1's tolerance, scaled to the gradient
        np.testing.assert_allclose(oa, num, rtol=1e-5, atol=1e-6 * max(1, np.abs(num).max()))
