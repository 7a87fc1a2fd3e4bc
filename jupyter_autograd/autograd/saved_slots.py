"""What a registry node saves, as torch's saved variables: the slots saved-tensor hooks pack
(:mod:`.graph`), in torch's order."""

from __future__ import annotations

from .node import is_saved_array


def saved_slots(node):
    """The saved tensors torch would pack for ``node``, in its order: ``("in", i)`` and
    ``("param", name)`` (a tensor torch saves that the row keeps among its parameters: an
    index, a mask, a target) in the order of the row's ``_saved_*`` names, then ``("out", 0)``
    and the parameters that are results of torch's op, in that order too. What is kept is the
    row's own ``save_needs`` (the registry decides it once): an input, the result or a
    parameter is saved when the gradient of an input with an edge reads it (a parameter no
    rule claims whenever the node is)."""
    op = node._op
    from ..ops.registry import OPS

    base = OPS.get(op.name, op)  # a complex twin keeps the row's saved set
    needs = base.save_needs
    fns = node._fns
    p = node._p

    def kept(i):
        return any(j < len(fns) and fns[j] is not None for j in needs.get(i, ()))

    if not any(fns):  # its input requires grad through a no_grad view's base: see save_plan
        from .engine import save_plan

        plan = save_plan(base, 0)

        def kept(i):
            return plan.result if i == -1 else i in plan.inputs

    def array(name):
        if p is None or not is_saved_array(p.get(name)):
            return False
        return name not in needs or kept(name)

    slots = []
    after = op.saved_after
    for name in op.saved:
        kind, idx = op.saved_spec[name]
        if kind == "input" and kept(idx):
            slots.append(("in", idx))
        elif kind == "param" and name not in after and array(name):
            slots.append(("param", name))
    # torch saves the inputs before running the kernel and its results after it
    for name in op.saved:
        kind, idx = op.saved_spec[name]
        if kind in ("result", "output") and kept(-1):
            slots.append(("out", idx))
        elif kind == "param" and name in after and array(name):
            slots.append(("param", name))
    return slots


def op_output_named(node) -> bool:
    """Whether the row names its saved results one by one (``"S:result.1"``)."""
    return any(k == "output" for k, _ in node._op.saved_spec.values())


_GRAPH = []  # autograd.graph, once imported (it imports this module)


def hooks_active() -> bool:
    """Whether saved-tensor hooks are active in this thread: a forward then makes the tensors
    torch saves that its rules do without (max pooling's flat indices, det's LU), for the hooks
    to pack as the node is recorded. Cheap when no block is active anywhere (max pooling asks
    on every call)."""
    if not _GRAPH:
        from . import graph

        _GRAPH.append(graph)
    g = _GRAPH[0]
    return g._ACTIVE[0] > 0 and g.current_hooks() is not None
