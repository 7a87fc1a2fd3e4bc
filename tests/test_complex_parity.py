"""Complex tensors as torch shows them: one-line programs run with ``T`` bound to
jupyter_autograd and to torch 2.13 print the same (values, reprs, dtypes, grad_fn names,
gradients, errors). Covers the issue's examples verbatim (issue 13, "Why"), construction,
printing, promotion, conversion, ``.real``/``.imag``/``conj``/``angle``/``abs`` and the
composite functions built from registry rows."""

from __future__ import annotations

import re
import warnings

import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

ADDR = re.compile(r"0x[0-9a-f]+")
Z = "z = T.tensor([1+2j, -0.5+1j, 3-4j], requires_grad=True); "
C = "c = T.tensor(2-3j); x = T.tensor(1+1j, requires_grad=True); "
ISSUE = [  # issue 13: x*c backward(1+0j) must give conj(c); mul, div, exp, sin, matmul, abs(x*c)
    C + "(x*c).backward(T.tensor(1+0j)); r = x.grad",
    C + "(x/c).backward(T.tensor(1+0j)); r = x.grad",
    C + "(c/x).backward(T.tensor(1+0j)); r = x.grad",
    C + "x.exp().backward(T.tensor(1+0j)); r = x.grad",
    C + "x.sin().backward(T.tensor(1+0j)); r = x.grad",
    C + "(x*c).abs().backward(); r = x.grad",
    (
        "a = T.tensor([[1+1j, 2-1j], [0.5j, 3+0j]], requires_grad=True); b = T.tensor([[2-3j], [1+1j]]); "
        "(a @ b).abs().sum().backward(); r = a.grad"
    ),
    (
        "a = T.tensor([[1+1j, 2-1j], [0.5j, 3+0j]]); b = T.tensor([[2-3j], [1+1j]], requires_grad=True); "
        "(a @ b).abs().sum().backward(); r = b.grad"
    ),
    C + "y = x*c; y.backward(T.tensor(1+0j)); r = (y, y.grad_fn.next_functions)",
]
CASES = ISSUE + [
    # construction and printing
    "r = T.tensor(1+1j)",
    "r = (T.tensor(1+1j).dtype, T.tensor([1, 2j]).dtype, T.tensor([1.5, 2j]))",
    "r = T.tensor([[1+1j, 2], [3, 4-4j]])",
    "r = T.tensor([1e-5+1j, 1000j, -0.0-0.0j])",
    "r = T.tensor([float('nan')+1j, float('inf')-2j])",
    "r = T.tensor([1+2j], dtype=T.complex128)",
    "r = T.zeros(2, 3, dtype=T.cfloat)",
    "r = T.ones(2, dtype=T.complex64, requires_grad=True)",
    "r = T.full((2,), 1j)",
    "r = T.tensor(np.arange(2000).astype(np.complex64) * (1 + 1j))",
    "r = T.tensor(np.array([1+1j, 2-2j]))",
    "r = T.tensor([1+1j]).to(T.complex128)",
    "r = T.randn(4, dtype=T.complex64).dtype",
    "r = T.randn(3, dtype=T.cdouble).shape",
    "r = T.tensor([1.+2j]).tolist()",
    "r = T.tensor(2-3j).item()",
    "r = complex(T.tensor(2-3j))",
    "r = T.tensor([1+1j, 2]).is_complex()",
    "r = T.is_complex(T.tensor([1.]))",
    "r = T.tensor([3+4j]).numpy()",
    "r = T.tensor(1j).dtype.is_complex",
    "r = T.complex64.is_floating_point",
    # promotion
    "r = (T.tensor([1., 2.]) + T.tensor([1j])).dtype",
    "r = (T.tensor([1., 2.], dtype=T.float64) * 1j).dtype",
    "r = (T.tensor([1, 2]) * 1j)",
    "r = (T.tensor([1., 2.], dtype=T.float64) + T.tensor(1j)).dtype",
    "r = (T.tensor([1., 2.]) + T.tensor(1j, dtype=T.complex128)).dtype",
    "r = (T.tensor([1j], dtype=T.complex64) + T.tensor([1.], dtype=T.float64)).dtype",
    "r = T.promote_types(T.float64, T.complex64)",
    "r = T.result_type(T.tensor([1.]), 1j)",
    "r = T.tensor([1j]) * 2",
    "r = T.tensor([1j]) / 2",
    "r = 1 / T.tensor([1j, 2+2j])",
    "r = T.tensor([1+1j]) ** 2",
    "r = 2 ** T.tensor([1+1j])",
    # conversion
    "r = T.tensor([1+1j, 2-3j]).to(T.float32)",
    "r = T.tensor([1+1j, 2-3j]).real",
    "r = T.tensor([1+1j, 2-3j]).imag",
    "r = T.tensor([1., 2.]).real",
    "r = T.tensor([1., 2.]).imag",
    "r = T.tensor([1, -2]).angle()",
    "r = T.tensor([1j, -1., 0j]).angle()",
    "r = T.tensor([3+4j, 0j]).sgn()",
    "r = T.tensor([3+4j, -1j]).abs()",
    "r = T.view_as_real(T.tensor([1+2j, 3-4j]))",
    "r = T.view_as_real(T.tensor([1+2j, 3-4j])).stride()",
    "r = T.view_as_complex(T.tensor([[1., 2.], [3., 4.]]))",
    "r = T.view_as_complex(T.ones(3, 3))",
    "r = T.view_as_complex(T.ones(2, 3).t())",
    "r = T.view_as_complex(T.ones(3, 4)[:, 1:3])",
    "r = T.view_as_complex(T.ones(3, 2, dtype=T.long))",
    "r = T.view_as_real(T.ones(2))",
    "r = T.complex(T.tensor([1., 2.]), T.tensor([3., 4.]))",
    "r = T.complex(T.ones(2, 1), T.ones(3))",
    "r = T.complex(T.ones(2, dtype=T.long), T.ones(2, dtype=T.long))",
    "r = T.complex(T.ones(2), T.ones(2, dtype=T.float64))",
    "r = T.polar(T.tensor([1., 2.]), T.tensor([0., 1.5]))",
    "r = T.tensor([1+2j]).conj()",
    "r = (T.tensor([1+2j]).conj().is_conj(), T.tensor([1.]).conj().is_conj())",
    "r = T.tensor([1+2j]).conj().conj().is_conj()",
    "r = T.tensor([1+2j]).conj().resolve_conj().is_conj()",
    "r = T.tensor([1+2j]).conj().numpy()",
    "r = T.view_as_real(T.tensor([1+2j]).conj())",
    "r = T.tensor([1+2j]).conj().imag",
    "r = T.tensor([1+2j]).conj_physical()",
    "x = T.tensor([1., 2.]); r = x.conj() is x",
    # grad_fn names and graphs
    Z + "r = z.real",
    Z + "r = z.imag",
    Z + "r = z.conj()",
    Z + "r = z.conj().conj()",
    Z + "r = z.conj().resolve_conj()",
    Z + "r = z.conj_physical()",
    Z + "r = z.angle()",
    Z + "r = z.abs()",
    Z + "r = z.sgn()",
    Z + "r = T.view_as_real(z)",
    Z + "r = T.view_as_complex(T.view_as_real(z))",
    Z + "r = z.real.grad_fn.next_functions[0][0].name()",
    Z + "r = (z.conj()._base is z, z.real._base is z, z.imag._base is z)",
    "x = T.tensor([1., -2.], requires_grad=True); r = (T.complex(x, x), T.polar(x.abs(), x))",
    "x = T.tensor([1., -2.], requires_grad=True); r = x.angle()",
    "x = T.tensor([1., -2.], requires_grad=True); r = x.sgn()",
    "x = T.tensor([1., -2.], requires_grad=True); r = (x.real is x, x.conj() is x)",
    # gradients (torch's conjugate Wirtinger convention)
    Z + "(z * z).abs().sum().backward(); r = z.grad",
    Z + "(z.conj() * z).real.sum().backward(); r = z.grad",
    Z + "z.real.sum().backward(); r = z.grad",
    Z + "z.imag.sum().backward(); r = z.grad",
    Z + "z.angle().sum().backward(); r = z.grad",
    Z + "z.abs().pow(2).sum().backward(); r = z.grad",
    Z + "z.sgn().sum().abs().backward(); r = z.grad",
    Z + "T.view_as_real(z).pow(3).sum().backward(); r = z.grad",
    Z
    + "(z.log() + z.sqrt() + z.tanh() + z.sigmoid() + z.rsqrt()).abs().sum().backward(); r = z.grad",
    Z
    + "(z.exp() * z.cos() / z.tan() - z.reciprocal() + z.expm1() * z.log1p()).abs().sum().backward(); r = z.grad",
    Z + "(z ** 2.5 + z ** z + 2 ** z - (1 - z)).abs().sum().backward(); r = z.grad",
    Z
    + "(z.prod() + z.cumsum(0).sum() + z.mean() * 3 + z.logsumexp(0)).abs().backward(); r = z.grad",
    Z
    + "(z.var() + z.std() + z.norm() + z.norm(p=1) + T.linalg.vector_norm(z, 3)).backward(); r = z.grad",
    Z + "z.dot(z).abs().backward(); r = z.grad",
    Z + "T.outer(z, z).trace().abs().backward(); r = z.grad",
    Z + "(z[T.tensor([0, 0, 2])] * z.flip(0)[:2].repeat(2)[:3]).abs().sum().backward(); r = z.grad",
    "x = T.tensor([1., -2.], requires_grad=True); (x * (1+2j)).abs().sum().backward(); r = x.grad",
    "x = T.tensor([1., -2.], requires_grad=True); T.complex(x, 2*x).abs().sum().backward(); r = x.grad",
    "x = T.tensor([1., -2.], requires_grad=True); T.polar(x.abs(), x).real.sum().backward(); r = x.grad",
    "x = T.tensor([1., -2.], requires_grad=True); x.to(T.complex64).abs().sum().backward(); r = x.grad",
    (
        "x = T.tensor([1., -2.], requires_grad=True); y = T.view_as_complex(T.stack([x, x * 3], -1)); "
        "(y * y).abs().sum().backward(); r = x.grad"
    ),
    Z + "g, = T.autograd.grad((z * z).abs().sum(), z, create_graph=True); "
    "g.abs().sum().backward(); r = (g, z.grad)",
    Z + "r = T.autograd.grad(z.sum().abs(), z)",
    # composites from registry rows
    Z + "r = T.nn.functional.linear(z.view(1, 3), z.view(1, 3).conj())",
    (
        "W = T.tensor([[1+1j, 2-1j]], requires_grad=True); b = T.tensor([0.5j], requires_grad=True); "
        "T.nn.functional.linear(T.tensor([[1., 2j]]), W, b).abs().sum().backward(); r = (W.grad, b.grad)"
    ),
    Z + "r = T.nn.functional.mse_loss(z, z.detach())",
    Z + "r = T.nn.functional.l1_loss(z, z.detach() * 2)",
    Z + "r = T.nn.functional.softmax(z, 0)",
    Z + "r = T.nn.functional.relu(z)",
    Z + "r = T.nn.functional.cross_entropy(z.view(1, 3), T.tensor([1]))",
    Z + "r = T.nn.functional.dropout(z, 0.0)",
    Z + "r = T.where(z.real > 0, z, T.zeros(1, dtype=T.complex64))",
    Z + "r = T.cat([z, z.conj()])",
    Z + "r = T.stack([z, z]).sum(0)",
    Z + "r = z.reshape(3, 1).expand(3, 2).sum(1)",
    Z + "r = z.unsqueeze(0).mT",
    "a = T.tensor([[1+1j, 2j], [3., 1-1j]], requires_grad=True); r = a.H",
    "a = T.tensor([[1+1j, 2j], [3., 1-1j]], requires_grad=True); r = a.mH",
    "a = T.tensor([[1+1j, 2j], [3., 1-1j]], requires_grad=True); r = a.adjoint()",
    "a = T.tensor([[1., 2.], [3., 4.]], requires_grad=True); r = (a.H, a.mH)",
    "r = T.ones(2, dtype=T.cfloat).H",
    "r = T.ones(2, 2, 2, dtype=T.cfloat).H",
    "r = T.ones(2, dtype=T.cfloat).mH",
    "r = T.ones(2, dtype=T.cfloat).adjoint()",
    "r = T.ones(2, 3, 1, dtype=T.cfloat, requires_grad=True).mH",
    # in place, conversions, factories, functional transforms
    (
        "z = T.tensor([1+1j, 2-1j], requires_grad=True); y = z * 1; y.mul_(2-1j); "
        "y.abs().sum().backward(); r = (y, z.grad)"
    ),
    (
        "z = T.tensor([1+1j, 2-1j], requires_grad=True); y = z * 1; y += 1j; "
        "y.abs().sum().backward(); r = (y, z.grad)"
    ),
    (
        "z = T.tensor([1+1j, 2-1j], requires_grad=True); y = z * 1; y[0] = 5j; "
        "y.abs().sum().backward(); r = (y, z.grad)"
    ),
    "x = T.tensor([1., 2.]); x += 1j; r = x",
    "x = T.tensor([1., 2.]); x[0] = 1j; r = x",
    "x = T.tensor([1, 2]); x[0] = 1j; r = x",
    "x = T.tensor([1., 2.]); x.mul_(1j); r = x",
    "x = T.tensor([1, 2]); x.add_(1.5); r = x",
    "x = T.tensor([1., 2.], requires_grad=True).clone(); x.add_(1j); r = x",
    "z = T.tensor([1+1j, 2-1j]); z.real.mul_(2); r = z",
    "z = T.tensor([1+1j, 2-1j]); z.imag[0] = 7; r = z",
    "z = T.tensor([1+1j, 2-1j]); z.real = T.tensor([5., 6.]); r = z",
    "r = (int(T.tensor(2+0j)), float(T.tensor(1+0j)), bool(T.tensor(1j)))",
    "r = int(T.tensor(1+1j))",
    "r = float(T.tensor(1+1j))",
    "r = (T.tensor([1+1j]).float(), T.tensor([1+1j]).long(), T.tensor([1+1j]).bool())",
    "r = (T.tensor([1.5]).to(T.cfloat), T.tensor([1, 2]).to(T.complex64))",
    "r = T.arange(3, dtype=T.cfloat)",
    "r = (T.linspace(0, 1, 3, dtype=T.cfloat), T.eye(2, dtype=T.cfloat))",
    "r = (T.zeros_like(T.tensor([1j])), T.ones(2, dtype=T.cdouble).element_size())",
    (
        "r = (T.tensor([1+1j]) == T.tensor([1+1j]), T.tensor([1+1j]) != 1, "
        "T.equal(T.tensor([1j]), T.tensor([1j])), T.allclose(T.tensor([1j]), T.tensor([1j+1e-9])))"
    ),
    "r = T.tensor([1+1j, float('nan')]).isnan()",
    "r = (T.tensor([-4+0j]).sqrt(), T.tensor([1j, -1j]).log(), T.tensor([3+4j]).pow(0.5))",
    "r = T.tensor([[1j, 1], [2, 3]]) @ T.tensor([[1.], [2.]])",
    "r = (T.stack([T.tensor([1j]), T.tensor([1.])]), T.cat([T.tensor([1j]), T.tensor([1.])]))",
    "r = T.where(T.tensor([True, False]), T.tensor([1j, 2j]), 0.)",
    "r = T.tensor([1j, 2]).masked_fill(T.tensor([True, False]), 3j)",
    (
        "lin = T.nn.Linear(2, 3, dtype=T.cfloat); out = lin(T.ones(4, 2, dtype=T.cfloat)); "
        "out.abs().sum().backward(); r = (lin.weight.dtype, lin.weight.grad.dtype, out.shape)"
    ),
    (
        "x = T.tensor([1., 2.], requires_grad=True); h = x.register_hook(lambda g: g * 1j); "
        "r = (x * 2).sum().backward()"
    ),
    "z = T.tensor([1+1j, 2-1j], requires_grad=True); r = T.autograd.functional.jacobian(lambda z: z * z, z)",
    (
        "z = T.tensor([1+1j, 2-1j], requires_grad=True); "
        "r = T.autograd.functional.jacobian(lambda z: z * z, z, vectorize=True)"
    ),
    (
        "z = T.tensor([1+1j, 2-1j], requires_grad=True); "
        "r = T.autograd.functional.jacobian(lambda z: (z * z).abs(), z)"
    ),
    (
        "z = T.tensor([1+1j, 2-1j], requires_grad=True); "
        "r = T.autograd.functional.vjp(lambda z: (z * z).abs().sum(), z)"
    ),
    "z = T.tensor([1+1j, 2-1j]); r = T.func.grad(lambda z: (z * z).abs().sum())(z)",
    "z = T.tensor([1+1j, 2-1j]); r = T.func.jvp(lambda z: z * z, (z,), (T.ones(2, dtype=T.cfloat),))",
    "z = T.tensor([1+1j, 2-1j]); r = T.func.vjp(lambda z: z.exp(), z)[1](T.ones(2, dtype=T.cfloat))",
    (
        "fw = T.autograd.forward_ad\nwith fw.dual_level():\n"
        "  d = fw.make_dual(T.tensor([1+1j, 2.]), T.tensor([1j, 1.]))\n"
        "  r = (d.abs(), d.angle(), d.real, d.conj(), d * d, d.exp().sum())"
    ),
    # refusals
    Z + "r = z.max()",
    Z + "r = z.clamp(min=0)",
    Z + "r = z.sign()",
    Z + "r = z.floor()",
    Z + "r = z < 1",
    Z + "r = T.maximum(z, z)",
    Z + "r = z.sum().backward()",
    Z + "r = z.backward(T.ones(3))",
    Z + "r = T.nn.functional.embedding(T.tensor([0]), z.view(3, 1))",
    "r = T.nn.functional.embedding(T.tensor([0]), T.tensor([[1j]]))",
    Z + "r = z.abs().backward(T.ones(3, dtype=T.complex64))",
]


