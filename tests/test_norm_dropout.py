"""Normalization and dropout layers against torch: batch norm (train/eval, running statistics,
momentum=None, affine=False, track_running_stats=False), instance and group norm, forward-mode
tangents, gradients of gradients, errors and reprs; channel-wise and alpha dropout with torch's
masks for one seed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr, copy_state
from ._torch import require as require_torch

NORM_MODULES = [
    (lambda lib: lib.nn.BatchNorm2d(3), (4, 3, 5, 5)),
    (lambda lib: lib.nn.BatchNorm1d(3, momentum=None), (5, 3)),
    (lambda lib: lib.nn.BatchNorm1d(3, affine=False), (4, 3, 6)),
    (lambda lib: lib.nn.BatchNorm1d(3, track_running_stats=False), (4, 3)),
    (lambda lib: lib.nn.BatchNorm2d(3, bias=False, eps=1e-3, momentum=0.5), (2, 3, 2, 2)),
    (lambda lib: lib.nn.BatchNorm3d(2), (2, 2, 2, 3, 2)),
    (lambda lib: lib.nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    (lambda lib: lib.nn.GroupNorm(4, 4, affine=False), (3, 4, 5)),
    (lambda lib: lib.nn.InstanceNorm2d(3, affine=True, track_running_stats=True), (2, 3, 4, 4)),
    (lambda lib: lib.nn.InstanceNorm1d(3), (3, 5)),
    (lambda lib: lib.nn.LayerNorm([3, 4]), (2, 3, 4)),
]


@pytest.mark.parametrize("i", range(len(NORM_MODULES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_module_training_and_eval_match_torch(i, dtype):
    """Three training steps (outputs, gradients, running statistics), then eval()."""
    torch = require_torch()
    make, shape = NORM_MODULES[i]
    tm, om = make(torch), make(ja)
    if dtype == "float64":
        tm, om = tm.double(), om.double()
    copy_state(tm, om, ja)
    assert repr(om) == repr(tm)
    rng = np.random.default_rng(i)
    for _ in range(3):
        x = rng.standard_normal(shape) * 2 + 1
        compare(lambda lib, a: (om if lib is ja else tm)(a), [x], torch, dtype)
    for (k, v), (k2, v2) in zip(om.state_dict().items(), tm.state_dict().items()):
        assert k == k2
        np.testing.assert_allclose(v.numpy(), v2.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    om.eval()
    tm.eval()
    compare(lambda lib, a: (om if lib is ja else tm)(a), [rng.standard_normal(shape)], torch, dtype)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 4),
    c=st.integers(1, 3),
    hw=st.integers(1, 3),
    training=st.booleans(),
    affine=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_batch_norm_functional_hypothesis(n, c, hw, training, affine, seed):
    torch = require_torch()
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, hw, hw))
    w, b = (rng.uniform(0.5, 1.5, c), rng.uniform(-1, 1, c)) if affine else (None, None)
    rm, rv = rng.standard_normal(c), rng.uniform(0.5, 2, c)
    res = []
    for lib in (ja, torch):
        m, v = lib.tensor(rm), lib.tensor(rv)
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True) if affine else None
        bt = lib.tensor(b, requires_grad=True) if affine else None
        y = lib.nn.functional.batch_norm(xt, m, v, wt, bt, training=training, momentum=0.2)
        (y * y * y).sum().backward()
        res.append(
            [y.detach().numpy(), m.numpy(), v.numpy(), xt.grad.numpy()]
            + ([wt.grad.numpy(), bt.grad.numpy()] if affine else [])
        )
    for a, b_ in zip(*res):
        np.testing.assert_allclose(a, b_, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True),
        lambda lib, x, w, b: lib.nn.functional.batch_norm(
            x, lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype), w, b
        ),
        lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b),
        lambda lib, x, w, b: lib.nn.functional.instance_norm(x, weight=w, bias=b),
    ],
)
def test_norm_forward_ad_and_double_backward(fn):
    torch = require_torch()
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((4, 3, 2, 2)), rng.uniform(0.5, 1.5, 3), rng.uniform(-1, 1, 3)]
    compare_jvp(fn, arrays, torch)
    res = []
    for lib in (ja, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = fn(lib, *ts)
        g = lib.autograd.grad((y * y.sin()).sum(), ts, create_graph=True)
        h = lib.autograd.grad(sum((gi * gi).sum() for gi in g), ts)
        res.append([t.numpy() for t in h])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9)


def test_norm_saved_values_match_torch():
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal((4, 3, 2))
    for training in (True, False):
        o = ja.nn.functional.batch_norm(
            ja.tensor(x, requires_grad=True),
            ja.zeros(3, dtype=ja.float64),
            ja.ones(3, dtype=ja.float64),
            training=training,
        ).grad_fn
        t = torch.nn.functional.batch_norm(
            torch.tensor(x, requires_grad=True),
            torch.zeros(3, dtype=torch.float64),
            torch.ones(3, dtype=torch.float64),
            training=training,
        ).grad_fn
        assert o.name() == t.name() == "NativeBatchNormBackward0"
        assert o._saved_training == t._saved_training and o._saved_eps == t._saved_eps
        np.testing.assert_allclose(o._saved_result1.numpy(), t._saved_result1.numpy(), rtol=1e-12)
        np.testing.assert_allclose(o._saved_result2.numpy(), t._saved_result2.numpy(), rtol=1e-12)
    o = ja.nn.functional.group_norm(ja.tensor(x, requires_grad=True), 3).grad_fn
    t = torch.nn.functional.group_norm(torch.tensor(x, requires_grad=True), 3).grad_fn
    assert o.name() == t.name()
    for k in ("_saved_C", "_saved_HxW", "_saved_N", "_saved_group", "_saved_eps"):
        assert getattr(o, k) == getattr(t, k), k


NORM_ERRORS = {
    "bn-one-value": lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)),
    "bn1d-4d": lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)),
    "bn2d-3d": lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3, 4)),
    "bn-channels": lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 4, 4, 4)),
    "bn-eval-none": lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), None, None),
    "bn-weight": lambda lib: lib.nn.functional.batch_norm(
        lib.ones(2, 3), lib.zeros(3), lib.ones(3), lib.ones(4)
    ),
    "bn-eps": lambda lib: lib.nn.functional.batch_norm(
        lib.ones(2, 3), None, None, training=True, eps=0.0
    ),
    "gn-groups": lambda lib: lib.nn.GroupNorm(3, 4),
    "gn-input": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 3),
    "gn-weight": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 2, lib.ones(3)),
    "gn-1d": lambda lib: lib.nn.functional.group_norm(lib.ones(4), 2),
    "in-spatial": lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(2, 3, 1, 1)),
    "in-affine-channels": lambda lib: lib.nn.InstanceNorm2d(3, affine=True)(lib.ones(2, 4, 5, 5)),
    "in-dims": lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(2, 3)),
}


@pytest.mark.parametrize("case", sorted(NORM_ERRORS))
def test_norm_errors_match_torch(case):
    compare_errors(NORM_ERRORS[case], require_torch())


def test_instance_norm_channel_warning():
    with pytest.warns(UserWarning, match="does not match num_features"):
        ja.nn.InstanceNorm2d(3)(ja.ones(2, 4, 5, 5))


DROPOUTS = [
    ("dropout1d", (3, 4, 5)),
    ("dropout1d", (4, 5)),
    ("dropout2d", (2, 3, 4, 4)),
    ("dropout3d", (2, 3, 2, 2, 2)),
    ("dropout3d", (3, 2, 2, 2)),
    ("alpha_dropout", (3, 4, 5)),
    ("feature_alpha_dropout", (2, 3, 4, 4)),
]


@pytest.mark.parametrize("fn,shape", DROPOUTS)
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout_variants_match_torch_for_a_seed(fn, shape, p):
    """The masks come from the generator as torch draws them (bernoulli_ on the noise shape)."""
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)

    def run(lib, t):
        lib.manual_seed(7)
        return getattr(lib.nn.functional, fn)(t, p, True)

    compare(run, [x], torch, "float32")
    compare(lambda lib, t: getattr(lib.nn.functional, fn)(t, p, False), [x], torch, "float32")


def test_dropout_inplace_and_modules():
    torch = require_torch()
    for make in (
        lambda lib: lib.nn.Dropout1d(),
        lambda lib: lib.nn.Dropout2d(0.3),
        lambda lib: lib.nn.Dropout3d(),
        lambda lib: lib.nn.AlphaDropout(0.2),
        lambda lib: lib.nn.FeatureAlphaDropout(0.4, inplace=True),
    ):
        compare_repr(make, torch)
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 4)).astype(np.float32)
    outs = []
    for lib in (ja, torch):
        lib.manual_seed(3)
        t = lib.tensor(x)
        r = lib.nn.functional.dropout2d(t, 0.5, True, inplace=True)
        outs.append((r is t, t.numpy().copy()))
    assert outs[0][0] and outs[1][0]
    np.testing.assert_allclose(outs[0][1], outs[1][1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_errors(lambda lib: lib.nn.functional.dropout1d(lib.ones(3, 4, 5, 6), 0.5), torch)
        compare_errors(lambda lib: lib.nn.functional.dropout2d(lib.ones(3, 4), 1.5), torch)
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        ja.nn.functional.dropout2d(ja.ones(2, 3, 4), 0.5)


def test_top_level_norm_forms_match_torch():
    """torch.native_batch_norm / native_layer_norm return the statistics (not requiring grad);
    torch.batch_norm / instance_norm / group_norm / layer_norm take torch's argument order."""
    torch = require_torch()
    x = np.random.default_rng(2).standard_normal((4, 3, 2))
    for training in (True, False):

        def nbn(lib, t, w, b, training=training):
            rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
            return lib.native_batch_norm(t, w, b, rm, rv, training, 0.1, 1e-5)

        outs = [
            nbn(lib, lib.tensor(x, requires_grad=True), lib.ones(3, dtype=lib.float64), None)
            for lib in (ja, torch)
        ]
        for o, t in zip(outs[0], outs[1]):
            assert tuple(o.shape) == tuple(t.shape) and o.requires_grad == t.requires_grad
            np.testing.assert_allclose(
                o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12
            )
        compare(
            lambda lib, t, w, tr=training: nbn(lib, t, w, None, tr)[0], [x, np.ones(3) * 1.5], torch
        )
    outs = [
        lib.native_layer_norm(lib.tensor(x, requires_grad=True), (3, 2), None, None, 1e-5)
        for lib in (ja, torch)
    ]
    for o, t in zip(outs[0], outs[1]):
        assert tuple(o.shape) == tuple(t.shape) and o.requires_grad == t.requires_grad
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
    compare(lambda lib, t: lib.layer_norm(t, (2,)), [x], torch)
    compare(
        lambda lib, t: lib.batch_norm(t, None, None, None, None, True, 0.1, 1e-5, False), [x], torch
    )
    compare(
        lambda lib, t: lib.instance_norm(t, None, None, None, None, True, 0.1, 1e-5, False),
        [x],
        torch,
    )
    compare(lambda lib, t: lib.group_norm(t, 3), [x], torch)


