"""optim: 20 steps of every optimizer against torch 2.13 from the same weights and data."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd import nn

from ._torch import require as require_torch

torch = require_torch()

TOL = {"float64": 1e-10, "float32": 1e-5}

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.02}),
    ("SGD", {"lr": 0.05, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.01}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.01, "initial_accumulator_value": 0.1},
    ),
]


def _model(lib):
    n = lib.nn
    return n.Sequential(n.Linear(3, 6), n.Tanh(), n.Linear(6, 2))


def _pair(dt):
    torch.manual_seed(0)
    theirs = _model(torch).to(getattr(torch, dt))
    ours = _model(ja).to(getattr(ja, dt))
    ours.load_state_dict({k: ja.tensor(v.numpy().copy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _run(lib, model, opt, x, y, steps):
    xs, ys = lib.tensor(x), lib.tensor(y)
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(xs), ys)
        loss.backward()
        opt.step()
    return loss


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_twenty_steps_match_torch(name, kw, dt):
    ours, theirs = _pair(dt)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 3)).astype(dt), rng.normal(size=(8, 2)).astype(dt)
    oo = getattr(ja.optim, name)(ours.parameters(), **kw)
    ot = getattr(torch.optim, name)(theirs.parameters(), **kw)
    lo = _run(ja, ours, oo, x, y, 20)
    lt = _run(torch, theirs, ot, x, y, 20)
    tol = TOL[dt]
    np.testing.assert_allclose(lo.item(), lt.item(), rtol=tol, atol=tol)
    for (k, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(
            p.detach().numpy(), q.detach().numpy(), rtol=tol, atol=tol, err_msg=k
        )
        assert p._version > 0  # updated in place
    so, st = oo.state_dict(), ot.state_dict()
    assert {k: set(v) for k, v in so["state"].items()} == {
        k: set(v) for k, v in st["state"].items()
    }
    assert list(so["param_groups"][0]) == list(st["param_groups"][0])


def test_param_groups_and_state_dict_round_trip():
    ours, theirs = _pair("float64")
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    groups_o = [{"params": ours[0].parameters(), "lr": 0.02}, {"params": ours[2].parameters()}]
    groups_t = [{"params": theirs[0].parameters(), "lr": 0.02}, {"params": theirs[2].parameters()}]
    oo = ja.optim.Adam(groups_o, lr=0.005)
    ot = torch.optim.Adam(groups_t, lr=0.005)
    _run(ja, ours, oo, x, y, 5)
    _run(torch, theirs, ot, x, y, 5)
    assert [g["lr"] for g in oo.param_groups] == [0.02, 0.005]
    sd = oo.state_dict()
    assert sd["param_groups"][1]["params"] == ot.state_dict()["param_groups"][1]["params"] == [2, 3]
    # a fresh optimizer loaded from the state dict continues exactly like the original
    fresh = ja.optim.Adam(
        [{"params": ours[0].parameters()}, {"params": ours[2].parameters()}], lr=1.0
    )
    fresh.load_state_dict(sd)
    assert [g["lr"] for g in fresh.param_groups] == [0.02, 0.005]
    _run(ja, ours, fresh, x, y, 5)
    _run(torch, theirs, ot, x, y, 5)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10, atol=1e-10)


def test_zero_grad_set_to_none():
    w = ja.ones(3, requires_grad=True)
    opt = ja.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and np.all(w.grad.numpy() == 0)
    (w * w).sum().backward()
    opt.zero_grad()
    assert w.grad is None
    opt.step()  # no grads: a no-op
    assert np.all(w.detach().numpy() == 1)


def test_optimizer_errors_match_torch():
    leaf = ja.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"^can't optimize a non-leaf Tensor$"):
        ja.optim.SGD([leaf * 2], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        torch.optim.SGD([torch.ones(2, requires_grad=True) * 2], lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        ja.optim.Adam([])
    with pytest.raises(
        TypeError, match="params argument given to the optimizer should be an iterable"
    ):
        ja.optim.Adam(leaf)
    with pytest.raises(
        ValueError, match="Nesterov momentum requires a momentum and zero dampening"
    ):
        ja.optim.SGD([leaf], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        ja.optim.SGD([leaf], lr=-1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        ja.optim.SGD([{"params": [leaf]}, {"params": [leaf]}], lr=0.1)


def test_step_runs_under_no_grad_and_closure_under_grad():
    w = nn.Parameter(ja.tensor([2.0]))
    opt = ja.optim.SGD([w], lr=0.25)
    modes = []

    def closure():
        modes.append(ja.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert modes == [True] and loss.item() == 4.0
    assert w.grad_fn is None and w.requires_grad and w.item() == 1.0


@pytest.mark.parametrize(
    "name,kw",
    [
        ("StepLR", {"step_size": 3, "gamma": 0.5}),
        ("ExponentialLR", {"gamma": 0.9}),
        ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ],
)
def test_schedulers_match_torch(name, kw):
    oo = ja.optim.SGD([ja.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    ot = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    so = getattr(ja.optim.lr_scheduler, name)(oo, **kw)
    st = getattr(torch.optim.lr_scheduler, name)(ot, **kw)
    lrs_o, lrs_t = [], []
    for _ in range(14):
        oo.step()
        ot.step()
        so.step()
        st.step()
        lrs_o.append(so.get_last_lr()[0])
        lrs_t.append(st.get_last_lr()[0])
    np.testing.assert_allclose(lrs_o, lrs_t, rtol=1e-12)
    assert oo.param_groups[0]["lr"] == pytest.approx(ot.param_groups[0]["lr"])
