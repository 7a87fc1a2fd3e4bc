"""The products refuse operands of the wrong rank as torch does, and accept the same ones.

Generated: every combination of ranks 0-3 for each operand of each product, compared with
torch 2.13 (result shape, or exception type and first line of the message). The class this
closes: ``mv``, ``addmm``, ``trace``, ``cartesian_prod`` and ``chain_matmul`` accepted operands
torch refuses and returned a number (``mv`` of two vectors gave their dot product); the batched
products raised other exceptions than torch's, in another order.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings

import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

ARITY = {
    "mv": 2,
    "mm": 2,
    "bmm": 2,
    "dot": 2,
    "vdot": 2,
    "inner": 2,
    "outer": 2,
    "ger": 2,
    "matmul": 2,
    "kron": 2,
    "addmm": 3,
    "addmv": 3,
    "addr": 3,
    "addbmm": 3,
    "baddbmm": 3,
    "cross": 2,
    "tensordot": 2,
    "trace": 1,
    "pinverse": 1,
    "cartesian_prod": 2,
    "chain_matmul": 2,
}
SHAPES = [(), (2,), (2, 2), (2, 2, 2)]


def _outcome(lib, name, shapes):
    f = getattr(lib, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cross/chain_matmul deprecations: tested below
        try:
            r = f(*[lib.ones(s, dtype=lib.float64) + 1 for s in shapes])
        except Exception as e:  # noqa: BLE001 - the exception is the observation
            return ("error", type(e).__name__, str(e).split("\n")[0])
    r = r[0] if isinstance(r, tuple) else r
    return ("ok", tuple(r.shape), r.detach().numpy().round(6).tolist())


@pytest.mark.parametrize("name", sorted(ARITY))
def test_product_rank_checks_as_torch(name):
    torch = require_torch()
    bad = []
    for shapes in itertools.product(SHAPES, repeat=ARITY[name]):
        want, got = _outcome(torch, name, shapes), _outcome(ja, name, shapes)
        if want != got:
            bad.append((shapes, want, got))
    assert not bad, bad[:3]


@pytest.mark.parametrize(
    "shapes",
    [
        [(2, 3), (2, 2)],
        [(2, 3), (3, 2), (3,)],
        [(2, 2, 2), (2, 2)],
        [(2,), (2, 2, 2), (2,)],
        [(2, 2), (2, 2), (2, 2, 2)],
        [(3,), (3, 2), (2,)],
    ],
)
def test_multi_dot_checks_as_torch(shapes):
    torch = require_torch()
    outs = []
    for lib in (torch, ja):
        try:
            r = lib.linalg.multi_dot([lib.ones(s, dtype=lib.float64) for s in shapes])
            outs.append(("ok", tuple(r.shape)))
        except RuntimeError as e:
            outs.append(("error", str(e)))
    assert outs[0] == outs[1]


def test_deprecated_products_warn_once_as_torch():
    """torch.cross without dim and chain_matmul warn once per process (TORCH_WARN_ONCE): run
    in fresh processes, twice each, both libraries."""
    require_torch()
    code = (
        "import sys, warnings\n"
        "lib = __import__(sys.argv[1])\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    for _ in range(2):\n"
        "        lib.cross(lib.ones(2, 3), lib.ones(2, 3))\n"
        "        lib.chain_matmul(lib.ones(2, 2), lib.ones(2, 2))\n"
        "print(repr([str(x.message).split(' (Triggered internally')[0] for x in w\n"
        "            if x.category is UserWarning]))\n"
    )
    outs = [
        subprocess.run(
            [sys.executable, "-c", code, lib], capture_output=True, text=True, check=True
        ).stdout
        for lib in ("torch", "jupyter_autograd")
    ]
    assert outs[0] == outs[1] and outs[0].count("deprecated") == 2


def test_chain_matmul_of_one_matrix_is_a_copy():
    m = ja.ones(2, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ja.chain_matmul(m)
    assert (
        r.shape == (2, 3) and r.grad_fn is not None and type(r.grad_fn).__name__ == "CloneBackward0"
    )