def _run(module, line):
    import numpy as np

    ns = {"T": module, "np": np}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(line, ns)  # noqa: S102 - fixed programs from this file
        return ADDR.sub("0x", repr(ns["r"])).replace("jupyter_autograd.", "torch.")
    except Exception as e:  # noqa: BLE001 - errors are compared too
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("line", CASES)
def test_same_output_as_torch(line):
    torch = require_torch()
    assert _run(ja, line) == _run(torch, line)


def test_issue_examples_give_the_conjugate():
    """The issue's example, without torch: d(x*c)/dx under torch's convention is conj(c)."""
    c = ja.tensor(2 - 3j)
    x = ja.tensor(1 + 1j, requires_grad=True)
    (x * c).backward(ja.tensor(1 + 0j))
    assert x.grad.item() == (2 + 3j)


OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "foreach": False, "maximize": True}),
    ("AdamW", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.1, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5}),
]


@pytest.mark.parametrize(("name", "kw"), OPTIMIZERS)
def test_optimizer_steps_a_complex_parameter_as_torch(name, kw):
    """torch updates a complex parameter through view_as_real: each part has its own moments."""
    torch = require_torch()

    def run(T):
        z = T.tensor([1 + 1j, 2 - 1j], requires_grad=True, dtype=T.complex128)
        w = T.tensor([0.5, -1.0], requires_grad=True, dtype=T.float64)
        opt = getattr(T.optim, name)([z, w], **kw)
        for _ in range(3):
            opt.zero_grad()
            ((z * z).abs().sum() + (w * z).abs().sum()).backward()
            opt.step()
        state = [repr(v) for k, v in sorted(opt.state[z].items()) if k != "step"]
        return ADDR.sub("0x", repr((z, w, state))).replace("jupyter_autograd.", "torch.")

    assert run(ja) == run(torch)