def test_norms_of_empty_inputs_match_torch():
    """An empty input skips batch norm's kernel (a clone times weight[0] plus bias[0]); a 1-D
    input is refused unless empty; group norm of an empty batch keeps its node."""
    torch = require_torch()
    compare(
        lambda lib, t, w: lib.nn.functional.batch_norm(t, None, None, w, w, training=True),
        [np.zeros((0, 2)), np.ones(2)],
        torch,
    )
    compare(
        lambda lib, t: lib.nn.functional.batch_norm(
            t, lib.zeros(0, dtype=lib.float64), lib.ones(0, dtype=lib.float64)
        ),
        [np.zeros(0)],
        torch,
    )
    compare(
        lambda lib, t, w: lib.nn.functional.group_norm(t, 1, w, w),
        [np.zeros((0, 2)), np.ones(2)],
        torch,
    )
    compare(lambda lib, t: lib.nn.functional.instance_norm(t), [np.zeros((0, 2, 3))], torch)
    for case in (
        lambda lib: lib.nn.functional.batch_norm(lib.zeros(3), lib.zeros(3), lib.ones(3)),
        lambda lib: lib.nn.functional.batch_norm(lib.zeros(3), lib.zeros(0), lib.ones(0)),
    ):
        compare_errors(case, torch)


