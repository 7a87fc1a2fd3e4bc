"""Defects the fuzzer found in the registry, fixed at their row, each against torch."""

from __future__ import annotations

import numpy as np

import jupyter_autograd as ja

from .._torch import require as require_torch


def _both(fn):
    torch = require_torch()
    return fn(torch), fn(ja)


def test_flip_is_a_copy():
    """torch.flip copies; a NumPy view would let an in-place op on the input change it
    (fuzz class flip-aliasing)."""

    def prog(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        y = x.flip(0)
        x.add_(10)
        z = y.clone()
        y.mul_(2)
        return y.tolist(), x.tolist(), z.tolist()

    theirs, mine = _both(prog)
    assert mine == theirs


def test_maximum_minimum_gradient_at_nan():
    """A nan operand keeps its gradient (torch masks only where the other side wins); ties
    split it (fuzz class minmax-nan-grad)."""

    def prog(lib):
        out = []
        for f in (lib.maximum, lib.minimum):
            a = lib.tensor([float("nan"), 1.0, 2.0, 0.0], dtype=lib.float64, requires_grad=True)
            b = lib.tensor([1.0, float("nan"), 2.0, 5.0], dtype=lib.float64, requires_grad=True)
            f(a, b).backward(lib.tensor([1.0, 2.0, 4.0, 8.0], dtype=lib.float64))
            out.append((a.grad.tolist(), b.grad.tolist()))
        return out

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)


def test_sign_and_sgn_of_nan_are_zero():
    """torch.sign(nan) and torch.sgn(nan) are 0 (NumPy's sign gives nan; fuzz class sign-nan),
    and so is abs's gradient at nan (grad * sgn(x))."""

    def prog(lib):
        x = lib.tensor([float("nan"), -2.0, 0.0, 3.0], requires_grad=True)
        x.abs().backward(lib.ones(4))
        return x.sign().tolist(), x.sgn().tolist(), x.grad.tolist()

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)


def test_masked_gradients_are_cut_by_where():
    """clamp and relu cut the gradient with a where, as torch's clamp_backward and
    threshold_backward: an inf gradient on the cut side gives 0, not 0 * inf = nan (fuzz class
    masked-grad-nan)."""

    def prog(lib):
        out = []
        for f in (
            lambda x: x.clamp(0.0, 1.0),
            lambda x: x.clamp(min=0.0),
            lambda x: x.clamp(max=0.0),
            lambda x: x.relu(),
        ):
            x = lib.tensor([-1.0, 0.5, 2.0, float("nan"), 0.0], requires_grad=True)
            (1 / f(x)).sum().backward()
            out.append(x.grad.tolist())
        return out

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)


def test_max_min_gradient_with_nan():
    """max()/min() of a tensor holding nan: the gradient goes evenly to the nan elements and
    zeros elsewhere, also for an inf incoming gradient (torch's evenly_distribute_backward;
    fuzz class max-nan-grad)."""

    def prog(lib):
        out = []
        for f in ("max", "min"):
            x = lib.tensor([0.0, -1.0, 1.0, -2.0], requires_grad=True)
            getattr(x.log(), f)().backward()
            out.append(x.grad.tolist())
            x = lib.tensor([1.0, 1.0, 0.5], requires_grad=True)
            y = getattr(x, f)()
            (1 / (y - y.detach())).backward()
            out.append(x.grad.tolist())
        return out

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)


