"""Fuzz classes error-messages and zero-dim-shape-ops, closed where they had a root: torch's
exception types and messages, compared with torch's own."""

from __future__ import annotations

from .test_fixes_dtypes import _check


def test_indexing_messages_as_torch():
    """Index errors name the input's dimension (torch's real_dim, not the partly indexed
    result's), say dimension (NumPy: axis) for advanced indices, and a lone int or slice on a
    0-d tensor gets torch's 0-dim message; setitem likewise; complex values go into bool."""
    _check(
        [
            "m[-2, 4]",
            "m[None, 1, 5]",
            "m[1, None, 7]",
            "v[torch.tensor([3])]",
            "e[torch.tensor([0])]",
            "s[0]",
            "s[None, 0]",
            "s[..., 0]",
            "s[0:1]",
            "s[...]",
            "s[None]",
            "m.__setitem__((0, 5), 1.0)",
            "e.__setitem__(torch.tensor([0, 0]), -1.5)",
            "s.__setitem__(0, 3.0)",
            "(lambda b: (b.__setitem__(0, 1j), b)[1])(torch.tensor([False, True]))",
        ],
        {
            "m": lambda t: t.ones(3, 3),
            "v": lambda t: t.ones(2),
            "e": lambda t: t.zeros(0),
            "s": lambda t: t.tensor(1.0),
        },
    )


def test_zero_dim_and_shape_messages_as_torch():
    """0-d tensors: unbind/select/split/chunk refuse with torch's messages (IndexError 'tuple
    index out of range' before), mT is the identity with torch's warning (1-D: refused);
    @ with a Python number is Python's TypeError, matmul's its argument error; in-place ops
    check the broadcast shape before the result type; shape errors come before a complex
    kernel's refusal."""
    _check(
        [
            "s.unbind(0)",
            "s.select(0, 0)",
            "s.split(1)",
            "s.chunk(1)",
            "s.mT",
            "v.mT",
            "v.mH",
            "v @ 2",
            "2 @ v",
            "v.matmul(2)",
            "torch.matmul(v, 2.5)",
            "torch.matmul(2, v)",
            "v @ v",
            "torch.tensor(1).__itruediv__(torch.ones(2))",
            "torch.ones(3).sub_(torch.ones(1, 3))",
            "c < torch.ones(3, dtype=torch.complex64)",
            "c % torch.ones(3, dtype=torch.complex64)",
            "c // torch.ones(3, dtype=torch.complex64)",
            "c <= torch.ones(3)",
        ],
        {
            "s": lambda t: t.tensor(1.0),
            "v": lambda t: t.ones(2),
            "c": lambda t: t.ones(2, dtype=t.complex64),
        },
    )


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
    _check(
        [
            "torch.ones(2, 3) @ d12",
            "torch.mm(torch.ones(2, 3), d12)",
            "torch.ones(3) @ d12.t()",
            "torch.ones(2, 2, 3) @ d12",
            "torch.ones(2, 3) @ torch.ones(2, dtype=torch.float64)",
            "torch.mv(torch.ones(2, 3), torch.ones(2, dtype=torch.float64))",
            "torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 2, 2, dtype=torch.float64))",
            "torch.ones(3) @ torch.ones(2, dtype=torch.float64)",
            "torch.ones(2, 3, dtype=torch.int64) @ torch.ones(2, 3)",
            "torch.mm(torch.ones(2, 2), d12.t())",
            "torch.mm(torch.ones(2), d12)",
            "torch.maximum(c, torch.ones(3))",
            "torch.minimum(torch.ones(3), c)",
            "torch.max(c, torch.ones(3))",
            "torch.fmax(c, torch.ones(3))",
            "torch.fmin(torch.ones(3), c)",
            "torch.maximum(torch.ones(2), torch.ones(3))",
            "torch.cat([torch.ones(2), torch.tensor(1.0)])",
            "torch.cat([torch.ones(0), torch.tensor(1.0)])",
            "torch.cat([torch.ones(2, 2), torch.ones(2, 3), torch.tensor(1.0)])",
            "torch.cat([torch.ones(2, 2), torch.tensor(1.0)], 5)",
            "torch.cat([torch.tensor(1.0)])",
            "torch.ones(2, 3, dtype=torch.bool).expand(3)",
            "c.expand(())",
            "c.double().expand([])",
            "torch.ones(2, dtype=torch.complex128).expand(1, 3)",
            "torch.ones(2, 3).expand(2)",
        ],
        {
            "d12": lambda t: t.ones(1, 2, dtype=t.float64),
            "c": lambda t: t.ones(2, dtype=t.complex64),
        },
    )


