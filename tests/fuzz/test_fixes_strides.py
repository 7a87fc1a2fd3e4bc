"""Fuzz class strided-checks: torch's checks that read a gradient's strides (view_as_real's
backward of an empty gradient: "Tensor must have a last dimension with stride 1") see the
strides torch's formulas give: mean's gradient is ``grad.expand(sizes) / numel``, a fresh
tensor, where sum's is the expansion itself (0 strides)."""

from __future__ import annotations

import itertools

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch

# a reduction of a non-empty (3, 2) or (3, 1, 2) tensor whose gradient reaches an empty one
_HEADS = [
    "mean()",
    "mean(0)",
    "mean(-1)",
    "mean((0, 1))",
    "mean(0, keepdim=True)",
    "sum()",
    "sum(0)",
    "sum(-1, keepdim=True)",
    "mean(0).sum()",
    "sum(0).mean()",
    "amax(0).sum()",
    "mean(1).mean()",
    "prod()",
]
_MIDS = ["sum(1)", "sum(1, keepdim=True)", "mean(1)", "amax(1)"]
_SHAPES = [(3, 0), (3, 0, 1)]


def _outcome(lib, shape, mid, head):
    x = lib.zeros(*shape, dtype=lib.complex64, requires_grad=True)
    try:
        eval(f"lib.view_as_real(x).{mid}.{head}", {"lib": lib, "x": x}).backward()
    except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
        return type(e).__name__, str(e)
    return tuple(x.grad.shape), x.grad.dtype == lib.complex64


@pytest.mark.parametrize("shape,mid,head", list(itertools.product(_SHAPES, _MIDS, _HEADS)))
def test_empty_expansions_of_reduction_gradients_as_torch(shape, mid, head):
    """A reduction's gradient expanded into an empty complex tensor's view_as_real: refused
    where torch's expansion has 0 strides in the last dimension (sum's), taken where torch's
    reduction made a fresh tensor (mean's)."""
    torch = require_torch()
    assert _outcome(ja, shape, mid, head) == _outcome(torch, shape, mid, head)


@pytest.mark.parametrize(
    "src",
    [
        "x.mean()",
        "x.mean(0)",
        "x.mean(1, keepdim=True)",
        "x.mean((0, 1))",
        "x[:, None].expand(2, 3, 4).mean(1)",
    ],
)
def test_mean_gradient_is_a_fresh_tensor_as_torch(src):
    """The gradient mean sends back is writable and contiguous, as torch's division result
    (the leaf's .grad has torch's strides)."""
    torch = require_torch()
    out = []
    for lib in (torch, ja):
        x = lib.ones(2, 4, requires_grad=True)
        eval(src, {"x": x}).sum().backward()
        out.append((x.grad.stride(), x.grad.tolist()))
    assert out[0] == out[1]
