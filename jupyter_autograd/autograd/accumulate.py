"""The engine's hooks and gradient accumulation: tensor and node hooks run on the gradients
flowing through a node (checked as torch checks what a hook returns), retain_grad, and
AccumulateGrad's update of a leaf's ``.grad`` (stealing the engine's buffer when nothing else
can see it, as torch does)."""

from __future__ import annotations

import threading

import numpy as np

from .._zerotensor import ERR_IMMUTABLE, ZeroArray
from ..grad_mode import STATE
from .node import AccumulateGrad, Node

_ndarray = np.ndarray
_new_obj = object.__new__
# Accumulating into a shared leaf from several threads must not lose updates (test plan D3).
_ACC_LOCK = threading.RLock()
# Bound by tensor.py once the class exists (tensor.py imports this package first).
Tensor = None


def _as_tensor(g):

    if g is None or isinstance(g, Tensor):
        return g
    return Tensor._wrap(np.asarray(g) if isinstance(g, np.generic) else g)


def _unwrap(g, create_graph):
    if g is None or create_graph:
        return g
    return g._data


def _hook_name(hook) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _type_str(t) -> str:
    """``Tensor::toString()``: the legacy type name; bool and complex types have none, and
    torch falls back to the backend's type name there (``CPUBoolType``, ``CPUComplexFloatType``)."""
    dev = t.device
    if t._data.dtype.kind in "bc":
        return ("CPU" if dev.type == "cpu" else dev.type.upper()) + t.dtype._legacy[:-6] + "Type"
    return ("torch." if dev.type == "cpu" else f"torch.{dev.type}.") + t.dtype._legacy


def _hook_value(original, result, hook):
    """What a hook's return replaces ``original`` with, checked as torch's check_single_result:
    a hook may not change a gradient's type (dtype, device) or size, nor fill a None one."""
    if result is None:
        return original
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    o, r = original._data, result._data
    if o.dtype != r.dtype or o.__class__ is not r.__class__:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was {_type_str(original)} "
            f"got {_type_str(result)})"
        )
    if o.shape != r.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return result


def _hook_values(originals: tuple, result, hook) -> tuple:
    """A node hook's returned tuple, checked as torch's check_result."""
    if result is None:
        return originals
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(originals)})"
        )
    return tuple(_hook_value(o, r, hook) for o, r in zip(originals, result))


def _call_prehooks(node: Node, grads: list, create_graph: bool, node_hooks: bool = True) -> None:
    """Tensor hooks of the node's outputs, retain_grad, then (``node_hooks``) the node's own
    prehooks."""
    tph = node._tensor_prehooks
    if tph:
        for nr, hooks in tph.items():
            if not hooks:
                continue
            g = grads[nr]
            g = None if g is None else _as_tensor(g)  # torch calls them with None too
            for h in list(hooks.values()):
                g = _hook_value(g, h(g), h)
            grads[nr] = None if g is None else _unwrap(g, create_graph)
    retain = node._retain
    if retain:
        for nr, ref in retain.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                g = _as_tensor(grads[nr])
                if t._grad is None:
                    # torch's retain_grad hook keeps a clone (recorded under create_graph)
                    t._grad = g.clone() if create_graph else _as_tensor(g._data.copy())
                else:
                    t._grad = t._grad + g
    pre = node._prehooks
    if pre and node_hooks:
        gt = tuple(_as_tensor(g) for g in grads)
        for h in list(pre.values()):
            gt = _hook_values(gt, h(gt), h)
        grads[:] = [_unwrap(g, create_graph) for g in gt]


def _mark(shared: set, g) -> None:
    """Record that ``g`` (and the array it views) is visible outside the engine's buffers."""
    shared.add(id(g))
    base = getattr(g, "base", None)
    if base is not None:
        shared.add(id(base))


def _like_leaf(leaf, g):
    """A private copy of ``g`` with the leaf's strides: torch's layout contract for ``.grad``."""
    out = np.empty_like(leaf, dtype=g.dtype)
    out[...] = g
    return out


def _steal(var, g, shared: set) -> None:
    """A leaf's first gradient: the engine's array itself unless someone else can see it (a
    seed, a view of one, a hook's or another leaf's array), else a private copy; either way
    with the leaf's strides. Called with _ACC_LOCK held."""
    base = g.base
    ig = id(g)
    if (
        (g.strides != var._data.strides and g.size > 1)
        or ig in shared
        or (base is not None and id(base) in shared)
        or not g.flags.writeable
    ):
        g = _like_leaf(var._data, g)
        copied = True
    else:
        copied = False
        shared.add(ig)
        if base is not None:
            shared.add(id(base))
    t = _new_obj(Tensor)
    t._data = g
    t._requires_grad = False
    if copied:
        t._vc = [1]  # torch's copy is a copy_ into a new tensor (version 1)
    if STATE.inference:
        t._inf = True
    var._grad = t


def _leaf_gone(var) -> bool:
    """torch's AccumulateGrad checks: a leaf given a history since (an in-place op with an
    operand requiring grad) raises; one that no longer requires grad (detach_(),
    requires_grad_(False)) receives nothing."""
    if var._grad_fn is not None:
        raise RuntimeError("leaf variable has been moved into the graph interior")
    return not var._requires_grad


