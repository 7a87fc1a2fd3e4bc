"""Adam's flat ("foreach") path against its per-parameter loop: the same numbers, bit for bit.

The flat path keeps a group's moments in one array per moment with the state tensors as views;
these tests drive both paths through the situations that can break that bookkeeping (parameters
without a gradient on some steps, a loaded state dict, state edited by the user, mixed dtypes).
"""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd import nn

CONFIGS = [
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
]


def _model(dtype, seed=0):
    ja.manual_seed(seed)
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).to(dtype)


def _data(dtype):
    rng = np.random.default_rng(0)
    return (
        ja.tensor(rng.normal(size=(7, 3)).astype(dtype)),
        ja.tensor(rng.normal(size=(7, 2)).astype(dtype)),
    )


def _steps(model, opt, x, y, n, skip_first_layer_on=()):
    for i in range(n):
        opt.zero_grad()
        if i in skip_first_layer_on:  # only the last layer gets gradients on this step
            with ja.no_grad():
                h = model[1](model[0](x))
            loss = ((model[2](h) - y) ** 2).mean()
        else:
            loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()


def _same(a, b):
    for p, q in zip(a.parameters(), b.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())


def _same_state(oa, ob):
    sa, sb = oa.state_dict()["state"], ob.state_dict()["state"]
    assert sa.keys() == sb.keys()
    for k in sa:
        assert sa[k].keys() == sb[k].keys()
        for name in sa[k]:
            assert np.array_equal(sa[k][name].numpy(), sb[k][name].numpy()), (k, name)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_flat_path_equals_loop(name, kw, dtype):
    x, y = _data(dtype)
    a, b = _model(getattr(ja, dtype)), _model(getattr(ja, dtype))
    oa = getattr(ja.optim, name)(a.parameters(), **kw)  # foreach=None: the flat path
    ob = getattr(ja.optim, name)(b.parameters(), foreach=False, **kw)
    _steps(a, oa, x, y, 12, skip_first_layer_on={3, 4, 9})
    _steps(b, ob, x, y, 12, skip_first_layer_on={3, 4, 9})
    _same(a, b)
    _same_state(oa, ob)
    # the flat path ran, over every parameter, at different step counts (9 and 12)
    assert len(oa._flat[0].params) == 4 and not hasattr(ob, "_flat")
    assert sorted({float(s["step"]) for s in oa.state.values()}) == [9.0, 12.0]
    # the state tensors are views of the flat arrays: a user's edit is seen by the next step
    for o in (oa, ob):
        o.state[next(iter(o.state))]["exp_avg"].mul_(0.5)
    _steps(a, oa, x, y, 2)
    _steps(b, ob, x, y, 2)
    _same(a, b)
    _same_state(oa, ob)


def _twins(steps):
    """Two identical float64 models after ``steps`` Adam steps: the flat path and the loop."""
    x, y = _data("float64")
    a, b = _model(ja.float64), _model(ja.float64)
    oa = ja.optim.Adam(a.parameters(), lr=0.02)
    ob = ja.optim.Adam(b.parameters(), lr=0.02, foreach=False)
    _steps(a, oa, x, y, steps)
    _steps(b, ob, x, y, steps)
    return x, y, a, b, oa, ob


def test_loaded_state_dict_is_adopted():
    x, y, a, b, oa, ob = _twins(4)
    fresh = ja.optim.Adam(a.parameters(), lr=1.0)
    fresh.load_state_dict(oa.state_dict())
    p0 = next(iter(a.parameters()))
    kept = fresh.state[p0]["exp_avg"]
    _steps(a, fresh, x, y, 5)
    _steps(b, ob, x, y, 5)
    _same(a, b)
    _same_state(fresh, ob)
    assert fresh.state[p0]["exp_avg"] is kept  # the loaded tensor object is kept (as a view)
    assert float(fresh.state[p0]["step"]) == 9.0
    # and a state dict taken from the flat path loads into the loop path
    other = ja.optim.Adam(b.parameters(), lr=0.02, foreach=False)
    other.load_state_dict(fresh.state_dict())
    _same_state(other, fresh)


def test_replaced_state_tensor_and_mixed_dtypes_fall_back_correctly():
    x, y, a, b, oa, ob = _twins(2)
    for o, m in ((oa, a), (ob, b)):  # a state tensor replaced outright
        p = m[0].weight
        o.state[p]["exp_avg_sq"] = o.state[p]["exp_avg_sq"] * 2
    _steps(a, oa, x, y, 3)
    _steps(b, ob, x, y, 3)
    _same(a, b)
    _same_state(oa, ob)
    # a group mixing dtypes takes the per-parameter loop
    w64 = ja.tensor([1.0, -2.0], dtype=ja.float64, requires_grad=True)
    w32 = ja.tensor([0.5, 3.0], dtype=ja.float32, requires_grad=True)
    opt = ja.optim.Adam([w64, w32], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        ((w64 * w64).sum() + (w32 * w32).sum().double()).backward()
        opt.step()
    ref64 = ja.tensor([1.0, -2.0], dtype=ja.float64, requires_grad=True)
    ro = ja.optim.Adam([ref64], lr=0.1, foreach=False)
    for _ in range(3):
        ro.zero_grad()
        (ref64 * ref64).sum().backward()
        ro.step()
    assert np.array_equal(w64.detach().numpy(), ref64.detach().numpy())
    assert w32.dtype == ja.float32 and opt.state[w32]["exp_avg"].dtype == ja.float32
