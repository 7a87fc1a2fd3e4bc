"""The op registry: each primitive is one ``defop`` row holding its forward, its backward (VJP)
rule per input and its forward-mode (JVP) rule, side by side.

Rules are written against an array namespace ``xp`` and operators only, so the same rule runs
on raw arrays (NumPy/CuPy; the fast first-order path) and on Tensors (``create_graph=True``,
where ``xp`` is :data:`TXP`, a NumPy-named namespace of differentiable ops).

    rule(xp, g, *inputs, out, p) -> gradient for one input, in the broadcast shape
    jvp(xp, tangents, inputs, out, p) -> tangent of the output

``inputs`` are the op's inputs (``None`` where the row does not save them), ``out`` the result
(``None`` unless the row saves ``"result"``), ``p`` the op's parameters (a dict or ``None``).
The engine reduces each gradient to its input's shape and dtype (a complex gradient reaching a
real input keeps its real part: torch's ``handle_r_to_c``).

Complex tensors (``complex=`` of each row, torch's conjugate Wirtinger convention): the gradient
of a real loss ``L`` with respect to ``z`` is ``conj(dL/dz) = dL/dx + i dL/dy``, so a
holomorphic row's VJP is ``g * conj(f'(z))`` where a real rule is ``g * f'(x)``.
``complex=HOLOMORPHIC`` rows keep one rule, written for the real case (``g * f'(x)``, the
transposed Jacobian without conjugation), and a complex result records the row's *complex
twin*, whose rules run on the conjugated inputs, result and parameters (= ``g * conj(f'(z))``,
by Schwarz reflection): real tensors never run a ``conj``. ``AS_WRITTEN`` rows are correct for complex as they stand (linear maps with
real coefficients, and rows written in torch's convention such as ``abs``); a :class:`Refuse`
raises torch's error for complex tensors. JVP rules need no twin: a holomorphic tangent is
``f'(z) t`` as for reals; rows from complex to real write their JVP with the conjugate.

Where a JVP follows from the row's other rules it is derived, as torch's derivatives.yaml
derives it (``result: auto_element_wise`` / ``auto_linear``), not written a second time:
``jvp=AUTO_ELEMENT_WISE`` (one input, a diagonal Jacobian) runs the VJP rule on the tangent,
``jvp=AUTO_LINEAR`` (an op linear in its inputs) runs the forward on the tangents.
"""

from __future__ import annotations

import dis
from types import MappingProxyType

from ..autograd.node import make_node_class
from .derive import dtype_checked, element_wise_jvp, linear_jvp

OPS: dict[str, OpDef] = {}
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


#: jvp=: torch's ``auto_element_wise``: the row maps each element of its one input to one
#: element of its output (a diagonal Jacobian, which is its own transpose), so its JVP is its
#: VJP rule run on the tangent. In torch's convention that is ``conj(vjp(conj(t)))``
#: (``vjp(g) = g * conj(f'(z))`` gives ``f'(z) t``); a HOLOMORPHIC row's rule is written in the
#: real convention (``g * f'(z)``), so it runs on the tangent as it stands (see
#: :func:`.derive.element_wise_jvp`). Valid for real rows and holomorphic complex ones (not for
#: ``abs``/``sgn``/``angle``, whose complex Jacobian is not complex-linear).
AUTO_ELEMENT_WISE = _Marker("AUTO_ELEMENT_WISE")
#: jvp=: torch's ``auto_linear``: the row is linear (over the reals) in its tensor inputs, every
#: one differentiable, so its JVP is its forward run on the tangents.
AUTO_LINEAR = _Marker("AUTO_LINEAR")


#: batch=: the JVP rule is elementwise with broadcasting: it runs unchanged on tangents that
#: carry a leading batch axis once each is padded to the output's rank (see jupyter_autograd._batching).
ELEMENTWISE = _Marker("ELEMENTWISE")
#: batch=: the row only reshapes (view, squeeze, unsqueeze): a batch of tangents is reshaped to
#: the output's shape behind the batch axis.
RESHAPE = _Marker("RESHAPE")