def test_autograd_input_messages_as_torch():
    """grad's unused input is named by its index (also when it is the only one); empty
    ``inputs`` are refused by grad and backward with torch's words; backward(inputs=[t]) of a
    tensor that does not require grad fails in retain_grad first, as torch's."""
    _check(
        [
            "torch.autograd.grad(o(x), [y])",
            "torch.autograd.grad(o(x), y)",
            "torch.autograd.grad(o(x), [x, y])",
            "torch.autograd.grad(o(x), [])",
            "torch.autograd.grad(o(x), ())",
            "o(x).backward(inputs=[])",
            "torch.autograd.backward(o(x), inputs=())",
            "o(x).backward(inputs=[torch.ones(1)])",
            "torch.autograd.grad(o(x), [torch.ones(1)])",
        ],
        {
            "x": lambda t: t.ones(2, requires_grad=True),
            "y": lambda t: t.ones(1, requires_grad=True),
            "o": lambda t: lambda v: (v * 2).sum(),
        },
    )


def test_seed_and_index_checks_come_first_as_torch():
    """backward/grad check the seeds (shape) before the outputs' grad_fn, and empty ``inputs``
    before both; dot checks a non-tensor argument and the ranks before the dtypes; unbind of a
    0-d tensor names the wrapped dim; expand checks from the last dimension; index_select
    refuses a negative or too large index with torch's message (NumPy counted from the end)."""
    _check(
        [
            "v.backward(torch.ones(2))",
            "torch.autograd.grad(v, [r], torch.ones(2))",
            "v.backward(inputs=[])",
            "torch.dot(v, 2.0)",
            "torch.dot(1j, v)",
            "torch.dot(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.float64))",
            "s.unbind(-1)",
            "torch.ones(2, 0).expand(2, 1, 3)",
            "torch.ones(2, 2, 2).expand(0, 1, 2)",
            "v.index_select(0, torch.tensor([-1]))",
            "v.index_select(0, torch.tensor([3]))",
            "s.index_select(0, torch.tensor([1]))",
            "s.index_select(0, torch.tensor([0, 0]))",
            "s.index_select(0, torch.tensor([0]))",
        ],
        {
            "s": lambda t: t.tensor(1.0),
            "v": lambda t: t.ones(3),
            "r": lambda t: t.ones(3, requires_grad=True),
        },
    )


def _product_sources():
    shapes = [
        (2,),
        (3,),
        (2, 2),
        (2, 3),
        (3, 2),
        (2, 2, 2),
        (1, 2, 2),
        (2, 3, 2),
        (0, 2),
        (2, 0),
        (2, 0, 2),
        (2, 2, 0),
        (3, 1, 2, 2),
    ]
    out = []
    for a in shapes:
        for b in shapes:
            for da, db in (
                ("float32", "float64"),
                ("int64", "float32"),
                ("bool", "bool"),
                ("float32", "complex64"),
            ):
                out.append(
                    f"torch.matmul(torch.ones{a}.to(torch.{da}), torch.ones{b}.to(torch.{db}))"
                )
            out.append(f"torch.matmul(torch.ones{a}.requires_grad_(), torch.ones{b}.double())")
            out.append(f"torch.matmul(torch.ones{a}.double(), torch.ones{b}.requires_grad_())")
    for op in ("mm", "bmm", "mv", "dot"):
        for a, b in (
            ((2, 0), (0, 2)),
            ((0, 2), (2, 2)),
            ((2, 2), (2, 0)),
            ((2, 3), (2, 2)),
            ((1, 2, 0), (1, 0, 2)),
            ((0, 2, 2), (0, 2, 2)),
            ((2, 0, 2), (2, 2, 2)),
            ((2,), (2,)),
            ((0,), (0,)),
            ((2, 2), (2,)),
            ((2, 0), (0,)),
        ):
            for da, db in (("bool", "bool"), ("float64", "float32")):
                out.append(
                    f"torch.{op}(torch.ones{a}.to(torch.{da}), torch.ones{b}.to(torch.{db}))"
                )
    return out


def test_products_name_the_product_they_reach_as_torch():
    """Fuzz class error-messages (matmul): each product matmul reaches (dot, mv, mm on folded or
    transposed operands, bmm) checks its own operands, so a dtype mismatch is worded as that
    product's and shapes fail first; bool products refuse only where torch's kernel runs
    (fitting shapes, something to multiply); bmm with nothing to multiply returns batch2's
    dtype without its dtype check."""
    _check(_product_sources(), {})


def test_index_put_checks_the_shape_first_as_torch():
    """Fuzz class error-messages (index_put): the value must broadcast to the indexing result
    (torch's words and shapes, not NumPy's) before the dtypes are compared; an index out of
    range is found after both."""
    vals = [
        "torch.ones(2)",
        "torch.ones(1, 2)",
        "torch.ones(2, 1)",
        "torch.ones(3, dtype=torch.float64)",
        "torch.ones(1, dtype=torch.int64)",
        "torch.ones(2, 2, 2)",
    ]
    keys = [
        "torch.tensor([0])",
        "torch.tensor([0, 1])",
        "torch.tensor([5])",
        "x > 0",
        "x > 5",
        "(torch.tensor([0, 1]), torch.tensor([0]))",
        "(slice(None), torch.tensor([0, 1]))",
        "torch.tensor([True, False, True])",
    ]
    srcs = []
    for k in keys:
        for v in vals:
            srcs.append(f"(c := x.clone()).__setitem__({k}, {v}) or c")
            if not k.startswith("x") and not k.startswith("(slice"):
                kk = k if k.startswith("(") else f"({k},)"
                srcs.append(f"x.clone().index_put_({kk}, {v})")
    _check(srcs, {"x": lambda t: t.ones(3, 3)})


