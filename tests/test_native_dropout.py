"""torch.native_dropout against torch: the empty-input path (the input itself, with its history
rewritten), train=False (a recorded clone), the mask drawn in the input's memory order, and the
complex refusal."""

from __future__ import annotations

import pytest

import jupyter_autograd as ours

from ._torch import require as require_torch


def _run(lib, dtype, shape, train, transpose):
    lib.manual_seed(0)
    x = lib.ones(shape, dtype=getattr(lib, dtype), requires_grad=True)
    y = x * 1
    src = y.t() if transpose else y
    try:
        o, m = lib.native_dropout(src, 0.5, train)
    except RuntimeError as e:
        return ("raised", str(e), type(src.grad_fn).__name__, src.is_leaf)
    return (
        o.detach().numpy().tolist(),
        str(m.dtype).split(".")[1],
        type(o.grad_fn).__name__,
        o is src,
        type(src.grad_fn).__name__,
    )


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("shape", [(2, 3), (2, 0), (0,)])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_native_dropout_matches_torch(dtype, shape, train, transpose):
    torch = require_torch()
    if transpose and len(shape) != 2:
        pytest.skip("t() of a 2-D tensor only")
    assert _run(ours, dtype, shape, train, transpose) == _run(torch, dtype, shape, train, transpose)


def test_empty_leaf_becomes_interior_as_in_torch():
    torch = require_torch()
    res = []
    for lib in (torch, ours):
        x = lib.zeros(2, 0, requires_grad=True)
        o, _ = lib.native_dropout(x, 0.5, True)
        res.append((o is x, x.is_leaf, type(x.grad_fn).__name__, o._version))
    assert res[0] == res[1]
