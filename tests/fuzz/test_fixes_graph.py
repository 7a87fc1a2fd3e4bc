"""Defects the fuzzer found in the graph torch records (promotion, backward errors, 0-d shape
ops, inference mode), each fixed at its root and compared with torch."""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ja

from .._torch import require as require_torch


def _both(fn):
    torch = require_torch()
    return fn(torch), fn(ja)


def _chain(t):
    """The node names from ``t`` down to the leaves (depth first), and None for no edge."""
    out = []

    def walk(fn):
        if fn is None:
            out.append(None)
            return
        out.append(type(fn).__name__)
        for nxt, _ in fn.next_functions:
            walk(nxt)

    walk(t.grad_fn)
    return out


def _grads(*ts):
    return [
        (str(t.grad.dtype), np.round(t.grad.detach().numpy().astype(np.complex128), 5).tolist())
        for t in ts
    ]


def test_mixed_dtype_ops_promote_inside_the_node():
    """A binary op on tensors of two dtypes records no ToCopyBackward0: torch promotes inside
    the kernel, its node's edges go to the original inputs, and each gradient comes back in its
    input's dtype (fuzz class type-promotion-node)."""

    def prog(lib):
        out = []
        for f in (
            lambda a, b: a / b,
            lambda a, b: a * b,
            lambda a, b: a - b,
            lambda a, b: lib.add(a, b, alpha=2),
            lambda a, b: lib.maximum(a, b),
            lambda a, b: lib.where(a > 1.5, a, b),
            lambda a, b: a % b,
            lambda a, b: lib.pow(a, b),
            lambda a, b: lib.div(a, b, rounding_mode="floor"),
        ):
            a = lib.tensor([1.0, 2.0], requires_grad=True)
            b = lib.tensor([3.0, 0.5], dtype=lib.float64, requires_grad=True)
            i = lib.tensor([3, 4])
            for y in (f(a, b), f(b, a), f(a, i)):
                out.append((str(y.dtype), _chain(y)))
            y = f(a, b)
            y.sum().backward()
            out.append(_grads(a, b))
        for c in (1j, lib.tensor([2 + 1j], dtype=lib.complex128)):
            a = lib.tensor([1.0, 2.0], requires_grad=True)
            y = a * c
            out.append((str(y.dtype), _chain(y)))
            y.abs().sum().backward()
            out.append(_grads(a))
        return out

    theirs, mine = _both(prog)
    assert mine == theirs


def test_pow_with_a_bool_exponent_tensor_refuses_the_base_gradient():
    """pow(x, e) with a bool exponent tensor: torch's pow_backward computes ``e - 1``, which
    has no bool kernel, so the backward (and a create_graph one) raises; a bool Python number
    exponent is the Scalar overload and differentiates (fuzz class pow-bool-exponent-grad)."""

    def prog(lib):
        out = []
        for e, cg in (
            (lib.ones(3, 1).ne(2.0), False),
            (lib.tensor(True), True),
            (lib.tensor([True, False, True]), False),
        ):
            x = lib.ones(3, dtype=lib.float64, requires_grad=True)
            y = lib.pow(x, e)
            try:
                if cg:
                    (g,) = lib.autograd.grad(y.sum(), [x], create_graph=True)
                    out.append(g.tolist())
                else:
                    y.sum().backward()
                    out.append(x.grad.tolist())
            except RuntimeError as err:
                out.append((type(y.grad_fn).__name__, str(err), x.grad))
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        lib.pow(x, True).sum().backward()
        out.append(x.grad.tolist())
        return out

    theirs, mine = _both(prog)
    assert mine == theirs


def test_inference_tensors_refuse_version_inplace_and_requires_grad_outside():
    """Inference tensors do not track a version counter (reading ``_version`` raises), refuse
    in-place updates and requires_grad outside inference mode (after the leaf check), and
    detach_ under inference mode changes nothing (torch's detach_ is an autograd kernel,
    which inference mode skips) (fuzz class inference-mode)."""

    def attempt(f):
        try:
            r = f()
        except RuntimeError as e:
            return str(e)
        if isinstance(r, (int, bool)):
            return r
        return (r.requires_grad, r.is_leaf, r.is_inference(), r.grad_fn is not None)

    def prog(lib):
        x = lib.ones(2, requires_grad=True)
        n = x * 2
        with lib.inference_mode():
            y = lib.ones(2) * 2
            z = x * 2
            k = lib.ones(2, requires_grad=True)
            inside = [
                attempt(lambda: n.detach_()),
                attempt(lambda: k.detach_()),
                attempt(lambda: y.add_(1)),
                attempt(lambda: y.requires_grad_()),
            ]
            y.requires_grad_(False)
        return inside + [
            attempt(f)
            for f in (
                lambda: y._version,
                lambda: z._version,
                lambda: x._version,
                lambda: y.add_(1),
                lambda: y.zero_(),
                lambda: y.__setitem__(0, 1.0),
                lambda: y.requires_grad_(),
                lambda: k.add_(1),
                lambda: y.view(2),
                lambda: y.clone(),
                lambda: n,
                lambda: k,
            )
        ]

    theirs, mine = _both(prog)
    assert mine == theirs


