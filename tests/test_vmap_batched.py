"""The batching vmap (jupyter_autograd/_vmap_batch.py) against torch.vmap: values, per-sample
gradients, in_dims/out_dims, nesting, chunk_size, and the fall back to the per-element loop."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd import _vmap_batch as vb

from ._torch import require as require_torch

RNG = np.random.default_rng(7)
A = RNG.standard_normal((5, 3, 4))
V = RNG.standard_normal((5, 4))
W = RNG.standard_normal((6, 4))
U = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((4, 2))
Y = RNG.integers(0, 4, (5, 3))


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _close(a, b, tol=1e-10):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k], tol)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
    else:
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _batched(fn):
    """fn() ran through the batched path (no fall back to the loop)."""
    before = dict(vb.STATS)
    out = fn()
    assert vb.STATS["fallback"] == before["fallback"], vb.STATS["last"]
    assert vb.STATS["batched"] > before["batched"]
    return out


# (name, f(m, *tensors), arrays, in_dims, out_dims)
CASES = [
    (
        "elementwise",
        lambda m, x, u: ((x * 2 - u).tanh() + 1.5) / (x.exp() + 1),
        (A, U),
        (0, None),
        0,
    ),
    ("scalar-left", lambda m, x: 2.0 - x**2 + 3 * x.sigmoid(), (A,), 0, 0),
    ("unary-fns", lambda m, x: m.tanh(x) + m.exp(x).log() + m.sin(x) * m.cos(x), (A,), 0, 0),
    ("higher-rank-unbatched", lambda m, v, u: v + u, (V, U), (0, None), 0),
    ("compare", lambda m, x, v: (x > v).float() + (x <= 0).double(), (A, V), (0, 0), 0),
    ("sum-all", lambda m, x: x.sum(), (A,), 0, 0),
    ("sum-dims", lambda m, x: x.sum(-1) + x.sum((0, 1), keepdim=True).squeeze(0), (A,), 0, 0),
    ("mean", lambda m, x: x.mean(0, keepdim=True) * x.mean(), (A,), 2, 1),
    ("softmax", lambda m, x: x.softmax(-1) + x.log_softmax(0), (A,), 1, -1),
    (
        "layout",
        lambda m, x: x.t().unsqueeze(0).transpose(0, 2).reshape(-1, 2).flatten(),
        (A,),
        0,
        0,
    ),
    ("permute", lambda m, x: x.permute(1, 0).unsqueeze(-1).squeeze().movedim(0, 1), (A,), 0, 1),
    ("view", lambda m, x: x.view(2, 6).sum(1) + x.reshape(12).sum(), (A,), 0, 0),
    (
        "expand-index",
        lambda m, x, u: (
            (x.expand(2, 3, 4) * u).sum(0)
            + x[None, 1:, ::2].expand(2, 2, 2).sum()
            + x[-1].view_as(x[0]).expand(3, 4)
            + x[..., 0:1].expand_as(x)
        ),
        (A, U),
        (0, None),
        0,
    ),
    ("matmul-vec-mat", lambda m, v, w: w @ v, (V, W), (0, None), 0),
    ("matmul-mat-vec", lambda m, x, v: x @ v, (A, V), (0, 0), 0),
    ("matmul-vec-vec", lambda m, v, w: v @ v + v.dot(w[0]), (V, W), (0, None), 0),
    ("matmul-mat-mat", lambda m, x, mm: x @ mm + x.mm(mm) + m.matmul(x, mm), (A, M), (0, None), 0),
    ("matmul-both", lambda m, x, v: x.t() @ x + v @ x.t() @ x, (A, V), (0, 0), 0),
    ("matmul-bcast", lambda m, x, u: u @ x.t(), (A, U), (0, None), 0),
    ("mv", lambda m, x, v: x.mv(v), (A, V), (0, 0), 0),
    ("linear", lambda m, v, w: m.nn.functional.linear(v, w, w[:, 0]), (V, W), (0, None), 0),
    ("linear-2d", lambda m, x, w: m.nn.functional.linear(x, w), (A, W), (0, None), 0),
    (
        "linear-batched-weight",
        lambda m, v, w: m.nn.functional.linear(v, w, w[:, 0]),
        (V, RNG.standard_normal((5, 2, 4))),
        (0, 0),
        0,
    ),
    ("cross-entropy-mean", lambda m, x, y: m.nn.functional.cross_entropy(x, y), (A, Y), (0, 0), 0),
    (
        "cross-entropy-sum",
        lambda m, x, y: m.nn.functional.cross_entropy(x, y, reduction="sum"),
        (A, Y),
        (0, 0),
        0,
    ),
    (
        "cross-entropy-none",
        lambda m, x, y: m.nn.functional.cross_entropy(x, y, reduction="none", ignore_index=1),
        (A, Y),
        (0, 0),
        0,
    ),
    ("cross-entropy-1d", lambda m, v, y: m.nn.functional.cross_entropy(v, y[0]), (V, Y), (0, 0), 0),
    (
        "promote-0d",
        lambda m, s, v: (s * v.float(), s > v.float(), v.float() + s.sum()),
        (A[:, 0, 0], V),
        (0, None),
        0,
    ),
    (
        "pytree-out",
        lambda m, x: {"a": x.sum(0), "b": (x * 2, x.t())},
        (A,),
        0,
        {"a": 1, "b": (0, -1)},
    ),
    ("unbatched-out", lambda m, x, w: (x.sum(), w.sum(0)), (A, W), (0, None), 0),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_as_torch_vmap(case):
    torch = require_torch()
    _, f, arrays, in_dims, out_dims = case

    def run(m):
        ts = [m.tensor(a) for a in arrays]
        return m.vmap(lambda *xs: f(m, *xs), in_dims=in_dims, out_dims=out_dims)(*ts)

    _close(_batched(lambda: run(ja)), run(torch))


@pytest.mark.parametrize("chunk", [1, 2, 5, 9])
def test_chunk_size(chunk):
    torch = require_torch()

    def run(m):
        return m.vmap(
            lambda x, w: (m.tanh(x @ w.t()).sum(0), w.sum()), in_dims=(1, None), chunk_size=chunk
        )(m.tensor(A), m.tensor(W))

    _close(_batched(lambda: run(ja)), run(torch))


def test_nested_vmap_runs_batched():
    torch = require_torch()

    def run(m):
        inner = m.vmap(lambda r, v: (r * v).sum() + r @ v, in_dims=(0, None))
        return m.vmap(inner, in_dims=(0, 0))(m.tensor(A), m.tensor(V)), m.vmap(
            m.vmap(lambda x: x.t().sum(-1) * 2, in_dims=1), in_dims=2, out_dims=1
        )(m.tensor(A))

    _close(_batched(lambda: run(ja)), run(torch))


def _mlp(m):
    F = m.nn.functional
    model = m.nn.Sequential(m.nn.Linear(4, 6), m.nn.Tanh(), m.nn.Linear(6, 3))
    g = np.random.default_rng(3)
    with m.no_grad():
        for p in model.parameters():
            p.copy_(m.tensor(g.standard_normal(tuple(p.shape)) * 0.5))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        out = m.func.functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    return params, loss


def test_per_sample_grads_as_torch():
    torch = require_torch()
    x, y = RNG.standard_normal((7, 4)).astype(np.float32), RNG.integers(0, 3, 7)

    def run(m):
        params, loss = _mlp(m)
        g = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(params, m.tensor(x), m.tensor(y))
        gv = m.func.vmap(m.func.grad_and_value(loss, argnums=(0, 1)), in_dims=(None, 0, 0))(
            params, m.tensor(x), m.tensor(y)
        )
        return g, gv

    ours = _batched(lambda: run(ja))
    assert tuple(ours[0]["0.weight"].shape) == (7, 6, 4)  # per sample, never summed
    _close(ours, run(torch), 1e-5)


def test_grad_has_aux_and_batched_argument():
    torch = require_torch()

    def run(m):
        def f(x, w):
            s = (m.tanh(w @ x) ** 2).sum()
            return s, {"s2": s * 2}

        return m.vmap(m.func.grad(f, argnums=(0, 1), has_aux=True), in_dims=(0, None))(
            m.tensor(V), m.tensor(W)
        )

    _close(_batched(lambda: run(ja)), run(torch))


def test_grad_of_a_batched_vmap():
    """An outer backward through the batched run's graph (grad(vmap(f)), .backward())."""
    torch = require_torch()

    def run(m):
        x = m.tensor(A, requires_grad=True)
        w = m.tensor(W, requires_grad=True)
        out = m.vmap(lambda r: m.tanh(r @ w.t()).sum(0))(x)
        (out * out).sum().backward()
        return out, x.grad, w.grad

    _close(_batched(lambda: run(ja)), run(torch))