def test_native_dropout_matches_torch():
    """Evaluation and empty inputs are still recorded as NativeDropoutBackward0 (an empty input
    is returned itself and takes the history); complex inputs needing grad are refused."""
    torch = require_torch()
    for shape in ((2, 0), (3,)):
        for train in (True, False, None):
            res = []
            for lib in (ja, torch):
                lib.manual_seed(0)
                x = lib.ones(shape, requires_grad=True)
                o, m = lib.native_dropout(x, 0.5, train)
                res.append(
                    (o.grad_fn.name(), o is x, x.is_leaf, str(m.dtype), o.detach().numpy().tolist())
                )
            assert res[0] == res[1], (shape, train, res)
    compare_errors(
        lambda lib: lib.native_dropout(
            lib.zeros(3, dtype=lib.complex64, requires_grad=True), 0.5, True
        ),
        torch,
    )
    with ja.no_grad():
        assert (
            ja.native_dropout(ja.zeros(3, dtype=ja.complex64, requires_grad=True), 0.5, False)[
                0
            ].grad_fn
            is None
        )


def test_native_dropout_draws_in_memory_order_and_keeps_torch_history():
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        x = lib.ones(2, 3, requires_grad=True)
        lib.manual_seed(859)
        res.append(lib.native_dropout(x.t(), 0.5, True)[0].tolist())
        x = lib.zeros((2, 0), dtype=lib.complex64, requires_grad=True)
        with pytest.raises(RuntimeError, match="native_dropout does not support automatic"):
            lib.native_dropout(x, 0.5, True)
        res.append((x.is_leaf, x.grad_fn.name()))
    assert res[:2] == res[2:]


