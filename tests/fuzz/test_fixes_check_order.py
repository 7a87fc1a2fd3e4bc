"""Fuzz class error-messages, closed: which check fails first (torch's autograd checks before
its kernel's, the kernel's before the version bump) and the undefined mask of native_dropout's
refused complex output, compared statement by statement with torch."""

from __future__ import annotations

import warnings

import jupyter_autograd as ja

from .._torch import require as require_torch


def _run(lib, program):
    """Each statement's outcome (the exception's type and message, or "ok"), then the values
    the program leaves in ``show``."""
    ns = {"torch": lib}
    out = []
    for stmt in program:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(stmt, ns)  # noqa: S102 - the statements under test, compared with torch
            out.append((stmt, "ok"))
        except Exception as e:  # noqa: BLE001 - compared with torch's
            out.append((stmt, type(e).__name__, str(e)))
    for name in ns.get("show", ()):
        v = ns[name]
        out.append((name, v.tolist() if isinstance(v, lib.Tensor) else v))
    return out


def _check(*programs):
    torch = require_torch()
    for program in programs:
        theirs, ours = _run(torch, program), _run(ja, program)
        bad = [(t, o) for t, o in zip(theirs, ours) if t != o]
        assert not bad, "\n".join(map(repr, bad))


def test_native_dropout_of_an_empty_complex_input_leaves_its_mask_undefined():
    """torch returns the empty input itself, records NativeDropoutBackward0 on it, refuses the
    complex output before saving the mask: a backward through it fails on the undefined mask
    (under create_graph on the product's first operand); a real input's backward reaches the
    leaf moved into the graph interior (fuzz seeds 259, 337, 1089)."""
    _check(
        [
            "x = torch.zeros((2, 0), dtype=torch.complex64, requires_grad=True)",
            "y = torch.native_dropout(x, 0.5, True)",
            "show = ['same', 'leaf', 'mask']",
            "same, leaf = x.grad_fn is not None, x.is_leaf",
            "mask = x.grad_fn._saved_result1 is None",
            "t = x.atan()",
            "t.backward(torch.zeros((2, 0), dtype=torch.complex64))",
            "x.backward(torch.zeros((2, 0), dtype=torch.complex64), create_graph=True)",
            "torch.autograd.grad(t, x, torch.zeros((2, 0), dtype=torch.complex64))",
        ],
        [
            "x = torch.zeros((2, 0), dtype=torch.complex128, requires_grad=True)",
            "y = torch.native_dropout(x, 0.5, True)[0]",
            "x.backward(torch.zeros((2, 0), dtype=torch.complex128))",
        ],
        [
            "x = torch.zeros((2, 0), requires_grad=True)",
            "y = torch.native_dropout(x, 0.5, True)[0]",
            "show = ['same']",
            "same = y is x",
            "x.backward(torch.zeros((2, 0)))",
            "y.sum().backward()",
        ],
    )


def test_copy_checks_autograd_then_overlap_then_shape_as_torch():
    """copy_: the leaf/view-of-leaf refusals, then TensorIterator's memory overlap checks
    (within self, then with src), then the broadcast shape (seeds 1090, 1832)."""
    _check(
        [
            "x = torch.tensor([1.0]); t = x.select(-1, 0)",
            "t.copy_(x)",
            "x.copy_(t)",
            "y = torch.ones(4)",
            "y[1:3].copy_(y[0:3])",
            "y[1:3].copy_(y[:2])",
            "e = torch.ones(1, 3)",
            "e.expand(2, 3).copy_(torch.ones(4))",
            "e.expand(2, 3).copy_(torch.ones(2, 3, dtype=torch.float64))",
            "l = torch.tensor(1.0, requires_grad=True)",
            "l.copy_(torch.ones(2, 2, 2))",
            "l[...].copy_(torch.ones(2, 2, 2))",
            "l.copy_(torch.ones(2, 2, 2, dtype=torch.complex64))",
            "m = torch.tensor([1.0, 2.0], requires_grad=True)",
            "m.copy_(m.detach()[:1].expand(3))",
            "show = ['x', 'y', 'e']",
        ]
    )


def test_inference_tensor_refusal_is_the_version_bump_as_torch():
    """An in-place op on an inference tensor outside inference mode runs the kernel's checks
    and its write, and is refused by the version bump (seed 1543: a cast refusal first)."""
    _check(
        [
            "with torch.inference_mode():\n    t = torch.ones(3)\n    b = torch.ones(3) > 0",
            "t.add_(1)",
            "t.add_(torch.ones(2))",
            "b.sigmoid_()",
            "b.add_(1.5)",
            "b.add_(torch.ones(3, dtype=torch.complex64))",
            "t.copy_(torch.ones(2))",
            "t.copy_(torch.ones(3) * 5)",
            "t.zero_()",
            "t.fill_(3)",
            "t[0] = 7",
            "t.unsqueeze_(0)",
            "t.clamp_(0, 1)",
            "t.mul_(torch.ones(2, 3))",
            "t.neg_()",
            "t[:, :2].add_(1)",
            "t.requires_grad_()",
            "show = ['t', 'b']",
        ]
    )


def test_autograd_reads_a_rebased_no_grad_view_before_the_kernel_checks_as_torch():
    """A view made in no_grad mode whose base was modified in place since is refused by torch's
    autograd wrapper before the kernel's own checks (seed 732: split of a 0-d view), where the
    op reads its history (differentiable ops, in-place ones); view_as_complex of 0-d (seed
    1334)."""
    _check(
        [
            "x = torch.tensor(1.0 - 1.0j, dtype=torch.complex128, requires_grad=True)",
            "with torch.no_grad():\n    v = x.swapaxes(-1, 0)\n    x.zero_()",
            "v.split(2, -1)",
            "v.unbind(0)",
            "v.sum(3)",
            "v.add_(1)",
            "torch.view_as_complex(torch.tensor(1.0))",
            "torch.view_as_complex(torch.ones(3))",
            "f = torch.ones(2, 2, requires_grad=True)",
            "with torch.no_grad():\n    w = f[0]\n    f.mul_(2)",
            "w.select(1, 0)",
            "w.mm(w)",
            "w.argmax(4)",
            "torch.view_as_complex(w[0])",
            "with torch.no_grad():\n    w.split(1, 5)",
        ]
    )
