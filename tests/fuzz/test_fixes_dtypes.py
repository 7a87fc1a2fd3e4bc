"""Fuzz classes closed at their root, against torch: integer/bool dtype support (dtype-support),
size-0 dimensions (size-zero-edges) and argument checks (argument-checks)."""

from __future__ import annotations

import warnings

import jupyter_autograd as ja

from .._torch import require as require_torch


def _outcomes(lib, sources, env):
    out = []
    for src in sources:
        ns = {"torch": lib, **{k: f(lib) for k, f in env.items()}}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = eval(src, ns)
        except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
            out.append((src, type(e).__name__, str(e).split("\n")[0]))
            continue
        rs = r if isinstance(r, tuple) else (r,)
        out.append((src, [(str(t.dtype), tuple(t.shape), t.tolist()) for t in rs]))
    return out


def _check(sources, env):
    torch = require_torch()
    theirs, mine = _outcomes(torch, sources, env), _outcomes(ja, sources, env)
    bad = [(t, m) for t, m in zip(theirs, mine) if t != m]
    assert not bad, bad


_INTS = {
    "b": lambda t: t.tensor([[True, False]]),
    "i": lambda t: t.tensor([[3, 2]]),
    "u": lambda t: t.tensor([[3, 2]], dtype=t.uint8),
    "n": lambda t: t.tensor([3, -2, 1, -1, 0]),
}


def test_integer_and_bool_kernels_as_torch():
    """Rows declare the integral/bool dtypes torch's kernel refuses (defop integral=/bools=: abs,
    neg, relu, dot/mm/mv/bmm of bool, mse_loss, gelu, leaky_relu, softplus, log_sigmoid),
    argmax/argmin refuse bool, sub refuses a bool operand (a Python bool counts), +bool is
    refused, sign/sgn of bool are the input, add(alpha) of bools is logical, prod of an
    integral tensor is int64 (uint8 crashed), all/any of uint8 are uint8, in-place ops refuse
    a non-bool result in a bool tensor (torch's canCast), std/var's message."""
    _check(
        [
            "b.abs()",
            "b.clone().abs_()",
            "-b",
            "+b",
            "(-n).relu()",
            "b.relu()",
            "b.clone().relu_()",
            "b[0].sign()",
            "b.sgn()",
            "b.argmax()",
            "b.argmin(1)",
            "i.argmax()",
            "torch.dot(b[0], b[0])",
            "torch.dot(i[0], i[0])",
            "b @ b.t()",
            "b[0] @ b[0]",
            "torch.mv(b, b[0])",
            "torch.bmm(b[None], b.t()[None])",
            "torch.mm(i, i.t())",
            "torch.nn.functional.mse_loss(i, i)",
            "torch.nn.functional.mse_loss(b, b)",
            "torch.nn.functional.mse_loss(i, i.float())",
            "torch.nn.functional.mse_loss(b.float(), b)",
            "torch.nn.functional.gelu(i)",
            "torch.nn.functional.leaky_relu(b)",
            "torch.nn.functional.softplus(u)",
            "torch.nn.functional.logsigmoid(i)",
            "b - 1",
            "1 - b",
            "b - True",
            "i - True",
            "b.sub(i)",
            "b - b",
            "b.clone().sub_(b)",
            "i - b",
            "torch.add(b, b, alpha=2)",
            "torch.add(b, True, alpha=2)",
            "torch.add(i, b, alpha=2)",
            "torch.prod(u)",
            "b.prod()",
            "torch.all(u)",
            "torch.any(u, 1)",
            "torch.all(i)",
            "b.clone().add_(1)",
            "b.clone().pow_(2)",
            "i.clone().add_(b)",
            "b.clone().square_()",
            "b.square()",
            "u.clone().mul_(2)",
            "i.std()",
            "b.var(0)",
            "i.clone().mul_(1.5)",
        ],
        _INTS,
    )