def _chain(t):
    out = []

    def walk(n, d):
        if n is None or "Accumulate" in n.name():
            return
        out.append("  " * d + n.name())
        for f, _ in n.next_functions:
            walk(f, d + 1)

    walk(t.grad_fn, 0)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rms_norm_matches_torch(dtype):
    torch = require_torch()
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4))
    for fn in (
        lambda lib, a, b: lib.nn.functional.rms_norm(a, (3, 4), b),
        lambda lib, a, b: lib.nn.functional.rms_norm(a, (4,), None, 1e-3) * b[0],
        lambda lib, a, b: lib.rms_norm(a, [4]) + b[0],
        lambda lib, a, b: lib.nn.RMSNorm([3, 4], elementwise_affine=False)(a) * b,
    ):
        o, t = compare(fn, [x, w], torch, dtype)
        assert _chain(o) == _chain(t)
    for make in (lambda lib: lib.nn.RMSNorm([3, 4]), lambda lib: lib.nn.RMSNorm(4, 1e-3, False)):
        compare_repr(make, torch)
    for case in (
        lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3, 4), (3,)),
        lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3, 4), (5, 4)),
        lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3), (3,), lib.ones(2)),
        lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3), 3),
    ):
        compare_errors(case, torch)


@pytest.mark.parametrize("fn,shape", [("dropout1d", (3, 4)), ("dropout3d", (3, 2, 2, 2))])
def test_unbatched_inplace_channel_dropout_matches_torch(fn, shape):
    """The input itself comes back holding torch's values (ours records SqueezeBackward1 where
    torch's squeeze_ records SqueezeBackward4: Tensor.squeeze_ is not built yet)."""
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        a = lib.ones(shape, requires_grad=True)
        x = a * 1
        lib.manual_seed(4)
        r = getattr(lib.nn.functional, fn)(x, 0.5, True, inplace=True)
        r.sum().backward()
        res.append((r is x, x.detach().numpy().tolist(), a.grad.numpy().tolist()))
    assert res[0] == res[1]
