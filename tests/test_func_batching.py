"""Batched forward mode (jupyter_autograd._batching): jacfwd and
jacobian(strategy="forward-mode", vectorize=True) run one forward pass with the basis as a batch
of tangents, each op through its registry row's batch rule.

Every row with a JVP rule is checked on its registry samples: the Jacobian from the batched pass
equals the one built a basis vector at a time with the row's own (unbatched) JVP rule. Declared
elementwise rows are also checked on hypothesis-drawn broadcastable shapes (inputs of different
ranks: the padding of the batched tangents). Then the results are compared with torch.func, and
the fallback counters show which programs took the batched path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jupyter_autograd as ja
import jupyter_autograd.autograd.forward_ad as fwAD
from jupyter_autograd import _batching
from jupyter_autograd.ops import OPS
from jupyter_autograd.ops.registry import ELEMENTWISE, NOT_IMPLEMENTED

from ._op_samples import Unsampleable, cases
from ._torch import require as require_torch

WITH_JVP = sorted(
    n for n, op in OPS.items() if op.jvp is not NOT_IMPLEMENTED and op.node_name != "NotImplemented"
)
DECLARED_ELEMENTWISE = sorted(
    n
    for n in WITH_JVP
    if OPS[n].batch is ELEMENTWISE
    and not (OPS[n].sample or {}).get("kind")
    and not (OPS[n].sample or {}).get("reduce")
)


def _out0(r):
    return r[0] if isinstance(r, (tuple, list)) else r


def _looped(f, ts, k):
    """d f / d ts[k], one dual pass per basis vector (the unbatched JVP rules)."""
    x = ts[k]
    cols = []
    for j in range(x.numel()):
        e = np.zeros(x.numel())
        e[j] = 1
        with fwAD.dual_level():
            args = list(ts)
            args[k] = fwAD.make_dual(x, ja.tensor(e.reshape(tuple(x.shape))))
            out = f(*args)
            tan = fwAD.unpack_dual(out).tangent
            cols.append(np.zeros(tuple(out.shape)) if tan is None else tan.numpy())
    return np.stack(cols, -1).reshape(tuple(out.shape) + tuple(x.shape))


def _compare(case, k):
    f = lambda *xs: _out0(case.ours(*xs))
    ts = [ja.tensor(a, dtype=ja.float64) for a in case.arrays]
    if ts[k].numel() < 2:
        return False
    try:
        _, _, (block,) = _batching.jacobian_block(f, ts, k, lambda o: [o])
    except _batching.Unbatchable:
        return False
    ref = _looped(f, ts, k)
    tol = case.rtol or 1e-10
    np.testing.assert_allclose(block, ref, rtol=tol, atol=tol)
    return True


@pytest.mark.parametrize("name", WITH_JVP)
def test_batched_tangents_match_the_rows_jvp(name, rng):
    """Each row's batched tangent (its batch rule, or the per-element loop) equals its JVP rule
    applied to one basis vector at a time."""
    try:
        cs = cases(OPS[name], rng)
    except Unsampleable:
        pytest.skip(f"{name} has no sampler")
    for case in cs:
        for k in range(len(case.arrays)):
            if k not in case.nondiff:
                _compare(case, k)


@pytest.mark.parametrize("name", DECLARED_ELEMENTWISE)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_elementwise_batch_rule_broadcasts_over_ranks(name, data):
    op = OPS[name]
    shapes = data.draw(
        mutually_broadcastable_shapes(num_shapes=len(op.inputs), max_dims=3, max_side=3, min_side=1)
    ).input_shapes
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    before = _batching.STATS["row_loops"]
    ran = False
    for case in cases(op, rng, shapes=list(shapes)):
        for k in range(len(case.arrays)):
            ran = _compare(case, k) or ran
    if ran:
        assert _batching.STATS["row_loops"] == before  # the declared rule, not the loop


def _f_benchmark(W):
    return lambda v: (W @ v).sin() * v


def test_jacfwd_of_elementwise_and_matmul_takes_the_batched_path():
    torch = require_torch()
    rng = np.random.default_rng(0)
    w, v, b = rng.standard_normal((6, 5)), rng.standard_normal(5), rng.standard_normal(6)
    before = dict(_batching.STATS)

    def make(mod):
        W, B = mod.tensor(w), mod.tensor(b)
        return lambda x: (mod.tanh(W @ x + B) * 2 - 1).exp() / (1 + (W @ x) ** 2)

    ours = ja.func.jacfwd(make(ja))(ja.tensor(v))
    fv = ja.autograd.functional.jacobian(
        make(ja), ja.tensor(v), strategy="forward-mode", vectorize=True
    )
    # F.linear on a batch of inputs: addmm, and mm through matmul
    X = rng.standard_normal((4, 5))
    lin = ja.func.jacfwd(
        lambda x: ja.nn.functional.linear(x, ja.tensor(w), ja.tensor(b)).sigmoid() @ ja.tensor(w)
    )(ja.tensor(X))
    assert _batching.STATS == before  # no row looped, no program rerun
    theirs = torch.func.jacfwd(make(torch))(torch.tensor(v))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fv.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)
    tlin = torch.func.jacfwd(
        lambda x: (
            torch.nn.functional.linear(x, torch.tensor(w), torch.tensor(b)).sigmoid()
            @ torch.tensor(w)
        )
    )(torch.tensor(X))
    assert tuple(lin.shape) == tuple(tlin.shape)
    np.testing.assert_allclose(lin.numpy(), tlin.numpy(), rtol=1e-12, atol=1e-12)


def test_jacfwd_of_a_small_network_takes_the_batched_path():
    """softmax, log_softmax, gelu, transpose, reshape, slicing: rows with batch rules."""
    torch = require_torch()
    rng = np.random.default_rng(2)
    w1, w2, x = (
        rng.standard_normal((8, 6)),
        rng.standard_normal((4, 8)),
        rng.standard_normal((3, 6)),
    )

    def make(mod):
        F = mod.nn.functional
        W1, W2 = mod.tensor(w1), mod.tensor(w2)

        def f(v):
            h = F.gelu(F.linear(v, W1)).t().reshape(3, 8)[:, 1:]
            return F.log_softmax(h @ W2[:, 1:].t(), -1) + F.softmax(h, 0).sum(1, keepdim=True)

        return f

    before = dict(_batching.STATS)
    ours = ja.func.jacfwd(make(ja))(ja.tensor(x))
    assert _batching.STATS == before
    theirs = torch.func.jacfwd(make(torch))(torch.tensor(x))
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "case",
    ["argnums", "aux", "tuple_out", "reduction", "int_output", "requires_grad", "scalar", "view"],
)
def test_jacfwd_structures_and_fallbacks_match_torch(case):
    torch = require_torch()
    rng = np.random.default_rng(1)
    a, c = rng.standard_normal((3, 2)), rng.standard_normal(2)

    def run(mod):
        A, C = mod.tensor(a), mod.tensor(c)
        if case == "argnums":
            return mod.func.jacfwd(lambda x, y: x * y.sin(), argnums=(0, 1))(A, C)
        if case == "aux":
            return mod.func.jacfwd(lambda x: (x.cos(), x.sum()), has_aux=True)(A)
        if case == "tuple_out":
            return mod.func.jacfwd(lambda x, y: (x * y, y.exp()), argnums=1)(A, C)
        if case == "reduction":  # cumprod has no batch rule: that row loops
            return mod.func.jacfwd(lambda x: (x * x).sum(0).cumprod(0).mean())(A)
        if case == "int_output":
            return mod.func.jacfwd(lambda x: (x.sin(), x.argmax()))(A)
        if case == "requires_grad":  # a tangent needing a graph: the per-element run
            W = mod.tensor(a, requires_grad=True)
            return mod.func.jacfwd(lambda x: W * x)(C)
        if case == "scalar":  # one element: not worth a batch
            return mod.func.jacfwd(lambda x: x.exp())(mod.tensor(1.5))
        return mod.func.jacfwd(lambda x: x.t().reshape(6).sin())(A)

    ours, theirs = run(ja), run(torch)

    def flat(r):
        if isinstance(r, (tuple, list)):
            return [y for x in r for y in flat(x)]
        return [r]

    fo, ft = flat(ours), flat(theirs)
    assert len(fo) == len(ft)
    for x, y in zip(fo, ft):
        assert tuple(x.shape) == tuple(y.shape)
        assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1]
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_custom_function_jvp_runs_per_basis_vector():
    """A user's Function.jvp takes one tangent: the batched pass is abandoned, values hold."""

    class Sq(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x * x

        @staticmethod
        def jvp(ctx, t):
            return 2 * ctx.x * t

    before = _batching.STATS["program_loops"]
    x = ja.tensor([1.0, -2.0, 3.0])
    j = ja.func.jacfwd(lambda v: Sq.apply(v).sin())(x)
    assert _batching.STATS["program_loops"] == before + 1
    np.testing.assert_allclose(j.numpy(), np.diag(2 * x.numpy() * np.cos(x.numpy() ** 2)))


@pytest.mark.parametrize("k", range(3))
def test_jacfwd_non_tensor_output_error_matches_torch(k):
    torch = require_torch()
    fns = [lambda x: [x.sin(), 3], lambda x: 3, lambda x: (x, "a")]
    msgs = []
    for mod in (ja, torch):
        try:
            mod.func.jacfwd(fns[k])(mod.ones(3))
        except Exception as e:  # noqa: BLE001 - type and message are compared
            msgs.append((type(e).__name__, str(e)))
    assert msgs[0] == msgs[1]


def test_fallback_counter_counts_a_row_without_batch_rule():
    before = _batching.STATS["row_loops"]
    ja.func.jacfwd(lambda x: x.cumprod(0))(ja.tensor([1.0, 2.0, 3.0, 4.0]))
    assert _batching.STATS["row_loops"] > before
