"""``jupyter_autograd.autograd``: backward, grad and the graph node types (torch.autograd)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import _errors as E
from .. import _slots
from ..grad_mode import STATE as _GRAD_STATE
from ..grad_mode import (  # noqa: F401 - re-exported as in torch.autograd
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from . import engine as _engine
from .executor import execute
from .node import AccumulateGrad, Node

__all__ = ["AccumulateGrad", "Node", "backward", "grad"]


def _tensors(x):
    Tensor = _engine.Tensor

    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return ()
    return tuple(x)


def _make_grads(outputs, grads, create_graph, is_grads_batched=False):
    """Check or create the seed gradients (torch's _make_grads)."""
    Tensor = _engine.Tensor

    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o._requires_grad:
                if o._data.size != 1:
                    raise RuntimeError(E.ERR_SCALAR_ONLY)
                if o._data.dtype.kind != "f":
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {o.dtype!r}"
                    )
                arr = (
                    np.ones(o._data.shape, o._data.dtype)
                    if o._data.__class__ is np.ndarray
                    else o._data * 0 + 1
                )
                out.append(Tensor._wrap(arr) if create_graph else arr)
            else:
                out.append(None)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g, dtype=o._data.dtype))
        if g._data.shape != o._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {E.size_str(g._data.shape)} and "
                f"output[{i}] has a shape of {E.size_str(o._data.shape)}."
            )
        ok, gk = o._data.dtype.kind, g._data.dtype.kind
        if (ok == "c") != (gk == "c") or (ok == "f" and gk not in "fc"):
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the same "
                f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype!r} and "
                f"output[{i}] has a dtype of {o.dtype!r}."
            )
        if not _engine.same_device(g._data, o._data):
            from .engine import device_mismatch

            raise device_mismatch([o, g])
        if create_graph:
            out.append(g)
        else:
            d = g._data
            if d.dtype != o._data.dtype:
                d = d.astype(o._data.dtype)
            out.append(d)
    return out


def _no_edge(o) -> bool:
    """No gradient edge, so not a backward root: does not require grad, or requires it only
    through its base (a view made under no_grad: torch's requires_grad is True, no grad_fn)."""
    return not o._requires_grad or (o._rg_via_base and o.grad_fn is None)


def _roots(outputs, grads):
    roots, seeds = [], []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if _no_edge(o):
            raise RuntimeError(E.ERR_NO_GRAD_FN.format(i=i))
        if g is None:
            continue
        fn = o.grad_fn
        if fn is None:
            roots.append((o._grad_accumulator(), 0))
        else:
            roots.append((fn, o._output_nr))
        seeds.append(g)
    return roots, seeds


def _input_edges(inputs, retain=False):
    """The inputs' edges, one input at a time as torch's run_backward (``retain``: backward's
    non-leaf inputs retain their gradient, each before the next input is looked at)."""
    edges = []
    for t in inputs:
        if not t._requires_grad:
            # (torch's backward retains the input's gradient before it checks: retain_grad refuses)
            raise RuntimeError(
                "can't retain_grad on Tensor that has requires_grad=False"
                if retain
                else "One of the differentiated Tensors does not require grad"
            )
        fn = t.grad_fn
        if fn is not None and retain:
            # a non-leaf input keeps its gradient (retain_grad), and its node runs (the engine
            # marks it needed) so that the retain hook fires
            t.retain_grad()
        edges.append((fn, t._output_nr) if fn is not None else (t._grad_accumulator(), 0))
    return edges


