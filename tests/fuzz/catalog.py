"""The public API the generator draws from, beyond the registry rows: Tensor methods, module
functions, Python operators, reductions, views and in-place ops.

Each entry renders one expression (or statement) for operands given as variable names; drawers
get the live torch operands (shapes, dtypes) and return the parameters as source text, or None
when the entry does not apply. Names torch has and we lack are drawn too unless listed in
:data:`tests.fuzz.open_classes.MISSING_API`.
"""

from __future__ import annotations

# unary: method and (where torch has one) module function of the same name
UNARY = [
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "abs",
    "neg",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "square",
    "sign",
    "floor",
    "ceil",
    "round",
    "trunc",
    "erf",
    "expm1",
    "log1p",
    "clone",
    "contiguous",
    "float",
    "double",
    "conj",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "log2",
    "log10",
    "frac",
    "sgn",
    "angle",
    "logical_not",
    "isnan",
    "isfinite",
]
# torch has no module function for these (only the method)
METHOD_ONLY = {"float", "double", "contiguous"}

# Python binary operators and module functions of two tensors
OPERATORS = (
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "@",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "&",
    "|",
    "^",
)
BINARY_FUNCS = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "maximum",
    "minimum",
    "pow",
    "atan2",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_xor",
    "matmul",
    "outer",
    "dot",
    "fmod",
    "remainder",
    "floor_divide",
    "lerp",
]

# in-place methods taking (other), () or a scalar
INPLACE_BINARY = ["add_", "sub_", "mul_", "div_", "copy_"]
INPLACE_UNARY = [
    "exp_",
    "sin_",
    "tanh_",
    "sigmoid_",
    "relu_",
    "neg_",
    "abs_",
    "sqrt_",
    "zero_",
    "square_",
    "floor_",
    "reciprocal_",
]
AUGMENTED = ("+=", "-=", "*=", "/=")


def scalar_literal(rng, dtype_name: str) -> str:
    """A Python number for a binary op with a tensor of ``dtype_name``."""
    r = rng.random()
    if r < 0.45:
        return repr(rng.choice([2.0, 0.5, -1.5, 3.0, 1.0, 0.0]))
    if r < 0.8:
        return repr(rng.choice([2, -1, 3, 0, 1]))
    if r < 0.9:
        return repr(rng.choice([True, False]))
    return repr(rng.choice([1j, 2 - 1j, 0.5 + 0.5j]))


def _dims(rng, nd: int):
    return rng.randrange(-nd, nd) if nd else rng.choice([0, -1])


def reduction(rng, name: str, t) -> str | None:
    """Source for a reduction of variable ``name`` (a torch tensor ``t``)."""
    nd = t.dim()
    r = rng.random()
    d = _dims(rng, nd)
    keep = rng.random() < 0.3
    kd = ", keepdim=True" if keep else ""
    choice = rng.choice(
        [
            "sum",
            "sum",
            "mean",
            "prod",
            "max",
            "min",
            "amax",
            "amin",
            "std",
            "var",
            "norm",
            "logsumexp",
            "argmax",
            "argmin",
            "all",
            "any",
            "softmax",
            "log_softmax",
            "cumsum",
            "cumprod",
            "max_dim",
            "min_dim",
            "sum_dims",
        ]
    )
    if choice in ("sum", "mean", "prod", "max", "min", "all", "any", "argmax", "argmin", "norm"):
        if r < 0.5 or choice in ("max", "min") or nd == 0:
            return f"{name}.{choice}()"
        if choice == "norm":
            p = rng.choice(["1", "2", "3", "float('inf')"])
            return f"{name}.norm({p}, {d}{kd})"
        return f"{name}.{choice}({d}{kd})"
    if choice in ("max_dim", "min_dim"):
        return f"{name}.{choice[:3]}({d}{kd})"
    if choice == "sum_dims":
        if nd < 2:
            return f"{name}.sum(({d},){kd})"
        return f"{name}.sum({tuple(rng.sample(range(nd), 2))}{kd})"
    if choice in ("amax", "amin"):
        return f"{name}.{choice}({d}{kd})"
    if choice in ("std", "var"):
        c = rng.choice([0, 1, 1, 2])
        if r < 0.4:
            return f"{name}.{choice}()"
        return f"{name}.{choice}({d}, correction={c}{kd})"
    if choice == "logsumexp":
        return f"{name}.logsumexp({d}{kd})"
    return f"{name}.{choice}({d})"  # softmax, log_softmax, cumsum, cumprod


def index_expr(rng, shape: tuple, other_names) -> str:
    """A subscript for a tensor of ``shape``: ints, slices, None, Ellipsis, tensors, masks."""
    nd = len(shape)
    r = rng.random()
    if nd == 0:
        return rng.choice(["...", "None", "()", "0"])
    if r < 0.08 and other_names:
        return f"{rng.choice(other_names)} > 0"  # boolean mask (needs the same shape)
    if r < 0.16:
        k = rng.randrange(1, 4)
        vals = [rng.randrange(-shape[0], shape[0]) if shape[0] else 0 for _ in range(k)]
        return f"torch.tensor({vals})"
    parts = []
    for k in range(rng.randrange(1, nd + 1)):
        s = shape[k]
        c = rng.random()
        if c < 0.35 and s:
            parts.append(repr(rng.randrange(-s, s)))
        elif c < 0.45:
            parts.append("None")
        elif c < 0.5 and k == 0:
            parts.append("...")
        elif c < 0.53:
            parts.append(repr(s + 1))  # out of range: torch's IndexError
        else:
            a = rng.randrange(0, s + 1)
            b = rng.randrange(a, s + 2)
            step = rng.choice(["", "", ":2"])
            parts.append(f"{a}:{b}{step}")
    return ", ".join(parts)


