"""multi_margin_loss / multilabel_margin_loss and their modules against torch: p, margin, weight,
reductions, unbatched input; values, gradients, nodes and saved values, the NotImplemented double
backward and forward-AD refusal, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_repr
from ._torch import require as require_torch

Y = [1, 0, 4]
YL = [[3, 0, -1, 1, 2], [1, 2, 3, -1, 0], [-1, 0, 0, 0, 0]]
W = np.random.default_rng(9).uniform(0.2, 2.0, 5)
MULTI = [
    {},
    {"p": 2, "margin": 0.5},
    {"reduction": "none"},
    {"reduction": "sum", "weight": True},
    {"p": 2, "weight": True, "reduction": "none"},
    {"unbatched": True},
    {"margin": -0.3},
]


@pytest.mark.parametrize("i", range(len(MULTI)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multi_margin_loss_matches_torch(i, dtype):
    torch = require_torch()
    kw = dict(MULTI[i])
    unbatched = kw.pop("unbatched", False)
    use_w = kw.pop("weight", False)
    x = np.random.default_rng(i).standard_normal((5,) if unbatched else (3, 5))

    def fn(lib, t):
        w = lib.tensor(W, dtype=t.dtype) if use_w else None
        y = lib.tensor(Y[0]) if unbatched else lib.tensor(Y)
        return lib.nn.functional.multi_margin_loss(
            t, y.reshape(-1) if unbatched else y, weight=w, **kw
        )

    compare(fn, [x], torch, dtype)


@pytest.mark.parametrize(
    "kw", [{}, {"reduction": "none"}, {"reduction": "sum"}, {"unbatched": True}]
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multilabel_margin_loss_matches_torch(kw, dtype):
    torch = require_torch()
    kw = dict(kw)
    unbatched = kw.pop("unbatched", False)
    x = np.random.default_rng(1).standard_normal((5,) if unbatched else (3, 5))
    res = []
    for lib in (ja, torch):
        t = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.tensor(YL[0] if unbatched else YL)
        out = lib.nn.functional.multilabel_margin_loss(t, y, **kw)
        saved = (
            out.grad_fn.name(),
            out.grad_fn._saved_reduction,
            out.grad_fn._saved_is_target.tolist(),
        )
        out.sum().backward()
        res.append((out.detach().numpy(), t.grad.numpy(), saved))
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=tol, atol=tol)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=tol, atol=tol)
    assert res[0][2] == res[1][2]


@pytest.mark.parametrize("fn,target", [("multi_margin_loss", Y), ("multilabel_margin_loss", YL)])
def test_create_graph_and_forward_ad_refuse_as_torch(fn, target):
    torch = require_torch()
    res = []
    for lib in (ja, torch):
        x = lib.tensor(np.random.default_rng(2).standard_normal((3, 5)), requires_grad=True)
        out = getattr(lib.nn.functional, fn)(x, lib.tensor(target))
        (g,) = lib.autograd.grad(out, [x], create_graph=True)
        with pytest.raises(RuntimeError) as e:
            g.sum().backward()
        fw = lib.autograd.forward_ad
        with fw.dual_level(), pytest.raises(NotImplementedError) as e2:
            getattr(lib.nn.functional, fn)(
                fw.make_dual(x.detach(), lib.ones_like(x)), lib.tensor(target)
            )
        res.append(
            (
                g.grad_fn.name(),
                str(e.value),
                str(e2.value).splitlines()[0],
                g.detach().numpy().tolist(),
            )
        )
    assert res[0][:3] == res[1][:3]
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-6)


ERRORS = [
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(3, 5), lib.tensor(Y), p=3),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(3, 5), lib.tensor([1, 0, 5])),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(3, 5), lib.tensor([1, 0])),
    lambda lib: lib.nn.functional.multi_margin_loss(
        lib.ones(3, 5), lib.tensor(Y), weight=lib.ones(4)
    ),
    lambda lib: lib.nn.functional.multi_margin_loss(
        lib.ones(3, 5), lib.tensor(Y), weight=lib.ones(1, 5)
    ),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(1, 3, 5), lib.tensor(Y)),
    lambda lib: lib.nn.functional.multi_margin_loss(
        lib.ones(3, 5, dtype=lib.float64), lib.tensor(Y), weight=lib.ones(5)
    ),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(3, 5), lib.tensor(Y).float()),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(3, 5), lib.tensor(Y), reduction="bad"),
    lambda lib: lib.nn.functional.multilabel_margin_loss(lib.ones(3, 5), lib.tensor(YL[:2])),
    lambda lib: lib.nn.functional.multilabel_margin_loss(lib.ones(3, 5), lib.tensor(YL) + 5),
    lambda lib: lib.nn.functional.multilabel_margin_loss(lib.ones(3, 5), lib.tensor(YL).int()),
    lambda lib: lib.nn.MultiMarginLoss(p=3),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    compare_errors(ERRORS[i], require_torch())


def test_modules_match_torch():
    torch = require_torch()
    compare_repr(
        lambda lib: lib.nn.Sequential(
            lib.nn.MultiMarginLoss(p=2, margin=0.5), lib.nn.MultiLabelMarginLoss(reduction="sum")
        ),
        torch,
    )
    x = np.random.default_rng(0).standard_normal((3, 5))
    compare(
        lambda lib, t: lib.nn.MultiMarginLoss(weight=lib.tensor(W))(t, lib.tensor(Y)), [x], torch
    )
    compare(lambda lib, t: lib.nn.MultiLabelMarginLoss()(t, lib.tensor(YL)), [x], torch)