def backward(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph=False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (torch.autograd.backward).

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> torch.autograd.backward((x * 3).sum())
        >>> x.grad
        tensor([3., 3.])
    """
    if (
        grad_tensors is None
        and grad_variables is None
        and inputs is None
        and not create_graph
        and not retain_graph
        and tensors.__class__ is _engine.Tensor
    ):
        # loss.backward(), every training step: the same checks and seed as below, in one place
        d = tensors._data
        fn = tensors.grad_fn
        if (
            fn is not None
            and d.__class__ is np.ndarray
            and d.size == 1
            and d.dtype.kind == "f"
            and tensors._requires_grad
        ):
            prev = _GRAD_STATE.grad_enabled
            _GRAD_STATE.grad_enabled = False
            try:
                execute([(fn, tensors._output_nr)], [np.ones(d.shape, d.dtype)], False, False)
            finally:
                _GRAD_STATE.grad_enabled = prev
            return
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _tensors(tensors)
    if grad_tensors is None:
        grads = [None] * len(outputs)
    else:
        grads = (
            list(_tensors(grad_tensors))
            if not isinstance(grad_tensors, (list, tuple))
            else list(grad_tensors)
        )
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} gradients for {len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(E.WARN_CREATE_GRAPH, UserWarning, stacklevel=3)
    if inputs is not None:
        ins = _tensors(inputs)
        if len(ins) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    seeds = _make_grads(outputs, grads, create_graph)  # (torch checks the seeds first)
    for i, o in enumerate(outputs):
        if _no_edge(o):
            raise RuntimeError(E.ERR_NO_GRAD_FN.format(i=i))
    roots, seeds = _roots(outputs, seeds)
    if inputs is not None:
        edges = _input_edges(ins, retain=True)
        from ..grad_mode import set_grad_enabled as _sge

        with _sge(create_graph):
            execute(roots, seeds, retain_graph, create_graph, inputs=edges, accumulate=True)
        return
    # backward runs with grad mode = create_graph (set directly: this is every training step)
    prev = _GRAD_STATE.grad_enabled
    _GRAD_STATE.grad_enabled = bool(create_graph)
    try:
        execute(roots, seeds, retain_graph, create_graph)
    finally:
        _GRAD_STATE.grad_enabled = prev


_slots.backward = backward


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated).

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1., 2., 3.], requires_grad=True)
        >>> (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
        >>> g
        tensor([ 3., 12., 27.], grad_fn=<MulBackward0>)
    """
    Tensor = _engine.Tensor

    outs = _tensors(outputs)
    ins = _tensors(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    if grad_outputs is None:
        gos = [None] * len(outs)
    else:
        gos = (
            list(_tensors(grad_outputs))
            if not isinstance(grad_outputs, (list, tuple))
            else list(grad_outputs)
        )
    if len(gos) != len(outs):
        raise RuntimeError(
            f"grad requires one grad_output for each output: got {len(gos)} grad_outputs and {len(outs)} outputs"
        )
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _make_grads(outs, gos, create_graph)
    for i, o in enumerate(outs):
        if _no_edge(o):
            raise RuntimeError(E.ERR_NO_GRAD_FN.format(i=i))
    roots, seeds = _roots(outs, seeds)
    edges = _input_edges(ins)
    from ..grad_mode import set_grad_enabled as _sge

    with _sge(create_graph):
        res = execute(roots, seeds, retain_graph, create_graph, inputs=edges, accumulate=False)
    final = []
    owners: dict = {}  # id(array) -> the Tensor that holds it: grad_outputs, results
    for go in gos:
        if isinstance(go, Tensor):
            owners.setdefault(id(go._data), go)
    for i, (t, g) in enumerate(zip(ins, res)):
        if g is None:
            if materialize_grads:
                from ..factories import zeros_like

                final.append(zeros_like(t))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            final.append(None)
            continue
        if isinstance(g, Tensor):
            final.append(g)
        else:
            if isinstance(g, np.generic):
                g = np.asarray(g)
            r = owners.get(id(g))
            if r is None:
                r = owners[id(g)] = Tensor._wrap(g)
            final.append(r)
    _share_views(final, res, owners)
    return tuple(final)


def _share_views(final, arrays, owners) -> None:
    """torch returns gradients as the engine made them: the grad_outputs tensor itself where it
    flowed through unchanged, and views (of a grad_output, of another result, or of a buffer
    they share: ``torch.complex``'s are the real and imaginary parts of one gradient) that
    share their base's version counter. A result whose array views one of those becomes a
    view of its tensor; results that view one hidden buffer become views of one tensor for it."""
    from .views import make_view

    Tensor = _engine.Tensor
    pending = []  # (result, root array): views of a buffer no tensor holds
    with no_grad():
        for t, g in zip(final, arrays):
            if t is None or isinstance(g, Tensor) or g is None or t._base is not None:
                continue
            a = getattr(g, "base", None)
            root = None
            while a is not None and a.__class__ is np.ndarray:
                owner = owners.get(id(a))
                if owner is not None:
                    if owner is not t:
                        make_view(t, owner)
                    break
                root, a = a, a.base
            else:
                if a is None and root is not None:
                    pending.append((t, root))
        counts: dict = {}
        for _, root in pending:
            counts[id(root)] = counts.get(id(root), 0) + 1
        hidden: dict = {}
        for t, root in pending:
            if counts[id(root)] > 1:  # shared by several results: one tensor for the buffer
                owner = hidden.get(id(root))
                if owner is None:
                    owner = hidden[id(root)] = Tensor._wrap(root)
                make_view(t, owner)


# Higher-order tools (issue 3): custom Functions, checkers, anomaly mode, functional, forward AD
from . import forward_ad, functional, graph, profiler  # noqa: F401  # noqa: E402,F401
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ += [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "detect_anomaly",
    "forward_ad",
    "functional",
    "gradcheck",
    "gradgradcheck",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "once_differentiable",
    "set_detect_anomaly",
]
