"""Functions a course uses, against torch: smooth_l1/huber/kl_div losses, cosine_similarity,
einsum (values, gradients and torch's node chain for common equations, hypothesis-drawn
shapes) and interpolate/Upsample in every mode."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch

LOSSES = [
    lambda lib, x, y: lib.nn.functional.smooth_l1_loss(x, y),
    lambda lib, x, y: lib.nn.functional.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
    lambda lib, x, y: lib.nn.functional.smooth_l1_loss(x, y, beta=0.0),
    lambda lib, x, y: lib.nn.functional.smooth_l1_loss(x, y, beta=2.0, reduction="none"),
    lambda lib, x, y: lib.nn.functional.huber_loss(x, y),
    lambda lib, x, y: lib.nn.functional.huber_loss(x, y, delta=0.5, reduction="none"),
    lambda lib, x, y: lib.nn.functional.huber_loss(x, y, weight=x.detach().abs()),
    lambda lib, x, y: lib.nn.functional.kl_div(
        x.log_softmax(1), y.softmax(1), reduction="batchmean"
    ),
    lambda lib, x, y: lib.nn.functional.kl_div(x, y, reduction="sum", log_target=True),
    lambda lib, x, y: lib.nn.functional.kl_div(x, y.softmax(1), reduction="none"),
    lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y),
    lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y[:1], dim=0),
    lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y * 0, eps=1e-3),
    lambda lib, x, y: lib.nn.SmoothL1Loss(beta=0.3)(x, y),
    lambda lib, x, y: lib.nn.HuberLoss(delta=1.5)(x, y),
    lambda lib, x, y: lib.nn.KLDivLoss(reduction="batchmean", log_target=True)(x, y),
    lambda lib, x, y: lib.nn.CosineSimilarity(dim=1)(x, y),
]


@pytest.mark.parametrize("i", range(len(LOSSES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_losses_match_torch(i, dtype):
    torch = require_torch()
    rng = np.random.default_rng(i)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(LOSSES[i], [a, b], torch, dtype)
        if dtype == "float64":
            compare_jvp(LOSSES[i], [a, b], torch)


def test_kl_div_mean_warns_and_loss_errors():
    torch = require_torch()
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        ja.nn.functional.kl_div(ja.zeros(2, 3), ja.ones(2, 3))
    with pytest.warns(UserWarning, match="that is different to the input size"):
        ja.nn.functional.smooth_l1_loss(ja.zeros(2, 3), ja.ones(3))
    for case in (
        lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3), lib.ones(3), beta=-1.0),
        lambda lib: lib.nn.functional.huber_loss(lib.ones(3), lib.ones(3), delta=0.0),
        lambda lib: lib.nn.functional.kl_div(lib.ones(3), lib.ones(3), reduction="foo"),
        lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3, 4), lib.ones(2, 4)),
        lambda lib: lib.nn.functional.cosine_similarity(lib.ones(3, 4), lib.ones(3, 3)),
        lambda lib: lib.nn.functional.kl_div(
            lib.ones(3, dtype=lib.int64), lib.ones(3), reduction="sum"
        ),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compare_errors(case, torch)
    for make in (
        lambda lib: lib.nn.SmoothL1Loss(beta=0.5),
        lambda lib: lib.nn.HuberLoss(delta=2.0),
        lambda lib: lib.nn.KLDivLoss(reduction="batchmean"),
        lambda lib: lib.nn.CosineSimilarity(0),
    ):
        compare_repr(make, torch)


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


EQUATIONS = {
    "ij,jk->ik": [(2, 3), (3, 4)],
    "bij,bjk->bik": [(5, 2, 3), (5, 3, 4)],
    "i,i->": [(3,), (3,)],
    "ij->ji": [(2, 3)],
    "ij->": [(2, 3)],
    "i,j->ij": [(2,), (3,)],
    "ij,ij->ij": [(2, 3), (2, 3)],
    "ij,j->i": [(2, 3), (3,)],
    "ij->j": [(2, 3)],
    "ij,jk": [(2, 3), (3, 4)],
    "...ij,...jk->...ik": [(2, 2, 3), (2, 3, 4)],
    "ijk,ikj->": [(2, 3, 4), (2, 4, 3)],
    "i,i,i->": [(3,), (3,), (3,)],
    "ij,jk,kl->il": [(2, 3), (3, 4), (4, 2)],
    "bi,bi->b": [(4, 3), (4, 3)],
    "bn,anm,bm->ba": [(2, 3), (4, 3, 5), (2, 5)],
    "b i j , b j k -> b i k": [(2, 2, 3), (2, 3, 2)],
    "ij,kj->ik": [(2, 3), (4, 3)],
}


@pytest.mark.parametrize("eq", sorted(EQUATIONS))
def test_einsum_matches_torch(eq):
    torch = require_torch()
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in EQUATIONS[eq]]
    o, t = compare(lambda lib, *xs: lib.einsum(eq, *xs), arrays, torch)
    if (
        eq != "ij,kj->ik"
    ):  # torch reshapes a strided view with _reshape_alias (ReshapeAliasBackward0)
        assert _chain(o) == _chain(t)
    compare_jvp(lambda lib, *xs: lib.einsum(eq, *xs), arrays, torch)


def test_einsum_forms_and_errors():
    torch = require_torch()
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    compare(lambda lib, x, y: lib.einsum("ij,jk->ik", [x, y]), [a, b], torch)
    compare(lambda lib, x, y: lib.einsum(x, [0, 1], y, [1, 2], [0, 2]), [a, b], torch)
    compare(lambda lib, x, y: lib.einsum(x, [0, Ellipsis], y, [Ellipsis, 2]), [a, b], torch)
    for eq, shapes in (
        ("ij,jk->ik", [(2, 3), (4, 4)]),
        ("ij->ij", [(2, 3, 4)]),
        ("ij,jk", [(2, 3)]),
        ("ij->ik", [(2, 3)]),
        ("ij->ii", [(2, 3)]),
        ("i1->i", [(2, 3)]),
        ("i.j->i", [(2, 3)]),
        ("ii->i", [(2, 3)]),
        ("ij,jk->ik", [(2, 3), (3, 4), (4, 2)]),
    ):
        compare_errors(
            lambda lib, eq=eq, shapes=shapes: lib.einsum(eq, *[lib.ones(*s) for s in shapes]), torch
        )
    compare_errors(lambda lib: lib.einsum("ij"), torch)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_einsum_hypothesis_contractions(data):
    """Random two-operand equations over labels a-e with random sizes (broadcast 1s included)."""
    torch = require_torch()
    labels = "abcde"
    sizes = {c: data.draw(st.integers(1, 3)) for c in labels}
    ops = [
        data.draw(st.lists(st.sampled_from(labels), min_size=0, max_size=3, unique=True))
        for _ in range(2)
    ]
    used = sorted(set(ops[0]) | set(ops[1]))
    out = data.draw(st.lists(st.sampled_from(used), unique=True)) if used else []
    eq = ",".join("".join(o) for o in ops) + "->" + "".join(out)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    arrays = [rng.standard_normal([sizes[c] for c in o]) for o in ops]
    compare(lambda lib, *xs: lib.einsum(eq, *xs), arrays, torch)


INTERP = [
    ((2, 3, 4, 5), {"scale_factor": 2}),
    ((2, 3, 4, 5), {"size": (7, 3)}),
    ((2, 3, 4, 5), {"scale_factor": 2, "mode": "bilinear"}),
    ((2, 3, 4, 5), {"size": (7, 3), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 4, 5), {"scale_factor": (1.5, 0.5), "mode": "bilinear"}),
    ((2, 3, 4, 5), {"scale_factor": 1.5, "mode": "nearest-exact"}),
    ((2, 3, 4, 5), {"scale_factor": 0.5, "mode": "area"}),
    ((2, 3, 4, 5), {"size": 3, "mode": "bicubic"}),
    ((2, 3, 4, 5), {"scale_factor": 2, "mode": "bicubic", "align_corners": True}),
    ((2, 3, 5), {"scale_factor": 2, "mode": "linear"}),
    ((2, 3, 5), {"size": 7, "mode": "linear", "align_corners": True}),
    ((2, 3, 5), {"scale_factor": 3}),
    ((1, 2, 2, 3, 2), {"scale_factor": 2, "mode": "trilinear"}),
    ((1, 2, 2, 3, 2), {"size": (3, 2, 4)}),
    ((2, 3, 4, 5), {"scale_factor": 1.7, "recompute_scale_factor": True}),
]


@pytest.mark.parametrize("i", range(len(INTERP)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_interpolate_matches_torch(i, dtype):
    torch = require_torch()
    shape, kw = INTERP[i]
    x = np.random.default_rng(i).standard_normal(shape)
    compare(lambda lib, t: lib.nn.functional.interpolate(t, **kw), [x], torch, dtype)
    if dtype == "float64":
        compare_jvp(lambda lib, t: lib.nn.functional.interpolate(t, **kw), [x], torch)


def test_upsample_modules_and_interpolate_errors():
    torch = require_torch()
    for make in (
        lambda lib: lib.nn.Upsample(scale_factor=2),
        lambda lib: lib.nn.Upsample(size=(3, 4), mode="bilinear"),
        lambda lib: lib.nn.Upsample(scale_factor=(2, 3), mode="bilinear"),
        lambda lib: lib.nn.UpsamplingNearest2d(scale_factor=2),
        lambda lib: lib.nn.UpsamplingBilinear2d(size=5),
    ):
        compare_repr(make, torch)
        compare(
            lambda lib, t, make=make: make(lib)(t),
            [np.random.default_rng(0).standard_normal((1, 2, 3, 3))],
            torch,
        )

    def x4(lib):
        return lib.ones(2, 3, 4, 5)

    for case in (
        lambda lib: lib.nn.functional.interpolate(x4(lib)),
        lambda lib: lib.nn.functional.interpolate(x4(lib), size=3, scale_factor=2),
        lambda lib: lib.nn.functional.interpolate(x4(lib), scale_factor=2, align_corners=True),
        lambda lib: lib.nn.functional.interpolate(x4(lib), scale_factor=2, mode="linear"),
        lambda lib: lib.nn.functional.interpolate(
            lib.ones(2, 3, 4), scale_factor=2, mode="bilinear"
        ),
        lambda lib: lib.nn.functional.interpolate(x4(lib), scale_factor=2, mode="foo"),
        lambda lib: lib.nn.functional.interpolate(x4(lib), size=(2, 3, 4)),
        lambda lib: lib.nn.functional.interpolate(x4(lib), scale_factor=(2, 3, 4)),
        lambda lib: lib.nn.functional.interpolate(lib.ones(4, 5), scale_factor=2),
    ):
        compare_errors(case, torch)
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        ja.nn.functional.upsample_bilinear(ja.ones(1, 1, 2, 2), scale_factor=2)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_interpolate_double_backward(mode):
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    res = []
    for lib in (ja, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, scale_factor=2, mode=mode)
        (g,) = lib.autograd.grad((y**3).sum(), (t,), create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), (t,))
        res.append((g.grad_fn.name(), h.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-9)
