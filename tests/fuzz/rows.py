"""Registry rows as program steps.

Every ``defop`` row carries ``torch``: a lambda ``(torch, *tensors, **params)`` computing the op
with PyTorch's public API. It never names PyTorch itself, only its first argument, so it is also
a program against jupyter_autograd. This module turns that lambda into source text (its body with
the arguments substituted, via ``ast``), so the program and its reproducer call the public API
(``torch.mm(x0, t3)``) rather than the registry, and draws the row's parameters for given inputs.
"""

from __future__ import annotations

import ast
import copy
import functools

from jupyter_autograd.ops import OPS


@functools.cache
def _module_tree(filename: str) -> ast.Module:
    with open(filename, encoding="utf-8") as f:
        return ast.parse(f.read())


def row_lambda(op) -> ast.Lambda:
    """The ``ast.Lambda`` of ``op.torch`` (located by file, line and argument names)."""
    code = op.torch.__code__
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    if code.co_flags & 0x04:  # *args
        names.append(code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
    for node in ast.walk(_module_tree(code.co_filename)):
        if not isinstance(node, ast.Lambda) or node.lineno != code.co_firstlineno:
            continue
        a = node.args
        got = [x.arg for x in a.args + a.kwonlyargs] + ([a.vararg.arg] if a.vararg else [])
        if got == names:
            return node
    raise LookupError(f"cannot find the source of {op.name}'s torch lambda")


def signature(op) -> tuple[int | None, tuple]:
    """(number of tensor arguments or None for variadic, parameter names) of ``op.torch``."""
    lam = row_lambda(op)
    args = [x.arg for x in lam.args.args]
    # parameters with defaults (``_n=name`` closures, optional arguments) are not drawn
    args = args[: len(args) - len(lam.args.defaults)]
    if lam.args.vararg:
        return None, tuple(x.arg for x in lam.args.kwonlyargs)
    n = len(op.inputs)
    return n, tuple(args[1 + n :]) + tuple(x.arg for x in lam.args.kwonlyargs)


class _Subst(ast.NodeTransformer):
    def __init__(self, mapping: dict) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name):
        if node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        # getattr(obj, "name") -> obj.name
        f = node.func
        if (
            isinstance(f, ast.Name)
            and f.id == "getattr"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            return ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Load())
        return node

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        # ["none", "mean", "sum"][1] -> "mean"
        if (
            isinstance(node.value, (ast.List, ast.Tuple))
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)
            and all(isinstance(e, ast.Constant) for e in node.value.elts)
        ):
            return node.value.elts[node.slice.value]
        return node


def render(op, tensors: list, params: dict) -> str:
    """Source of ``op.torch(torch, *tensors, **params)``: ``tensors`` and the values of ``params``
    are source expressions (variable names, literals)."""
    lam = row_lambda(op)
    a = lam.args
    mapping = {a.args[0].arg: ast.Name(id="torch", ctx=ast.Load())}
    pos = [x.arg for x in a.args[1:]]
    defaults = dict(
        zip(pos[len(pos) - len(op.torch.__defaults__ or ()) :], op.torch.__defaults__ or ())
    )
    if a.vararg:
        elts = [ast.parse(t, mode="eval").body for t in tensors]
        mapping[a.vararg.arg] = ast.Tuple(elts=elts, ctx=ast.Load())
        rest = pos
    else:
        for name, t in zip(pos, tensors):
            mapping[name] = ast.parse(t, mode="eval").body
        rest = pos[len(tensors) :]
    for name in rest + [x.arg for x in a.kwonlyargs]:
        if name in params:
            mapping[name] = ast.parse(params[name], mode="eval").body
        elif name in defaults:
            mapping[name] = ast.Constant(value=defaults[name])
        else:
            raise KeyError(f"{op.name}: no value for parameter {name!r}")
    body = _Subst(mapping).visit(copy.deepcopy(lam.body))
    return ast.unparse(ast.fix_missing_locations(body))


# ---------------------------------------------------------------- parameters of a row
# Parameters are drawn for the actual inputs (their shapes), as source text. ``None`` from a
# drawer means the row does not apply to these inputs.


def _dim(rng, nd):
    return rng.randrange(-nd, nd) if nd else None


