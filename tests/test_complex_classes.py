"""The fuzzer's classes owned by the complex stream (tests/fuzz/open_classes.py), closed at
their root: each line is a one-line program run under jupyter_autograd and torch 2.13 that
must print the same (values, dtypes, grad_fn names, gradients, errors)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch
from .test_complex_parity import _run

NUMERIC_MARK = "numeric = 1; "  # lines compared as numbers (see test_same_output_as_torch)
X = "x = T.tensor([1+1j, 2-1j]); "
N = (
    "a = T.tensor([1+0j, complex(float('nan'), 0), 1+0j, 1+0j, complex(float('inf'), 0), 1+1j]); "
    "b = T.tensor([complex(float('nan'), 0), 1+0j, complex(float('inf'), 0), complex(0, float('inf')), 1+0j, "
    "complex(-float('inf'), 0)]); "
)
G = "G = lambda f: f and (type(f).__name__, tuple(G(n) for n, _ in f.next_functions)); "
S = "x = T.tensor([1.0, -2.0], dtype=T.float64, requires_grad=True); "
E = "e = T.zeros(0, 3, dtype=T.complex64, requires_grad=True); "
CASES = {
    "complex-refusals": [
        X + "r = x.argmax()",
        X + "r = x.argmin()",
        X + "r = x.argmax(0)",
        X + "r = x.argmin(0, True)",
        "r = T.zeros(0, 3, dtype=T.complex64).argmax(0)",
        "r = T.tensor(1j).argmax(0)",
        "r = T.tensor(1j).max(0)",
        "r = T.tensor(1j).min(-1)",
        "r = T.zeros(0, 3, dtype=T.complex64).max(0)",
        X + "r = x.max()",
        X + "r = x.min(0)",
        X + "r = x.clone().abs_()",
        "r = (T.tensor([1j], requires_grad=True) * 1).abs_()",
        "r = T.tensor([1j], requires_grad=True).abs_()",
        "x = T.tensor([-1.5, 2.0]); r = (x.abs_(), x)",
        E + "r = T.softmax(e, 0)",
        E + "r = T.log_softmax(e, 1)",
        "r = T.softmax(T.zeros(0, dtype=T.complex128), 0)",
        X + "r = T.softmax(x, 0)",
    ],
    "complex-reduction-dtype": [
        f"x = T.full({s}, 1-1j, dtype=T.complex128, requires_grad=True); v = x.{f}({d}correction={c}); "
        "v.backward(T.ones_like(v)); r = (v, x.grad)"
        for s in ((1, 1), (1, 3), (2,), (0, 2))
        for d in ("0, ", "")
        for c in (0, 1, 2)
        for f in ("var", "std")
    ]
    + [
        f"x = T.full({s}, 1.5, dtype=T.float64, requires_grad=True); v = x.{f}({d}correction={c}); "
        "v.backward(T.ones_like(v)); r = (v, x.grad)"
        for s in ((1, 1), (2,))
        for d in ("0, ", "")
        for c in (1, 2)
        for f in ("var", "std")
    ],
    "complex-pow-negative-base": [
        NUMERIC_MARK
        + f"x = T.tensor([1-1j, 0j, 2+0j, -1.5+0.5j], dtype=T.complex128, requires_grad=True); "
        f"y = T.pow({b}, x); y.backward(T.ones(4, dtype=T.complex128)); r = (y, x.grad)"
        for b in (-0.5, 0.0, 0, 2.0, 1j, -2, 3)
    ]
    + [
        NUMERIC_MARK
        + "x = T.tensor([1.0, 0.0, -2.0], requires_grad=True); y = T.pow(0.0, x); y.backward(T.ones(3)); r = (y, x.grad)",
        "x = T.tensor([1.0, 0.0, -2.0], requires_grad=True); y = T.pow(-0.5, x); y.backward(T.ones(3)); r = (y, x.grad)",
        "x = T.tensor([1-1j], requires_grad=True); y = (-0.5) ** x; y.backward(T.ones(1, dtype=T.complex64)); r = x.grad",
    ],
    "complex-nan-grad": [  # torch's complex add is a + (1+0j) * b: a nan/inf in b reaches both parts
        N
        + "r = (a + b, b + a, a - b, T.add(a, b, alpha=2), a.clone().add_(b), a.clone().sub_(b, alpha=2))",
        N + "r = (a + float('nan'), a - float('nan'), float('nan') + a, float('nan') - a, a + 1j)",
        "r = (T.tensor([1+0j]) + T.tensor([float('nan')]), T.tensor([float('nan')]) + T.tensor([1+0j]))",
        (
            "x = T.tensor(1+1j, requires_grad=True); y = x + 3.0; z = (x - 1j) + T.tensor(2.0); "
            "r = (y, z, (T.tensor(1+1j) + 3.0).numpy())"
        ),
        (
            "x = T.tensor([-1+1j, 2+0j], dtype=T.complex128, requires_grad=True); t = x.double().sqrt(); "
            "t.backward(T.ones(2, dtype=T.float64), retain_graph=True); t.backward(T.ones(2, dtype=T.float64)); r = x.grad"
        ),
        (
            "x = T.tensor([-1+1j, 2+0j], dtype=T.complex128, requires_grad=True); "
            "y = x.double().sqrt() + x.double().sqrt(); y.sum().backward(); r = x.grad"
        ),
        # pow at a zero base as std::pow (cexp(b * clog(a)))
        NUMERIC_MARK + "a = T.tensor([0j, 0j, 0j, 1+1j, -2+0j], dtype=T.complex128); "
        "b = T.tensor([-1.17+0.33j, 2.13+2.16j, 0j, 2+0j, 0.5+0j], dtype=T.complex128); "
        "r = (a ** b, a ** (-1.5+0.5j), T.tensor([0, 2, -3]) ** b[:3])",
    ],
    "gather-index-shape": [
        f"x = T.arange(8.).reshape(4, 2).requires_grad_(); y = T.gather(x, {d}, T.tensor({i})); "
        "y.sum().backward(); r = (y, x.grad)"
        for d, i in (
            (0, [[3], [0], [1]]),
            (1, [[1], [0]]),
            (0, [[3, 0, 1]]),
            (0, [[4]]),
            (0, [[-1]]),
            (1, [[0], [0], [0], [0], [0]]),
            (0, [3, 0]),
            (-1, [[1, 1]]),
        )
    ],
    "conj-view-real": [  # a conjugate is viewed through _conj (and _neg_view for imag), as torch
        G + "x = T.tensor([[1+1j, 2-1j]], dtype=T.complex128, requires_grad=True); c = x.conj(); "
        f"v = {e}; r = (v, G(v.grad_fn), v.is_conj())"
        for e in (
            "c.real",
            "c.imag",
            "T.real(c)",
            "T.imag(c)",
            "c[0].real",
            "c.view(2, 1).imag",
            "c.conj().real",
            "(x * 1).conj().imag",
            "c.t()",
            "c.mH",
            "c.squeeze().unsqueeze(1)",
            "c.resolve_conj().imag",
            "T.view_as_real(c[0])",
            "c.narrow(1, 0, 1).resolve_conj()",
        )
    ]
    + [
        G + "x = T.tensor([1+1j, -2j], dtype=T.complex128, requires_grad=True); "
        f"v = {e}; v.sum().backward(); r = (x.grad, G(v.grad_fn))"
        for e in ("x.conj().real", "x.conj().imag", "x.conj()[1:].imag * 3", "x.conj().t().real")
    ],
    "sgn-zero-tensor-grad": [  # a real sgn's gradient is torch's ZeroTensor, which .grad keeps
        S + f"y = {e}; y.sum().backward(); r = (x.grad, x.sum().backward(), x.grad)"
        for e in (
            "x.sgn()",
            "(x * 2).sgn()",
            "x.exp().sgn() * 3",
            "x.sgn() + x",
            "x.sgn() + x.sgn()",
            "x[0].sgn()",
            "x.float().sgn()",
            "x.relu().sgn()",
            "(-x).sgn()",
            "x.view(2, 1).sgn()",
            "x.sgn() * x",
        )
    ]
    + [
        S + f"x.sgn().sum().backward(); g = x.grad; r = ({e}, g)"
        for e in (
            "g.numpy()",
            "g.tolist()",
            "g.zero_()",
            "g.mul_(2)",
            "g.copy_(x)",
            "g.fill_(1)",
            "g.detach().add_(1)",
            "g.view(2, 1).add_(1)",
            "(g * 2).add_(1)",
            "(g + 1).add_(1)",
            "g.clone().add_(1)",
            "g.neg().add_(1)",
            "g.numpy(force=True)",
            "g.sum().item()",
            "g.__setitem__(0, 1.0)",
            "x.sgn().sum().backward(inputs=[x])",
            "(g - x, g == 0)",
        )
    ]
    + [
        S + "(g,) = T.autograd.grad(x.sgn().sum(), [x]); r = (g, g.add_(1))",
        (
            S
            + "x.sgn().sum().backward(); opt = T.optim.SGD([x], lr=0.1); opt.step(); opt.zero_grad(); "
            "x.sum().backward(); r = (x, x.grad)"
        ),
        (
            "x = T.tensor([1+1j, -2j], requires_grad=True); x.sgn().abs().sum().backward(); "
            "x.sum().abs().backward(); r = x.grad"
        ),
    ],
    "complex-to-bool": [
        "x = T.tensor([1j, 0j, float('nan') * 1j, 2+0j]); r = (x.to(T.bool), x.bool(), x[0].bool())",
    ],
}


# lines marked NUMERIC_MARK: values where NumPy's power (exact for integral exponents) and torch's cexp(b * clog(a)) round
# apart: compared as numbers (nan and inf positions exact, per part), with grad_fn names
def _values(module, line):
    ns = {"T": module}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(line, ns)  # noqa: S102 - fixed programs from this file
    r = ns["r"]
    return [
        (np.array(t.detach().numpy()), type(t.grad_fn).__name__, str(t.dtype).split(".")[1])
        for t in (r if isinstance(r, tuple) else (r,))
    ]


def _same_numbers(a, b):
    for part in (np.real, np.imag):
        x, y = part(a), part(b)
        if not (
            np.array_equal(np.isnan(x), np.isnan(y))
            and np.array_equal(np.isinf(x), np.isinf(y))
            and np.array_equal(x[np.isinf(x)], y[np.isinf(y)])
        ):
            return False
        fin = np.isfinite(x)
        if not np.allclose(x[fin], y[fin], rtol=1e-6, atol=1e-12):
            return False
    return True


@pytest.mark.parametrize(
    "line",
    [pytest.param(line, id=f"{k}-{i}") for k, v in CASES.items() for i, line in enumerate(v)],
)
def test_same_output_as_torch(line):
    torch = require_torch()
    if not line.startswith(NUMERIC_MARK):
        assert _run(ja, line) == _run(torch, line)
        return
    ours, theirs = _values(ja, line), _values(torch, line)
    assert [(g, d, v.shape) for v, g, d in ours] == [(g, d, v.shape) for v, g, d in theirs]
    for (a, _, _), (b, _, _) in zip(ours, theirs):
        assert _same_numbers(a, b), (a, b)