def test_empty_tensors_have_torchs_strides():
    """NumPy gives a fresh empty array all-zero strides; torch keeps contiguous strides (an
    expanded one keeps its zeros): view_as_complex of an empty (..., 2) tensor and x.real /
    x.imag of an empty complex tensor differentiated with create_graph work, and a sum's
    expanded empty gradient fails view_as_real's backward as in torch (fuzz class
    strided-checks)."""

    def attempt(f):
        try:
            r = f()
        except RuntimeError as e:
            return str(e)
        return r if isinstance(r, tuple) else tuple(r.shape)

    def cases(lib, shape):
        x = lib.zeros(shape, dtype=lib.complex64, requires_grad=True)
        r = lib.zeros(shape + (2,), dtype=lib.float64, requires_grad=True)
        return [
            attempt(f)
            for f in (
                lambda: lib.view_as_real(x).sum().backward() or (),
                lambda: lib.autograd.grad(x.real.sum(), [x], create_graph=True)[0],
                lambda: lib.autograd.grad(x.imag.sum(), [x], create_graph=True)[0],
                lambda: lib.view_as_complex(r),
                lambda: lib.autograd.grad(lib.view_as_complex(r).abs().sum(), [r])[0],
                lambda: lib.autograd.grad((lib.view_as_real(x) * 2).sum(), [x])[0],
                lambda: lib.zeros(shape).stride(),
                lambda: lib.zeros(()).expand(*shape).stride(),
            )
        ]

    def prog(lib):
        return [cases(lib, shape) for shape in ((2, 0), (0,), (3, 0, 2))]

    theirs, mine = _both(prog)
    assert mine == theirs


def test_relu_gradient_of_a_zero_dim_tensor():
    """ReLU's bit-mask cut of the gradient (xp.keep_where) falls back to where for 0-d arrays,
    whose NumPy results are scalars with no out= (the fuzzer's seed 982 raised TypeError)."""

    def prog(lib):
        out = []
        for v in (-1.0, 2.0):
            x = lib.tensor(v, requires_grad=True)
            x.conj().relu().backward(lib.tensor(2.5))
            out.append(x.grad.item())
        return out

    theirs, mine = _both(prog)
    assert mine == theirs


def test_promoting_functions_and_cat_promote_inside_the_node():
    """atan2/hypot/copysign/xlogy/xlog1py/fmax/fmin/logaddexp(2)/nextafter/addcmul/addcdiv
    (api_math.apply_promoted) and cat/stack/hstack of mixed dtypes record no ToCopyBackward0:
    torch promotes inside the op; each gradient comes back in its input's dtype (fuzz class
    type-promotion-node)."""

    def prog(lib):
        out = []
        fs = (
            lambda a, b: lib.atan2(a, b),
            lambda a, b: lib.hypot(b, a),
            lambda a, b: lib.copysign(b, a),
            lambda a, b: lib.xlogy(b, a),
            lambda a, b: lib.special.xlog1py(a, b),
            lambda a, b: lib.fmax(a, b),
            lambda a, b: lib.fmin(b, a),
            lambda a, b: lib.logaddexp(a, b),
            lambda a, b: lib.logaddexp2(b, a),
            lambda a, b: lib.addcmul(a, b, b),
            lambda a, b: lib.addcdiv(b, a, b, value=2),
            lambda a, b: lib.cat([a, b]),
            lambda a, b: lib.stack([b, a]),
            lambda a, b: lib.hstack([a, b]),
            lambda a, b: lib.cat([b, lib.tensor([1, 2])]),
            lambda a, b: lib.cat([lib.zeros(0, dtype=lib.int64), b]),
        )
        for f in fs:
            a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
            b = lib.tensor([2.0, 3.0], requires_grad=True)
            y = f(a, b)
            out.append((str(y.dtype), _chain(y)))
            y.sum().backward()
            out.append(_grads(*(t for t in (a, b) if t.grad is not None)))
        return out

    theirs, mine = _both(prog)
    assert mine == theirs


def test_empty_gradients_of_reductions_have_torchs_strides():
    """view_as_real's backward checks the stride of an empty gradient: a mean's is fresh
    (torch divides the expanded gradient), a sum's expanded (0 strides) also through a second
    sum's unsqueeze and expand (NumPy's reshape gave it fresh strides) (fuzz class
    strided-checks)."""

    def prog(lib):
        out = []
        for shape, f in (
            ((2, 0), lambda r: r.mean()),
            ((2, 0), lambda r: r.sum()),
            ((2, 0), lambda r: r.sum(0).sum()),
            ((2, 0), lambda r: r.sum(-1).sum()),
            ((2, 0), lambda r: r.mean(0).sum()),
            ((0, 3), lambda r: r.mean(1).sum()),
            ((0, 3), lambda r: r.mean((0, 1)).sum()),
            ((3, 0), lambda r: r.sum(2).mean()),
            ((3, 0), lambda r: r.sum(0, keepdim=True).sum()),
        ):
            x = lib.zeros(*shape, dtype=lib.complex64, requires_grad=True)
            try:
                f(lib.view_as_real(x)).backward()
                out.append(tuple(x.grad.shape))
            except RuntimeError as e:
                out.append(str(e))
        return out

    theirs, mine = _both(prog)
    assert mine == theirs