def draw_params(op, rng, shapes: list) -> dict | None:
    """Source text for each parameter of ``op.torch`` on inputs of ``shapes``, or None."""
    _, names = signature(op)
    sample = dict((op.sample or {}).get("params", {}))
    shape = shapes[0] if shapes else ()
    nd = len(shape)
    special = _SPECIAL.get(op.name)
    if special is not None:
        return special(rng, shapes)
    out = {}
    for n in names:
        if n == "dim":
            if nd == 0:
                if op.name in ("cat", "stack", "cumsum", "_softmax", "_log_softmax"):
                    out[n] = repr(rng.choice([0, -1]))  # 0-d accepts dim 0 / -1 for these
                    continue
                out[n] = (
                    "None" if "var" in op.name or "std" in op.name or "norm" in op.name else "0"
                )
                continue
            d = _dim(rng, nd + (1 if op.name == "stack" else 0))
            if (
                op.name in ("var.correction", "std.correction", "linalg_vector_norm")
                and rng.random() < 0.3
            ):
                out[n] = "None"
            else:
                out[n] = repr(d)
        elif n == "keepdim":
            out[n] = repr(rng.random() < 0.4)
        elif n == "correction":
            out[n] = repr(rng.choice([0, 1, 1, 2]))
        elif n == "ord":
            out[n] = rng.choice(["2", "1", "3", "float('inf')", "0", "-1"])
        elif n == "reduction":
            out[n] = repr(rng.randrange(3))
        elif n == "approximate":
            out[n] = repr(rng.choice(["none", "tanh"]))
        elif n == "negative_slope":
            out[n] = repr(rng.choice([0.01, 0.2]))
        elif n in ("min", "max"):
            continue  # drawn together below
        elif n == "exponent":
            out[n] = repr(rng.choice([2, 3, 0.5, -1, 2.5, 0]))
        elif n in ("other", "self"):
            out[n] = repr(rng.choice([1.5, 2.0, -0.5, 3]))
        elif n in sample:
            out[n] = repr(sample[n])
        else:
            return None
    if "min" in names:
        lo = rng.choice([-1.0, -0.5, 0.0])
        out["min"] = repr(lo)
        out["max"] = repr(lo + rng.choice([0.5, 1.0, 2.0]))
    return out