def test_integer_pow_as_torch():
    """Integer pow as torch's powi: a negative tensor exponent gives 0 (1 for base 1, +-1 for
    -1; NumPy raised 'Integers to negative integer powers' or the broadcast error); a negative
    Python exponent is torch's RuntimeError; bool ** int is int64; bool ** bool has no kernel."""
    _check(
        [
            "n ** -1",
            "n ** torch.tensor(-1)",
            "n ** torch.tensor([-1, -1, -1, -2, -1])",
            "n ** torch.tensor([-1, -1, -1, -3, -1])",
            "2 ** n",
            "(-1) ** n",
            "1 ** n",
            "0 ** n",
            "b ** 2",
            "b ** True",
            "b ** False",
            "b ** b",
            "b ** torch.tensor([1, 2])",
            "2 ** b",
            "True ** b",
            "b ** 2.5",
            "u ** -1",
            "torch.tensor([2], dtype=torch.int8) ** torch.tensor([-1])",
            "n.clone().pow_(-1)",
            "n.square()",
            "torch.tensor([3]) ** torch.tensor([70])",
            "torch.pow(i, i)",
            "i ** 0",
            "torch.tensor([2, 3]) ** True",
        ],
        _INTS,
    )


def test_size_zero_dimensions_as_torch():
    """split/chunk of an empty dimension give torch's pieces (one for split, ``chunks`` for
    chunk; IndexError or too few before), unflatten infers -1 beside nonzero sizes in an empty
    dimension and gives torch's messages, reshape's ambiguous -1 message, and cat's result type
    counts the empty 1-D tensors it skips."""
    _check(
        [
            "x.split(1, 0)",
            "x.split(2, 0)",
            "x.split([0, 0], 0)",
            "x.chunk(2, 0)",
            "x.chunk(3, 0)",
            "y.chunk(3, 1)",
            "y.split(2, 1)",
            "y.chunk(2, 0)",
            "y.unflatten(1, (2, -1))",
            "y.unflatten(0, (2, -1))",
            "y.unflatten(0, (1, 2))",
            "y.unflatten(1, (2, 2))",
            "torch.ones(4).unflatten(0, (3, -1))",
            "torch.ones(4).unflatten(0, (2, -1))",
            "y.reshape(0, -1)",
            "y.reshape(2, -1)",
            "y.view(-1, 0)",
            "torch.ones(4).reshape(3, -1)",
            "torch.cat([torch.tensor([True]), torch.zeros(0, dtype=torch.complex64)])",
            "torch.cat([torch.tensor([1]), torch.zeros(0)])",
            "torch.cat([torch.ones(2, 2), torch.zeros(0, dtype=torch.float64)])",
            "torch.cat([torch.zeros(0, dtype=torch.float64), torch.ones(2, 2)])",
            "torch.cat([y, y], 1)",
            "x.unbind(0)",
            "y.split(0, 1)",
        ],
        {"x": lambda t: t.zeros(0), "y": lambda t: t.zeros(2, 0)},
    )


def test_tensor_arguments_are_checked_as_torch():
    """maximum/minimum/logical_and/or/xor/outer/ger take Tensors (a Python number is torch's
    TypeError, positions counted after self for methods); outer refuses non-1-D arguments."""
    _check(
        [
            "x.maximum(1.0)",
            "torch.maximum(1.0, x)",
            "torch.maximum(x, 3.0)",
            "x.minimum(None)",
            "torch.minimum(x, 2)",
            "x.logical_and(True)",
            "torch.logical_or(1, x)",
            "torch.logical_xor(x, 1)",
            "torch.logical_and(x, x[None])",
            "x.outer(2)",
            "torch.outer(x, 1.0)",
            "torch.ger(x, 1.0)",
            "torch.outer(x[None], x)",
            "torch.outer(torch.tensor(1.), x)",
            "x.outer(x[None])",
            "torch.ger(x[None], x)",
            "torch.outer(x, x)",
            "x.ger(x)",
            "x.maximum(x)",
        ],
        {"x": lambda t: t.tensor([1.0, 2.0])},
    )


