"""Fuzz class zero-dim-shape-ops, closed at its root: 0-d tensors in the shape ops as torch
takes them (dim 0 / -1, the matrix views' deprecations, sizes that are required), compared with
torch's own."""

from __future__ import annotations

import json
import subprocess
import sys

from .._torch import require as require_torch
from .test_fixes_dtypes import _check

_SCALARS = {
    "s": lambda t: t.tensor(2.0, requires_grad=True),
    "v": lambda t: t.ones(2),
    "z": lambda t: t.tensor(1 + 2j),
}


def test_zero_dim_dims_and_missing_sizes_as_torch():
    """A 0-d tensor takes dim 0 / -1 (sum, mean, transpose, cumsum, flip), roll by a dim is
    refused with torch's IndexError, flip refuses a repeated dim; reshape/view/expand/permute/
    repeat/sum_to_size without sizes are torch's TypeError (they returned the tensor); H, mH
    and adjoint() of a 0-d tensor are its conjugate (they raised)."""
    _check(
        [
            "s.sum(0)",
            "s.mean(-1)",
            "s.transpose(0, -1)",
            "s.swapaxes(0, 0)",
            "s.cumsum(0)",
            "s.flip(0)",
            "s.flip(-1)",
            "torch.flip(s, (0,))",
            "s.flip(())",
            "s.flip((0, 0))",
            "v.flip((0, -2))",
            "s.roll(1)",
            "s.roll(1, 0)",
            "s.roll((1, 2), (-1, 0))",
            "s.reshape()",
            "torch.reshape(s)",
            "v.reshape()",
            "s.view()",
            "s.expand()",
            "s.expand(*[])",
            "s.permute()",
            "torch.permute(s)",
            "s.repeat()",
            "v.repeat()",
            "s.sum_to_size()",
            "s.reshape(())",
            "s.permute(())",
            "s.repeat(())",
            "s.expand([])",
            "v.sum_to_size(())",
            "s.H",
            "s.mH",
            "s.adjoint()",
            "z.H",
            "z.mH",
            "z.adjoint()",
            "z.T",
            "v.T",
        ],
        _SCALARS,
    )


def test_zero_dim_transpose_is_a_permute_view():
    """x.T of a 0-d or 1-D tensor is a PermuteBackward0 view, as torch's (it was x itself)."""
    torch = require_torch()
    import jupyter_autograd as ja

    for lib in (torch, ja):
        for x in (lib.tensor(1.0, requires_grad=True), lib.ones(2, requires_grad=True)):
            y = x.T
            assert y is not x and y._base is x and type(y.grad_fn).__name__ == "PermuteBackward0"
            y.sum().backward()
            assert x.grad.tolist() == (1.0 if not x.ndim else [1.0, 1.0])


_WARN_PROGRAM = """
import json, re, warnings
import {lib} as torch
s, v, m3 = torch.tensor(1.0), torch.ones(2), torch.ones(2, 2, 2)
out = []
for src in ("v.T", "m3.T", "s.T", "s.T", "torch.ones(2, 2).T", "s.mT", "s.H", "s.mH",
            "s.adjoint()", "s.H", "v.T"):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        eval(src)
    out.append([src] + [re.sub(r" \\(Triggered internally at [^)]*\\)", "", str(x.message))
                        + "|" + x.category.__name__ for x in w])
print(json.dumps(out))
"""


def test_matrix_view_deprecations_warn_once_per_process_as_torch():
    """T of a tensor that is not 2-D, and T/mT/H/mH/adjoint of a 0-d one, warn with torch's
    texts, each once per process (TORCH_WARN_ONCE); a fresh interpreter for each library."""
    require_torch()

    def run(lib):
        r = subprocess.run(
            [sys.executable, "-c", _WARN_PROGRAM.format(lib=lib)],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        return json.loads(r.stdout.strip().splitlines()[-1])

    theirs, ours = run("torch"), run("jupyter_autograd")
    assert ours == theirs
    assert sum(len(x) > 1 for x in theirs) == 6  # v.T (not 2-D), s.T, s.mT, s.H, s.mH, adjoint