def test_kernels_broadcast_before_they_refuse_the_dtype_as_torch():
    """Fuzz class error-messages: comparisons of an integral tensor with a Python complex name
    the default complex dtype; bitwise ops, floor_divide, div with a rounding mode, remainder
    and fmod broadcast before they refuse a dtype (torch's TensorIterator)."""
    srcs = []
    for dt in ("bool", "int64", "uint8", "float32", "float64", "complex64", "complex128"):
        x = f"torch.ones(2, 2, dtype=torch.{dt})"
        y = f"torch.ones(3, dtype=torch.{dt})"
        for op in ("<", ">=", "&", "|", "^", "<<", ">>", "//", "%"):
            srcs += [f"{x} {op} 1j", f"{x} {op} {y}", f"{y} {op} {x}", f"{x} {op} {x}"]
        for fn in ("floor_divide", "remainder", "fmod", "bitwise_and", "bitwise_xor"):
            srcs += [f"torch.{fn}({x}, {y})", f"torch.{fn}({x}, 2)"]
        for mode in ("floor", "trunc"):
            srcs.append(f"torch.div({x}, {y}, rounding_mode={mode!r})")
    _check(srcs, {})


def _full_outcomes(lib, sources, env):
    """Like _check's, with the whole message (torch's argument errors span several lines)."""
    import warnings

    out = []
    for src in sources:
        ns = {"torch": lib, **{k: f(lib) for k, f in env.items()}}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = eval(src, ns)
        except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
            out.append((src, type(e).__name__, str(e)))
            continue
        out.append((src, str(r.dtype), tuple(r.shape)))
    return out


def test_argument_parsing_as_torch():
    """Fuzz class error-messages (argument parsing): lerp's overloads (a number end, a missing
    or None weight, extra arguments, keywords; the method forms leave self out and say which
    argument did not match), comparisons with a number first, lerp's broadcast error over its
    three operands, a complex weight for a real tensor; the Tensor-only argument of
    atan2/hypot/fmax/fmin/logaddexp/logaddexp2/nextafter counted after self in the method and
    in-place forms."""
    import jupyter_autograd as ja

    from .._torch import require as require_torch

    torch = require_torch()
    srcs = [
        "torch.lerp(f, 0.5, 0.5)",
        "torch.lerp(f, f)",
        "torch.lerp(f, f, None)",
        "torch.lerp(f, f, 'a')",
        "torch.lerp(f, f, 0.5, 3)",
        "torch.lerp(f, f, weight=0.5)",
        "torch.lerp(f, end=f, weight=0.5)",
        "torch.lerp(f, f, w=0.5)",
        "torch.lerp(input=f, end=f, weight=0.5)",
        "f.lerp(0.5, 0.5)",
        "f.lerp(f)",
        "f.lerp(f, None)",
        "f.lerp(f, 0.5)",
        "f.lerp(f, weight=0.5)",
        "f.lerp(f, torch.tensor(0.5))",
        "f.clone().lerp_(f, 0.5, 1)",
        "f.clone().lerp_(f, 0.5)",
        "f.clone().lerp_(0.5, f)",
        "f.lerp(f, 0.5, 1)",
        "torch.lerp(0.5, f, 0.5)",
        "torch.lerp(f, f, True)",
        "torch.lerp(f, f, 2)",
        "f.lerp(end=f, weight=1)",
        "torch.lerp(f, f, torch.tensor(0.5))",
        "torch.lerp(f, f, 1j)",
        "torch.lerp()",
        "torch.lerp(f, 2, 0.25)",
        "torch.lerp(c, c, 1j)",
        "torch.lerp(f, f.expand(3, 2, 2), torch.ones(3))",
        "torch.lerp(f, f, torch.ones(3))",
        "torch.eq(2, f)",
        "torch.lt(2.5, f)",
        "torch.ne(True, f)",
        "torch.eq(2, 3)",
        "torch.ge(f, 2)",
    ]
    for name in ("atan2", "hypot", "fmax", "fmin", "logaddexp", "logaddexp2", "nextafter"):
        srcs += [f"f.{name}(1.5)", f"torch.{name}(f, 1.5)", f"f.{name}(f)"]
        if name not in ("fmax", "fmin", "logaddexp", "logaddexp2"):
            srcs.append(f"f.clone().{name}_(2)")
    env = {"f": lambda t: t.ones(2, 2), "c": lambda t: t.ones(2, dtype=t.complex64)}
    theirs, mine = _full_outcomes(torch, srcs, env), _full_outcomes(ja, srcs, env)
    bad = [(t, m) for t, m in zip(theirs, mine) if t != m]
    assert not bad, "\n".join(map(repr, bad))
