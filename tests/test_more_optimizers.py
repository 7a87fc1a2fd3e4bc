"""Issue 14 (teaching code): Adamax, NAdam, RAdam, Adadelta, Rprop and ASGD as torch's: a few
steps on a small model (parameters, state, state_dict, repr), their options' variants, and
their argument errors.

Numbers are compared to float32 rounding, not bit for bit: torch's CPU kernels fuse the
multiply-adds of ``add(alpha=)``, ``addcmul``, ``addcdiv`` and ``lerp`` (one rounding), this
library's ops round twice, so the last bit can differ after a step."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

CASES = {
    "Adamax": lambda t, p: t.optim.Adamax(p, lr=0.05),
    "Adamax_wd": lambda t, p: t.optim.Adamax(p, weight_decay=0.1, maximize=True),
    "NAdam": lambda t, p: t.optim.NAdam(p, lr=0.05),
    "NAdam_wd": lambda t, p: t.optim.NAdam(p, weight_decay=0.1, decoupled_weight_decay=True),
    "NAdam_l2": lambda t, p: t.optim.NAdam(p, weight_decay=0.1, momentum_decay=0.01),
    "RAdam": lambda t, p: t.optim.RAdam(p, lr=0.05),
    "RAdam_short": lambda t, p: t.optim.RAdam(p, lr=0.05, betas=(0.9, 0.5)),
    "RAdam_wd": lambda t, p: t.optim.RAdam(p, weight_decay=0.1, decoupled_weight_decay=True),
    "Adadelta": lambda t, p: t.optim.Adadelta(p),
    "Adadelta_wd": lambda t, p: t.optim.Adadelta(p, lr=0.5, rho=0.5, weight_decay=0.1),
    "Rprop": lambda t, p: t.optim.Rprop(p, lr=0.05),
    "Rprop_max": lambda t, p: t.optim.Rprop(p, etas=(0.3, 1.5), step_sizes=(0.01, 0.1)),
    "ASGD": lambda t, p: t.optim.ASGD(p, lr=0.05, t0=2),
    "ASGD_wd": lambda t, p: t.optim.ASGD(p, lr=0.1, lambd=0.01, weight_decay=0.1),
}


def _run(t, name):
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 1))
    x, y = t.randn(8, 3), t.randn(8, 1)
    opt = CASES[name](t, model.parameters())
    text, numbers = [repr(opt)], []
    for _ in range(6):
        opt.zero_grad()
        loss = t.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        numbers.append(loss.item())
    numbers += [v for p in model.parameters() for v in p.detach().reshape(-1).tolist()]
    sd = opt.state_dict()
    text.append(repr(sorted(sd["state"][3])))
    for v in sd["state"][3].values():
        numbers += v.reshape(-1).tolist()
    text.append(repr(sd["param_groups"]))
    return text, np.array(numbers)


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_steps_as_torch(name):
    torch = require_torch()
    (ours, a), (theirs, b) = _run(ja, name), _run(torch, name)
    assert ours == theirs
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def _errors(t):
    p = [t.zeros(1, requires_grad=True)]
    out = []
    for make in (
        lambda: t.optim.Adamax(p, lr=-1),
        lambda: t.optim.NAdam(p, betas=(1.0, 0.9)),
        lambda: t.optim.NAdam(p, momentum_decay=-1),
        lambda: t.optim.RAdam(p, eps=-1),
        lambda: t.optim.Adadelta(p, rho=2),
        lambda: t.optim.Rprop(p, etas=(1.5, 1.2)),
        lambda: t.optim.ASGD(p, weight_decay=-1),
    ):
        try:
            make()
        except ValueError as e:
            out.append(str(e))
    return out


def test_optimizer_argument_errors_as_torch():
    torch = require_torch()
    assert _errors(ja) == _errors(torch)
