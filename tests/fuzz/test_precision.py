"""The comparator judges a value at the lowest precision that flowed into it (fuzz class
float32-ulps-in-float64): a float32 intermediate promoted into a float64 op carries float32's
rounding, while a program of float64 values only keeps float64's tolerance."""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ours

from .._torch import require as require_torch
from .compare import compare
from .program import Arr, Program, run

# NumPy's float32 exp(2) is 1 ulp from torch's (SLEEF); fmod by 1 keeps only the fraction,
# where that ulp is a relative error of 2e-7, past float64's tolerance
FLOAT32_INTO_FLOAT64 = (
    "x = torch.tensor([2], dtype=torch.int64).exp()",
    "y = torch.fmod(x, torch.ones(1, dtype=torch.float64))",
)


def _perturbed(obs: list, path: str, factor: float) -> list:
    out = []
    for p, v in obs:
        if p == path:
            v = Arr(v.a * factor, v.dtype, v.prec)
        out.append((p, v))
    return out


def test_float32_ulps_in_a_float64_value_are_float32_rounding():
    torch = require_torch()
    program = Program.from_sources(FLOAT32_INTO_FLOAT64)
    theirs = run(program, torch)
    m, _ = compare(theirs, run(program, ours))
    assert m is None, str(m)
    y = dict(theirs)["1:y.value"]
    assert (y.dtype, y.prec) == ("torch.float64", "torch.float32")
    # still a comparison: a value off by more than float32's rounding is caught
    m, _ = compare(theirs, _perturbed(theirs, "1:y.value", 1.01))
    assert m is not None and m.path == "1:y.value"


def test_float64_only_values_keep_float64_tolerance():
    """A float64 value off by 1e-6 (far inside float32's tolerance) is a mismatch when no
    float32 value flowed into it, also next to float32 variables of the same program."""
    torch = require_torch()
    program = Program.from_sources(
        (
            "a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)",
            "s = torch.tensor([2.0])",  # float32, unrelated to a and b
            "b = a.exp()",
            "b.sum().backward()",
        )
    )
    theirs = run(program, torch)
    m, _ = compare(theirs, run(program, ours))
    assert m is None, str(m)
    for path in ("2:b.value", "3:a.grad.value", "end:b.value"):
        assert dict(theirs)[path].prec in (None, "torch.float64"), path
        m, _ = compare(theirs, _perturbed(theirs, path, 1 + 1e-6))
        assert m is not None and m.path == path, (path, m)


def test_precision_flows_through_in_place_ops_and_backward():
    """An in-place op with a float32 operand lowers the mutated float64 variable and the ones
    connected to it (its leaf, whose gradient flows back through it); an unrelated float64
    variable keeps float64."""
    torch = require_torch()
    program = Program.from_sources(
        (
            "a = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)",
            "c = torch.tensor([0.25], dtype=torch.float64)",
            "b = a * 1",
            "f = torch.tensor([3.0])",
            "b.mul_(f.exp())",
            "b.sum().backward()",
        )
    )
    obs = dict(run(program, torch))
    assert obs["end:b.value"].prec == "torch.float32"
    assert obs["end:a.grad.value"].prec == "torch.float32"
    assert obs["end:c.value"].prec is None
    assert np.isfinite(obs["end:a.grad.value"].a).all()