class ShiftDims:
    """batch=: the row's JVP rule runs unchanged on a batch of tangents once its dimension
    parameters ``p[key]`` (an int, a sequence of ints, or None for every dimension) are moved
    past the leading batch axis (``sum.dim_IntList``, ``transpose.int``, ``select.int``)."""

    __slots__ = ("keys",)

    def __init__(self, *keys: str) -> None:
        self.keys = keys

    def __repr__(self) -> str:
        return f"ShiftDims{self.keys!r}"


#: complex=: the VJP rules are holomorphic in every input (see the module docstring).
HOLOMORPHIC = _Marker("HOLOMORPHIC")
#: complex=: the rules hold for complex tensors as written.
AS_WRITTEN = _Marker("AS_WRITTEN")

# torch's C++ names of the complex dtypes, as its kernel errors print them
_CPP_NAMES = {
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
    "bool": "Bool",
    "int8": "Char",
    "uint8": "Byte",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
}


class Refuse:
    """``complex=``: torch refuses complex tensors for this row. ``message`` is a string
    (``{dtype}`` becomes ``ComplexFloat``/``ComplexDouble``) or ``message(p, out) -> str``;
    ``autograd_only``: torch computes the forward and refuses only a result that requires grad
    (ops outside its complex-autograd allow list); ``empty``: the refusal of an empty result,
    where torch's kernel returns before its dtype dispatch (softmax's autograd refusal);
    ``first``: torch refuses before it broadcasts the inputs (a check ahead of its kernel).

    As ``integral=``/``bools=`` (a kernel without an integral or bool loop) the dtype judged is
    the common dtype of the tensor inputs numbered ``on`` (None: all of them), and
    ``when(args, p)``, if given, says whether the refusal applies to these arguments at all
    (clamp's kernel only runs with both bounds, dropout's only in training)."""

    __slots__ = ("autograd_only", "empty", "exc", "first", "message", "on", "when")

    def __init__(
        self,
        exc,
        message,
        autograd_only: bool = False,
        empty: Refuse | None = None,
        first: bool = False,
        on: tuple | None = None,
        when=None,
    ) -> None:
        self.exc = exc
        self.message = message
        self.autograd_only = autograd_only
        self.empty = empty
        self.first = first
        self.on = on
        self.when = when

    def error(self, p, out) -> Exception:
        m = self.message
        if not isinstance(m, str):
            m = m(p, out)
        return self.exc(m.format(dtype=_CPP_NAMES.get(out.dtype.name, out.dtype.name)))

    def __repr__(self) -> str:
        return f"Refuse({self.exc.__name__}, {self.message!r})"


def kernel_refuses(kernel: str, **kw) -> Refuse:
    """torch's dispatch error for a kernel without a loop for the dtype (complex, integral or
    bool); ``kw`` as :class:`Refuse`'s."""
    return Refuse(NotImplementedError, f"\"{kernel}\" not implemented for '{{dtype}}'", **kw)


