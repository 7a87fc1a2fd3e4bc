"""Classes the long fuzz run of session 8 found (seeds 2000-2999 beyond the CI range), closed
at their roots and compared with torch."""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ja

from .._torch import require as require_torch
from .test_fixes_check_order import _check


def test_long_run_classes_bool_neg_in_atan2_backward_and_empty_expanded_writes():
    """Found by the long fuzz run: atan2's backward computes torch's ``-self``, refused for a
    bool self as neg refuses it (NumPy's TypeError before; seed 2260); an in-place write into
    an expanded empty tensor has no overlapping elements (refused before; seed 2314)."""
    _check(
        [
            "x = torch.tensor(1.0, requires_grad=True)",
            "m = x != torch.tensor(2.0)",
            "torch.atan2(m, x).backward()",
            "torch.atan2(m, x).backward(create_graph=True)",
            "e = torch.zeros((0,), dtype=torch.complex64, requires_grad=True).expand(2, 0)",
            "with torch.no_grad():\n    e.uniform_(-1, 2)",
            "with torch.no_grad():\n    e.add_(1)",
            "with torch.no_grad():\n    e.copy_(torch.ones(2, 0))",
            "show = ['e']",
        ]
    )


def _grads(lib, base, create_graph):
    x = lib.tensor(base)
    e = lib.tensor([1 + 1j, 1 - 1j, 2 + 0j, -1 + 0.5j], dtype=lib.complex64, requires_grad=True)
    ones = lib.ones(4, dtype=lib.complex64)
    (g,) = lib.autograd.grad(lib.pow(x, e), e, ones, create_graph=create_graph)
    out = [g.detach().numpy()]
    if create_graph:
        g.abs().sum().backward()
        out.append(e.grad.numpy())
    return out


def test_complex_power_of_a_negative_real_base_takes_the_complex_log_as_torch():
    """pow(real tensor, complex tensor): the exponent's gradient takes the log of the base in
    the result type (log(-4) = log 4 + pi j; nan before; seed 2922), first and second order."""
    torch = require_torch()
    for base in ([-4, 3, 0, -1], [-4.0, 3.0, 0.0, -1.0]):
        for cg in (False, True):
            for t, o in zip(_grads(torch, base, cg), _grads(ja, base, cg)):
                np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)


def test_a_zero_dim_product_with_a_zero_tensor_is_one_as_torch():
    """sgn's gradient of a real input is a ZeroTensor; through a 0-d product with inf (var's
    degenerate backward, x * inf) it stays zero (0 * inf was nan there; seed 2140)."""
    torch = require_torch()
    for lib in (torch, ja):
        x = lib.tensor(1.0, requires_grad=True)
        x.var(-1, correction=1).sgn().sin().backward()
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        (y.sum() * float("inf")).sgn().backward()
        assert x.grad.item() == 0.0 and y.grad.tolist() == [0.0, 0.0], lib.__name__


def test_index_into_an_empty_dimension_is_refused_first_as_torch():
    """x[idx] = v and index_put_ with an index into a dimension of size 0: torch's AdvancedIndex
    refuses it before the value's shape and dtype are checked (seed 2500)."""
    _check(
        [
            "e = torch.zeros((0,), dtype=torch.int32)",
            "z = torch.zeros((2, 0, 3))",
            "e[torch.tensor([0, 0, 0])] = torch.tensor([1.0], dtype=torch.float64)",
            "e[torch.tensor([0])] = torch.tensor([1.0])",
            "e[torch.tensor([0, 0])] = torch.ones(3)",
            "e.index_put_((torch.tensor([0]),), torch.tensor([1.0]))",
            "e[torch.tensor([], dtype=torch.int64)] = torch.tensor([1.0])",
            "z[:, torch.tensor([0])] = torch.ones(5)",
            "z[..., torch.tensor([1])] = torch.ones(7)",
            "y = torch.zeros((2,), dtype=torch.int32)",
            "y[torch.tensor([0, 1])] = torch.ones(3)",
            "y[torch.tensor([1])] = torch.tensor([1.0])",
            # autograd's leaf checks come before (seed 2727)
            "c = torch.ones(1, 3, dtype=torch.complex128, requires_grad=True)",
            "c[1:1][torch.tensor([0, 0, 0])] = 0",
            "c[torch.tensor([0])] = torch.ones(5)",
            "c.index_put_((torch.tensor([5]),), torch.ones(7))",
            "c.detach()[1:1][torch.tensor([0])] = torch.ones(7, requires_grad=True)",
            # then the value's overlap with self (seeds 200256, 203192, 208883, 224378)
            "w = torch.ones(2, 1, 3)",
            "w[torch.tensor([-2])] = w",
            "w[torch.tensor([0, 1])] = w[:1]",
        ]
    )