def test_dropout_bernoulli_and_index_put_dtypes_as_torch():
    """dropout of an integer/bool tensor refuses the float mask (torch: empty_like(input)
    .bernoulli_(1 - p).div_(1 - p)), bernoulli(Tensor) of an integer/bool tensor has no kernel,
    advanced-index puts (x[idx] = v, index_put_) take a tensor value of the destination's dtype
    only, while a basic index and a 0-d value by a mask cast (dtype-support)."""
    f = "torch.nn.functional.dropout"
    _check(
        [
            f"{f}(i)",
            f"{f}(b)",
            f"{f}(u, 0.3)",
            f"{f}(i, 1.0)",
            f"{f}(b, 0.0)",
            f"{f}(i, training=False)",
            f"{f}(i[:, :0])",
            f"{f}(i.clone(), inplace=True)",
            "i.bernoulli()",
            "b.bernoulli()",
            "i[:, :0].bernoulli()",
            "u.bernoulli(0.0)",
            "(c := b.clone()).__setitem__(torch.tensor([0]), torch.tensor([1.0])) or c",
            "(c := i.clone()).__setitem__((0, [0, 1]), torch.tensor([1, 2], dtype=torch.int32)) or c",
            "(c := n.clone()).__setitem__(n > 0, torch.tensor([1.0, 2.0])) or c",
            "(c := n.clone()).__setitem__(n > 0, torch.tensor(1.5)) or c",
            "(c := n.clone()).__setitem__(0, torch.tensor(1.5)) or c",
            "(c := n.clone()).__setitem__(torch.tensor([1]), 2.5) or c",
            "n.clone().index_put_((torch.tensor([0]),), torch.tensor([1.0]))",
            "torch.index_put(n, (torch.tensor([0]),), torch.tensor([1.0]))",
            "n.clone().index_put_((torch.tensor([0]),), torch.tensor([7]))",
        ],
        _INTS,
    )


def test_clamp_number_bounds_of_integral_tensors_as_torch():
    """Fuzz class dtype-support (clamp): with number bounds clamp's refusal names self's dtype
    as C++ does ('long int', 'bool'; a tensor bound: the ScalarType), a bool tensor with bool
    bounds has no kernel, an int bound must fit the dtype (c10's checked conversion; uint8 takes
    -1 wrapped), complex bounds are real numbers for a floating tensor and refused first by an
    integral in-place clamp."""
    sources = []
    for dt in ("bool", "int64", "int32", "int16", "int8", "uint8"):
        t = f"torch.ones(3, dtype=torch.{dt})"
        sources += [
            f"{t}.clamp_(0, 1)",
            f"{t}.clamp_(0.5, 1)",
            f"{t}.clamp_(max=2.5)",
            f"{t}.clamp_min_(0.5)",
            f"{t}.clip_(0.5, 1)",
            f"{t}.clamp_(0, 300)",
            f"{t}.clamp_(-1, 1)",
            f"{t}.clamp_(0j, 1)",
            f"{t}.clamp_(torch.tensor(0.5), None)",
            f"{t}.clamp(True, False)",
            f"{t}.clamp_(True)",
            f"{t}.clamp(-200, 100)",
            f"{t}.clamp_max(300)",
            f"{t}.clamp(0j)",
        ]
    sources += [
        "torch.ones(3).clamp(2 + 5j)",
        "torch.ones(3).clamp(2 + 0j)",
        "torch.ones(3).clamp_(0j, 1)",
        "torch.ones(3).clamp_max(0.5 + 0j)",
        "torch.ones(3, dtype=torch.uint8).clamp(-256, 1)",
        "torch.ones(3, dtype=torch.int32).clamp(max=2**31)",
        "torch.ones(3, dtype=torch.bool).clamp(True, 1)",
    ]
    _check(sources, {})
