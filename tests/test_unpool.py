"""max_unpool1d/2d/3d and nn.MaxUnpool* against torch: values, gradients and the double-backward
graph, forward AD, output_size rules, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops.unpool import _IDX3

from ._layer_parity import compare_errors, compare_repr
from ._torch import require as require_torch

CASES = [
    ("2d", (2, 3, 6, 4), {"kernel_size": 2}, {}),
    ("2d", (2, 3, 6, 4), {"kernel_size": 2}, {"output_size": (7, 5)}),
    ("2d", (3, 7, 5), {"kernel_size": 3, "stride": 2, "padding": 1}, {}),
    ("2d", (1, 2, 6, 4), {"kernel_size": 2}, {"output_size": (1, 2, 6, 4)}),
    ("1d", (2, 3, 8), {"kernel_size": 2}, {}),
    ("1d", (3, 9), {"kernel_size": 3, "stride": 2}, {"output_size": [10]}),
]


@pytest.mark.parametrize("i", range(len(CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_unpool_matches_torch(i, dtype):
    torch = require_torch()
    kind, shape, pool_kw, kw = CASES[i]
    x = np.random.default_rng(i).permutation(int(np.prod(shape))).reshape(shape) / 10.0
    res = []
    for lib in (ja, torch):
        F = lib.nn.functional
        pool = getattr(F, f"max_pool{kind}")
        y, idx = pool(lib.tensor(x, dtype=getattr(lib, dtype)), return_indices=True, **pool_kw)
        y = y.detach().requires_grad_()
        unpool_kw = {k: v for k, v in pool_kw.items()}
        u = getattr(F, f"max_unpool{kind}")(y, idx, **unpool_kw, **kw)
        w = lib.tensor(
            np.arange(u.numel()).reshape(tuple(u.shape)) / 7.0, dtype=getattr(lib, dtype)
        )
        (g,) = lib.autograd.grad((u * u * w).sum(), [y], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [y])
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            t = fw.unpack_dual(
                getattr(F, f"max_unpool{kind}")(
                    fw.make_dual(y.detach(), lib.ones_like(y)), idx, **unpool_kw, **kw
                )
            ).tangent
        res.append(
            (
                u.detach().numpy(),
                g.detach().numpy(),
                gg.numpy(),
                t.numpy(),
                u.grad_fn.name(),
                g.grad_fn.name(),
            )
        )
    for a, b in zip(res[0], res[1]):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        else:
            assert a == b


def test_max_unpool3d_matches_torch():
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal((1, 2, 2, 2, 2))
    res = []
    for lib in (ja, torch):
        t = lib.tensor(x, requires_grad=True)
        u = lib.nn.functional.max_unpool3d(t, lib.tensor(_IDX3), 2)
        u.backward(lib.tensor(np.arange(u.numel(), dtype=np.float64).reshape(tuple(u.shape))))
        res.append((u.detach().numpy(), t.grad.numpy(), u.grad_fn.name()))
    np.testing.assert_allclose(res[0][0], res[1][0])
    np.testing.assert_allclose(res[0][1], res[1][1])
    assert res[0][2] == res[1][2]


def _pooled(lib):
    x = lib.tensor(np.arange(48.0).reshape(2, 3, 2, 4))
    return lib.nn.functional.max_pool2d(
        lib.tensor(np.arange(96.0).reshape(2, 3, 4, 4)), 2, return_indices=True
    ), x


ERRORS = [
    lambda lib: lib.nn.functional.max_unpool2d(*_pooled(lib)[0], 2, output_size=(9, 9)),
    lambda lib: lib.nn.functional.max_unpool2d(_pooled(lib)[0][0], _pooled(lib)[0][1][..., :1], 2),
    lambda lib: lib.nn.functional.max_unpool2d(_pooled(lib)[0][0], _pooled(lib)[0][1].float(), 2),
    lambda lib: lib.nn.functional.max_unpool2d(_pooled(lib)[0][0], _pooled(lib)[0][1] + 100, 2),
    lambda lib: lib.nn.functional.max_unpool2d(
        _pooled(lib)[0][0][0, 0], _pooled(lib)[0][1][0, 0], 2
    ),
    lambda lib: lib.nn.functional.max_unpool2d(*_pooled(lib)[0], 2, output_size=(1, 2, 3)),
    lambda lib: lib.nn.functional.max_unpool3d(lib.ones(2, 2), lib.zeros(2, 2, dtype=lib.int64), 2),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    compare_errors(ERRORS[i], require_torch())


def test_module_reprs_match_torch():
    compare_repr(
        lambda lib: lib.nn.Sequential(
            lib.nn.MaxUnpool2d(2, stride=1, padding=1),
            lib.nn.MaxUnpool1d(3),
            lib.nn.MaxUnpool3d((2, 2, 1)),
        ),
        require_torch(),
    )
