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
