"""The graph a create_graph=True gradient records, row by row, against torch 2.13 (fuzz class
higher-order-graph-shape): for every registry row the fuzzer draws, the gradients of its output
are taken with create_graph=True under both libraries and their grad_fn trees (node names,
input by input) compared. The rules are composed as torch's formulas in derivatives.yaml
(cos: ``grad * -self.sin()``, records Mul(Neg(Sin))); the rows whose graph still differs are
listed in STILL_DIFFERENT: one that comes to match must be removed from it (and one that
starts to differ fails)."""

from __future__ import annotations

import random

import numpy as np

import jupyter_autograd as ja

from ._torch import require as require_torch
from .fuzz import rows

# rows whose double-backward graph is not torch's yet, by cause (none left)
STILL_DIFFERENT: frozenset = frozenset()


def _tree(fn, depth: int = 0):
    if fn is None or depth > 8:
        return None
    return (type(fn).__name__, tuple(_tree(c, depth + 1) for c, _ in fn.next_functions))


def _graphs(lib, src: str, shapes):
    rs = np.random.RandomState(0)
    ns = {"torch": lib}
    xs = []
    for k, s in enumerate(shapes):
        x = lib.tensor(rs.uniform(0.3, 1.5, s), dtype=lib.float64, requires_grad=True)
        ns[f"a{k}"] = x
        xs.append(x)
    y = eval(src, ns)  # sources rendered from the registry's rows
    if isinstance(y, (tuple, list)):
        y = y[0]
    if not y.requires_grad:
        return None
    gs = lib.autograd.grad(y.sum(), xs, create_graph=True, allow_unused=True)
    return tuple(_tree(g.grad_fn) if g is not None else None for g in gs)


def differing_rows(torch) -> tuple[set, set]:
    """(rows whose create_graph gradients record another graph than torch's, rows compared)."""
    rng = random.Random(1)
    differ, compared = set(), set()
    for op in rows.fuzzable_rows():
        shapes = rows.input_shapes(op, rng, (2, 3)) or rows.input_shapes(op, rng, (2, 2, 3))
        n, _ = rows.signature(op)
        drawn = rows.draw_params(op, rng, shapes)
        if not shapes or drawn is None:
            continue
        src = rows.render(op, [f"a{k}" for k in range(n or len(shapes))], drawn)
        try:
            theirs = _graphs(torch, src, shapes)
        except Exception:  # noqa: BLE001, S112 - torch refuses these inputs (float64 at (2, 3))
            continue
        compared.add(op.name)
        if _graphs(ja, src, shapes) != theirs:
            differ.add(op.name)
    return differ, compared


def test_create_graph_gradients_record_torchs_graph():
    torch = require_torch()
    differ, compared = differing_rows(torch)
    assert len(compared) > 100
    fixed = sorted(STILL_DIFFERENT - differ)
    assert not fixed, f"now recording torch's graph: remove from STILL_DIFFERENT: {fixed}"
    new = sorted(differ - STILL_DIFFERENT)
    assert not new, f"create_graph gradients record another graph than torch's: {new}"


def test_cos_double_backward_is_torchs_formula():
    """cos: grad * -self.sin() records Mul(Neg(Sin)); the first-order values are unchanged."""
    torch = require_torch()
    out = []
    for lib in (torch, ja):
        x = lib.tensor([1.0, -0.5], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(x.cos().sum(), [x], create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), [x])
        out.append((_tree(g.grad_fn), g.tolist(), h.tolist()))
    assert out[1] == out[0]


_BACKWARD_OP_CASES = {
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "relu": lambda lib, x: x.relu() * x,
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2) * x,
    "softplus": lambda lib, x: lib.nn.functional.softplus(x, 2.0, 1.0),
    "logsigmoid": lambda lib, x: lib.nn.functional.logsigmoid(x),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "gelu_tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "softmax": lambda lib, x: x.softmax(1) * x,
    "log_softmax": lambda lib, x: x.log_softmax(0) * x,
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x * x, x.detach().flip(0)),
}