def test_saved_index_tensors_are_freed_by_backward():
    """Rows keeping in their parameters what torch saves as tensors (gather's index, max(dim)'s
    indices, index's indices, dropout's mask) free them at backward: a second backward is
    refused, and so is reading the saved value (fuzz class saved-tensor-set)."""

    def prog(lib):
        out = []
        for mk in (
            lambda x: lib.gather(x, 1, lib.tensor([[2]])),
            lambda x: x.max(1).values,
            lambda x: x.index_select(1, lib.tensor([0])),
            lambda x: x[:, lib.tensor([0])],
            lambda x: x.amax(1),
            lambda x: x.cumsum(1),
            lambda x: x[0],
            lambda x: x.flip(0),
        ):
            x = lib.ones(1, 3, requires_grad=True)
            y = mk(x)
            y.backward(lib.ones_like(y), retain_graph=True)
            y.backward(lib.ones_like(y))
            try:
                y.backward(lib.ones_like(y))
                out.append(None)
            except RuntimeError as e:
                out.append(str(e))
        y = lib.gather(lib.ones(1, 3, requires_grad=True), 1, lib.tensor([[2]]))
        y.sum().backward()
        try:
            out.append(y.grad_fn._saved_index.tolist())
        except RuntimeError as e:
            out.append(str(e))
        return out

    theirs, mine = _both(prog)
    assert mine == theirs


def test_no_numpy_warnings_from_ops():
    """torch's kernels never warn about floating-point exceptions; NumPy's ufuncs do. Every
    dispatch path runs the row's forward with NumPy's error state quiet, and layer norm over an
    empty shape takes no NumPy mean of an empty slice (fuzz class numpy-warnings). The user's
    own NumPy code still warns."""
    import warnings

    def prog(lib):
        F = lib.nn.functional
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        z = lib.zeros(2, 0, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ys = [
                x.log(),
                x.sqrt(),
                x.rsqrt(),
                x.log1p() * 2,
                1 / x,
                x / 0,
                x**0.5,
                lib.pow(x, 0.5),
                lib.div(x, x),
                x.reciprocal(),
                x.double() ** -1.5,
                lib.tensor([float("nan"), float("inf")]).to(lib.int32) * 0,
                lib.tensor([float("inf")]).cos(),
                F.layer_norm(z, [0]),
            ]
            ys[0].sum().backward()
            F.layer_norm(z, [0]).sum().backward()
            x.detach().log_()
        return [str(w.message) for w in caught], [y.shape for y in ys]

    theirs, mine = _both(prog)
    assert mine == theirs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.array([-1.0]))
    assert [w.category for w in caught] == [RuntimeWarning]


def test_zero_dim_results_are_arrays():
    """0-d results from NumPy reductions (argmax/argmin(dim) of a 1-D tensor) are held as 0-d
    arrays, not NumPy scalars: .numpy() works, in-place writes work, and a binary op on them in
    a custom Function's backward does not take them for another device's arrays (fuzz class
    numpy-scalar-results)."""

    def prog(lib):
        x = lib.tensor([1.0, 3.0, 2.0])
        i, j = x.argmax(0), x.argmin(0)
        n = i.numpy()
        j += 1

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * x.argmax(0).to(g.dtype)

        a = lib.tensor(1.5, requires_grad=True)
        Scale.apply(a).backward()
        return int(n), n.shape, j.item(), a.grad.item()

    theirs, mine = _both(prog)
    assert mine == theirs


def _graph(fn, limit=40):
    out, todo, seen = [], [fn], set()
    while todo and len(out) < limit:
        f = todo.pop(0)
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(type(f).__name__)
        todo.extend(n for n, _ in f.next_functions)
    return out


