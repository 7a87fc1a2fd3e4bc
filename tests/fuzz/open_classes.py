"""Classes of mismatch that are known and still open, which the generator steers around.

Each entry is a root cause (not a case), with its owner (the stream fixing it) and a minimal
reproducer that mismatches while the class is open. ``test_open_classes_are_still_open`` runs
every reproducer: when one stops mismatching the class is fixed and its entry must go, so the
fuzzer covers that ground again. The goal is an empty list.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class M:
    """Recognises a class's mismatches: every given regex must match the step's kind, its
    source, the program's source, torch's observed value or ours (as repr; ``re.search``), and
    the differing field (``re.fullmatch``: "grad" is not "grad_fn")."""

    kind: str = ""
    src: str = ""
    field: str = ""
    torch: str = ""
    ours: str = ""
    prog: str = ""  # searched in the whole program's source
    raised: bool | None = None  # whether torch raised in the step (None: either)

    def __call__(self, program, step, m) -> bool:
        if step is None and (self.kind or self.src):
            return False
        if self.prog and re.search(self.prog, program.source()) is None:
            return False
        if self.raised is not None and m.raised is not self.raised:
            return False
        if self.field and re.fullmatch(self.field, m.field) is None:
            return False
        return all(
            re.search(rx, text) is not None
            for rx, text in ((self.kind, step.kind if step else ""), (self.src, step.src if step else ""),
                             (self.torch, repr(m.theirs)), (self.ours, repr(m.ours)))
            if rx
        )


@dataclass(frozen=True)
class Open:
    owner: str  # stream: complex / views / defects / lead
    reason: str  # the root cause, one line
    repro: tuple  # program steps (source against ``torch``) that mismatch while open
    # mismatches of this class, recognised by the comparator: match(program, step, mismatch)
    # -> bool (or a tuple of such);
    # None where the generator steers around the class instead (it checks is_open(key))
    match: Callable | None = None


OPEN: dict[str, Open] = {
    # ---------------------------------------------------------------- complex (stream complex)
    "conj-view-values": Open(
        "views",
        "conj() of a complex tensor is a view that shares its base's version counter, but its "
        "values are a copy (NumPy cannot alias a conjugate): an in-place change of the base "
        "does not show through it (torch's conj is a lazy view)",
        ("x = torch.tensor([1 + 1j])", "c = x.conj()", "x.add_(1.0)"),
        M(field="value", prog=r"conj\("),
    ),
    "grad-views-share-version": Open(
        "views",
        "gradients torch returns as views of another gradient (autograd.grad of torch.complex's "
        "inputs and output: the real input's gradient is the real part of the output's) are "
        "separate tensors here: an in-place change of one does not move the other's version",
        ("x1 = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)",
         "x2 = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)",
         "t3 = torch.complex(x1, x2)", "t6 = +t3",
         "t11 = torch.autograd.grad(t6, [x1, t3], grad_outputs=torch.tensor([1j]))",
         "t12 = t11[0]", "t12[...] = -1.5"),
        M(field="_version", prog=r"autograd\.grad"),
    ),
    "custom-mark-dirty": Open(
        "views",
        "custom Function with ctx.mark_dirty (narrowed): a non-leaf that retains grad and is "
        "modified by it loses its .grad in torch (ours keeps it); on a size-0 view of a non-leaf "
        "torch rebases the base with CopySlices, ours does not",
        ("x = torch.tensor([[1.0, 1.0]], requires_grad=True)", "t = torch.sigmoid(x)",
         "t.retain_grad()", "t.sum().backward()", "u = AddOneInplace.apply(t)"),
        M(kind="custom:AddOneInplace", field=r"grad|grad_fn"),
    ),
    "dtype-support": Open(
        "fuzz",
        "(narrowed) kernels torch has no integral/bool loop for, which run here: "
        "binary_cross_entropy_with_logits of integers (log_sigmoid_cpu), native_layer_norm of "
        "integers/bool (LayerNormKernelImpl), addmm and logaddexp2 of bool, native_dropout of "
        "bool (result type Float can't be cast to Bool); amin of complex refuses (torch: only "
        "its autograd does)",
        ("x = torch.ones(3, dtype=torch.bool)", "y = torch.logaddexp2(x, x)"),
        M(field=r"raised\(only (torch|ours)\)",
          torch="not implemented for|None|can't be cast to the desired output type",
          ours="None|not implemented for"),
    ),
    "strided-checks": Open(
        "fuzz",
        "(narrowed) torch checks that depend on the strides of an empty gradient: a non-empty "
        "mean's gradient is a 0-stride broadcast here (torch divides the expanded gradient: a "
        "fresh contiguous tensor), so a sum's expansion of it into an empty tensor keeps 0 "
        "strides and view_as_real's backward refuses where torch does not",
        ("x = torch.zeros(3, 0, dtype=torch.complex64, requires_grad=True)",
         "torch.view_as_real(x).sum(1).mean().backward()"),
        M(field=r"raised\(only (torch|ours)\)", torch="with stride 1|None", ours="with stride 1|None"),
    ),
    "error-messages": Open(
        "fuzz",
        "(narrowed) error messages still worded otherwise or checked in another order than "
        "torch's: index_put checks the dtypes before the shapes, and names NumPy's shapes; "
        "comparisons of complex64 with a Python complex name ComplexDouble; bitwise/floor-div "
        "refuse the dtype before they broadcast; binary_cross_entropy_with_logits of bool; a "
        "backward into a leaf moved into the graph interior; amax of complex refuses in the "
        "kernel (torch: no complex autograd); matmul's folded dtype message; lerp's argument "
        "parsing; the method form's argument positions",
        ("x = torch.ones(3)", "x[torch.tensor([0])] = torch.ones(2, dtype=torch.float64)"),
        M(field=r"raised\((message|type)\)"),
    ),
    "higher-order-graph-shape": Open(
        "lead",
        "(narrowed) gradients computed with create_graph=True record torch's formulas (Scalar "
        "overloads, the backward ops tanh_backward, threshold_backward, _softmax_backward_data... "
        "as rows of their own) except: native_layer_norm's (torch's native_layer_norm_backward "
        "is one op with its own double backward, NativeLayerNormBackwardBackward0, one node for "
        "the three gradients; here the rule's formula is recorded op by op: "
        "tests/test_higher_order_graph.py STILL_DIFFERENT); complex inputs of HOLOMORPHIC rows "
        "(the complex twin conjugates the operands, ConjBackward0 under AddBackward1 where "
        "torch's formula conjugates the result: atan's grad / (self * self + 1).conj()); and the "
        "first .grad of a leaf under backward(create_graph=True), torch's CopyBackwards has two "
        "edges (None for the destination, the source), ours one",
        ("x = torch.tensor([[1.0, 2.0, 4.0]], requires_grad=True)",
         "y = torch.nn.functional.layer_norm(x, (3,)).pow(3).sum()",
         "(g,) = torch.autograd.grad(y, [x], create_graph=True)"),
        (M(kind="autograd.grad|unpack|read_grad|backward", field=r"(hook-log\.)?grad_fn",
           prog="layer_norm"),
         M(kind="autograd.grad", src="create_graph=True", field="requires_grad", prog="layer_norm"),
         M(kind="backward", src="create_graph=True", field="grad", prog="layer_norm"),
         M(src="create_graph=True", field=r"hook-log.*requires_grad", prog="layer_norm"),
         M(kind="autograd.grad|unpack|read_grad|backward", field=r"(hook-log\.)?grad_fn",
           prog="complex"),
         M(kind="backward", src="create_graph=True", field=r"hook-log.*grad_fn",
           torch="CopyBackwards")),
    ),
}

# Public names torch has and jupyter_autograd lacks (owner: lead). The generator does not draw
# them; test_missing_api_is_still_missing fails when one appears, so it is removed from here.
MISSING_API: frozenset = frozenset(())


def is_open(key: str) -> bool:
    return key in OPEN


def classifier(program):
    """classify(mismatch) -> the open class it belongs to, or None."""
    def classify(m) -> str | None:
        step = m.step
        s = program.steps[step] if step is not None and 0 <= step < len(program.steps) else None
        for key, entry in OPEN.items():
            matchers = entry.match if isinstance(entry.match, tuple) else (entry.match,)
            if any(f is not None and f(program, s, m) for f in matchers):
                return key
        return None
    return classify
