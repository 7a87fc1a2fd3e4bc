"""Defects met while landing the OpInfo rows, each compared with torch: diagonal is a view
(in-place writes reach its base, CopySlices / AsStridedBackward0), gather saves self (an
in-place change of it is refused at backward), an in-place op under autograd casts a wider
result into self (float64 into float32, complex128 into complex64) as torch does; as_strided
views the input's storage (its neighbours included) with torch's argument errors."""

from __future__ import annotations

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch
from .test_api_surface import _observe


def _diagonal_inplace(t):
    x = t.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    d = y.diagonal(1)
    d.mul_(2)
    names = (y.grad_fn.name(), d.grad_fn.name(), y._version, d._version, d._base is y)
    y.sum().backward()
    return y, x.grad, names


def _diagonal_write_base(t):
    z = t.zeros(2, 3, 3)
    t.diagonal(z, -1, 1, 2).fill_(5.0)
    return z, t.zeros(2, 2).diagonal(5).shape


def _gather_saves_self(t):
    x = t.tensor([1.0], dtype=t.float64, requires_grad=True)
    y = t.gather(x, 0, t.tensor([0, 0]))
    with t.no_grad():
        x.add_(2)
    y.backward(t.ones(2, dtype=t.float64))


def _inplace_downcast(t):
    x = t.tensor(1.5, dtype=t.float64, requires_grad=True)
    a = t.tensor(True).asin()
    a -= x * 2
    a.backward()
    return a, x.grad


def _inplace_complex_downcast(t):
    x = t.ones(2, dtype=t.complex64, requires_grad=True)
    y = t.full((2,), 3.0, dtype=t.float64, requires_grad=True)
    z = x * 1
    z.mul_(y)
    z.abs().sum().backward()
    return z, x.grad, y.grad


def _inplace_refused(t):
    b = t.tensor([True])
    b += 1


def _as_strided_view(t):
    b = t.arange(20.0)
    v = b[5:15].requires_grad_()
    y = t.as_strided(v, (2, 2), (1, 2), 7)
    y.sum().backward()
    w = t.zeros(6)
    t.as_strided(w, (2,), (3,), 1).fill_(1.0)
    return y, v.grad, w, t.as_strided(v, (2, 2), (1, 2)), t.as_strided(v, (2, 2), (1, 2), 0)


def _as_strided_error(args):
    return lambda t: t.as_strided(t.arange(9.0).reshape(3, 3), *args)


CASES = {
    "as_strided-view": _as_strided_view,
    "as_strided-out-of-bounds": _as_strided_error(((2, 2), (1, 20), 0)),
    "as_strided-negative-stride": _as_strided_error(((2, 2), (1, -2), 0)),
    "as_strided-length-mismatch": _as_strided_error(((2, 2), (1,), 0)),
    "as_strided-negative-size": _as_strided_error(((2, -2), (1, 1), 0)),
    "as_strided-negative-offset": _as_strided_error(((2, 2), (1, 1), -1)),
    "diagonal-inplace": _diagonal_inplace,
    "diagonal-write-base": _diagonal_write_base,
    "gather-saves-self": _gather_saves_self,
    "inplace-downcast": _inplace_downcast,
    "inplace-complex-downcast": _inplace_complex_downcast,
    "inplace-int-into-bool": _inplace_refused,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    torch = require_torch()
    assert _observe(ja, CASES[name]) == _observe(torch, CASES[name])
