"""Fuzz classes error-messages and zero-dim-shape-ops, closed where they had a root: torch's
exception types and messages, compared with torch's own."""

from __future__ import annotations

from .test_fixes_dtypes import _check


def test_indexing_messages_as_torch():
    """Index errors name the input's dimension (torch's real_dim, not the partly indexed
    result's), say dimension (NumPy: axis) for advanced indices, and a lone int or slice on a
    0-d tensor gets torch's 0-dim message; setitem likewise; complex values go into bool."""
    _check([
        "m[-2, 4]", "m[None, 1, 5]", "m[1, None, 7]", "v[torch.tensor([3])]", "e[torch.tensor([0])]",
        "s[0]", "s[None, 0]", "s[..., 0]", "s[0:1]", "s[...]", "s[None]",
        "m.__setitem__((0, 5), 1.0)", "e.__setitem__(torch.tensor([0, 0]), -1.5)",
        "s.__setitem__(0, 3.0)", "(lambda b: (b.__setitem__(0, 1j), b)[1])(torch.tensor([False, True]))",
    ], {"m": lambda t: t.ones(3, 3), "v": lambda t: t.ones(2), "e": lambda t: t.zeros(0),
        "s": lambda t: t.tensor(1.0)})


def test_zero_dim_and_shape_messages_as_torch():
    """0-d tensors: unbind/select/split/chunk refuse with torch's messages (IndexError 'tuple
    index out of range' before), mT is the identity with torch's warning (1-D: refused);
    @ with a Python number is Python's TypeError, matmul's its argument error; in-place ops
    check the broadcast shape before the result type; shape errors come before a complex
    kernel's refusal."""
    _check([
        "s.unbind(0)", "s.select(0, 0)", "s.split(1)", "s.chunk(1)", "s.mT", "v.mT", "v.mH",
        "v @ 2", "2 @ v", "v.matmul(2)", "torch.matmul(v, 2.5)", "torch.matmul(2, v)", "v @ v",
        "torch.tensor(1).__itruediv__(torch.ones(2))", "torch.ones(3).sub_(torch.ones(1, 3))",
        "c < torch.ones(3, dtype=torch.complex64)", "c % torch.ones(3, dtype=torch.complex64)",
        "c // torch.ones(3, dtype=torch.complex64)", "c <= torch.ones(3)",
    ], {"s": lambda t: t.tensor(1.0), "v": lambda t: t.ones(2),
        "c": lambda t: t.ones(2, dtype=t.complex64)})



def test_rounding_gradient_is_zero_even_for_an_infinite_incoming_gradient():
    """Seed 1248: trunc then log1p at -1 sends an inf gradient into trunc; torch's rounding
    backward is zeros_like(grad), so the result is 0 where grad * 0 gave nan."""
    import jupyter_autograd as ja

    from .._torch import require as require_torch

    torch = require_torch()
    got = {}
    for lib in (torch, ja):
        for f in ("trunc", "floor", "ceil", "round"):
            x = lib.tensor([-1.5, 0.5], requires_grad=True)
            getattr(x, f)().backward(lib.tensor([float("inf"), float("nan")]))
            got[(lib.__name__, f)] = x.grad.tolist()
    for f in ("trunc", "floor", "ceil", "round"):
        assert got[("jupyter_autograd", f)] == got[("torch", f)] == [0.0, 0.0], f


def test_check_order_and_wording_as_torch():
    """Fuzz class error-messages: mm/mv/bmm/matmul check the shapes before the dtypes (dot the
    dtypes first), maximum/minimum/fmax/fmin refuse complex before they broadcast, cat refuses a
    0-d tensor at any position first, expand names bool/complex tensors CPUBoolType..."""
    _check([
        "torch.ones(2, 3) @ d12", "torch.mm(torch.ones(2, 3), d12)", "torch.ones(3) @ d12.t()",
        "torch.ones(2, 2, 3) @ d12", "torch.ones(2, 3) @ torch.ones(2, dtype=torch.float64)",
        "torch.mv(torch.ones(2, 3), torch.ones(2, dtype=torch.float64))",
        "torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 2, 2, dtype=torch.float64))",
        "torch.ones(3) @ torch.ones(2, dtype=torch.float64)", "torch.ones(2, 3, dtype=torch.int64) @ torch.ones(2, 3)",
        "torch.mm(torch.ones(2, 2), d12.t())", "torch.mm(torch.ones(2), d12)",
        "torch.maximum(c, torch.ones(3))", "torch.minimum(torch.ones(3), c)", "torch.max(c, torch.ones(3))",
        "torch.fmax(c, torch.ones(3))", "torch.fmin(torch.ones(3), c)", "torch.maximum(torch.ones(2), torch.ones(3))",
        "torch.cat([torch.ones(2), torch.tensor(1.0)])", "torch.cat([torch.ones(0), torch.tensor(1.0)])",
        "torch.cat([torch.ones(2, 2), torch.ones(2, 3), torch.tensor(1.0)])",
        "torch.cat([torch.ones(2, 2), torch.tensor(1.0)], 5)", "torch.cat([torch.tensor(1.0)])",
        "torch.ones(2, 3, dtype=torch.bool).expand(3)", "c.expand(())", "c.double().expand([])",
        "torch.ones(2, dtype=torch.complex128).expand(1, 3)", "torch.ones(2, 3).expand(2)",
    ], {"d12": lambda t: t.ones(1, 2, dtype=t.float64), "c": lambda t: t.ones(2, dtype=t.complex64)})


def test_autograd_input_messages_as_torch():
    """grad's unused input is named by its index (also when it is the only one); empty
    ``inputs`` are refused by grad and backward with torch's words; backward(inputs=[t]) of a
    tensor that does not require grad fails in retain_grad first, as torch's."""
    _check([
        "torch.autograd.grad(o(x), [y])", "torch.autograd.grad(o(x), y)", "torch.autograd.grad(o(x), [x, y])",
        "torch.autograd.grad(o(x), [])", "torch.autograd.grad(o(x), ())", "o(x).backward(inputs=[])",
        "torch.autograd.backward(o(x), inputs=())", "o(x).backward(inputs=[torch.ones(1)])",
        "torch.autograd.grad(o(x), [torch.ones(1)])",
    ], {"x": lambda t: t.ones(2, requires_grad=True), "y": lambda t: t.ones(1, requires_grad=True),
        "o": lambda t: lambda v: (v * 2).sum()})


def test_seed_and_index_checks_come_first_as_torch():
    """backward/grad check the seeds (shape) before the outputs' grad_fn, and empty ``inputs``
    before both; dot checks a non-tensor argument and the ranks before the dtypes; unbind of a
    0-d tensor names the wrapped dim; expand checks from the last dimension; index_select
    refuses a negative or too large index with torch's message (NumPy counted from the end)."""
    _check([
        "v.backward(torch.ones(2))", "torch.autograd.grad(v, [r], torch.ones(2))",
        "v.backward(inputs=[])", "torch.dot(v, 2.0)", "torch.dot(1j, v)",
        "torch.dot(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.float64))",
        "s.unbind(-1)", "torch.ones(2, 0).expand(2, 1, 3)", "torch.ones(2, 2, 2).expand(0, 1, 2)",
        "v.index_select(0, torch.tensor([-1]))", "v.index_select(0, torch.tensor([3]))",
        "s.index_select(0, torch.tensor([1]))", "s.index_select(0, torch.tensor([0, 0]))",
        "s.index_select(0, torch.tensor([0]))",
    ], {"s": lambda t: t.tensor(1.0), "v": lambda t: t.ones(3), "r": lambda t: t.ones(3, requires_grad=True)})
