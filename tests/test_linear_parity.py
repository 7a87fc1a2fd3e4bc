"""F.linear and the matrix products: torch's graph, errors and gradient layouts.

torch records ``F.linear`` as ``addmm(bias, x, weight.t())``, viewing other input ranks as 2-D
around it; names a dtype mismatch differently in each product; and hands ``.grad`` over in the
leaf's own strides. The golden cases run without torch; with torch installed every case is
compared with it.
"""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ja

from ._torch import require as require_torch


def _chain(fn):
    names = []
    while fn is not None:
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and "Accumulate" not in f.name()]
        fn = nxt[0] if nxt else None
    return names


def _cases(lib):
    f32, f64, i64 = lib.float32, lib.float64, lib.int64
    F = lib.nn.functional
    cases = []
    for sa, sb in [
        ((2,), (2,)),
        ((3, 2), (2,)),
        ((2,), (2, 3)),
        ((3, 2), (2, 4)),
        ((2, 3, 2), (2, 4)),
        ((2, 3, 2), (2,)),
        ((4, 3, 2), (4, 2, 3)),
        ((3, 2), (4, 2, 3)),
    ]:
        for da, db in [(f32, f64), (f64, f32), (i64, f32)]:
            cases.append(
                (
                    f"matmul{sa}{sb}",
                    lambda sa=sa, sb=sb, da=da, db=db: lib.matmul(
                        lib.ones(*sa, dtype=da), lib.ones(*sb, dtype=db)
                    ),
                )
            )
    for sx in [(2,), (4, 2), (5, 4, 2)]:
        for dx, dw, db in [(f64, f32, f32), (f32, f32, f64), (f64, f64, f32), (i64, f32, f32)]:
            cases.append(
                (
                    f"linear{sx}{dx}{dw}{db}",
                    lambda sx=sx, dx=dx, dw=dw, db=db: F.linear(
                        lib.ones(*sx, dtype=dx), lib.ones(3, 2, dtype=dw), lib.ones(3, dtype=db)
                    ),
                )
            )
        cases.append(
            (f"linear-nobias{sx}", lambda sx=sx: F.linear(lib.ones(*sx, dtype=f64), lib.ones(3, 2)))
        )
        for bs in [(4,), (2, 3), (1, 3), (4, 3), (5, 3), (1, 1, 3), (5, 1, 3), ()]:
            cases.append(
                (
                    f"linear-bias{sx}{bs}",
                    lambda sx=sx, bs=bs: F.linear(lib.ones(*sx), lib.ones(3, 2), lib.ones(bs)),
                )
            )
    cases += [
        ("addmm-self", lambda: lib.addmm(lib.ones(2, dtype=f64), lib.ones(2, 2), lib.ones(2, 2))),
        ("addmm-expand", lambda: lib.addmm(lib.ones(3), lib.ones(2, 2), lib.ones(2, 2))),
        ("mm", lambda: lib.mm(lib.ones(2, 2, dtype=i64), lib.ones(2, 2))),
        ("mv", lambda: lib.mv(lib.ones(2, 2, dtype=f64), lib.ones(2))),
        ("dot", lambda: lib.dot(lib.ones(2, dtype=f64), lib.ones(2))),
        ("bmm", lambda: lib.bmm(lib.ones(2, 2, 2, dtype=f64), lib.ones(2, 2, 2))),
        (
            "linear-noncontiguous",
            lambda: F.linear(
                lib.ones(4, 5, 2, requires_grad=True).transpose(0, 1),
                lib.ones(3, 2, requires_grad=True),
                lib.ones(3),
            ),
        ),
        ("reshape-copy", lambda: lib.ones(3, 4, requires_grad=True).t().reshape(-1)),
        ("view-copy", lambda: lib.ones(3, 4, requires_grad=True).t().view(-1)),
        ("view-ok", lambda: lib.ones(3, 4, requires_grad=True)[:, :2].view(3, 2)),
    ]
    for sx in [(2,), (4, 2), (5, 4, 2), (2, 5, 4, 2)]:
        cases.append(
            (
                f"graph{sx}",
                lambda sx=sx: F.linear(
                    lib.ones(*sx, requires_grad=True),
                    lib.ones(3, 2, requires_grad=True),
                    lib.ones(3, requires_grad=True),
                ),
            )
        )
    return cases


def _outcome(f):
    try:
        out = f()
    except Exception as e:  # noqa: BLE001 - the outcome is the exception itself
        return f"{type(e).__name__}: {e}"
    return (tuple(out.shape), _chain(out.grad_fn))


def test_golden_linear_errors_and_graphs():
    got = {name: _outcome(f) for name, f in _cases(ja)}
    assert got["linear(4, 2)torch.float64torch.float32torch.float32"] == (
        "RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float"
    )
    assert got["linear-nobias(4, 2)"] == (
        "RuntimeError: expected m1 and m2 to have the same dtype, but got: double != float"
    )
    assert got["linear-bias(4, 2)(4,)"] == (
        "RuntimeError: The expanded size of the tensor (3) must match the existing size (4) at "
        "non-singleton dimension 1.  Target sizes: [4, 3].  Tensor sizes: [4]"
    )
    assert got["addmm-self"] == (
        "RuntimeError: self and mat2 must have the same dtype, but got Double and Float"
    )
    assert got["graph(4, 2)"] == ((4, 3), ["AddmmBackward0", "TBackward0"])
    assert got["graph(5, 4, 2)"] == (
        (5, 4, 3),
        ["ViewBackward0", "AddmmBackward0", "ViewBackward0"],
    )
    assert got["linear-noncontiguous"][1] == [
        "AddBackward0",
        "UnsafeViewBackward0",
        "MmBackward0",
        "UnsafeViewBackward0",
        "CloneBackward0",
        "TransposeBackward0",
    ]
    assert got["reshape-copy"] == ((12,), ["UnsafeViewBackward0", "CloneBackward0", "TBackward0"])
    assert got["view-copy"].startswith("RuntimeError: view size is not compatible")


def test_every_case_matches_torch():
    torch = require_torch()
    ours = [(name, _outcome(f)) for name, f in _cases(ja)]
    theirs = [(name, _outcome(f)) for name, f in _cases(torch)]
    assert ours == theirs


def test_gradients_have_the_leaf_strides():
    """torch's layout contract: linear's weight gets a row-major .grad, like the weight."""
    lin = ja.nn.Linear(3, 4)
    x = ja.ones(5, 3, requires_grad=True)
    lin(x).sum().backward()
    assert lin.weight.grad.stride() == lin.weight.stride() == (3, 1)
    assert lin.weight.grad._data.flags.c_contiguous and x.grad.stride() == (3, 1)
    w = ja.ones(4, 3, requires_grad=True)
    xt = ja.ones(3, 5, requires_grad=True)
    (xt.t() @ w.t()).sum().backward()  # both operands column-major
    assert w.grad.stride() == (3, 1) and xt.grad.stride() == (5, 1)
    np.testing.assert_array_equal(w.grad.numpy(), np.full((4, 3), 5.0))
    # a leaf laid out column by column keeps that layout in its .grad
    f = ja.tensor(np.asfortranarray(np.ones((3, 4))), requires_grad=True)
    (f * 2).sum().backward()
    assert f.grad.stride() == f.stride() == (1, 3)