def _falls_back(fn):
    before = vb.STATS["fallback"]
    out = fn()
    assert vb.STATS["fallback"] == before + 1
    return out


def test_unbatchable_falls_back_to_the_loop():
    torch = require_torch()
    x = ja.tensor(A)

    class Square(ja.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * t

        @staticmethod
        def backward(ctx, g):
            return g

    # custom Function, rows without a rule here, numpy operands: the loop's values
    _close(_falls_back(lambda: ja.vmap(Square.apply)(x)), torch.tensor(A) ** 2)
    _close(
        _falls_back(lambda: ja.vmap(lambda t: ja.where(t > 0, t, 0.0).cumsum(0))(x)),
        torch.vmap(lambda t: torch.where(t > 0, t, 0.0).cumsum(0))(torch.tensor(A)),
    )
    _close(
        _falls_back(lambda: ja.vmap(lambda t: t + np.ones((5, 3, 4)))(x)),
        ja.stack([t + ja.tensor(np.ones((5, 3, 4))) for t in x]),
    )
    # data-dependent Python control flow is refused, as torch: see the test below


def test_random_and_inplace_fall_back_before_acting():
    x = ja.zeros(4, 3)
    ja.manual_seed(0)
    a = ja.vmap(lambda t: t + ja.rand(3), randomness="different")(x)
    ja.manual_seed(0)
    b = ja.stack([t + ja.rand(3) for t in x])
    _close(a, b)
    y = ja.ones(4, 3)
    _falls_back(lambda: ja.vmap(lambda t: t.mul_(2))(y))
    _close(y, ja.full((4, 3), 2.0))


def test_errors_as_the_loop():
    torch = require_torch()
    for f in (lambda m, t: t @ m.ones(5), lambda m, t: t.sum(3), lambda m, t: t.reshape(7)):
        with pytest.raises(Exception) as ours:
            ja.vmap(lambda t, f=f: f(ja, t))(ja.tensor(A))
        with pytest.raises(Exception) as theirs:
            torch.vmap(lambda t, f=f: f(torch, t))(torch.tensor(A))
        assert type(ours.value) is type(theirs.value)


def test_batched_tensor_is_internal():
    with pytest.raises(TypeError):
        vb.BatchedTensor(ja.ones(2))


def test_transforms_around_a_batched_grad_keep_the_graph():
    """jacrev over vmap(grad(f)): the inner grad must keep its graph (the per-element run)."""
    torch = require_torch()

    def run(m):
        def f(w, x):
            return (m.tanh(w @ x) ** 2).sum()

        inner = lambda w: m.vmap(m.func.grad(f), in_dims=(None, 0))(w, m.tensor(V))
        return m.func.jacrev(inner)(m.tensor(W))

    _close(run(ja), run(torch), 1e-8)


# ------------------------------------------------------------------ generated programs
def _op_pool(g):
    """Ops (name, f(m, t, c)) a generated program draws from; c: unbatched constants."""
    d = int(g.integers(-2, 2))
    k = bool(g.integers(0, 2))
    return [
        ("tanh", lambda m, t, c: t.tanh()),
        ("sin", lambda m, t, c: m.sin(t)),
        ("sigmoid", lambda m, t, c: t.sigmoid()),
        ("relu", lambda m, t, c: t.relu()),
        ("exp", lambda m, t, c: (t * 0.3).exp()),
        ("abs-neg", lambda m, t, c: -t.abs()),
        ("square", lambda m, t, c: t.square() - 1),
        ("pow", lambda m, t, c: t**2),
        ("div", lambda m, t, c: 2.0 / (t.abs() + 1)),
        ("rsub", lambda m, t, c: 1.5 - t),
        ("add-const", lambda m, t, c: t + c["v"][: t.shape[-1]] if t.dim() else t + 1),
        ("mul-const", lambda m, t, c: c["u"][..., : t.shape[-1]] * t if t.dim() else t * 3),
        (
            "add-sub-method",
            lambda m, t, c: t.add(c["v"][: t.shape[-1]] if t.dim() else 1.0, alpha=2).sub(0.5),
        ),
        (
            "mul-div-method",
            lambda m, t, c: t.mul(t).div(
                c["u"][..., : t.shape[-1]] if t.dim() else 3, rounding_mode="floor"
            ),
        ),
        ("pow-clamp", lambda m, t, c: t.abs().pow(1.5).clamp(min=-0.5, max=0.5) + t.clamp_min(0)),
        ("maximum", lambda m, t, c: t.maximum(c["v"][: t.shape[-1]] if t.dim() else c["v"][0])),
        ("compare", lambda m, t, c: (t > 0).float() * t + (t <= 0).double() * 0.5),
        ("sum-dim", lambda m, t, c: t.sum(d, keepdim=k)),
        ("sum", lambda m, t, c: t.sum()),
        ("mean-dim", lambda m, t, c: t.mean(d, keepdim=k)),
        ("softmax", lambda m, t, c: t.softmax(d)),
        ("log_softmax", lambda m, t, c: t.log_softmax(d)),
        ("unsqueeze", lambda m, t, c: t.unsqueeze(d)),
        ("squeeze", lambda m, t, c: t.squeeze()),
        ("transpose", lambda m, t, c: t.transpose(0, -1)),
        ("t", lambda m, t, c: t.t()),
        ("permute", lambda m, t, c: t.permute(*reversed(range(t.dim())))),
        ("flatten", lambda m, t, c: t.flatten()),
        ("reshape", lambda m, t, c: t.reshape(-1, 1)),
        ("matmul", lambda m, t, c: t @ c["w"][: t.shape[-1]]),
        ("rmatmul", lambda m, t, c: c["w"][: t.shape[0], :2].t() @ t),
        ("linear", lambda m, t, c: m.nn.functional.linear(t, c["w"][:, : t.shape[-1]].t())),
        ("index", lambda m, t, c: t[..., :1] + t[-1:]),
        ("select", lambda m, t, c: t[0]),
        ("expand", lambda m, t, c: t.unsqueeze(0).expand(2, *t.shape) * 0.5),
    ]


def _program(seed):
    """A random program valid on one element (checked with torch), its input shape, in_dim."""
    torch = require_torch()
    g = np.random.default_rng(seed)
    shape = tuple(int(s) for s in g.integers(1, 4, int(g.integers(1, 4))))
    consts = {
        "v": g.standard_normal(4),
        "u": g.standard_normal((2, 1, 4)),
        "w": g.standard_normal((4, 4)),
    }
    tc = {k: torch.tensor(v) for k, v in consts.items()}
    cur = torch.tensor(g.standard_normal(shape))
    prog = []
    for _ in range(int(g.integers(2, 7))):
        pool = _op_pool(g)
        name, f = pool[int(g.integers(len(pool)))]
        try:
            nxt = f(torch, cur, tc)
        except (RuntimeError, IndexError, ValueError, TypeError):
            continue
        if nxt.dim() > 4 or nxt.numel() > 200:
            continue
        prog.append((name, f))
        cur = nxt
    in_dim = int(g.integers(-len(shape) - 1, len(shape) + 1))
    return prog, shape, in_dim, consts


@pytest.mark.parametrize("seed", range(60))
def test_generated_programs_as_torch_vmap(seed):
    torch = require_torch()
    prog, shape, in_dim, consts = _program(seed)
    B = 3
    full = list(shape)
    full.insert(in_dim % (len(shape) + 1), B)
    x = np.random.default_rng(seed + 1000).standard_normal(full)

    def run(m, grad):
        c = {k: m.tensor(v) for k, v in consts.items()}

        def f(t):
            for _, op in prog:
                t = op(m, t, c)
            return (t.double() ** 2).sum() if grad else t

        return m.vmap(m.func.grad(f) if grad else f, in_dims=in_dim)(m.tensor(x))

    for grad in (False, True):
        _close(_batched(lambda grad=grad: run(ja, grad)), run(torch, grad), 1e-9)

    def nested(m):  # the program under two vmap levels (an outer batch of 2 in front)
        c = {k: m.tensor(v) for k, v in consts.items()}

        def f(t):
            for _, op in prog:
                t = op(m, t, c)
            return t

        x2 = m.tensor(np.stack([x, -x]))
        return m.vmap(m.vmap(f, in_dims=in_dim))(x2)

    _close(nested(ja), nested(torch), 1e-9)


_REFUSED = {
    "item": lambda lib, t: t.sum().item() * t,
    "float": lambda lib, t: float(t.sum()) * t,
    "int": lambda lib, t: int(t.sum()) * t,
    "bool": lambda lib, t: t * bool(t.sum() > 0),
    "control flow": lambda lib, t: t if t.sum() > 0 else -t,
    "tolist": lambda lib, t: lib.tensor(t.tolist()),
    "numpy": lambda lib, t: lib.tensor(t.numpy()),
    "nonzero": lambda lib, t: t.nonzero(),
    "bool mask": lambda lib, t: t[t > 0],
    "data": lambda lib, t: t.data * 2,
    # what torch allows: a captured tensor's value, a batched tensor's length
    "captured item": lambda lib, t: t * lib.tensor(2.0).item(),
    "len": lambda lib, t: t * len(t),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_what_torch_refuses_under_vmap_is_refused(name):
    """torch cannot batch a read of a batched tensor's values or a result of data-dependent
    shape, and says so; the per-element loop would run them, so they are raised, not fallen
    back from (the function runs once, as in torch: a side effect before them happens once)."""
    torch = require_torch()

    def run(lib):
        calls = []

        def f(t):
            calls.append(1)
            return _REFUSED[name](lib, t)

        try:
            out = lib.vmap(f)(lib.tensor(A[:, 0]))
        except RuntimeError as e:
            return type(e).__name__, str(e), len(calls)
        return out.tolist(), len(calls)

    assert run(ja) == run(torch)
