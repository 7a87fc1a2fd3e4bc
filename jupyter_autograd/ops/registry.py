"""The op registry: each primitive is one ``defop`` row holding its forward, its backward (VJP)
rule per input and its forward-mode (JVP) rule, side by side.

Rules are written against an array namespace ``xp`` and operators only, so the same rule runs
on raw arrays (NumPy/CuPy; the fast first-order path) and on Tensors (``create_graph=True``,
where ``xp`` is :data:`TXP`, a NumPy-named namespace of differentiable ops).

    rule(xp, g, *inputs, out, p) -> gradient for one input, in the broadcast shape
    jvp(xp, tangents, inputs, out, p) -> tangent of the output

``inputs`` are the op's inputs (``None`` where the row does not save them), ``out`` the result
(``None`` unless the row saves ``"result"``), ``p`` the op's parameters (a dict or ``None``).
The engine reduces each gradient to its input's shape and dtype.
"""

from __future__ import annotations

from types import MappingProxyType

from ..autograd.node import make_node_class

OPS: dict[str, "OpDef"] = {}
#: Read-only view of every registered op, keyed by row name (``"mul"``, ``"sum.dim"``...).
REGISTRY = MappingProxyType(OPS)


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: The input is not differentiable (indices, masks, integer arguments).
NO_GRAD = _Marker("NO_GRAD")
#: The derivative exists but is not written yet: backward raises NotImplementedError.
NOT_IMPLEMENTED = _Marker("NOT_IMPLEMENTED")
#: The output is recorded (it has a grad_fn) but backward sends no gradient to this input, as
#: torch's formulas that return an undefined tensor (``linalg.vector_norm(x, 0)``).
UNDEFINED_GRAD = _Marker("UNDEFINED_GRAD")


class _AllTrue(tuple):
    """``differentiable`` of a variadic op (cat, stack): every input, however many."""

    def __iter__(self):
        while True:
            yield True

    def __getitem__(self, i):
        return True


class OpDef:
    """One primitive: forward, per-input VJP rules, JVP rule and test metadata."""

    __slots__ = (
        "name",
        "node_name",
        "fwd",
        "vjp",
        "jvp",
        "inputs",
        "saved",
        "saved_spec",
        "save_inputs",
        "save_result",
        "node_cls",
        "smooth",
        "sample",
        "torch",
        "doc",
        "n_out",
        "differentiable",
        "linear",
        "defaults",
        "variadic",
        "none_inputs",
        "simple",
    )

    def __repr__(self) -> str:
        return f"OpDef({self.name!r}, node={self.node_name!r})"


def defop(
    name: str,
    *,
    node: str,
    fwd,
    vjp,
    jvp=NOT_IMPLEMENTED,
    inputs: tuple = ("self",),
    saved: tuple = (),
    smooth: bool = True,
    sample=None,
    torch=None,
    n_out: int = 1,
    linear: bool = False,
    variadic: bool = False,
    doc: str = "",
) -> OpDef:
    """Declare one primitive.

    Args:
        name: registry key, torch's op name plus overload (``"sum.dim"``).
        node: the grad_fn class name torch uses (``"SumBackward1"``).
        fwd: ``fwd(xp, *arrays, p) -> array``.
        vjp: one rule per input (see module docstring), or NO_GRAD / NOT_IMPLEMENTED /
            UNDEFINED_GRAD.
        jvp: forward-mode rule ``jvp(xp, tangents, inputs, out, p)``; tangents are zeros where
            an input has none.
        inputs: torch's argument names of the tensor inputs (``("self", "mat2")``).
        saved: the ``_saved_*`` attributes torch shows, in torch's order; an input name or
            ``"result"`` keeps that value for the rule; ``"<input>_sym_sizes"`` exposes a shape;
            any other name is read from the op's parameters.
        smooth: whether second derivatives exist everywhere on the sample domain.
        sample: ``sample(rng) -> list of cases`` for the registry-driven tests.
        torch: ``torch(torch_module, *tensors, **params)`` computing the same with PyTorch.
        linear: the op is linear in its (single) tensor input: its JVP is the forward itself.
    """
    if name in OPS:
        raise ValueError(f"op {name!r} registered twice")
    op = OpDef()
    op.name = name
    op.node_name = node
    op.fwd = fwd
    op.vjp = tuple(vjp) if isinstance(vjp, (tuple, list)) else (vjp,)
    op.variadic = variadic
    if not variadic and len(op.vjp) != len(inputs):
        raise ValueError(f"op {name!r}: {len(op.vjp)} vjp rules for {len(inputs)} inputs")
    op.jvp = jvp
    op.inputs = tuple(inputs)
    spec = {}
    defaults = {}
    clean = []
    for s in saved:
        if "=" in s:
            s, dflt = s.split("=", 1)
            defaults[s] = eval(dflt, {})  # noqa: S307 - literal defaults written in this package
        clean.append(s)
        if s in inputs:
            spec[s] = ("input", inputs.index(s))
        elif s == "result":
            spec[s] = ("result", 0)
        elif s.endswith("_sym_sizes") and s[: -len("_sym_sizes")] in inputs:
            spec[s] = ("sizes", inputs.index(s[: -len("_sym_sizes")]))
        else:
            spec[s] = ("param", s)
    saved = tuple(clean)
    op.saved = saved
    op.saved_spec = spec
    op.defaults = defaults
    op.save_inputs = tuple(i for i, n in enumerate(inputs) if n in saved)
    op.save_result = "result" in saved
    op.none_inputs = (None,) * len(inputs)
    op.smooth = smooth
    op.sample = sample
    op.torch = torch
    op.n_out = n_out
    op.linear = linear
    op.doc = doc
    op.differentiable = (
        _AllTrue() if variadic else tuple(r is not NO_GRAD for r in op.vjp)
    )
    op.simple = n_out == 1 and not variadic  # the engine's first-order fast path applies
    op.node_cls = make_node_class(node, op, tuple(saved))
    OPS[name] = op
    return op


def node_class(name: str) -> type:
    """The grad_fn class for a registry row (for isinstance checks in tests and the graph view)."""
    return OPS[name].node_cls