def test_backward_ops_record_their_own_node_and_second_order_values():
    """torch's backward kernels (tanh_backward, threshold_backward, _softmax_backward_data...)
    are rows of their own: the create_graph gradient records their node (TanhBackwardBackward0)
    and its gradient (the second order, through their own VJPs) has torch's values."""
    torch = require_torch()
    for name, f in _BACKWARD_OP_CASES.items():
        out = []
        for lib in (torch, ja):
            x = lib.tensor(
                [[1.0, -0.5, 2.5], [-1.5, 0.25, 3.0]], dtype=lib.float64, requires_grad=True
            )
            w = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]], dtype=lib.float64)
            (g,) = lib.autograd.grad((f(lib, x) * w).sum(), [x], create_graph=True)
            (h,) = lib.autograd.grad((g * w).sum(), [x])
            out.append((_tree(g.grad_fn), g.tolist(), h.tolist()))
        assert out[1][0] == out[0][0], name
        np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-10, atol=1e-12, err_msg=name)


def test_complex_tanh_sigmoid_backward_ops_conjugate_as_torch():
    """For complex tensors torch's tanh_backward/sigmoid_backward conjugate the derivative
    (grad * conj(1 - y^2)); the second order goes through their formulas with conj."""
    torch = require_torch()
    for name in ("tanh", "sigmoid"):
        out = []
        for lib in (torch, ja):
            z = lib.tensor([0.3 + 0.4j, -0.7 + 0.2j], dtype=lib.complex128, requires_grad=True)
            v = lib.tensor([1.0 - 0.5j, 0.25 + 2.0j], dtype=lib.complex128)
            y = getattr(z, name)()
            (g,) = lib.autograd.grad(y, [z], grad_outputs=v, create_graph=True)
            (h,) = lib.autograd.grad((g * g.conj()).real.sum(), [z])
            out.append((type(g.grad_fn).__name__, g.tolist(), h.tolist()))
        assert out[1][0] == out[0][0] == f"{name.capitalize()}BackwardBackward0"
        np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12)
        np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-10)


def test_first_grad_of_a_leaf_under_create_graph_is_torchs_copy():
    """backward(create_graph=True) stores a leaf's first gradient as torch's clone_obey_contract
    does (``new_empty_strided(...).copy_(grad)``): CopyBackwards with two edges, None for the
    fresh destination and the gradient's graph (fuzz seeds 1154, 1642); a second backward adds."""
    torch = require_torch()
    out = []
    for lib in (torch, ja):
        x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        first = _tree(x.grad.grad_fn)
        (x * x * x).sum().backward(create_graph=True)
        (h,) = lib.autograd.grad(x.grad.sum(), [x])
        out.append((first, _tree(x.grad.grad_fn), x.grad.tolist(), h.tolist()))
    assert out[1] == out[0]
    assert out[1][0][0] == "CopyBackwards" and len(out[1][0][1]) == 2


def _layer_norm_case(lib, shape, k, affine):
    rs = np.random.RandomState(3)
    x = lib.tensor(rs.uniform(-2, 2, shape), dtype=lib.float64, requires_grad=True)
    ns = shape[-k:]
    ps = (
        [
            lib.tensor(rs.uniform(0.5, 2, ns), dtype=lib.float64, requires_grad=True),
            lib.tensor(rs.uniform(-1, 1, ns), dtype=lib.float64, requires_grad=True),
        ]
        if affine
        else []
    )
    w, b = ps if affine else (None, None)
    y = lib.nn.functional.layer_norm(x, ns, w, b)
    c = lib.tensor(rs.uniform(-1, 1, shape), dtype=lib.float64)
    gs = lib.autograd.grad((y.pow(3) * c).sum(), [x, *ps], create_graph=True)
    loss = sum(((g * g).sum() if i else (g * c).pow(2).sum()) for i, g in enumerate(gs))
    hs = lib.autograd.grad(loss, [x, *ps])
    return [_tree(g.grad_fn) for g in gs], [g.tolist() for g in gs], [h.tolist() for h in hs]


def test_layer_norm_double_backward_is_one_node_with_torchs_values():
    """native_layer_norm's create_graph gradients are the outputs of one
    native_layer_norm_backward node (NativeLayerNormBackwardBackward0, edges grad_out, input,
    mean, rstd, weight, bias as torch's), and the second order through its VJPs (torch's
    layer_norm_double_backward) has torch's values: with and without weight and bias, over one
    and two normalized dims."""
    torch = require_torch()
    for shape, k, affine in (
        ((2, 3), 1, True),
        ((2, 3), 1, False),
        ((2, 3, 4), 2, True),
        ((3, 2, 4), 1, True),
    ):
        theirs = _layer_norm_case(torch, shape, k, affine)
        ours = _layer_norm_case(ja, shape, k, affine)
        assert ours[0] == theirs[0], (shape, k, affine)
        assert ours[0][0][0] == "NativeLayerNormBackwardBackward0"
        for a, b in zip(ours[1] + ours[2], theirs[1] + theirs[2]):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11, err_msg=str((shape, k, affine)))


