"""The margin, embedding and likelihood losses against torch: values, gradients, forward-mode
tangents and torch's node chain (float64) for each option, module reprs, legacy
size_average/reduce warnings and the errors torch raises."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch


def _chain(t):
    out = []

    def walk(n, d):
        if n is None or "Accumulate" in n.name() or d > 14:
            return
        out.append("  " * d + n.name())
        for f, _ in n.next_functions:
            walk(f, d + 1)

    walk(t.grad_fn, 0)
    return out


def _sign(lib, x):
    """A +-1 target from the data (no gradient)."""
    return (x.detach() > 0).to(x.dtype) * 2 - 1


# fn(lib, a, b, c): a, b, c are (4, 3) float tensors requiring grad
LOSSES = {
    "margin_ranking": lambda lib, a, b, c: lib.nn.functional.margin_ranking_loss(
        a, b, _sign(lib, c), margin=0.3
    ),
    "margin_ranking_sum": lambda lib, a, b, c: lib.nn.functional.margin_ranking_loss(
        a[0], b[0], _sign(lib, c[0]), reduction="sum"
    ),
    "hinge": lambda lib, a, b, c: lib.nn.functional.hinge_embedding_loss(a, _sign(lib, c)),
    "hinge_none": lambda lib, a, b, c: lib.nn.functional.hinge_embedding_loss(
        a, _sign(lib, c), 0.5, reduction="none"
    ),
    "soft_margin": lambda lib, a, b, c: lib.nn.functional.soft_margin_loss(a, _sign(lib, c)),
    "soft_margin_none": lambda lib, a, b, c: lib.nn.functional.soft_margin_loss(
        a, _sign(lib, c), reduction="none"
    ),
    "soft_margin_broadcast": lambda lib, a, b, c: lib.nn.functional.soft_margin_loss(
        a, _sign(lib, c[0]), reduction="sum"
    ),
    "cosine_embedding": lambda lib, a, b, c: lib.nn.functional.cosine_embedding_loss(
        a, b, _sign(lib, c[:, 0])
    ),
    "cosine_embedding_margin": lambda lib, a, b, c: lib.nn.functional.cosine_embedding_loss(
        a, b, _sign(lib, c[:, 0]), margin=-0.5, reduction="none"
    ),
    "cosine_embedding_0d": lambda lib, a, b, c: lib.nn.functional.cosine_embedding_loss(
        a[0], b[0], _sign(lib, c[0, 0])
    ),
    "poisson": lambda lib, a, b, c: lib.nn.functional.poisson_nll_loss(a, c.detach().abs() * 3),
    "poisson_rate_full": lambda lib, a, b, c: lib.nn.functional.poisson_nll_loss(
        a.exp(), c.detach().abs() * 3, log_input=False, full=True, reduction="sum"
    ),
    "gaussian": lambda lib, a, b, c: lib.nn.functional.gaussian_nll_loss(a, b, c.abs() + 0.1),
    "gaussian_homo_full": lambda lib, a, b, c: lib.nn.functional.gaussian_nll_loss(
        a, b, c[:, 0].abs(), full=True, reduction="none"
    ),
    "gaussian_float_var": lambda lib, a, b, c: lib.nn.functional.gaussian_nll_loss(
        a, b, 0.5, reduction="sum"
    ),
    "triplet": lambda lib, a, b, c: lib.nn.functional.triplet_margin_loss(a, b, c),
    "triplet_swap_p1": lambda lib, a, b, c: lib.nn.functional.triplet_margin_loss(
        a, b, c * 0.5, margin=2.0, p=1, swap=True, reduction="none"
    ),
    "triplet_distance": lambda lib, a, b, c: lib.nn.functional.triplet_margin_with_distance_loss(
        a,
        b,
        c,
        distance_function=lambda u, v: 1 - lib.nn.functional.cosine_similarity(u, v),
        margin=0.5,
        swap=True,
    ),
    "triplet_distance_default": lambda lib, a, b, c: lib.nn.TripletMarginWithDistanceLoss(
        reduction="sum"
    )(a, b, c),
    "pairwise": lambda lib, a, b, c: lib.nn.functional.pairwise_distance(a, b, p=3.0, keepdim=True),
    "multilabel_soft": lambda lib, a, b, c: lib.nn.functional.multilabel_soft_margin_loss(
        a, (c.detach() > 0).to(a.dtype)
    ),
    "multilabel_soft_weight": lambda lib, a, b, c: lib.nn.functional.multilabel_soft_margin_loss(
        a, (c.detach() > 0).to(a.dtype), weight=b.detach().abs(), reduction="sum"
    ),
    "modules": lambda lib, a, b, c: (
        lib.nn.MarginRankingLoss(0.1)(a[0], b[0], _sign(lib, c[0]))
        + lib.nn.HingeEmbeddingLoss(2.0)(a, _sign(lib, c))
        + lib.nn.SoftMarginLoss(reduction="sum")(a, _sign(lib, c))
        + lib.nn.CosineEmbeddingLoss(0.2)(a, b, _sign(lib, c[:, 0]))
        + lib.nn.PoissonNLLLoss(full=True)(a, c.detach().abs() * 2)
        + lib.nn.GaussianNLLLoss(eps=1e-3)(a, b, c.abs())
        + lib.nn.TripletMarginLoss(swap=True)(a, b, c)
        + lib.nn.MultiLabelSoftMarginLoss()(a, (c.detach() > 0).to(a.dtype))
        + lib.nn.PairwiseDistance(1.0)(a, b).sum()
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_losses_match_torch(name, dtype):
    torch = require_torch()
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal((4, 3)) for _ in range(3)]
    o, t = compare(LOSSES[name], arrays, torch, dtype)
    if dtype == "float64":
        assert _chain(o) == _chain(t)
        if name not in ("gaussian", "gaussian_homo_full", "modules"):  # torch: clamp_ of a dual
            compare_jvp(LOSSES[name], arrays, torch)


def test_soft_margin_row_details_match_torch():
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        x = lib.tensor([[0.5, -1.0], [2.0, 0.0]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=lib.float64)
        out = lib.nn.functional.soft_margin_loss(x, y)
        (g,) = lib.autograd.grad(out, [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [x])
        res.append(
            (
                len(out.grad_fn.next_functions),
                out.grad_fn._saved_reduction,
                out.grad_fn._saved_target.tolist(),
                np.round(gg.numpy(), 12).tolist(),
            )
        )
    assert res[0] == res[1]


def test_margin_loss_modules_repr_and_legacy_warnings():
    torch = require_torch()
    for make in (
        lambda lib: lib.nn.MarginRankingLoss(0.5),
        lambda lib: lib.nn.HingeEmbeddingLoss(),
        lambda lib: lib.nn.SoftMarginLoss(),
        lambda lib: lib.nn.CosineEmbeddingLoss(),
        lambda lib: lib.nn.PoissonNLLLoss(),
        lambda lib: lib.nn.GaussianNLLLoss(),
        lambda lib: lib.nn.TripletMarginLoss(),
        lambda lib: lib.nn.MultiLabelSoftMarginLoss(),
        lambda lib: lib.nn.PairwiseDistance(),
        lambda lib: lib.nn.TripletMarginWithDistanceLoss(),
    ):
        compare_repr(make, torch)
    for lib in (ja, torch):
        x, y = lib.ones(2, 3), lib.ones(2, 3)
        F = lib.nn.functional
        for f, kw in (
            (F.soft_margin_loss, {"size_average": False}),
            (F.hinge_embedding_loss, {"reduce": False}),
            (F.poisson_nll_loss, {"size_average": False}),
            (F.multilabel_soft_margin_loss, {"reduce": False}),
        ):
            with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
                f(x, y, **kw)


ERRORS = {
    "ranking-dims": lambda lib: lib.nn.functional.margin_ranking_loss(
        lib.ones(3), lib.ones(3), lib.ones(1, 3)
    ),
    "ranking-reduction": lambda lib: lib.nn.functional.margin_ranking_loss(
        lib.ones(3), lib.ones(3), lib.ones(3), reduction="avg"
    ),
    "soft-target-grad": lambda lib: lib.nn.functional.soft_margin_loss(
        lib.ones(3), lib.ones(3, requires_grad=True)
    ),
    "soft-shapes": lambda lib: lib.nn.functional.soft_margin_loss(lib.ones(3, 4), lib.ones(5)),
    "cosine-target-2d": lambda lib: lib.nn.functional.cosine_embedding_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 1)
    ),
    "cosine-1d-target": lambda lib: lib.nn.functional.cosine_embedding_loss(
        lib.ones(3), lib.ones(3), lib.ones(3)
    ),
    "cosine-0d-target": lambda lib: lib.nn.functional.cosine_embedding_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.tensor(1.0)
    ),
    "poisson-reduction": lambda lib: lib.nn.functional.poisson_nll_loss(
        lib.ones(3), lib.ones(3), reduction="x"
    ),
    "gaussian-negative": lambda lib: lib.nn.functional.gaussian_nll_loss(
        lib.ones(3), lib.ones(3), -lib.ones(3)
    ),
    "gaussian-negative-float": lambda lib: lib.nn.functional.gaussian_nll_loss(
        lib.ones(3), lib.ones(3), -1.0
    ),
    "gaussian-size": lambda lib: lib.nn.functional.gaussian_nll_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(3, 3)
    ),
    "gaussian-reduction": lambda lib: lib.nn.functional.gaussian_nll_loss(
        lib.ones(3), lib.ones(3), lib.ones(3), reduction="avg"
    ),
    "triplet-margin": lambda lib: lib.nn.functional.triplet_margin_loss(
        lib.ones(2), lib.ones(2), lib.ones(2), margin=0.0
    ),
    "triplet-dims": lambda lib: lib.nn.functional.triplet_margin_loss(
        lib.ones(2, 3), lib.ones(3), lib.ones(2, 3)
    ),
    "triplet-module-margin": lambda lib: lib.nn.TripletMarginLoss(margin=-1.0),
    "triplet-distance-margin": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2), lib.ones(2), lib.ones(2), margin=-1.0
    ),
    "triplet-distance-reduction": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2), lib.ones(2), lib.ones(2), reduction="avg"
    ),
    "triplet-distance-dims": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2), lib.ones(1, 2), lib.ones(2)
    ),
    "triplet-distance-module": lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0.0),
    "pairwise-top-level": lambda lib: lib.pairwise_distance(lib.ones(2, 3), lib.zeros(2, 3)),
    "multilabel-reduction": lambda lib: lib.nn.functional.multilabel_soft_margin_loss(
        lib.ones(2, 3), lib.ones(2, 3), reduction="x"
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_margin_loss_errors_match_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_errors(ERRORS[case], require_torch())