def test_modified_saved_tensor_names_copy_backwards_as_torch():
    """A saved tensor modified in place since, whose history is a copy_: torch names the node
    torch::autograd::CopyBackwards ('...::Copys' before; seed 2260), Exp and Prod1 as before."""
    _check(
        [
            "a = torch.tensor(1.0, requires_grad=True)",
            "b = torch.fmod(a, torch.tensor(1.0, requires_grad=True))",
            "s = b.sin()",
            "b.copy_(0.5)",
            "s.sum().backward()",
            "x = torch.ones(2, requires_grad=True)",
            "y = x.prod(0, keepdim=True)",
            "z = y.exp()",
            "y.mul_(2)",
            "z.sum().backward()",
        ]
    )


def test_negative_real_base_to_a_complex_power_gradient_as_torch():
    """Fuzz seed 303966: the base's gradient of ``x ** e`` for a negative real x and a complex e
    took the other branch of log(x) (-10.08 where torch gives -0.0188)."""
    torch = require_torch()
    for edt in ("complex128", "complex64"):
        got = []
        for lib in (torch, ja):
            x = lib.tensor([-3.0, 1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
            e = lib.tensor(
                [1 + 1j, 1 - 1j, 1 + 1j, 2 - 0.5j], dtype=getattr(lib, edt), requires_grad=True
            )
            y = x**e
            y.backward(lib.tensor([1 + 0.5j, 1, -2j, 0.3 + 1j], dtype=y.dtype))
            got.append((x.grad.detach().numpy(), e.grad.detach().numpy()))
        np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-5)
        np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-5)


