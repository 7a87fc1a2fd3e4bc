"""In-place Tensor methods torch has: each exists here, and the ones added for it behave as
torch's (values, the history they leave, their errors)."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch
from .fuzz.test_fixes_check_order import _check

# torch's in-place methods this package does not offer: sparse tensors, storages and shared
# memory, Python callbacks over elements, and views of arbitrary strides
_NOT_HERE = {
    "apply_",
    "map_",
    "map2_",
    "resize_as_sparse_",
    "sparse_resize_",
    "sparse_resize_and_clear_",
    "set_",
    "share_memory_",
    "as_strided_",
    "conj_physical_",
    "fill_diagonal_",
}


def test_every_in_place_method_of_torch_is_here():
    torch = require_torch()
    theirs = {n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_")}
    missing = sorted(n for n in theirs - _NOT_HERE if not hasattr(ja.Tensor, n))
    assert missing == []


def test_logical_in_place_methods_as_torch():
    """Not differentiable in torch: they write into a leaf that requires grad and leave a
    non-leaf's grad_fn as it was."""
    programs = []
    for f in ("logical_and_", "logical_or_", "logical_xor_", "logical_not_"):
        arg = "" if f == "logical_not_" else "torch.tensor([1, 0, 1])"
        for dt in ("float32", "bool", "int64", "complex64"):
            programs.append(
                [
                    f"x = torch.tensor([0, 1, 2], dtype=torch.{dt})",
                    f"r = x.{f}({arg})",
                    "out = (r.tolist(), str(r.dtype), r is x, x._version)",
                    "show = ['out']",
                ]
            )
        arg = "" if f == "logical_not_" else "torch.tensor([1.0, 0.0])"
        programs.append(
            [
                "x = torch.tensor([0.0, 1.0], requires_grad=True)",
                f"x.{f}({arg})",
                "y = torch.tensor([0.0, 1.0], requires_grad=True) * 2",
                f"r = y.{f}({arg})",
                "out = (r.tolist(), type(r.grad_fn).__name__, x.tolist(), x.requires_grad)",
                "show = ['out']",
            ]
        )
    _check(*programs)


def test_addmm_cumsum_float_power_in_place_as_torch():
    m = "torch.tensor([[0.5, 1.0], [2.0, -1.0]])"
    a = "a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)"
    calls = [
        f"r = (a * 1).addmm_({m}, {m}, beta=0.5, alpha=2)",
        f"r = torch.ones(2, 2, requires_grad=True).addmm_({m}, {m})",
        f"r = torch.ones(2, 1).addmm_({m}, {m})",
        "r = torch.ones(2, 2).addmm_(torch.ones(2, 3), torch.ones(2, 2))",
        "r = (a * 1).cumsum_(1)",
        "r = (a * 1).cumsum_(dim=0)",
        "r = torch.tensor([1, 2, 3]).cumsum_(0)",
        "r = (a * 1).float_power_(2)",
        "r = (a.double() * 1).float_power_(2)",
        "r = (a.double() * 1).float_power_(torch.tensor([2.0, 0.5]))",
        "r = torch.ones(2, dtype=torch.complex64).float_power_(2)",
        "r = torch.ones(2, dtype=torch.float64).float_power_(2j)",
        "r = torch.ones(2, dtype=torch.complex128).float_power_(torch.tensor([1.0, 2.0]))",
        "r = torch.ones(2, dtype=torch.int64).float_power_(2)",
    ]
    _check(
        *(
            [
                a,
                "out = None",
                c,
                "out = (r.tolist(), str(r.dtype), type(r.grad_fn).__name__)",
                "show = ['out']",
            ]
            for c in calls
        ),
        [
            a,
            f"(a * 1).addmm_({m}, {m}, alpha=3).sum().backward()",
            "g1 = a.grad.tolist()",
            "a.grad = None",
            "(a * 1).cumsum_(0).pow(2).sum().backward()",
            "g2 = a.grad.tolist()",
            "show = ['g1', 'g2']",
        ],
    )