def test_grad_fn_names_of_indexing_squeeze_max_matmul():
    """The nodes torch's dispatch records (fuzz class grad-fn-names): a lone slice is always
    sliced (x[:] SliceBackward0), squeeze(dims) is SqueezeBackward2 (matmul's in-place squeeze
    SqueezeBackward4), max/min(dim) of a 0-d tensor MaxBackward0/MinBackward0, reshape of a
    viewable non-contiguous tensor ReshapeAliasBackward0, and matmul above 2-D follows torch's
    _matmul_impl (fold into mm/mv when the smaller operand requires grad or the strides allow,
    else expand + reshape + bmm; a 3-D batch-of-one operand requiring grad squeezed)."""
    import itertools

    def prog(lib):
        out = []
        x = lib.ones(2, 3, requires_grad=True)
        for y in (
            x[:],
            x[0:2],
            x[:, :],
            x[...],
            x[:, 1:],
            x.squeeze((0,)),
            lib.ones(1, 3, requires_grad=True).squeeze((0,)),
            lib.ones(4) @ lib.ones(4, 3, requires_grad=True),
            lib.tensor(2.0, requires_grad=True).max(0).values,
            lib.tensor(2.0, requires_grad=True).min(0, keepdim=True).values,
            x.t().reshape(3, 2),
            x.t().reshape(6),
            x.reshape(6),
        ):
            out.append(_graph(y.grad_fn))
        rng = np.random.default_rng(0)
        left = [(4,), (3, 4), (2, 3, 4), (1, 3, 4), (2, 1, 3, 4)]
        right = [(4,), (4, 5), (2, 4, 5), (1, 4, 5), (1, 2, 4, 5)]
        for sa, sb, (ra, rb) in itertools.product(left, right, ((1, 1), (1, 0), (0, 1))):
            a = lib.tensor(rng.standard_normal(sa), requires_grad=bool(ra))
            b = lib.tensor(rng.standard_normal(sb), requires_grad=bool(rb))
            y = a @ b
            y.sum().backward()
            out.append(
                (
                    _graph(y.grad_fn),
                    np.round(y.detach().numpy(), 6).tolist(),
                    None if a.grad is None else np.round(a.grad.numpy(), 6).tolist(),
                    None if b.grad is None else np.round(b.grad.numpy(), 6).tolist(),
                )
            )
        return out

    theirs, mine = _both(prog)
    for t, m in zip(theirs, mine):
        assert m == t


def test_pow_exponent_gradient_at_zero_base():
    """d/db a^b = a^b log(a): at a == 0 with b < 0 that is inf * -inf = -inf in torch (the
    rule masked log(0) to nan); negative bases give nan (the fuzzer's seeds 558 and 715)."""

    def prog(lib):
        a = lib.tensor([0.0, 0.0, -1.0, 2.0, 0.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([-0.5, 2.0, 2.5, -1.0, 0.0], dtype=lib.float64, requires_grad=True)
        lib.pow(a, b).backward(lib.ones(5, dtype=lib.float64))
        return a.grad.tolist(), b.grad.tolist()

    theirs, mine = _both(prog)
    np.testing.assert_equal(mine, theirs)


def test_max_dim_of_zero_dim_keeps_dtype_and_unsafe_view_is_not_a_view():
    """max/min(dim) of a 0-d tensor keep its dtype (bool stays bool); matmul's _unsafe_view
    result is no view of the product (an in-place op on it is a plain one, as torch)."""

    def prog(lib):
        v = lib.tensor(True).min(0)
        x = lib.ones(2, 2, 2, dtype=lib.float64, requires_grad=True)
        y = x.log1p() @ x
        y.sqrt_()
        y.sum().backward()
        return str(v.values.dtype), v.values.item(), type(y.grad_fn).__name__, x.grad.tolist()

    theirs, mine = _both(prog)
    assert mine == theirs


def _outcome(f):
    try:
        y = f()
    except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
        return type(e).__name__, str(e)
    return (
        type(y.grad_fn).__name__ if y.grad_fn is not None else None,
        tuple(y.shape),
        y.detach().tolist(),
    )


def test_narrow_is_a_slice_with_torchs_checks():
    """narrow is torch's slice (SliceBackward0 even over the whole dimension, the fuzzer's
    seeds 19 and 790) after its own checks: 0-d, negative length, start range, start +
    length past the end (fuzz class argument-checks)."""

    def prog(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        cases = [
            (0, 0, 2),
            (1, 0, 3),
            (0, 1, 2),
            (0, -1, 1),
            (0, 3, 0),
            (0, -3, 1),
            (1, 0, -1),
            (0, 2, 0),
            (5, 0, 1),
            (0, lib.tensor(1), 1),
            (-1, 1, 2),
        ]
        out = [_outcome(lambda a=a: x.narrow(*a)) for a in cases]
        out.append(_outcome(lambda: lib.narrow(lib.tensor(1.0), 0, 0, 1)))
        out.append(_outcome(lambda: lib.zeros(2, 0, requires_grad=True).narrow(1, 0, 0)))
        return out

    theirs, mine = _both(prog)
    assert mine == theirs