# rows with complex support whose complex create_graph gradient is not torch's graph yet (none
# left: formulas conjugating inside the derivative mark the place with xp.cj)
COMPLEX_STILL_DIFFERENT: frozenset = frozenset()


def _complex_graphs(lib, src: str, shapes, cx):
    rs = np.random.RandomState(0)
    ns = {"torch": lib}
    xs = []
    for k, s in enumerate(shapes):
        a = rs.uniform(0.3, 1.5, s) + 1j * rs.uniform(0.3, 1.5, s)
        x = lib.tensor(
            a if k in cx else a.real,
            dtype=lib.complex128 if k in cx else lib.float64,
            requires_grad=True,
        )
        ns[f"a{k}"] = x
        xs.append(x)
    y = eval(src, ns)  # sources rendered from the registry's rows
    if isinstance(y, (tuple, list)):
        y = y[0]
    if not y.requires_grad:
        return None
    v = rs.uniform(0.5, 1, tuple(y.shape)) + (0.25j if y.is_complex() else 0)
    gs = lib.autograd.grad(
        y, xs, grad_outputs=lib.tensor(v, dtype=y.dtype), create_graph=True, allow_unused=True
    )
    used = [g for g in gs if g is not None and g.requires_grad]
    second = (
        lib.autograd.grad(sum((g * g.conj()).real.sum() for g in used), xs, allow_unused=True)
        if used
        else ()
    )
    return (
        tuple(_tree(g.grad_fn) if g is not None else None for g in gs),
        [g.detach().resolve_conj().numpy() if g is not None else None for g in gs],
        [h.resolve_conj().numpy() if h is not None else None for h in second],
    )


def test_complex_create_graph_gradients_record_torchs_graph():
    """Every row with complex support (HOLOMORPHIC twins and AS_WRITTEN rows), complex inputs
    (all of them, then the first alone), create_graph=True: the gradients' graphs are torch's
    (the twins conjugate the derivative where it meets the gradient, as torch's
    ``grad * f'(z).conj()``, fuzz seed 1211: atan) and their values and second-order values
    torch's."""
    from jupyter_autograd.ops.registry import AS_WRITTEN, HOLOMORPHIC

    torch = require_torch()
    rng = random.Random(1)
    differ, compared = set(), set()
    for op in rows.fuzzable_rows():
        if op.complex is not HOLOMORPHIC and op.complex is not AS_WRITTEN:
            continue
        shapes = rows.input_shapes(op, rng, (2, 3)) or rows.input_shapes(op, rng, (2, 2, 3))
        n, _ = rows.signature(op)
        drawn = rows.draw_params(op, rng, shapes)
        if not shapes or drawn is None:
            continue
        src = rows.render(op, [f"a{k}" for k in range(n or len(shapes))], drawn)
        for cx in [{0}] if len(shapes) == 1 else [set(range(len(shapes))), {0}]:
            try:
                theirs = _complex_graphs(torch, src, shapes, cx)
            except Exception:  # noqa: BLE001, S112 - torch refuses these inputs
                continue
            compared.add(op.name)
            ours = _complex_graphs(ja, src, shapes, cx)
            assert (ours is None) == (theirs is None), src
            if ours is None:
                continue
            if ours[0] != theirs[0]:
                differ.add(op.name)
            for a, b in zip(ours[1] + ours[2], theirs[1] + theirs[2]):
                assert (a is None) == (b is None), src
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=src)
    assert len(compared) > 50
    fixed = sorted(COMPLEX_STILL_DIFFERENT - differ)
    assert not fixed, f"now recording torch's graph: remove from COMPLEX_STILL_DIFFERENT: {fixed}"
    new = sorted(differ - COMPLEX_STILL_DIFFERENT)
    assert not new, f"complex create_graph gradients record another graph than torch's: {new}"
