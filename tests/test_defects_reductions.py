"""Reductions at their degenerate points, against torch (issue 13): a constant slice (std's
zero), zero degrees of freedom, zeros in a norm of order < 1, inf/nan in a product, empty
slices. Values, gradients, grad_fn names, warnings and errors as torch 2.13."""

from __future__ import annotations

import itertools

import pytest

from ._oracle import assert_as_torch
from ._torch import require as require_torch


def _backward_program(expr, shape, fill, dtype="float32", create_graph=False):
    def program(t):
        x = t.full(shape, fill, dtype=getattr(t, dtype), requires_grad=True)
        y = eval(expr, {"x": x, "t": t, "inf": float("inf")})
        if isinstance(y, tuple):
            y = y[0]
        if create_graph:
            (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
            (g * g).sum().backward()
            return y, g, x.grad
        y.sum().backward()
        return y, x.grad

    return program


STD_VAR = [
    "x.std()",
    "x.std(-1)",
    "x.std(0, keepdim=True)",
    "x.std(correction=0)",
    "x.std(-1, correction=2)",
    "x.var()",
    "x.var(-1)",
    "x.var(correction=0)",
    "t.std(x, (0, -1))",
]
SHAPES = [(3,), (2, 3), (1,), (4, 1), (0,), (2, 0), (0, 3)]


@pytest.mark.parametrize(
    "expr,shape,fill,dtype",
    [
        (e, s, f, d)
        for e, s, f, d in itertools.product(
            STD_VAR, SHAPES, (1.0, 0.0, -2.5), ("float32", "float64")
        )
        if not (s == (1,) and "0, -1" in e) and not (len(s) == 1 and "(0, -1)" in e)
    ],
)
def test_std_var_of_a_constant_slice(expr, shape, fill, dtype):
    """std of a constant vector or row has zero gradient (torch masks 1/(2 std) where std is 0);
    zero degrees of freedom give nan/inf and torch's UserWarning, not NumPy's."""
    torch = require_torch()
    assert_as_torch(torch, _backward_program(expr, shape, fill, dtype))


@pytest.mark.parametrize("expr", ["x.std()", "x.std(-1)", "x.var(-1)"])
def test_std_var_of_inf_and_nan_are_silent(expr):
    torch = require_torch()
    for fill in (float("inf"), -float("inf"), float("nan")):
        assert_as_torch(torch, _backward_program(expr, (2, 3), fill))


@pytest.mark.parametrize("expr", ["x.std()", "x.std(-1)", "x.var(-1)", "x.norm()", "x.prod()"])
def test_degenerate_second_order(expr):
    torch = require_torch()
    assert_as_torch(torch, _backward_program(expr, (2, 3), 1.5, "float64", create_graph=True))


def test_std_of_constant_rows_stays_finite_in_a_training_step():
    """The issue's case: one step of a loss with std() over constant rows leaves finite weights."""
    import jupyter_autograd as ja

    w = ja.ones(2, 3, requires_grad=True)
    w.std(1).sum().backward()
    assert ja.isfinite(w.grad).all()


NORM_VALUES = ["[1., -2.]", "[0., 3.]", "[0., 0.]", "[1., 2., 0., 4.]", "[-3.]"]
NORM_ORDS = ["0", "1", "2", "3", "1.5", "0.5", "-1", "-2", "inf", "-inf"]


@pytest.mark.parametrize("values,ord_", list(itertools.product(NORM_VALUES, NORM_ORDS)))
def test_vector_norm_every_order_at_zeros(values, ord_):
    """torch's norm_backward case by case (ord 0 sends no gradient at all; p < 1 masks the zero
    elements; +-inf shares the gradient among the extremes)."""
    torch = require_torch()

    def program(t):
        x = t.tensor(eval(values), requires_grad=True)
        y = t.linalg.vector_norm(x, float(ord_))
        y.backward()
        return y, x.grad

    assert_as_torch(torch, program)


@pytest.mark.parametrize(
    "values,expr",
    list(
        itertools.product(
            [
                "[float('inf'), 2., 3.]",
                "[float('nan'), 1., 1.]",
                "[0., 2., 3.]",
                "[0., 0., 3.]",
                "[-1., 2., 3.]",
            ],
            ["x.prod()", "x.prod(0)"],
        )
    ),
)
def test_prod_gradient_as_torch(values, expr):
    """No zero: grad * result / x (so inf gives nan, as torch); zeros: the product of the others."""
    torch = require_torch()

    def program(t):
        x = t.tensor(eval(values), requires_grad=True)
        y = eval(expr)
        y.backward()
        return y, x.grad

    assert_as_torch(torch, program)


EMPTY_EXPRS = [
    "x.amax()",
    "x.amax(0)",
    "x.amax(-1)",
    "x.amin(-1)",
    "x.max()",
    "x.max(0)",
    "x.max(-1)",
    "x.min(-1)",
    "t.linalg.vector_norm(x, inf)",
    "t.linalg.vector_norm(x, -inf)",
    "t.linalg.vector_norm(x, inf, dim=-1)",
    "t.linalg.vector_norm(x, inf, dim=0)",
    "x.norm(2)",
    "x.norm(dim=-1)",
    "x.prod()",
    "x.prod(0)",
    "x.prod(-1)",
    "x.logsumexp(0)",
    "x.logsumexp(-1)",
    "x.sum(-1)",
    "x.mean()",
    "x.mean(-1)",
    "x.softmax(-1)",
    "x.cumsum(-1)",
    "x.std(-1)",
]


@pytest.mark.parametrize("expr,shape", list(itertools.product(EMPTY_EXPRS, [(0,), (2, 0), (0, 3)])))
def test_reductions_of_empty_tensors(expr, shape):
    torch = require_torch()
    assert_as_torch(torch, _backward_program(expr, shape, 2.0))


@pytest.mark.parametrize(
    "expr,shape",
    list(
        itertools.product(
            ["x.argmax()", "x.argmin()", "x.argmax(0)", "x.argmax(-1)", "x.argmin(-1)"],
            [(0,), (2, 0), (0, 3)],
        )
    ),
)
def test_argmax_of_empty_tensors(expr, shape):
    torch = require_torch()

    def program(t):
        return eval(expr, {"x": t.zeros(shape)})

    assert_as_torch(torch, program)


def test_vector_norm_of_integers_is_refused():
    torch = require_torch()
    assert_as_torch(torch, lambda t: t.linalg.vector_norm(t.tensor([1, 2])))
    assert_as_torch(torch, lambda t: t.tensor([3, 4]).norm())


DOF_CASES = [
    (shape, dim)
    for shape in [(), (1,), (2,), (1, 3), (2, 3)]
    for dim in [None, 0, -1, (0, 1)]
    if not (dim == (0, 1) and len(shape) < 2)
]


@pytest.mark.parametrize(
    "fn,shape,dim,dtype",
    [
        (f, s, d, dt)
        for f in ("var", "std")
        for s, d in DOF_CASES
        for dt in ("float32", "complex128")
    ],
)
def test_var_std_where_the_degrees_of_freedom_run_out(fn, shape, dim, dtype):
    """N - correction <= 0 (a 0-d tensor, a single element, correction 2 or 3): torch's values,
    real result dtypes for complex inputs, and var_backward's gradients (over all elements inf or
    nan; over dims 2 / (N - correction) as it comes: -0, inf, a negative factor), first and
    second order."""
    torch = require_torch()

    def program(t):
        out = []
        for c, keep, const in itertools.product((0, 1, 2, 3), (False, True), (False, True)):
            n = 1
            for s in shape:
                n *= s
            x = (t.ones(n) if const else t.arange(n) * 0.7 - 1).to(getattr(t, dtype)).reshape(shape)
            if dtype.startswith("complex"):
                x = x * (1 + 0.5j)
            x.requires_grad_()
            f = getattr(x, fn)
            y = f(dim, correction=c, keepdim=keep) if dim is not None else f(correction=c)
            (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
            out += [y, g, str(y.dtype)]
        return tuple(out)

    assert_as_torch(torch, program, warnings_too=False)


@pytest.mark.parametrize(
    "shape,ord_",
    list(
        itertools.product(
            [(0,), (2, 0), (0, 3)],
            ["-inf", "-2", "-1", "-0.5", "-1.0", "0", "0.5", "1", "2", "inf"],
        )
    ),
)
def test_vector_norm_without_an_identity_on_empty_tensors(shape, ord_):
    """max |x| and the negative orders have no identity: torch refuses an empty tensor or an
    empty reduced dimension (named as given), and reduces the others to an empty result."""
    torch = require_torch()

    def program(t):
        x = t.zeros(shape, requires_grad=True)
        out = []
        for dim in [None, 0, -1] + ([(0, 1), (1, 0)] if len(shape) == 2 else []):
            try:
                y = t.linalg.vector_norm(x, eval(ord_, {"inf": float("inf")}), dim)
                y.sum().backward()
                out += [y, x.grad]
            except RuntimeError as e:
                out.append(str(e))
        return tuple(out)

    assert_as_torch(torch, program)


@pytest.mark.parametrize("case", ["inplace", "twice", "retained", "grad"])
def test_nodes_behind_an_undefined_gradient_still_run(case):
    """vector_norm(x, 0) sends an undefined gradient: torch still runs the nodes behind it (their
    saved tensors are unpacked: version checks, freed buffers) and fills no .grad."""
    torch = require_torch()

    def program(t):
        x = t.ones(2, 2, requires_grad=True)
        y = x * 1
        s = y.std(1)
        if case == "inplace":
            y.add_(1)
        n = t.linalg.vector_norm(s, 0)
        if case == "grad":
            return t.autograd.grad(n, x, allow_unused=True)
        n.backward(retain_graph=case == "retained")
        if case in ("twice", "retained"):
            n.backward()
        return x.grad

    assert_as_torch(torch, program, warnings_too=False)