def view_expr(rng, name: str, t, others) -> tuple[str, str] | None:
    """(kind, source) of a view (or view-like op) of ``name``."""
    shape = tuple(t.shape)
    nd = len(shape)
    n = t.numel()
    c = rng.choice(
        [
            "getitem",
            "getitem",
            "getitem",
            "view",
            "reshape",
            "transpose",
            "t",
            "permute",
            "expand",
            "narrow",
            "unbind",
            "squeeze",
            "unsqueeze",
            "select",
            "split",
            "chunk",
            "flatten",
            "T",
            "mT",
            "real",
            "imag",
            "view_as",
            "expand_as",
            "diagonal",
            "movedim",
            "unflatten",
            "swapaxes",
            "detach",
        ]
    )
    d = _dims(rng, nd)
    if c == "getitem":
        return (
            c,
            f"{name}[{index_expr(rng, shape, [o for o, ot in others if tuple(ot.shape) == shape])}]",
        )
    if c in ("view", "reshape"):
        opts = [(-1,), (n,)] + [(a, -1) for a in (1, 2, 3) if n and n % a == 0]
        if n == 1:
            opts.append(())
        if n == 0:
            opts += [(0, 1), (1, 0)]
        return c, f"{name}.{c}{rng.choice(opts)!r}".replace(",)", ")")
    if c == "transpose":
        return c, f"{name}.transpose({d}, {_dims(rng, nd)})"
    if c in ("t", "T", "mT"):
        return c, f"{name}.t()" if c == "t" else f"{name}.{c}"
    if c == "permute":
        p = list(range(nd))
        rng.shuffle(p)
        return c, f"{name}.permute({', '.join(map(str, p))})" if p else f"{name}.permute(())"
    if c == "expand":
        size = [rng.choice([2, 3]) if s == 1 else (-1 if rng.random() < 0.3 else s) for s in shape]
        lead = [2] if rng.random() < 0.4 else []
        return c, f"{name}.expand{tuple(lead + size)!r}".replace(",)", ")").replace("()", "([])")
    if c == "narrow":
        if nd == 0:
            return None
        k = rng.randrange(nd)
        start = rng.randrange(0, shape[k] + 1)
        return c, f"{name}.narrow({k}, {start}, {rng.randrange(0, shape[k] - start + 2)})"
    if c == "unbind":
        return c, f"{name}.unbind({d})"
    if c == "squeeze":
        return c, f"{name}.squeeze()" if rng.random() < 0.5 else f"{name}.squeeze({d})"
    if c == "unsqueeze":
        return c, f"{name}.unsqueeze({rng.randrange(-nd - 1, nd + 1)})"
    if c == "select":
        if nd == 0 or not shape[d]:
            return None
        return c, f"{name}.select({d}, {rng.randrange(-shape[d], shape[d])})"
    if c == "split":
        return c, f"{name}.split({rng.choice([1, 2])}, {d})"
    if c == "chunk":
        return c, f"{name}.chunk({rng.choice([1, 2, 3])}, {d})"
    if c == "flatten":
        return c, f"{name}.flatten()"
    if c in ("real", "imag"):
        return c, f"{name}.{c}"
    if c in ("view_as", "expand_as"):
        cands = [o for o, ot in others if (ot.numel() == n if c == "view_as" else True)]
        if not cands:
            return None
        return c, f"{name}.{c}({rng.choice(cands)})"
    if c == "diagonal":
        return c, f"{name}.diagonal()"
    if c == "movedim":
        return c, f"{name}.movedim({d}, {_dims(rng, nd)})"
    if c == "unflatten":
        if nd == 0 or shape[d] % 2:
            return None
        return c, f"{name}.unflatten({d}, (2, -1))"
    if c == "swapaxes":
        return c, f"{name}.swapaxes({d}, {_dims(rng, nd)})"
    return c, f"{name}.detach()"


def inplace_stmt(rng, name: str, t, operand: str | None) -> tuple[str, str]:
    """(kind, statement) modifying ``name`` in place; ``operand`` is a broadcastable source."""
    c = rng.random()
    shape = tuple(t.shape)
    if c < 0.3 and operand is not None:
        op = rng.choice(INPLACE_BINARY)
        return op, f"{name}.{op}({operand})"
    if c < 0.45 and operand is not None:
        aug = rng.choice(AUGMENTED)
        return "aug" + aug, f"{name} {aug} {operand}"
    if c < 0.6:
        op = rng.choice(INPLACE_UNARY)
        return op, f"{name}.{op}()"
    if c < 0.68:
        lo = rng.choice([-1.0, 0.0])
        return "clamp_", f"{name}.clamp_({lo}, {lo + 1.5})"
    if c < 0.74:
        return "fill_", f"{name}.fill_({rng.choice([0.5, 2, -1.0])})"
    if c < 0.8:
        return "masked_fill_", f"{name}.masked_fill_({name} > 0, {rng.choice([0.0, 1.5])})"
    if c < 0.86:
        via = rng.choice(["detach()", "data"])
        return "via_" + via.rstrip("()"), f"{name}.{via}.mul_(2)"
    # setitem: a scalar or a tensor into an indexed region
    idx = index_expr(rng, shape, [])
    val = (
        operand
        if (operand is not None and rng.random() < 0.5)
        else repr(rng.choice([5.0, 0, -1.5]))
    )
    return "setitem", f"{name}[{idx}] = {val}"
