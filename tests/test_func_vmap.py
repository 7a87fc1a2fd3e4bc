"""torch.func.functional_call / stack_module_state, vmap over pytrees, and grad / vjp with
pytrees, against torch: values, structures and errors (the programs of the per-sample
gradients, model ensembling and jacobians/hessians tutorials, written as our own)."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch


def _ours(t):
    return ja.tensor(t.detach().numpy())


def _close(a, b, tol=1e-6):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k], tol)
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
    elif isinstance(a, float):
        assert a == b
    else:
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return type(e).__name__, str(e)
    return None


def _models(m, seed=0):
    rng = np.random.default_rng(seed)
    model = m.nn.Sequential(m.nn.Linear(3, 5), m.nn.Tanh(), m.nn.Linear(5, 2))
    with m.no_grad():
        for p in model.parameters():
            p.copy_(m.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def test_per_sample_gradients_as_torch():
    torch = require_torch()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.integers(0, 2, 8)

    def run(m):
        model = _models(m)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            out = m.func.functional_call(model, p, (xi.unsqueeze(0),))
            return m.nn.functional.cross_entropy(out, yi.unsqueeze(0))

        per_sample = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(
            params, m.tensor(x), m.tensor(y)
        )
        # the same by a loop of backward passes
        loop = []
        for i in range(8):
            model.zero_grad()
            loss(
                {k: v for k, v in model.named_parameters()}, m.tensor(x[i]), m.tensor(y[i])
            ).backward()
            loop.append({k: v.grad.clone() for k, v in model.named_parameters()})
        return per_sample, loop

    ours, theirs = run(ja), run(torch)
    _close(ours[0], theirs[0], 1e-5)
    for k in ours[0]:
        _close(ours[0][k], ja.stack([d[k] for d in ours[1]]), 1e-5)


def test_model_ensembling_as_torch():
    torch = require_torch()
    x = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)

    def run(m):
        models = [_models(m, seed) for seed in range(3)]
        params, buffers = m.func.stack_module_state(models)
        base = _models(m, 99)

        def f(p, b, xx):
            return m.func.functional_call(base, (p, b), (xx,))

        same = m.func.vmap(f, in_dims=(0, 0, None))(params, buffers, m.tensor(x))
        diff = m.func.vmap(f)(params, buffers, m.tensor(np.stack([x] * 3)))
        return same, diff, {k: (v.requires_grad, v.is_leaf) for k, v in params.items()}

    ours, theirs = run(ja), run(torch)
    _close(ours[:2], theirs[:2], 1e-5)
    assert ours[2] == theirs[2]


def test_functional_call_semantics_and_errors():
    torch = require_torch()

    def build(m):
        class Tied(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = m.nn.Linear(2, 2, bias=False)
                self.b = m.nn.Linear(2, 2, bias=False)
                self.b.weight = self.a.weight
                self.register_buffer("scale", m.ones(1))

            def forward(self, x, shift=0.0):
                return self.b(self.a(x)) * self.scale + shift

        mod = Tied()
        with m.no_grad():
            mod.a.weight.copy_(m.tensor([[1.0, 2.0], [3.0, 4.0]]))
        return mod

    def scenarios(m):
        mod = build(m)
        x = m.tensor([[1.0, -1.0]])
        w = m.eye(2)
        fc = m.func.functional_call
        out = [
            fc(mod, {"a.weight": w}, (x,)),  # tied: b.weight follows
            fc(mod, {"a.weight": w}, (x,), tie_weights=False),
            fc(mod, ({"a.weight": w}, {"scale": m.tensor([2.0])}), x, {"shift": 1.0}),
            fc(mod, {"a.weight": w, "b.weight": w}, (x,)),
            mod(x),
        ]  # the originals are back
        errs = [
            _err(lambda: fc(mod, {"a.weight": w, "b.weight": w * 2}, (x,))),
            _err(lambda: fc(mod, {"a.weight": w, "nope": w}, (x,), strict=True)),
            _err(lambda: fc(mod, ({"a.weight": w}, {"a.weight": w}), (x,))),
            _err(lambda: fc(mod, [{"a.weight": w}, 3], (x,))),
            _err(lambda: fc(mod, 3, (x,))),
            _err(lambda: m.func.stack_module_state([])),
            _err(lambda: m.func.stack_module_state([m.nn.Linear(1, 1), m.nn.Tanh()])),
            _err(lambda: m.func.stack_module_state([m.nn.Linear(1, 1), m.nn.Linear(1, 1).eval()])),
        ]
        return out, errs

    ours, theirs = scenarios(ja), scenarios(torch)
    _close(ours[0], theirs[0])
    assert ours[1] == theirs[1]


def test_vmap_pytrees_dims_and_nesting():
    torch = require_torch()
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(4, dtype=np.float32)

    def run(m):
        A, B = m.tensor(a), m.tensor(b)
        vm = m.func.vmap
        return [
            vm(lambda x, y: x * y, in_dims=(1, None))(A, B),
            vm(lambda x: x.sum(0), in_dims=-1)(A),
            vm(lambda d: d["x"] + d["y"][0].sum(), in_dims=({"x": 2, "y": [None]},))(
                {"x": A, "y": [B]}
            ),
            vm(lambda x: (x, {"s": x.sum()}), out_dims=(1, {"s": 0}))(A),
            vm(lambda x: (x.sum(), 3.0), out_dims=(0, None))(A),
            vm(vm(lambda x, y: x.dot(y), in_dims=(0, None)), in_dims=(0, None))(A, B),
            vm(lambda x, *, k: x * k)(A, k=2.0),
            vm(lambda x: x.t(), out_dims=-1, chunk_size=1)(A),
            m.vmap(m.func.jacrev(lambda x: x.sin() * x))(A),
            m.vmap(m.func.jacfwd(lambda x: x.sin() * x))(A[0]),
            vm(m.func.hessian(lambda x: (x**3).sum()))(A[:, 0]),
        ]

    _close(run(ja), run(torch), 1e-5)


def test_vmap_randomness():
    torch = require_torch()
    for m in (ja, torch):
        x = m.zeros(4, 3)
        same = m.vmap(lambda t, m=m: t + m.rand(3), randomness="same")(x)
        assert all(bool((row == same[0]).all()) for row in same)
        diff = m.vmap(lambda t, m=m: t + m.rand(3), randomness="different")(x)
        assert not bool((diff[1] == diff[0]).all())
    for f in (
        lambda m, t: t + m.rand(3),
        lambda m, t: m.nn.functional.dropout(t, 0.5),
        lambda m, t: t.normal_(),
        lambda m, t: t + m.randn(3, generator=m.Generator()),
    ):
        assert _err(lambda f=f: ja.vmap(lambda t: f(ja, t))(ja.zeros(4, 3))) == _err(
            lambda f=f: torch.vmap(lambda t: f(torch, t))(torch.zeros(4, 3))
        )


def test_vmap_errors_as_torch():
    torch = require_torch()

    def f(x):
        return x

    def scenarios(m):
        t = m.ones(2, 3)
        vm = m.func.vmap
        return [
            _err(lambda: vm(f, in_dims=[0])(t)),
            _err(lambda: vm(f)()),
            _err(lambda: vm(f, in_dims=(0, 0))(t)),
            _err(lambda: vm(f, in_dims=(0.5,))(t)),
            _err(lambda: vm(lambda x, n: x, in_dims=(0, 0))(t, 3)),
            _err(lambda: vm(f, in_dims=2)(t)),
            _err(lambda: vm(lambda x, y: x, in_dims=(0, 1))(t, t)),
            _err(lambda: vm(f, in_dims=None)(t)),
            _err(lambda: vm(f, in_dims=(None,))(t)),
            _err(lambda: vm(f, randomness="sometimes")),
            _err(lambda: vm(f, chunk_size=0)),
            _err(lambda: vm(lambda x: 3)(t)),
            _err(lambda: vm(f, out_dims="x")(t)),
            _err(lambda: vm(f, out_dims=3)(t)),
            _err(lambda: vm(lambda x: (x, x), out_dims=(0, 0, 0))(t)),
        ]

    ours, theirs = scenarios(ja), scenarios(torch)
    for o, t in zip(ours, theirs):
        assert o is not None and t is not None
        if "structure" in t[1]:  # torch prints its TreeSpec: compare up to it
            assert o[0] == t[0] and o[1].split("structure")[0] == t[1].split("structure")[0]
        else:
            assert o == t


def test_grad_and_vjp_with_pytrees():
    torch = require_torch()

    def run(m):
        p = {"w": m.tensor([1.0, 2.0]), "b": (m.tensor(0.5), m.tensor([3.0]))}

        def f(p, x):
            return (p["w"] * x).sum() + p["b"][0] * p["b"][1].sum()

        g = m.func.grad(f)(p, m.tensor([2.0, -1.0]))
        g2 = m.func.grad(f, argnums=(0, 1))(p, m.tensor([2.0, -1.0]))
        gv = m.func.grad_and_value(lambda d: (d["a"] ** 2).sum(), has_aux=False)(
            {"a": m.tensor([3.0])}
        )
        out, fn = m.func.vjp(
            lambda d: {"s": d["a"].sin(), "c": [d["a"].cos()]}, {"a": m.tensor([0.5, 1.0])}
        )
        ct = fn({"s": m.ones(2), "c": [m.tensor([1.0, 2.0])]})
        out2, fn2 = m.func.vjp(lambda x, y: (x * y, x + y), m.tensor([1.0]), m.tensor([2.0]))
        return [g, g2, gv, out, ct, out2, fn2((m.ones(1), m.ones(1)))]

    _close(run(ja), run(torch))

    def bad_cotangents(m):
        _, fn = m.func.vjp(lambda d: {"s": d["a"].sin()}, {"a": m.ones(2)})
        fn([m.ones(2)])

    o, t = _err(lambda: bad_cotangents(ja)), _err(lambda: bad_cotangents(torch))
    assert o[0] == t[0] and o[1].split(":")[0] == t[1].split(":")[0]


@pytest.mark.parametrize("n", [5])
def test_jacobian_and_ntk_style_programs(n):
    torch = require_torch()
    x = np.random.default_rng(3).standard_normal((n, 3)).astype(np.float32)

    def run(m):
        model = _models(m)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def fnet_single(p, xi):
            return m.func.functional_call(model, p, (xi.unsqueeze(0),)).squeeze(0)

        jac = m.func.vmap(m.func.jacrev(fnet_single), (None, 0))(params, m.tensor(x))
        flat = [j.flatten(2) for j in jac.values()]
        ntk = sum(a @ b.transpose(1, 2) for a, b in zip(flat, flat))
        return jac, ntk

    _close(run(ja), run(torch), 1e-4)