def _sum(old, g):
    """Two gradients for one input, summed as torch's ``old + g``: its complex add computes
    ``a + alpha * b`` with alpha 1+0j, so a nan or inf in ``g`` reaches both parts."""
    if g.__class__ is np.ndarray and g.dtype.kind == "c":
        return old + g * (1 + 0j)
    return old + g


def _accumulate(acc: AccumulateGrad, g, create_graph: bool, shared=None) -> None:

    var = acc.variable
    if g.__class__ is not _ndarray and isinstance(g, np.generic):
        g = np.asarray(g)
    if var._hooks:
        gt = _as_tensor(g)
        for h in list(var._hooks.values()):
            gt = _hook_value(gt, h(gt), h)
        g = _unwrap(gt, create_graph)
        if shared is not None:
            _mark(shared, g)
    if not _leaf_gone(var):
        _add_to_grad(var, g, create_graph, shared)
    # torch runs the post-accumulate hooks of a leaf that receives nothing too (detach_() since)
    post_accumulate_hooks(var)


def post_accumulate_hooks(var) -> None:
    if var._post_acc_hooks:
        for h in list(var._post_acc_hooks.values()):
            h(var)


def _add_to_grad(var, g, create_graph, shared) -> None:
    with _ACC_LOCK:
        cur = var._grad
        if cur is None and not create_graph and shared is not None and g.__class__ is _ndarray:
            _steal(var, g, shared)
        elif create_graph:
            g = g if isinstance(g, Tensor) else Tensor._wrap(g)
            if cur is None:
                # torch stores a copy of the first gradient (clone_obey_contract: a copy_, so
                # at version 1), differentiable when it has a graph (CopyBackwards)
                from ..ops.dispatch import apply
                from ..ops.registry import OPS

                COPY_BACKWARDS = OPS["_copy_backwards"]

                if g._requires_grad:
                    new = apply(COPY_BACKWARDS, (None, g))
                else:
                    new = Tensor._wrap(
                        _like_leaf(var._data, g._data)
                        if g._data.__class__ is _ndarray
                        else g._data.copy()
                    )
                new._vc = [1]
                var._grad = new
            else:
                var._grad = cur + g
        elif cur is None:
            # A leaf keeps the gradient array itself when nothing else can see it: not a seed,
            # not a view, not shown to a hook, not handed to another leaf (torch "steals" the
            # buffer the same way); otherwise it gets a copy, so a later in-place += is private.
            base = g.base
            if g.__class__ is ZeroArray:  # torch's ZeroTensor becomes .grad as it is
                var._grad = Tensor._wrap(g)
            elif (
                shared is None
                or id(g) in shared
                or (base is not None and id(base) in shared)
                or not g.flags.writeable  # broadcast views
            ):
                var._grad = Tensor._wrap(g.copy())
                var._grad._vc = [1]  # torch's copy is a copy_ into a new tensor
            else:
                _mark(shared, g)
                var._grad = Tensor._wrap(g)
        elif cur._data.__class__ is ZeroArray:
            raise RuntimeError(ERR_IMMUTABLE)  # torch's variable_grad += new_grad
        elif cur._data.shape != g.shape or not cur._data.flags.writeable:
            var._grad = cur + Tensor._wrap(g)
        else:
            # torch: variable_grad += new_grad, in place (a reference to the old .grad sees the
            # sum; its version moves; a grad with a graph keeps it: grad mode is off here)
            cur._data += g if g.dtype.kind != "c" else g * (1 + 0j)  # see _sum
            vc = cur._vc
            if vc is None:
                cur._vc = [1]
            else:
                vc[0] += 1


def accumulate_leaves(leaves, buffers, create_graph: bool, shared) -> None:
    """Run the AccumulateGrad nodes ``leaves`` (without hooks: a plain backward defers them,
    nothing can tell when they run) with their gradients in ``buffers``."""
    with _ACC_LOCK:  # once for all the leaves (re-entrant for _accumulate)
        for acc in leaves:
            g = buffers.pop(acc)[0]
            if g is None:
                continue
            var = acc.variable
            if var._grad is None and not create_graph and g.__class__ is _ndarray:
                # a leaf's first gradient (the common case): _accumulate's first branch
                if var._grad_fn is None and var._requires_grad:
                    _steal(var, g, shared)
                else:
                    _leaf_gone(var)  # raises for a leaf moved into the graph since
            else:
                _accumulate(acc, g, create_graph, shared)


def accumulate_complete(leaves, buffers, pending, create_graph: bool, shared) -> None:
    """After a backward failed: accumulate the deferred leaves whose gradient was complete (no
    node in ``pending``, the ones left to run, leads to them), as torch's engine has by then."""
    seen: set = set()
    stack = [f for f in pending if f is not None]
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        stack.extend(n for n in f._fns if n is not None and n not in seen)
    for acc in leaves:
        if acc in seen:
            continue
        g = buffers.get(acc, (None,))[0]
        if g is not None and not _leaf_gone(acc.variable):
            _accumulate(acc, g, create_graph, shared)