def test_real_base_to_a_complex_scalar_power_gradient_as_torch():
    """Fuzz seed 327073: ``x ** c`` for a real tensor x and a complex Python scalar c gave a
    negative base's gradient e^(2 pi) times torch's (the other branch of log); the second order
    too, and (torch's handle_r_to_c) the real part as forward-mode tangent, as ``c ** x``."""
    torch = require_torch()
    got = []
    for lib in (torch, ja):
        x = lib.tensor([-3.0, 2.0, -0.5], dtype=lib.float64, requires_grad=True)
        g_out = lib.tensor([1 + 1j, 2 - 1j, 0.5j], dtype=lib.complex128)
        (g,) = lib.autograd.grad(x ** (0.5 + 1j), x, g_out, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        (h,) = lib.autograd.grad(lib.pow(-0.5 + 1j, x), x, g_out)
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            xd = fw.make_dual(x.detach(), lib.tensor([1.0, 0.5, -1.0], dtype=lib.float64))
            e = fw.make_dual(
                lib.tensor([-1.0, 2.5, 0.5], dtype=lib.float64),
                lib.tensor([0.3, 0.5, 1.0], dtype=lib.float64),
            )
            outs = (
                xd ** (0.5 + 1j),
                lib.pow(2 + 1j, xd),
                xd.to(lib.complex128) ** e,
                xd ** (e + 1j),
            )
            tangents = [fw.unpack_dual(y).tangent.numpy() for y in outs]
        got.append([g.detach().numpy(), gg.numpy(), h.numpy(), *tangents])
    for ours, theirs in zip(got[1], got[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-12)


def test_zero_gradients_stay_zero_where_the_incoming_gradient_is_not_finite():
    """Fuzz seeds 309386, 325053, 312186: nextafter's gradient on a tie and its ``other``'s, and
    prod's over two or more zeros, are torch's zeros also where the incoming gradient is inf or
    nan (``g * 0`` gave nan); prod of a 0-d tensor passes the gradient itself (no graph of it
    under create_graph)."""
    _check(
        [
            "a = torch.tensor([1.0, 1.0, 2.0], requires_grad=True)",
            "b = torch.tensor([1.0, 2.0, 1.0], requires_grad=True)",
            "torch.nextafter(a, b).backward(torch.tensor([float('inf'), float('nan'), 3.0]))",
            "x = torch.tensor([[0.0, 1.5, 0.0], [1.5, 1.0, 0.0]], requires_grad=True)",
            "torch.log(x.prod()).backward()",
            "y = torch.tensor([0.0, 2.0, 3.0], requires_grad=True)",
            "torch.log(y.prod()).backward()",
            "z = torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64, requires_grad=True)",
            "z.t()[-3].prod().backward(torch.tensor(0.9, dtype=torch.float64), create_graph=True)",
            "zg = (z.grad.tolist(), z.grad.requires_grad)",
            "g = [str(t.grad.tolist()) for t in (a, b, x, y)]",
            "show = ['g', 'zg']",
        ]
    )


def test_in_place_op_on_a_view_of_a_0d_result_keeps_its_gradient():
    """Fuzz seed 313040: after ``t.reshape(1).neg_()`` on a 0-d ``t``, a backward through an op
    whose rule returns a NumPy scalar (``t * 1.0``, ``t.exp()``) skipped the neg (CopySlices
    wrote into a copy of the scalar): x.grad had the wrong sign."""
    programs = []
    for post in ("t * 1.0", "t + 1.0", "t * torch.tensor(2.0)", "t.exp()", "t.sin() * t"):
        programs.append(
            [
                "x = torch.tensor([1.0, 2.0], requires_grad=True)",
                "t = x.mean(-1)",
                "t.reshape(1).neg_()",
                f"y = {post}",
                "y.backward(torch.tensor(-2.48))",
                "g1 = [round(v, 5) for v in x.grad.tolist()]",
                "x.grad = None",
                "t = x.sum()",
                "t.view(1).mul_(3.0)",
                f"(gx,) = torch.autograd.grad({post}, x, create_graph=True)",
                "g2 = ([round(v, 5) for v in gx.tolist()], gx.requires_grad)",
                "show = ['g1', 'g2']",
            ]
        )
    _check(*programs)


def test_index_select_refuses_bad_indices_as_torch_cpu():
    """Fuzz seeds 300995, 306592 and 15 more: along dim 1 of a tensor of 2 or more dims torch's
    gather kernel raises ``INDICES element is out of DATA bounds`` (a RuntimeError naming the
    first bad index) where we raised IndexError; an empty axis, a 2-d index and a non-integer
    index have their own errors."""
    cases = [
        ((0, 3), 0, "[0]"),
        ((0,), 0, "[0]"),
        ((2, 0), 1, "[0]"),
        ((2, 0), 1, "[]"),
        ((2, 3, 4), 1, "[0, 5, -2]"),
        ((2, 3, 4), -2, "[3]"),
        ((2, 3, 4), 2, "[-3, 1]"),
        ((2, 3, 4), 0, "[-1]"),
        ((2, 3), 1, "[1, -5, 7]"),
        ((2, 3), -1, "[3]"),
        ((2, 3), 1, "3"),
        ((), 0, "[1]"),
        ((3,), 0, "[3]"),
        ((2, 3), 1, "[[0]]"),
        ((2, 3), 1, "[0.0]"),
        ((2, 3), 1, "[1], dtype=torch.int16"),
        ((2, 3), 1, "[1], dtype=torch.int32"),
        ((2, 0), 0, "[0, 2, 2]"),
        ((2, 0), 0, "[-1]"),
        ((2, 0), 0, "[1]"),
        ((2, 0, 3), 2, "[-1]"),
        ((2, 0, 3), 0, "[5]"),
        ((), 0, "[0, 2, 2]"),
        ((), 0, "[]"),
    ]
    _check(
        [
            f"r = torch.ones({shape}).index_select({dim}, torch.tensor({index})).shape"
            for shape, dim, index in cases
        ]
    )


def test_integer_and_bool_powers_with_complex_scalars_take_the_default_complex_dtype():
    """Fuzz seeds 301535, 302272, 315692, 306607 and 9 more: an integer or bool tensor raised to
    a complex Python scalar (or a complex scalar to such a tensor's power) is complex64 where
    the default dtype is float32, as torch (complex128 before)."""
    exprs = ["x ** 1j", "b ** 1j", "1j ** x", "torch.pow(x, 0.5 + 0.5j)", "(0.5 + 0.5j) ** b"]
    _check(
        *(
            [
                "x = torch.tensor([1, 2])",
                "b = torch.tensor([True, False])",
                f"r = str(({e}).dtype)",
                "torch.set_default_dtype(torch.float64)",
                f"r64 = str(({e}).dtype)",
                "torch.set_default_dtype(torch.float32)",
                "show = ['r', 'r64']",
            ]
            for e in exprs
        )
    )


def test_lerp_checks_dtypes_before_broadcasting():
    """Fuzz seeds 303961, 321748 and 12 more: torch's lerp refuses an ``end`` (or a weight tensor)
    of another dtype before it broadcasts the operands; we raised the broadcasting error."""
    _check(
        [
            "x = torch.ones(4, 2, dtype=torch.float64)",
            "torch.lerp(x, torch.ones(3, 1) > 0, 0.25)",
            "torch.lerp(torch.zeros((0,), dtype=torch.int32), torch.ones(1, 3, dtype=torch.int64), 0.25)",
            "torch.lerp(x, torch.ones(3, 1, dtype=torch.float64), torch.ones(3, 2))",
            "torch.lerp(x, torch.ones(3, 1, dtype=torch.complex128), 0.5)",
            "torch.lerp(x, torch.ones(3, 1, dtype=torch.float64), 0.5j)",
            "torch.lerp(x, torch.ones(3, 1, dtype=torch.float64), torch.tensor(0.5))",
        ]
    )


def test_views_made_in_no_grad_follow_their_base_requires_grad():
    """Fuzz seeds 301793, 302391, 303250 and 10 more: a view made under no_grad of a tensor that
    requires grad requires it through its base; after ``base.detach_()`` or
    ``base.requires_grad_(False)`` it no longer does, as in torch (it kept True)."""
    _check(
        [
            "x = torch.ones(2, 3, requires_grad=True)",
            "with torch.no_grad():\n    a = x.unbind(0); b = x.t(); c = x.reshape(3, 2)",
            "d = x.t()",
            "r1 = [t.requires_grad for t in (a[0], b, c, d)]",
            "x.detach_()",
            "r2 = [t.requires_grad for t in (a[0], b, c, d)]",
            "y = torch.ones(2, 3, requires_grad=True)",
            "with torch.no_grad():\n    v = y[0]",
            "y.requires_grad_(False)",
            "r3 = v.requires_grad",
            "y.requires_grad_(True)",
            "r4 = v.requires_grad",
            "z = torch.ones(2)",
            "with torch.no_grad():\n    w = z[0:1]",
            "z.requires_grad_()",
            "z.requires_grad_(False)",
            "r5 = w.requires_grad",
            "z.requires_grad_()",
            "r6 = (w.requires_grad, (w * 2).requires_grad)",
            "show = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']",
        ]
    )


def test_copy_slices_refuses_a_second_backward_without_retain_graph():
    """Fuzz seeds 310087, 315477, 312236: torch's CopySlices releases its wrapped node after a
    backward that does not retain the graph, whatever that node saved; a second backward
    through it raises (we ran it again)."""
    _check(
        [
            "x = torch.tensor(1.0 + 1.0j, dtype=torch.complex128, requires_grad=True)",
            "t = torch.zeros(3, 1, dtype=torch.complex64)",
            "t[0:2] = x",
            "torch.clone(t).abs().sum().backward()",
            "t.abs().sum().backward(retain_graph=True)",
            "y = torch.zeros(2, 3)",
            "y[0, 1:] = torch.ones(2, requires_grad=True)",
            "y.sum().backward(retain_graph=True)",
            "y.sum().backward()",
            "y.sum().backward()",
            "e = torch.zeros((2, 0))",
            "e[0, 0:0:2] = torch.zeros((0,), requires_grad=True)",
            "e.sum().backward()",
            "e.frac().backward(torch.zeros((2, 0)))",
        ]
    )


def test_an_expand_that_repeats_nothing_is_writable():
    """Fuzz seeds 404266, 423748, 434010, 432932, 445922: an expand to the tensor's own shape (or
    with new leading 1s) repeats no element; torch writes into it in place, we refused (NumPy's
    broadcast_to is read-only) with a shape message naming two equal shapes."""
    _check(
        [
            "x = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)",
            "t = (x * 2).expand(2, 2)",
            "t.data.mul_(2)",
            "u = torch.tensor(1.0).expand([])",
            "u.add_(1)",
            "w = torch.ones(3).expand(1, 1, 3)",
            "w.mul_(3)",
            "y = (x * 1).expand(1, 2, 2)",
            "y.mul_(2)",
            "y.sum().backward()",
            "e = torch.ones(1, 3).expand(2, 3)",
            "e.add_(1)",
            "out = [str(v.tolist()) for v in (t, u, w, y, x.grad)]",
            "show = ['out']",
        ]
    )


def test_a_zero_tensor_gradient_meets_normal_tensors():
    """Fuzz seeds 414441, 441826, 422921: sgn's gradient is torch's ZeroTensor; a rule making
    ``zeros_like`` of it (angle's, after sgn's) raised "ZeroTensors are immutable", and comparing
    it with a normal tensor raised a device mismatch between "cpu and cpu"."""
    _check(
        [
            "x = torch.ones(4, 2, dtype=torch.float64, requires_grad=True)",
            "torch.sgn(x.angle()).backward(torch.ones(4, 2, dtype=torch.float64))",
            "e = torch.zeros((0,), requires_grad=True)",
            "e.reshape(1, 0).ceil().sgn().backward(torch.zeros((1, 0)))",
            "y = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)",
            "s = y.sgn()",
            "g = torch.autograd.grad(s, [y, s], grad_outputs=torch.ones(2, 2, dtype=torch.float64))",
            "c = (g[0] >= s).tolist()",
            "h = torch.autograd.grad(y * 2, y, g[0])[0].clone().tolist()",
            "m = torch.mul(g[0], y.detach(), out=torch.empty(2, 2, dtype=torch.float64)).tolist()",
            "out = [str(x.grad.tolist()), str(e.grad.tolist()), c, h, m]",
            "show = ['out']",
        ]
    )


def test_post_accumulate_hooks_run_without_a_gradient_too():
    """Fuzz seeds 400530, 402338, 417743 and 13 more: torch runs a leaf's post-accumulate-grad
    hooks when its AccumulateGrad runs, also after the leaf's ``detach_()`` (nothing is
    accumulated) and when no gradient reaches it (vector_norm of order 0); we ran none."""
    _check(
        [
            "log = []",
            "x = torch.ones(2, requires_grad=True)",
            "h = x.register_post_accumulate_grad_hook(lambda t: log.append(t.grad is None))",
            "y = x * 2",
            "x.detach_()",
            "y.sum().backward()",
            "e = torch.zeros((0,), requires_grad=True)",
            "h2 = e.register_post_accumulate_grad_hook(lambda t: log.append(t.grad is None))",
            "torch.linalg.vector_norm(e, 0, -1).backward()",
            "z = torch.ones(2, requires_grad=True)",
            "h3 = z.register_post_accumulate_grad_hook(lambda t: log.append(t.grad.tolist()))",
            "(z * 3).sum().backward()",
            "torch.autograd.grad((z * 3).sum(), z)",
            "out = (log, x.grad is None, e.grad is None)",
            "show = ['out']",
        ]
    )


def test_fmax_fmin_gradients_are_masked_not_multiplied_as_torch():
    """Fuzz seeds 805162, 817170: fmax/fmin's gradient to the argument not taken is torch's
    ``grad.masked_fill(..., 0)``: zeros where the incoming gradient is inf or nan (our
    ``g * mask`` gave nan there: rsqrt(0) and asin'(1) downstream)."""
    torch = require_torch()
    got = []
    for lib in (torch, ja):
        a = lib.tensor([1.0, 1.0, 0.0, float("nan")], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.0, 2.0, 0.0, 1.0], dtype=lib.float64, requires_grad=True)
        grads = []
        for f in (lib.fmax, lib.fmin):
            a.grad = b.grad = None
            f(a, b).backward(lib.tensor([float("inf"), float("nan"), -float("inf"), 2.0]))
            grads.append((a.grad.tolist(), b.grad.tolist()))
        got.append(grads)
    np.testing.assert_equal(got[1], got[0])


def test_logaddexp2_rounds_as_torchs_fused_kernel():
    """CI fuzz seed 156: torch's logaddexp2 is ``m + log1p(exp2(-|a - b|)) / ln 2`` with a fused
    multiply-add, so logaddexp2(-1, -1) is -1.06e-8 in float32 (NumPy's gives 0)."""
    torch = require_torch()
    v = np.array([-3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 10, -10, np.inf, -np.inf], dtype=np.float32)
    got = [lib.logaddexp2(lib.tensor(v), lib.tensor(v)).numpy() for lib in (torch, ja)]
    np.testing.assert_array_equal(got[1], got[0])
