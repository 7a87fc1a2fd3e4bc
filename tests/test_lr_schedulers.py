"""Issue 14 (teaching code): every learning-rate scheduler of torch.optim.lr_scheduler that
tutorials use, stepped as torch's: the learning rates, get_last_lr and the state_dict
(contents and key order) after each step, a closed-form step(epoch), and resuming from a
state_dict."""

from __future__ import annotations

import warnings

import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

CASES = {
    "StepLR": lambda t, o: t.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.3),
    "MultiStepLR": lambda t, o: t.optim.lr_scheduler.MultiStepLR(o, [1, 3, 3], gamma=0.5),
    "ExponentialLR": lambda t, o: t.optim.lr_scheduler.ExponentialLR(o, gamma=0.8),
    "CosineAnnealingLR": lambda t, o: t.optim.lr_scheduler.CosineAnnealingLR(o, 3, eta_min=0.01),
    "LambdaLR": lambda t, o: t.optim.lr_scheduler.LambdaLR(o, [lambda e: 1 / (e + 1)] * 2),
    "MultiplicativeLR": lambda t, o: t.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9),
    "ConstantLR": lambda t, o: t.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=3),
    "LinearLR": lambda t, o: t.optim.lr_scheduler.LinearLR(o, 0.2, 0.9, total_iters=4),
    "PolynomialLR": lambda t, o: t.optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=0.5),
    "WarmRestarts": lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, 2),
    "Sequential": lambda t, o: t.optim.lr_scheduler.SequentialLR(
        o,
        [t.optim.lr_scheduler.LinearLR(o, 0.5), t.optim.lr_scheduler.ExponentialLR(o, 0.5)],
        milestones=[3],
    ),
    "Chained": lambda t, o: t.optim.lr_scheduler.ChainedScheduler(
        [t.optim.lr_scheduler.ConstantLR(o, 0.5, 2), t.optim.lr_scheduler.ExponentialLR(o, 0.9)]
    ),
    "CyclicLR": lambda t, o: t.optim.lr_scheduler.CyclicLR(o, 0.01, [0.1, 0.3], step_size_up=2),
    "CyclicLR2": lambda t, o: t.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=1, step_size_down=2, mode="exp_range", gamma=0.9
    ),
    "OneCycleLR": lambda t, o: t.optim.lr_scheduler.OneCycleLR(o, [1.0, 2.0], total_steps=9),
    "OneCycle3": lambda t, o: t.optim.lr_scheduler.OneCycleLR(
        o, 1.0, epochs=3, steps_per_epoch=3, anneal_strategy="linear", three_phase=True
    ),
}


def _clean(sd):
    return {k: v for k, v in sd.items() if k != "lr_lambdas"}


def _run(t, name):
    p = t.zeros(2, requires_grad=True)
    opt = t.optim.SGD([{"params": [p]}, {"params": [t.zeros(1)], "lr": 0.5}], lr=0.1, momentum=0.9)
    sched = CASES[name](t, opt)
    out = [repr(_clean(sched.state_dict()))]
    for _ in range(7):
        opt.step()
        sched.step()
        out.append(
            repr((sched.get_last_lr(), [(g["lr"], g["momentum"]) for g in opt.param_groups]))
        )
    out.append(repr(_clean(sched.state_dict())))
    if hasattr(sched, "_get_closed_form_lr"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched.step(2)
        out.append(repr(sched.get_last_lr()))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_scheduler_steps_as_torch(name):
    torch = require_torch()
    assert _run(ja, name) == _run(torch, name)


def _plateau(t):
    opt = t.optim.SGD([t.zeros(1, requires_grad=True)], lr=1.0)
    s = t.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode="max", factor=0.5, patience=1, cooldown=1, min_lr=0.2, threshold_mode="abs"
    )
    out = []
    for m in [1, 2, 2, 2, 1, 1, 1, 3, 3, 3, 3]:
        s.step(t.tensor(float(m)))
        out.append(repr((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter)))
    out.append(repr(s.state_dict()))
    s2 = t.optim.lr_scheduler.ReduceLROnPlateau(opt)
    s2.load_state_dict(s.state_dict())
    out.append(repr((s2.mode, s2.mode_worse, s2.best)))
    for bad in ({"factor": 1.0}, {"mode": "mid"}, {"threshold_mode": "x"}):
        try:
            t.optim.lr_scheduler.ReduceLROnPlateau(opt, **bad)
        except ValueError as e:
            out.append(str(e))
    return out


def test_reduce_lr_on_plateau_as_torch():
    torch = require_torch()
    assert _plateau(ja) == _plateau(torch)


def _resume(t):
    opt = t.optim.SGD([t.zeros(1, requires_grad=True)], lr=1.0)
    s = t.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
    for _ in range(3):
        opt.step()
        s.step()
    opt2 = t.optim.SGD([t.zeros(1, requires_grad=True)], lr=1.0)
    opt2.load_state_dict(opt.state_dict())
    s2 = t.optim.lr_scheduler.MultiStepLR(opt2, milestones=[9], gamma=0.5)
    s2.load_state_dict(s.state_dict())
    out = []
    for _ in range(3):
        opt2.step()
        s2.step()
        out.append(repr(s2.get_last_lr()))
    return out + [repr(s2.state_dict())]


def test_scheduler_resumes_from_state_dict_as_torch():
    torch = require_torch()
    assert _resume(ja) == _resume(torch)


def _adam_betas(t):
    opt = t.optim.Adam([t.zeros(1, requires_grad=True)], lr=0.1)
    s = t.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=5)
    out = []
    for _ in range(5):
        opt.step()
        s.step()
        out.append(repr((s.get_last_lr(), opt.param_groups[0]["betas"])))
    try:
        s.step()
    except ValueError as e:
        out.append(str(e))
    return out


def test_one_cycle_drives_adam_betas_as_torch():
    torch = require_torch()
    assert _adam_betas(ja) == _adam_betas(torch)