def no_complex_autograd(name: str) -> Refuse:
    """torch's error for an op outside its complex-autograd allow list (gen_variable_type.py)."""
    return Refuse(
        RuntimeError,
        f"{name} does not support automatic differentiation for outputs with complex dtype.",
        autograd_only=True,
    )


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
        "batch",
        "cfwd",
        "complex",
        "cx",
        "defaults",
        "differentiable",
        "doc",
        "fwd",
        "inputs",
        "jvp",
        "jvp_from",
        "n_out",
        "name",
        "node_cls",
        "node_name",
        "none_inputs",
        "sample",
        "save_inputs",
        "save_layout",
        "save_needs",
        "save_plans",
        "save_result",
        "saved",
        "saved_after",
        "saved_params",
        "saved_spec",
        "simple",
        "smooth",
        "torch",
        "variadic",
        "vjp",
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
    variadic: bool = False,
    doc: str = "",
    complex=None,
    cfwd=None,
    integral=None,
    bools=None,
    layout: tuple = (),
    reads: tuple | None = None,
    batch=None,
    saved_outputs: tuple = (),
) -> OpDef:
    """Declare one primitive.

    Args:
        name: registry key, torch's op name plus overload (``"sum.dim"``).
        node: the grad_fn class name torch uses (``"SumBackward1"``).
        fwd: ``fwd(xp, *arrays, p) -> array``.
        vjp: one rule per input (see module docstring), or NO_GRAD / NOT_IMPLEMENTED /
            UNDEFINED_GRAD.
        jvp: forward-mode rule ``jvp(xp, tangents, inputs, out, p)``; tangents are zeros where
            an input has none. :data:`AUTO_ELEMENT_WISE` or :data:`AUTO_LINEAR` derive it
            from the VJP rule or the forward (torch's auto_element_wise / auto_linear); the
            marker stays readable as ``op.jvp_from``.
        inputs: torch's argument names of the tensor inputs (``("self", "mat2")``).
        saved: the ``_saved_*`` attributes torch shows, in torch's order; an input name or
            ``"result"`` keeps that value for the rule (``"LU:result"`` names it as torch does,
            ``"S:result.1"`` names one result of a row with several); ``"<input>_sym_sizes"`` exposes a shape;
            any other name is read from the op's parameters.
        saved_outputs: the saved parameters that are results of torch's op (max(dim)'s
            ``indices``; ``result1``... are by their name): torch saves them after its kernel
            ran, so saved-tensor hooks see them after the saved inputs.
        reads: per rule, the inputs it reads (-1: the result) and the saved parameters (by
            name) it needs, where the rule's code does not say (a marker that still unpacks what torch saved: vector_norm of order 0).
        layout: ``(rule, input)`` pairs where that input's rule reads that input only for its
            memory layout (mm's gradients follow their operand's): the input is then neither
            saved nor version-checked for that rule (as torch, which saves strides), its array
            is kept for the layout.
        smooth: whether second derivatives exist everywhere on the sample domain.
        sample: ``sample(rng) -> list of cases`` for the registry-driven tests.
        torch: ``torch(torch_module, *tensors, **params)`` computing the same with PyTorch.
        complex: HOLOMORPHIC, AS_WRITTEN or a :class:`Refuse` (see the module docstring);
            None (undeclared) refuses complex results as torch refuses ops outside its
            complex-autograd allow list.
        cfwd: the forward run again for a complex result, where torch's complex kernel
            computes otherwise than NumPy (add's ``a + alpha * b`` multiplies by a complex alpha).
        integral: a :class:`Refuse` raised when the first tensor input is of an integer or bool
            dtype (torch's kernel has no integral loop: ``"mse_cpu" not implemented for 'Long'``);
        bools: likewise for a bool input only (``Boolean inputs not supported for relu``).
        batch: how the JVP rule runs on a batch of tangents (a leading axis, as ``jacfwd``
            passes its basis): :data:`ELEMENTWISE`, :data:`RESHAPE`, :class:`ShiftDims`, or
            ``batch(xp, tangents, inputs, out, p)``
            taking tangents with a leading batch axis (``None``-free: unbatched ones have
            their input's shape) and returning the batched output tangent; None (undeclared):
            the rule runs once per batch element (see jupyter_autograd._batching);
            a row with ``jvp=AUTO_ELEMENT_WISE`` is :data:`ELEMENTWISE` unless it says otherwise.
    """
    if name in OPS:
        raise ValueError(f"op {name!r} registered twice")
    op = OpDef()
    op.name = name
    op.node_name = node
    op.fwd = (
        fwd
        if integral is None and bools is None
        else dtype_checked(fwd, integral, bools, None if variadic else len(inputs) + 1)
    )
    op.vjp = tuple(vjp) if isinstance(vjp, (tuple, list)) else (vjp,)
    op.variadic = variadic
    if not variadic and len(op.vjp) != len(inputs):
        raise ValueError(f"op {name!r}: {len(op.vjp)} vjp rules for {len(inputs)} inputs")
    op.inputs = tuple(inputs)
    op.jvp_from = jvp if jvp is AUTO_ELEMENT_WISE or jvp is AUTO_LINEAR else None
    if jvp is AUTO_ELEMENT_WISE:
        if variadic or n_out != 1 or len(op.vjp) != 1 or op.vjp[0].__class__ is _Marker:
            raise ValueError(
                f"op {name!r}: AUTO_ELEMENT_WISE needs one differentiable input and one output"
            )
        jvp = element_wise_jvp(op.vjp[0], conj=complex is AS_WRITTEN)
        if batch is None:
            batch = ELEMENTWISE
    elif jvp is AUTO_LINEAR:
        if variadic or any(r is NO_GRAD for r in op.vjp):
            raise ValueError(f"op {name!r}: AUTO_LINEAR needs every input differentiable")
        jvp = linear_jvp(fwd, len(op.vjp))
    op.jvp = jvp
    spec = {}
    defaults = {}
    clean = []
    for s in saved:
        if "=" in s:
            s, dflt = s.split("=", 1)
            defaults[s] = eval(dflt, {})
        ours = None
        if ":" in s:  # torch's name for one of our results: "LU:result", "S:result.1"
            s, ours = s.split(":", 1)
        clean.append(s)
        if ours is not None:
            spec[s] = ("result", 0) if ours == "result" else ("output", int(ours.split(".")[1]))
        elif s in inputs:
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
    op.save_result = any(k in ("result", "output") for k, _ in spec.values())
    # saved values kept in the node's parameters: torch saves some of them as tensors (gather's
    # index, max(dim)'s indices), which backward frees like the saved inputs
    op.saved_params = tuple(s for s in saved if spec[s][0] == "param")
    op.saved_after = frozenset(
        s for s in op.saved_params if s in saved_outputs or s[:6] == "result" and s[6:].isdigit()
    )
    op.none_inputs = (None,) * len(inputs)
    # As torch's generated code, a node keeps a saved value only when the gradient of an input
    # that requires grad reads it (``x * 2`` does not keep x): save_needs maps each saved input
    # index (-1: the result) to the inputs whose rules read it.
    n_in = len(inputs)
    if variadic:
        op.save_needs = {i: frozenset(range(n_in)) for i in op.save_inputs}
        if op.save_result:
            op.save_needs[-1] = frozenset(range(n_in))
    else:
        reads = (
            [frozenset(r) for r in reads]
            if reads is not None
            else [_rule_reads(r, n_in) for r in op.vjp]
        )
        for j, i in layout:
            reads[j] = reads[j] - {i}
        # torch guards a saved input by the one formula that reads it; one that several
        # formulas read, and the result, are saved whenever the node exists
        every = frozenset(range(n_in))
        op.save_needs = {}
        for i in op.save_inputs:
            users = frozenset(j for j, rd in enumerate(reads) if i in rd)
            op.save_needs[i] = every if len(users) > 1 else users
        if op.save_result:
            users = frozenset(j for j, rd in enumerate(reads) if -1 in rd)
            op.save_needs[-1] = every if users else users
        # a saved parameter named in ``reads`` is kept by the same rule (torch's index_add
        # keeps index for source's gradient only); one named nowhere whenever the node exists
        for key in op.saved_params:
            users = frozenset(j for j, rd in enumerate(reads) if key in rd)
            if users:
                op.save_needs[key] = every if len(users) > 1 else users
    op.save_layout = {i: frozenset(j for j, k in layout if k == i) for _, i in layout}
    # what a node keeps for each set of inputs with an edge, derived from save_needs once per
    # set by the engine's node builder (autograd.engine.save_plan)
    op.save_plans = {}
    op.smooth = smooth
    op.sample = sample
    op.torch = torch
    op.n_out = n_out
    op.doc = doc
    op.differentiable = _AllTrue() if variadic else tuple(r is not NO_GRAD for r in op.vjp)
    op.simple = n_out == 1 and not variadic  # the engine's first-order fast path applies
    op.node_cls = make_node_class(node, op, tuple(saved))
    op.complex = complex
    op.cfwd = cfwd
    op.batch = batch
    if complex is HOLOMORPHIC:
        op.cx = _complex_twin(op)
    elif complex is AS_WRITTEN:
        op.cx = op
    elif isinstance(complex, Refuse):
        op.cx = complex
    elif complex is None:
        op.cx = no_complex_autograd(name.split(".")[0].lstrip("_"))
    else:
        raise ValueError(f"op {name!r}: complex={complex!r}")
    OPS[name] = op
    return op


