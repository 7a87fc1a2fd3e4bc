"""Losses and activations against torch at their degenerate points (issue 13): every target
ignored, zero class weights, empty batches, label smoothing with weights and ignored targets,
probability targets, inputs of 1 to 5 dimensions; the sigmoid/softplus/logsigmoid tails
(test plan A7); softmax without ``dim``. Values, gradients, grad_fn names, warnings, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ._oracle import assert_as_torch
from ._torch import require as require_torch

REDUCTIONS = ["mean", "sum", "none"]


def _class_program(
    kind,
    reduction,
    target,
    weight=None,
    label_smoothing=0.0,
    ignore_index=-100,
    shape=(2, 3),
    dtype="float32",
    seed=0,
):
    def program(t):
        rng = np.random.default_rng(seed)
        x = t.tensor(rng.standard_normal(shape), dtype=getattr(t, dtype), requires_grad=True)
        w = None if weight is None else t.tensor(weight, dtype=getattr(t, dtype))
        tg = t.tensor(target)
        if kind == "ce":
            loss = t.nn.functional.cross_entropy(
                x,
                tg,
                weight=w,
                reduction=reduction,
                ignore_index=ignore_index,
                label_smoothing=label_smoothing,
            )
        else:
            loss = t.nn.functional.nll_loss(
                x.log_softmax(1 if len(shape) > 1 else 0),
                tg,
                weight=w,
                reduction=reduction,
                ignore_index=ignore_index,
            )
        loss.sum().backward()
        return loss, x.grad

    return program


CLASS_CASES = {
    "all ignored": {"target": [-100, -100]},
    "all ignored, ignore_index=1": {"target": [1, 1], "ignore_index": 1},
    "one ignored": {"target": [-100, 2]},
    "zero weights": {"target": [0, 0], "weight": [0.0, 1.0, 1.0]},
    "one zero weight": {"target": [0, 1], "weight": [0.0, 1.0, 1.0]},
    "weights, all ignored": {"target": [-100, -100], "weight": [0.5, 1.0, 1.0]},
    "weights, one ignored": {"target": [-100, 1], "weight": [0.5, 2.0, 1.0]},
    "1-D input": {"target": 1, "shape": (3,)},
    "1-D input, ignored": {"target": -100, "shape": (3,)},
    "empty batch": {"target": [], "shape": (0, 3)},
}


@pytest.mark.parametrize(
    "kind,reduction,case,dtype",
    [
        (k, r, c, d)
        for k, r, c, d in itertools.product(
            ["ce", "nll"], REDUCTIONS, CLASS_CASES, ["float32", "float64"]
        )
    ],
)
def test_class_index_losses_with_ignored_targets_and_zero_weights(kind, reduction, case, dtype):
    """The issue's case (every target == ignore_index: nan mean, zero gradients, not nan
    gradients that poison the weights) and its siblings."""
    torch = require_torch()
    assert_as_torch(torch, _class_program(kind, reduction, dtype=dtype, **CLASS_CASES[case]))


@pytest.mark.parametrize(
    "reduction,case,ls",
    [
        (r, c, ls)
        for r, c, ls in itertools.product(REDUCTIONS, CLASS_CASES, [0.1, 1.0])
        if c != "empty batch"
    ],
)
def test_cross_entropy_label_smoothing_as_torch(reduction, case, ls):
    """Torch's blend: (1 - ls) nll + ls/C * (the smoothing term, ignored targets masked, the
    mean over the kept weight) - the same nodes (AddBackward0 over two MulBackward1)."""
    torch = require_torch()
    assert_as_torch(torch, _class_program("ce", reduction, label_smoothing=ls, **CLASS_CASES[case]))


SPATIAL = [(2, 3, 4), (2, 3, 2, 2), (2, 3, 1, 2, 2)]


@pytest.mark.parametrize(
    "kind,reduction,shape,ignore,weight,ls",
    [
        (k, r, s, i, w, ls)
        for k, r, s, i, w, ls in itertools.product(
            ["ce", "nll"], REDUCTIONS, SPATIAL, [False, True], [None, [0.5, 1.0, 2.0]], [0.0, 0.1]
        )
        if not (k == "nll" and ls)
    ],
)
def test_spatial_class_losses_use_nll_loss2d(kind, reduction, shape, ignore, weight, ls):
    """(N, C, d1, ...) inputs: NllLoss2DBackward0 (3-D and > 4-D viewed to 4-D), as torch."""
    torch = require_torch()
    rng = np.random.default_rng(1)
    target = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    if ignore:
        target.reshape(-1)[::2] = -100
    assert_as_torch(
        torch,
        _class_program(
            kind, reduction, target.tolist(), weight=weight, label_smoothing=ls, shape=shape
        ),
    )


@pytest.mark.parametrize(
    "reduction,weight,ls,shape",
    list(
        itertools.product(
            REDUCTIONS, [None, [0.0, 1.0, 2.0]], [0.0, 0.2], [(2, 3), (3,), (2, 3, 2), (0, 3)]
        )
    ),
)
def test_cross_entropy_with_probability_targets(reduction, weight, ls, shape):
    """-(log_softmax * p [* w]).sum() (NegBackward0; DivBackward1 for the mean; an empty
    batch's mean is nan through FillBackward2), as torch."""
    torch = require_torch()

    def program(t):
        rng = np.random.default_rng(2)
        x = t.tensor(rng.standard_normal(shape), requires_grad=True)
        p = t.tensor(
            rng.dirichlet(np.ones(3), size=int(np.prod(shape)) // 3).reshape(shape)
            if shape[-1] == 3 and len(shape) != 3
            else rng.uniform(0, 1, shape),
            requires_grad=True,
        )
        w = None if weight is None else t.tensor(weight)
        loss = t.nn.functional.cross_entropy(
            x, p, weight=w, reduction=reduction, label_smoothing=ls
        )
        loss.sum().backward()
        return loss, x.grad, p.grad

    assert_as_torch(torch, program)


BAD_CLASS_CALLS = [
    "F.nll_loss(x, t.tensor([[0, 1], [1, 1]]))",
    "F.nll_loss(x, t.tensor([0, 1, 1]))",
    "F.nll_loss(x, t.tensor([0, 3]))",
    "F.nll_loss(x, t.tensor([0, -1]))",
    "F.nll_loss(x, t.tensor([0, 1]), weight=t.ones(2))",
    "F.nll_loss(x, t.tensor([0., 1.]))",
    "F.nll_loss(x, t.tensor([0, 1], dtype=t.int32))",
    "F.nll_loss(x.double(), t.tensor([0, 1]), weight=t.ones(3))",
    "F.nll_loss(t.randn(2, 3, 4), t.tensor([0, 1]))",
    "F.nll_loss(t.randn(2, 3, 4), t.zeros(2, 5, dtype=t.long))",
    "F.nll_loss(t.randn(2, 3, 4, 5), t.zeros(2, 4, 4, dtype=t.long))",
    "F.nll_loss(t.randn(2, 3, 4, 5), t.zeros(2, 4, dtype=t.long))",
    "F.nll_loss(t.randn(3), t.tensor(5))",
    "F.nll_loss(t.tensor(1.), t.tensor(0))",
    "F.cross_entropy(x, t.rand(2, 3), ignore_index=1)",
    "F.cross_entropy(x, t.tensor([[0, 1, 1], [1, 1, 1]]))",
    "F.cross_entropy(x, t.tensor([0, 1]), label_smoothing=1.5)",
    "F.cross_entropy(x, t.rand(2, 3), label_smoothing=1.5)",
    "F.cross_entropy(x, t.rand(2, 3), weight=t.ones(2))",
    "F.cross_entropy(x, t.tensor([0, 1]), reduction='bad')",
    "F.cross_entropy(t.zeros(0, 3), t.tensor([]))",
    # probabilities outside [0, 1] (nan included): input checked first, then target
    "F.binary_cross_entropy(t.tensor([float('nan')]), t.ones(1))",
    "F.binary_cross_entropy(t.tensor([0.5, 1.5]), t.ones(2))",
    "F.binary_cross_entropy(t.tensor([float('inf')]), t.ones(1))",
    "F.binary_cross_entropy(t.tensor([0.5]), t.tensor([float('nan')]))",
    "F.binary_cross_entropy(t.tensor([0.5]), t.tensor([2.]))",
    "F.binary_cross_entropy(t.tensor([0.5]), t.tensor([-1.]))",
    "F.binary_cross_entropy(t.tensor([2.]), t.tensor([2.]))",
    "t.nn.BCELoss()(t.tensor([0.5]), t.tensor([float('nan')]))",
]


@pytest.mark.parametrize("call", BAD_CLASS_CALLS)
def test_class_losses_refuse_bad_input_as_torch(call):
    torch = require_torch()

    def program(t):
        return eval(call, {"t": t, "F": t.nn.functional, "x": t.zeros(2, 3, requires_grad=True)})

    assert_as_torch(torch, program)


def _elementwise_loss(name, reduction, x, y, dtype="float32", **kw):
    def program(t):
        dt = getattr(t, dtype)
        xx = t.tensor(x, dtype=dt, requires_grad=True)
        yy = t.tensor(y, dtype=dt, requires_grad=True)
        kws = {k: t.tensor(v, dtype=dt) for k, v in kw.items()}
        loss = getattr(t.nn.functional, name)(xx, yy, reduction=reduction, **kws)
        loss.sum().backward()
        return loss, xx.grad, yy.grad

    return program


@pytest.mark.parametrize(
    "name,reduction,values",
    list(
        itertools.product(
            ["mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"],
            REDUCTIONS,
            [([], []), ([0.2, 0.7], [0.0, 1.0]), ([0.5, 0.5], [0.5, 0.5])],
        )
    ),
)
def test_elementwise_losses_empty_and_plain(name, reduction, values):
    torch = require_torch()
    assert_as_torch(torch, _elementwise_loss(name, reduction, *values))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_at_zero_and_one(reduction):
    """Logs clamped at -100 (loss 100), the target's gradient -logit(p) unclamped (inf)."""
    torch = require_torch()
    assert_as_torch(
        torch,
        _elementwise_loss(
            "binary_cross_entropy",
            reduction,
            [0.0, 1.0, 0.0, 1.0, 1e-30],
            [1.0, 0.0, 0.0, 1.0, 0.0],
        ),
    )


TAIL_X = [-1e4, -800.0, -100.0, -40.0, -20.0, 0.0, 20.0, 40.0, 100.0, 800.0, 1e4]


@pytest.mark.parametrize(
    "dtype,reduction,extra",
    list(
        itertools.product(
            ["float32", "float64"], REDUCTIONS, ["none", "weight", "pos_weight", "both"]
        )
    ),
)
def test_bce_with_logits_tails(dtype, reduction, extra):
    """Test plan A7: finite loss, and the gradient sigmoid(x) - y with sigmoid's own tail
    (sigmoid(-40) = 4.25e-18, not 0), with weight and pos_weight too."""
    torch = require_torch()
    xs = TAIL_X * 2
    ys = [0.0] * len(TAIL_X) + [1.0] * len(TAIL_X)
    kw = {}
    if extra in ("weight", "both"):
        kw["weight"] = [0.5 + 0.1 * i for i in range(len(xs))]
    if extra in ("pos_weight", "both"):
        kw["pos_weight"] = [2.0] * len(xs)
    # relative in the tails; below float32's smallest normal (1.2e-38) log1p's denormal results
    # differ between NumPy and torch's vectorised kernels
    assert_as_torch(
        torch,
        _elementwise_loss("binary_cross_entropy_with_logits", reduction, xs, ys, dtype, **kw),
        rtol=2e-6,
        atol=1e-37,
    )


def test_bce_with_logits_issue_case():
    import jupyter_autograd as ja

    x = ja.tensor([-40.0], requires_grad=True)
    ja.nn.functional.binary_cross_entropy_with_logits(x, ja.tensor([0.0])).backward()
    assert x.grad.item() == pytest.approx(4.248354e-18, rel=1e-6)


@pytest.mark.parametrize(
    "expr,dtype",
    list(
        itertools.product(
            [
                "t.sigmoid(x)",
                "t.special.expit(x)",
                "F.softplus(x)",
                "F.softplus(x, beta=2, threshold=5)",
                "F.softplus(x, beta=-1)",
                "F.softplus(x, 0.5, 100)",
                "F.logsigmoid(x)",
                "t.nn.Softplus(2.0, 10.0)(x)",
                "t.nn.LogSigmoid()(x)",
                "t.nn.Sigmoid()(x)",
            ],
            ["float32", "float64"],
        )
    ),
)
def test_sigmoid_softplus_logsigmoid_tails(expr, dtype):
    """The class of the BCE tail: each stays exact far into its tails, as torch's kernels."""
    torch = require_torch()

    def program(t):
        x = t.tensor(TAIL_X + [-1.0, 1.0, 3.0], dtype=getattr(t, dtype), requires_grad=True)
        y = eval(expr, {"t": t, "F": t.nn.functional, "x": x})
        y.backward(t.ones_like(y))
        return y, x.grad

    # float32's last bit differs from torch's vectorised exp; tails are compared relatively,
    # down to float32's smallest normal (denormal log1p results differ between the kernels)
    assert_as_torch(torch, program, rtol=3e-6, atol=1e-37)


def test_softplus_module_and_errors():
    torch = require_torch()
    assert_as_torch(
        torch, lambda t: repr(t.nn.Softplus()) + repr(t.nn.Softplus(2, 5)) + repr(t.nn.LogSigmoid())
    )
    assert_as_torch(torch, lambda t: t.nn.functional.softplus(t.tensor([1, 2])))
    assert_as_torch(torch, lambda t: t.nn.functional.logsigmoid(t.tensor([1, 2])))
    assert_as_torch(
        torch, lambda t: t.nn.functional.softplus(t.ones(2, requires_grad=True)).grad_fn._saved_beta
    )


@pytest.mark.parametrize(
    "fn,shape",
    list(
        itertools.product(
            ["softmax", "log_softmax", "softmin"], [(), (3,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]
        )
    ),
)
def test_softmax_without_dim_warns_and_picks_torchs_dim(fn, shape):
    torch = require_torch()

    def program(t):
        x = t.tensor(np.random.default_rng(3).standard_normal(shape), requires_grad=True)
        y = getattr(t.nn.functional, fn)(x)
        y.backward(t.ones_like(y))
        return y, x.grad

    assert_as_torch(torch, program)


@pytest.mark.parametrize(
    "call",
    [
        "x.softmax()",
        "t.softmax(x)",
        "x.log_softmax()",
        "t.log_softmax(x)",
        "t.tensor([1, 2]).softmax(0)",
        "t.tensor([[1, 2]]).softmax(0)",
        "t.tensor([1, 2]).log_softmax(0)",
        "t.tensor([1, 2]).softmax(0, dtype=t.float32)",
        "F.softmin(t.tensor([1, 2]), 0)",
        "t.nn.Softmax()(x)",
        "t.nn.Softmin(1)(x)",
        "repr(t.nn.Softmin())",
        "F.softmin(x, 1, dtype=t.float64)",
        "x.softmax(dim=1, dtype=t.float64)",
    ],
)
def test_softmax_signatures_as_torch(call):
    torch = require_torch()
    assert_as_torch(torch, lambda t: eval(call, {"t": t, "F": t.nn.functional, "x": t.ones(2, 3)}))


def test_softmax_warning_points_at_the_caller():
    import warnings

    import jupyter_autograd as ja

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ja.nn.functional.softmax(ja.ones(2, 2))
    assert caught[0].filename == __file__


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2, 2), (2, 3, 4)])
def test_class_losses_on_the_device_lane(device, shape):
    """The general nll path (weights, ignored targets, smoothing) stays on the tensor's device."""
    import jupyter_autograd as ja

    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(np.float32)
    target = rng.integers(0, 3, (shape[0],) + shape[2:])
    target.reshape(-1)[0] = -100
    grads = []
    for dev in ("cpu", device):
        xt = ja.tensor(x, device=dev, requires_grad=True)
        loss = ja.nn.functional.cross_entropy(
            xt,
            ja.tensor(target, device=dev),
            weight=ja.tensor([0.5, 1.0, 2.0], device=dev),
            label_smoothing=0.1,
        )
        loss.backward()
        assert xt.grad.device.type == ja.device(dev).type
        grads.append(xt.grad.cpu().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