def _view(rng, shapes):
    n = 1
    for s in shapes[0]:
        n *= s
    options = [(n,), (-1,)]
    for a in range(1, 7):
        if n and n % a == 0:
            options.append((a, n // a))
            options.append((a, -1))
    if n == 0:
        options += [(0,), (0, 1), (1, 0, -1)]
    if n == 1:
        options += [(), (1, 1)]
    return {"size": repr(rng.choice(options))}


def _transpose(rng, shapes):
    nd = len(shapes[0])
    if nd == 0:
        return {"dim0": "0", "dim1": "-1"}
    return {"dim0": repr(_dim(rng, nd)), "dim1": repr(_dim(rng, nd))}


def _permute(rng, shapes):
    p = list(range(len(shapes[0])))
    rng.shuffle(p)
    return {"dims": repr(tuple(p))}


def _flip(rng, shapes):
    nd = len(shapes[0])
    if nd == 0:
        return {"dims": "(0,)"} if rng.random() < 0.5 else {"dims": "()"}
    k = rng.randrange(1, nd + 1)
    return {"dims": repr(tuple(rng.sample(range(nd), k)))}


def _squeeze_dim(rng, shapes):
    nd = len(shapes[0])
    return {"dim": repr(_dim(rng, nd) if nd else 0)}


def _squeeze_dims(rng, shapes):
    nd = len(shapes[0])
    if nd == 0:
        return {"dim": "(0,)"}
    k = rng.randrange(1, nd + 1)
    return {"dim": repr(tuple(rng.sample(range(nd), k)))}


def _unsqueeze(rng, shapes):
    nd = len(shapes[0])
    return {"dim": repr(rng.randrange(-nd - 1, nd + 1))}


def _expand(rng, shapes):
    shape = list(shapes[0])
    size = [
        (rng.choice([2, 3]) if s == 1 and rng.random() < 0.6 else (-1 if rng.random() < 0.3 else s))
        for s in shape
    ]
    lead = [rng.choice([1, 2])] * rng.randrange(0, 2)
    return {"size": repr(tuple(lead + size))}


def _repeat(rng, shapes):
    nd = len(shapes[0])
    k = nd + rng.randrange(0, 2)
    return {"repeats": repr(tuple(rng.choice([1, 2]) for _ in range(k)))}


def _to_copy(rng, shapes):
    return {
        "dtype": rng.choice(["torch.float32", "torch.float64", "torch.complex64", "torch.int64"])
    }


def _select(rng, shapes):
    shape = shapes[0]
    if not shape:
        return None
    d = rng.randrange(len(shape))
    if shape[d] == 0:
        return None
    return {"dim": repr(d), "index": repr(rng.randrange(-shape[d], shape[d]))}


def _slice(rng, shapes):
    shape = shapes[0]
    if not shape:
        return None
    d = rng.randrange(len(shape))
    start = rng.randrange(0, shape[d] + 1)
    return {
        "dim": repr(d),
        "start": repr(start),
        "end": repr(rng.randrange(start, shape[d] + 2)),
        "step": repr(rng.choice([1, 1, 2])),
    }


def _gather(rng, shapes):
    shape = shapes[0]
    if not shape or 0 in shape:
        return None
    d = rng.randrange(len(shape))
    idx_shape = [rng.randrange(1, s + 1) for s in shape]
    idx_shape[d] = rng.randrange(1, 4)
    n = 1
    for s in idx_shape:
        n *= s
    vals = [rng.randrange(shape[d]) for _ in range(n)]
    return {"dim": repr(d), "index": f"torch.tensor({vals}).reshape({tuple(idx_shape)})"}


def _cumsum(rng, shapes):
    nd = len(shapes[0])
    return {"dim": repr(_dim(rng, nd) if nd else 0)}


def _cat(rng, shapes):
    nd = len(shapes[0])
    return {"dim": repr(_dim(rng, nd) if nd else 0)}


def _stack(rng, shapes):
    nd = len(shapes[0])
    return {"dim": repr(rng.randrange(-nd - 1, nd + 1))}


def _layer_norm(rng, shapes):
    return {"normalized_shape": repr(tuple(shapes[1])), "eps": "1e-05"}


def _embedding(rng, shapes):
    return {"padding_idx": rng.choice(["None", "0"])}


_SPECIAL = {
    "view": _view,
    "_unsafe_view": _view,
    "transpose.int": _transpose,
    "permute": _permute,
    "flip": _flip,
    "squeeze.dim": _squeeze_dim,
    "squeeze.dims": _squeeze_dims,
    "unsqueeze": _unsqueeze,
    "expand": _expand,
    "repeat": _repeat,
    "_to_copy": _to_copy,
    "select.int": _select,
    "slice.Tensor": _slice,
    "gather": _gather,
    "cumsum": _cumsum,
    "cat": _cat,
    "stack": _stack,
    "native_layer_norm": _layer_norm,
    "embedding": _embedding,
}


def fuzzable_rows() -> list:
    """Registry rows with a torch counterpart, in registry order."""
    return [op for op in OPS.values() if op.torch is not None]


# The engine's own row modules: drawn module by module most of the time, so that a core row
# (mm has 4 siblings in linalg) keeps its share however many rows the op families add.
CORE_MODULES = ("elementwise", "reduction", "shape", "linalg", "nn_ops", "loss", "cplx", "rounding")
# modules split off a core module (for length) draw with it, its stratum unchanged
_PART_OF = {"arithmetic": "elementwise", "reduction_basic": "reduction"}


@functools.cache
def _strata() -> tuple:
    core: dict = {}
    rest = []
    for op in fuzzable_rows():
        mod = getattr(op.fwd, "__module__", "").rpartition(".")[2]
        mod = _PART_OF.get(mod, mod)
        if mod in CORE_MODULES:
            core.setdefault(mod, []).append(op)
        else:
            rest.append(op)
    return tuple(core.values()), rest


def draw_row(rng):
    """A fuzzable row: 3 draws in 4 from a core module chosen uniformly, else any other row."""
    core, rest = _strata()
    if not rest or rng.random() < 0.75:
        return rng.choice(rng.choice(core))
    return rng.choice(rest)


def input_shapes(op, rng, base: tuple) -> list | None:
    """Shapes for the row's tensor inputs given the first input's shape, or None."""
    n, _ = signature(op)
    kind = (op.sample or {}).get("kind")
    if n is None:  # cat / stack: same shape (cat: any size along dim)
        return [base] * rng.randrange(1, 4)
    if op.name == "mm":
        return [(2, 3), (3, rng.choice([0, 1, 2]))] if len(base) != 2 else [base, (base[1], 2)]
    if op.name == "mv":
        return [base, (base[1],)] if len(base) == 2 else [(2, 3), (3,)]
    if op.name == "dot":
        return [base, base] if len(base) == 1 else [(3,), (3,)]
    if op.name == "bmm":
        return [base, (base[0], base[2], 2)] if len(base) == 3 else [(2, 2, 3), (2, 3, 1)]
    if op.name == "addmm":
        return [(2,), (3, 4), (4, 2)] if len(base) != 2 else [(base[0], 2), base, (base[1], 2)]
    if op.name == "native_layer_norm":
        if not base:
            return None
        k = rng.randrange(1, len(base) + 1)
        return [base, base[-k:], base[-k:]]
    if op.name == "embedding":
        return [(5, 3)]
    if kind == "where":
        return [base, base, base]
    if n == 1:
        return [base]
    if kind in ("mse", "bce", "bce_logits"):
        return [base, base]
    return [base] * n


def rows_with_lambdas() -> list:
    """(row, (n_tensors, params)) for every fuzzable row; raises if one cannot be read."""
    return [(op, signature(op)) for op in fuzzable_rows()]