def _conj_rule(rule):
    """A real-convention rule ``g * f'(z)`` as torch's ``g * conj(f'(z))``: the rule run on the
    conjugated inputs, result and complex parameters. Rules are built from real-coefficient
    functions (Schwarz reflection: ``h(conj z) = conj(h(z))``), so this is ``g * conj(h(z))``
    with torch's own operands (``grad * other.conj()``, ``grad * result.conj()``) and its
    signed zeros."""
    if rule.__class__ is _Marker:
        return rule

    def cx_rule(xp, g, *args):
        if xp.is_txp:  # create_graph: the same values, with torch's conj over the derivative
            return xp.twin_rule(rule, g, args, on_conjugated)
        return on_conjugated(xp, g, *args)

    def on_conjugated(xp, g, *args):
        *ins, out, p = args
        ins = [_conj_operand(xp, x) for x in ins]
        if p is not None:
            p = {k: v.conjugate() if isinstance(v, complex) else v for k, v in p.items()}
        if isinstance(out, (tuple, list)):  # a multi-output row's results
            out = type(out)(_conj_operand(xp, o) for o in out)
        else:
            out = _conj_operand(xp, out)
        return rule(xp, g, *ins, out, p)

    cx_rule.__name__ = f"conj_{getattr(rule, '__name__', 'rule')}"
    return cx_rule


