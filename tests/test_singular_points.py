"""Values and gradients of every one- and two-input row at the points where formulas break.

The registry's samples (and torch's OpInfo samples) keep away from zeros, infinities and NaN;
a student's program does not. Every row whose ``torch=`` call takes one or two same-shape
tensors runs on a grid of special values (signed zeros, ±1, ±inf, NaN, a tiny and a large
number; for two inputs every pair) under both libraries, and the results and gradients must
agree, NaN for NaN and zero for zero. Found this way: xlogy's gradient at x == 0 (torch's
formula takes log(y) there), atan2's at the origin (torch: signed zeros, not 0/0), nextafter's
on ties, angle of an infinity.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops.registry import REGISTRY

from ._torch import require as require_torch

SPECIAL = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    math.inf,
    -math.inf,
    math.nan,
    1e-30,
    40.0,
    -40.0,
]
# rows whose reference behaviour is tested elsewhere: sgn's gradient is torch's ZeroTensor
# (open fuzz class sgn-zero-tensor-grad), mv is a matrix product (tests/test_product_arg_checks)
_ELSEWHERE = {"sgn", "mv"}
ROWS = sorted(
    n
    for n, op in REGISTRY.items()
    if op.torch is not None and len(op.inputs) in (1, 2) and op.n_out == 1 and n not in _ELSEWHERE
)


def _run(lib, op, cols, n):
    ts = [lib.tensor(list(c), dtype=lib.float64, requires_grad=True) for c in cols]
    lib.manual_seed(0)  # random rows (dropout) draw the same mask in both
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = op.torch(lib, *ts)
        except Exception as e:  # noqa: BLE001 - the exception type is the observation
            return ("error", type(e).__name__)
        if not isinstance(out, lib.Tensor) or tuple(out.shape) != (n,):
            return ("other", type(out).__name__, tuple(getattr(out, "shape", ())))
        if not out.requires_grad:
            return ("value", out.detach().numpy())
        grads = lib.autograd.grad(out, ts, lib.ones_like(out), allow_unused=True)
    return ("grad", out.detach().numpy(), [None if g is None else g.numpy() for g in grads])


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return bool(np.all(np.isclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)))


@pytest.mark.parametrize("name", ROWS)
def test_row_at_special_points_as_torch(name):
    torch = require_torch()
    op = REGISTRY[name]
    k = len(op.inputs)
    pts = [(v,) for v in SPECIAL] if k == 1 else list(itertools.product(SPECIAL, SPECIAL))
    cols = list(zip(*pts))
    want, got = _run(torch, op, cols, len(pts)), _run(ja, op, cols, len(pts))
    if want[0] in ("error", "other"):
        return  # not callable this way under torch (other sample kinds test it)
    assert got[0] == want[0], (want[:1], got)
    assert _same(want[1], got[1]), [
        (p, w, g) for p, w, g in zip(pts, want[1], got[1]) if not _same(w, g)
    ][:4]
    if want[0] == "grad":
        for i, (gw, gg) in enumerate(zip(want[2], got[2])):
            assert (gw is None) == (gg is None), (i, gw, gg)
            if gw is not None:
                assert _same(gw, gg), (
                    i,
                    [(p, w, g) for p, w, g in zip(pts, gw, gg) if not _same(w, g)][:4],
                )
