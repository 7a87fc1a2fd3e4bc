"""Devices (issue 9): the same code on ``cpu`` and on ``cuda``.

Without a GPU, ``cuda`` is the NumPy stand-in (:mod:`jupyter_autograd.testing.fake_cuda`), whose
arrays are not ``numpy.ndarray`` and refuse to mix with it as CuPy's do: every op row running
here on ``cuda`` and agreeing with ``cpu`` shows that no op forward or rule hard-codes NumPy.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.autograd import forward_ad as fwad
from jupyter_autograd.backend import canonical_device
from jupyter_autograd.ops import OPS

from ._devices import cuda_device  # noqa: F401 - fixture
from ._op_samples import Unsampleable, cases


def _sampleable():
    # rows the shared sampler cannot draw yet fail its own meta-test (test_ops_registry)
    out = []
    for name in sorted(OPS):
        try:
            cases(OPS[name], np.random.default_rng(0))
            out.append(name)
        except Unsampleable:
            pass
    return out


ALL = _sampleable()


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _host(t):
    return None if t is None else t.detach().cpu().numpy()


def _run(case, dev, seed):
    """Forward, backward, double backward and forward AD of one case on ``dev``; host results.

    The case's own constants (index tensors, masks) are made by factories without ``device=``:
    ``set_default_device`` puts them on ``dev`` too, as a GPU notebook would.
    """
    ja.set_default_device(dev)
    try:
        return _run_on(case, dev, seed)
    finally:
        ja.set_default_device(None)


def _stage(res, key, f):
    """Record a stage's host results, or the type of the error it raised (compared across
    devices: a stage failing on one device only is the bug this suite looks for)."""
    try:
        res[key] = f()
    except Exception as e:  # noqa: BLE001
        res[key] = type(e).__name__


def _run_on(case, dev, seed):
    rng = np.random.default_rng(seed)
    res = {}
    ts = [ja.tensor(a, dtype=ja.float64, device=dev, requires_grad=True) for a in case.arrays]
    outs = [o for o in _outs(case.ours(*ts)) if o.is_floating_point()]
    for o in outs:
        assert o.device == canonical_device(dev), f"output on {o.device}, inputs on {dev}"
    res["out"] = [_host(o) for o in outs]
    vs = [ja.tensor(rng.uniform(-1, 1, size=tuple(o.shape)), device=dev) for o in outs]
    ws = [rng.uniform(-1, 1, size=a.shape) for a in case.arrays]
    if any(o.requires_grad for o in outs):
        loss = sum((o * v).sum() for o, v in zip(outs, vs) if o.requires_grad)
        grads = ja.autograd.grad(loss, ts, retain_graph=True, allow_unused=True)
        for g in grads:
            assert g is None or g.device == canonical_device(dev), f"gradient on {g.device}"
        res["grad"] = [_host(g) for g in grads]

        def second_order():
            # d/dx of sum(grad * w), through the recorded backward (create_graph=True)
            gs = ja.autograd.grad(loss, ts, create_graph=True, allow_unused=True)
            gsum = [(g * ja.tensor(w, device=dev)).sum() for g, w in zip(gs, ws) if g is not None and g.requires_grad]
            if not gsum:
                return []
            return [_host(g) for g in ja.autograd.grad(sum(gsum), ts, allow_unused=True)]

        _stage(res, "gg", second_order)
    # forward mode: the JVP along a random tangent
    tangents = [rng.uniform(-1, 1, size=a.shape) for a in case.arrays]

    def jvp():
        with fwad.dual_level():
            duals = [fwad.make_dual(ja.tensor(a, dtype=ja.float64, device=dev), ja.tensor(t, device=dev))
                     for a, t in zip(case.arrays, tangents)]
            return [_host(fwad.unpack_dual(o).tangent) for o in _outs(case.ours(*duals))]

    _stage(res, "jvp", jvp)
    return res


def _same(a, b, where):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b, f"{where}: cpu gave {a!r}, cuda gave {b!r}"
        return
    assert len(a) == len(b), where
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is None and y is None, where
            continue
        np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("name", ALL)
def test_op_suite_on_cuda_matches_cpu(name, cuda_device):
    """Every registry row: values, gradients, second-order gradients and JVPs agree across devices."""
    for k, case in enumerate(cases(OPS[name], np.random.default_rng(0))):
        cpu = _run(case, "cpu", k)
        gpu = _run(case, cuda_device, k)
        assert cpu.keys() == gpu.keys(), (cpu.keys(), gpu.keys())
        for key in cpu:
            _same(cpu[key], gpu[key], f"{name} case {k} {key}")