def _conj_operand(xp, x):
    if x is None:
        return None
    if isinstance(x, complex):
        return x.conjugate()
    if xp.iscomplexobj(x):
        return xp.conj(x)
    return x


def _complex_twin(op: OpDef) -> OpDef:
    """The row a complex result records: same name, node name and saved values, conjugated
    rules; its node class subclasses the row's (isinstance checks hold for both)."""
    twin = OpDef()
    for k in OpDef.__slots__:
        if k != "cx":
            setattr(twin, k, getattr(op, k))
    twin.vjp = tuple(_conj_rule(r) for r in op.vjp)
    cls = type(op.node_name, (op.node_cls,), {"_op": twin})
    cls.__module__ = "builtins"
    cls.__qualname__ = op.node_name
    twin.node_cls = cls
    twin.cx = twin
    return twin


_LOADS = frozenset(
    {
        "LOAD_FAST",
        "LOAD_DEREF",
        "LOAD_CLOSURE",
        "LOAD_FAST_CHECK",
        "LOAD_FAST_AND_CLEAR",
        "LOAD_FAST_LOAD_FAST",
    }
)


def _rule_reads(rule, n_in: int) -> frozenset:
    """Which of ``rule(xp, g, *inputs, out, p)``'s inputs (index, -1 for ``out``) its code reads:
    every one for anything but a plain function of that signature (a safe over-estimate)."""
    everything = frozenset(range(-1, n_in))
    if isinstance(rule, _Marker):
        return frozenset()
    code = getattr(rule, "__code__", None)
    if code is None or code.co_argcount != n_in + 4 or code.co_flags & 0x0C:  # *args, **kw
        return everything
    names = code.co_varnames[2 : 2 + n_in + 1]  # the inputs, then out
    read = set()
    for ins in dis.get_instructions(code):
        if ins.opname in _LOADS:
            vals = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
            read.update(v for v in vals if v in names)
    if rule.__closure__ is None and any(n in code.co_cellvars for n in names):
        return everything
    return frozenset(i if i < n_in else -1 for i, n in enumerate(names) if n in read)


def node_class(name: str) -> type:
    """The grad_fn class for a registry row (for isinstance checks in tests and the graph view)."""
    return OPS[name].node_cls
