"""Recording ops into the graph, and the iterative backward engine."""

from __future__ import annotations

import gc
import heapq
import threading

import numpy as np

from .. import _errors as E
from ..grad_mode import STATE
from ..ops.registry import NOT_IMPLEMENTED, _Marker
from ..ops.xp import NPX, _ones, namespace_for
from .accumulate import (
    _ACC_LOCK,
    _accumulate,
    accumulate_complete,
    _as_tensor,
    _call_prehooks,
    _hook_value,
    _hook_values,
    _leaf_gone,
    _mark,
    _steal,
    _sum,
    _type_str,
    _unwrap,
)
from .node import ACCUMULATE_PRIORITY, SEQ, AccumulateGrad, Node, is_saved_array

_ndarray = np.ndarray
NONE_EDGE = (None, 0)


class _Flags:
    """Process-wide debug flags (anomaly mode is global in torch, not per thread). Instance
    attributes, read on every op."""

    def __init__(self) -> None:
        self.anomaly = False
        self.anomaly_check_nan = True
        self.forward_ad_levels: list = []  # active dual levels, innermost last
        self.inference_tensors = False  # set once any inference tensor exists
        self.detached_inplace = False  # set once a non-leaf is detached in place (detach_())
        # Graph tracing (jupyter_autograd.graph): callbacks run only while a list is non-empty.
        self.record_tracers: list = []  # cb(node, inputs) after an op is recorded
        self.backward_tracers: list = []  # cb(node, grad_outputs) when backward executes a node


FLAGS = _Flags()
# Bound by tensor.py once the class exists (tensor.py imports this package first).
Tensor = None


def device_mismatch(tensors) -> RuntimeError:
    devs = []
    for t in tensors:
        d = getattr(t, "device", None)
        if d is not None and str(d) not in devs:
            devs.append(str(d))
    devs.sort(key=lambda s: s == "cpu")
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{devs[0]} and {devs[1] if len(devs) > 1 else devs[0]}!"
    )


def xp_of(arr):
    """The rule namespace for the array module that owns ``arr`` (NPX for ndarrays)."""
    if arr.__class__ is _ndarray:
        return NPX
    from ..backend import _BACKENDS  # noqa: PLC0415

    for name, be in _BACKENDS.items():
        if name != "cpu" and be.owns(arr):
            return namespace_for(be.xp())
    return NPX


# ------------------------------------------------------------------------ recording
_NUMBER_TYPES = (float, int, bool, complex, type(None))
_NUMBER_SET = frozenset(_NUMBER_TYPES)  # `cls in` a set: one hash, not five comparisons
# Edges are stored as two flat tuples (nodes, output numbers): fewer objects per recorded op
# than torch's tuple of (node, nr) pairs, which Node.next_functions builds on demand.
_NRS1 = ((0,), (1,))
_NRS2 = ((0, 0), (1, 0))


def _new_vc(v: int = 0):
    """A version counter: a one-item list shared by a tensor and its views."""
    return [v]
# Interned (shape, dtype) metadata and 1-input metadata tuples: a graph of many same-shaped ops
# then holds shared tuples instead of new ones per node (fewer objects for the cyclic GC).
_META: dict = {}
_META1: dict = {}


def _meta(d):
    key = (d.shape, d.dtype)
    m = _META.get(key)
    if m is None:
        if len(_META) > 4096:
            _META.clear()
            _META1.clear()
        m = _META[key] = key
    return m


def _meta1(d, n_tail):
    key = (d.shape, d.dtype, n_tail)
    s = _META1.get(key)
    if s is None:
        s = _META1[key] = (_meta(d),) + (None,) * n_tail
    return s


def record(op, inputs, outs, p, results) -> Node:
    """Create the node for one op application and attach it to the result tensors."""
    cls = op.node_cls
    node = cls.__new__(cls)
    n = len(inputs)
    fns = [None] * n
    nrs = [0] * n
    metas = [None] * n
    i = -1
    for t, diff in zip(inputs, op.differentiable):
        i += 1
        if not diff or t.__class__ in _NUMBER_SET or not t._requires_grad:
            continue
        fn = t._grad_fn
        if t._base is not None:
            vc = t._vc
            if vc is not None and vc[0] != t._view_version:
                fn = t.grad_fn  # a view whose base changed in place: its node is regenerated
            if fn is None and t._rg_via_base:
                continue  # requires grad through its base only (made in no_grad): no edge, as torch
        if fn is not None:
            fns[i] = fn
            nrs[i] = t._output_nr
        else:
            fns[i] = t._grad_accumulator()
        metas[i] = _meta(t._data)
    node._fns = tuple(fns)
    node._nrs = tuple(nrs)
    node._shapes = tuple(metas)
    if p is not None:
        node._p = p
    save_inputs = op.save_inputs
    if save_inputs or op.save_result:
        n_in = len(inputs)
        ins = [None] * n_in
        raw = [None] * n_in  # the arrays too: the first-order backward reads them directly
        vers = []
        needs = op.save_needs
        for i in save_inputs:
            for j in needs[i]:  # kept only when a gradient that is computed reads it
                if fns[j] is not None:
                    break
            else:
                lay = op.save_layout.get(i) if op.save_layout else None
                if lay and any(fns[j] is not None for j in lay):
                    raw[i] = inputs[i]._data  # its strides only: not saved, not checked
                continue
            t = inputs[i]
            ins[i] = t
            if t is None or t.__class__ in _NUMBER_TYPES:
                raw[i] = t
                continue
            raw[i] = t._data
            if t._inf:
                raise RuntimeError(E.ERR_INFERENCE_SAVE)
            # an input's counter is read from the saved tensor itself at check time, so a
            # fresh tensor needs no counter object now (None stands for "the tensor's")
            vc = t._vc
            vers += (None, vc[0] if vc is not None else 0, i)
        out = None
        if op.save_result:
            for j in needs[-1]:
                if fns[j] is not None:
                    out = outs
                    vc = results[0]._vc = [0]
                    vers += (vc, 0, -1)
                    break
        node._saved = (tuple(ins), out, tuple(raw))
        node._vers = tuple(vers)
    elif p is not None and op.saved_params and _saves_arrays(op, p):
        node._saved = (op.none_inputs, None, op.none_inputs)
    node._seq = next(SEQ)
    if len(results) == 1:
        r = results[0]
        r._grad_fn = node
    else:
        for i, r in enumerate(results):
            r._grad_fn = node
            r._output_nr = i
    if FLAGS.anomaly:
        from .anomaly_mode import record_traceback  # noqa: PLC0415

        record_traceback(node)
    if FLAGS.record_tracers:  # graph tracing (jupyter_autograd.viz.trace); empty otherwise
        for cb in FLAGS.record_tracers:
            cb(node, inputs)
    return node


def record1(op, t, out, p, res, tail=()) -> Node:
    """Fast :func:`record` for one tensor input ``t`` followed by Python scalars (``y + 0.5``,
    ``y.tanh()``): the hot path of small-tensor code."""
    if FLAGS.anomaly or FLAGS.record_tracers or t._inf or t._base is not None:
        return record(op, (t,) + tail, out, p, (res,))
    cls = op.node_cls
    node = cls.__new__(cls)
    fn = t._grad_fn
    if fn is not None:
        nr = t._output_nr
    else:
        fn = t._grad_accumulator()
        nr = 0
    n = len(tail)
    if n == 1:
        node._fns = (fn, None)
        node._nrs = _NRS2[nr] if nr < 2 else (nr, 0)
    elif n:
        node._fns = (fn,) + (None,) * n
        node._nrs = (nr,) + (0,) * n
    else:
        node._fns = (fn,)
        node._nrs = _NRS1[nr] if nr < 2 else (nr,)
    d = t._data
    key = (d.shape, d.dtype, n)
    shapes = _META1.get(key)
    node._shapes = shapes if shapes is not None else _meta1(d, n)
    if p is not None:
        node._p = p
    si = op.save1  # what input 0's gradient reads (the scalars in tail have no edge)
    if si:
        if len(si) == n + 1:  # every input saved (pow, div's divisor...): no per-item filtering
            ins = (t,) + tail if n else (t,)
            raw = (t._data,) + tail if n else (t._data,)
        else:
            ins = tuple(x if i in si else None for i, x in enumerate((t,) + tail))
            raw = tuple(x if x is None or x.__class__ in _NUMBER_TYPES else x._data for x in ins)
        if 0 in si:
            vc = t._vc
            vers = (None, vc[0] if vc is not None else 0, 0)
        else:
            vers = ()
        if op.save1_result:
            vc = res._vc = [0]
            node._saved = (ins, out, raw)
            node._vers = vers + (vc, 0, -1)
        else:
            node._saved = (ins, None, raw)
            node._vers = vers
    elif op.save1_result:
        vc = res._vc = [0]
        ins = op.none_inputs
        node._saved = (ins, out, ins)
        node._vers = (vc, 0, -1)
    elif p is not None and op.saved_params and _saves_arrays(op, p):
        node._saved = (op.none_inputs, None, op.none_inputs)
    node._seq = next(SEQ)
    res._grad_fn = node
    return node


def _saves_arrays(op, p) -> bool:
    """Whether the node keeps arrays among its saved parameters (torch's saved tensors, such
    as gather's index): then the node has something to free, and a second backward through it
    without retain_graph is refused as in torch. Its ``_saved`` holds no inputs."""
    for k in op.saved_params:
        v = p.get(k)
        if v is not None and is_saved_array(v):
            return True
    return False


def _legacy_type(t) -> str:
    return f"{_type_str(t)} " + E.list_str(t._data.shape)


def _modified_error(t, fn, nr: int, version: int, expected: int) -> RuntimeError:
    """torch's SavedVariable::unpack error for a saved tensor modified in place since."""
    where = ""
    if fn is not None and not isinstance(fn, AccumulateGrad):
        opname = fn.name()
        base = opname.split("Backward")[0] if "Backward" in opname else opname
        where = f", which is output {nr} of {base},"
    hint = E.HINT_ANOMALY_ON if FLAGS.anomaly else E.HINT_ANOMALY
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{_legacy_type(t)}]{where} is at version {version}; expected "
        f"version {expected} instead.{hint}"
    )


def check_versions(node: Node) -> None:
    vers = node._vers  # flat: (counter, expected, input index or -1 for the result) * n
    for k in range(0, len(vers), 3):
        vc, v, i = vers[k], vers[k + 1], vers[k + 2]
        if vc is None:
            vc = node._saved[0][i]._vc
            if vc is None:
                continue  # never modified in place: still version 0
        if vc[0] != v:
            saved = node._saved
            if i >= 0:  # a saved input is named by its current history, as torch does
                t = saved[0][i]
                fn, nr = t.grad_fn, t._output_nr
            else:
                t = Tensor._wrap(saved[1])
                owner = node._result_fn
                fn = owner() if owner is not None else None
                fn, nr = fn if fn is not None else node, 0
            raise _modified_error(t, fn, nr, vc[0], v)


def check_detached(node: Node) -> None:
    """torch's SavedVariable::unpack: a saved input that had a history when saved and was
    detached in place since (its history is gone) cannot be used."""
    vers, ins = node._vers, node._saved[0]
    for k in range(2, len(vers), 3):
        i = vers[k]
        if i >= 0:
            t = ins[i]
            if t._detached_at > node._seq and t._grad_fn is None:
                raise RuntimeError(E.ERR_DETACHED_SAVED)


# ------------------------------------------------------------------------ node execution
# the ufunc's reduce itself: ndarray.sum goes through a Python-level wrapper first
_add_reduce = np.add.reduce


def _sum_to(xp, g, shape):
    """Reduce a broadcast gradient back to ``shape`` (the inverse of broadcasting)."""
    gs = g.shape
    if len(gs) != len(shape):
        lead = len(gs) - len(shape)
        if lead == 1 and gs[1:] == shape and g.__class__ is _ndarray:
            # a bias: (N, *shape) -> shape. For a batch of rows, BLAS's ones @ g is 3-5x
            # faster than NumPy's column sum (300x64 float32: 1.6 us against 6.2 us).
            if len(gs) == 2 and gs[0] >= 8 and g.dtype.kind == "f" and g.dtype.itemsize >= 4:
                return _ones(gs[0], g.dtype) @ g
            return _add_reduce(g, 0) if g.dtype.kind in "fc" else g.sum(axis=0)
        if lead > 0:
            # the array method skips NumPy's Python-level sum wrapper (Tensors use xp.sum)
            g = g.sum(axis=tuple(range(lead))) if g.__class__ is _ndarray else xp.sum(g, axis=tuple(range(lead)))
        else:
            g = xp.reshape(g, shape)
        gs = g.shape
    axes = tuple(i for i, (a, b) in enumerate(zip(gs, shape)) if a != b)
    if axes:
        g = g.sum(axis=axes, keepdims=True) if g.__class__ is _ndarray else xp.sum(g, axis=axes, keepdims=True)
    if g.shape != tuple(shape):
        g = xp.reshape(g, shape)
    if g.__class__ is not _ndarray and isinstance(g, np.generic):
        g = np.asarray(g)  # a full reduction gives a NumPy scalar: gradients are arrays
    return g


def _to_dtype(g, dt):
    """A gradient in its input's dtype. A complex gradient reaching a real input keeps its real
    part: torch's handle_r_to_c, done here once for every row (real inputs of an op with a
    complex result: ``real * complex``, ``tensor.to(complex)``)."""
    if g.dtype.kind == "c" and dt.kind != "c":
        g = g.real
    return g.astype(dt)


def _not_implemented(node: Node, i: int):
    op = type(node)._op
    raise NotImplementedError(
        f"the derivative for '{op.name}' is not implemented. (input {i}: "
        f"'{op.inputs[i]}', node {node.name()})"
    )


def _graph_outputs(out, node):
    """A node's saved result(s) as Tensors of its graph (one per output of a multi-output row)."""
    if isinstance(out, tuple):
        res = []
        for i, o in enumerate(out):
            t = Tensor._wrap(o, True)
            t.grad_fn, t._output_nr = node, i
            res.append(t)
        return tuple(res)
    t = Tensor._wrap(out, True)
    t.grad_fn = node
    return t


def run_node(node: Node, grads, create_graph: bool, op=None):
    """Compute the gradients a registry node sends to each of its inputs."""
    if op is None:
        op = node._op
    saved = node._saved
    if saved is None:
        raise RuntimeError(E.ERR_BACKWARD_TWICE)
    vers = node._vers
    if vers:
        if FLAGS.detached_inplace:
            check_detached(node)
        n = len(vers)
        if n <= 6:  # one or two saved tensors (the common cases), checked inline
            vc = vers[0]
            if vc is None:
                vc = saved[0][vers[2]]._vc
            if vc is not None and vc[0] != vers[1]:
                check_versions(node)
            if n == 6:
                vc = vers[3]
                if vc is None:
                    vc = saved[0][vers[5]]._vc
                if vc is not None and vc[0] != vers[4]:
                    check_versions(node)
        else:
            check_versions(node)
    if not create_graph and op.simple:
        # first-order fast path: raw arrays, one output
        g = grads[0]
        if saved:
            out = saved[1]
            ins = saved[2]
        else:
            out = None
            ins = op.none_inputs
        xp = NPX if g.__class__ is _ndarray else xp_of(g)
        p = node._p
        fns = node._fns
        if fns[0] is not None and (len(fns) == 1 or (len(fns) == 2 and fns[1] is None)):
            # one differentiable input (y.tanh(), y * 0.5): no loop
            rule = op.vjp[0]
            if rule.__class__ is not _Marker:
                gi = rule(xp, g, *ins, out, p)
                shape, dt = node._shapes[0]
                if gi.shape != shape:
                    gi = _sum_to(xp, gi, shape)
                if gi.dtype is not dt and gi.dtype != dt:
                    gi = _to_dtype(gi, dt)
                return [gi] if len(fns) == 1 else [gi, None]
        res = []
        for fn, rule, meta in zip(fns, op.vjp, node._shapes):
            if fn is None:
                res.append(None)
            elif rule.__class__ is _Marker:
                if rule is NOT_IMPLEMENTED:
                    _not_implemented(node, op.vjp.index(rule))
                res.append(None)
            else:
                gi = rule(xp, g, *ins, out, p)
                shape, dt = meta
                if gi.shape != shape:
                    gi = _sum_to(xp, gi, shape)
                if gi.dtype is not dt and gi.dtype != dt:
                    gi = _to_dtype(gi, dt)
                res.append(gi)
        return res
    if op.n_out == 1:
        g = grads[0]
    else:
        g = tuple(grads)
    if create_graph:
        from ..ops.txp import TXP, as_graph_tensor  # noqa: PLC0415

        xp = TXP
        if saved:
            ins, out = saved[0], saved[1]
            if out is not None:
                out = _graph_outputs(out, node)
        else:
            ins, out = (None,) * len(op.inputs), None
        if op.n_out == 1:
            g = as_graph_tensor(g)
        else:
            g = tuple(as_graph_tensor(x) for x in g)
    else:
        if saved:
            ins, out = saved[2], saved[1]
        else:
            ins, out = (None,) * len(op.inputs), None
        first = g if op.n_out == 1 else g[0]
        xp = NPX if first.__class__ is _ndarray else xp_of(first)
    p = node._p
    res = []
    rules = op.vjp if not op.variadic else (op.vjp[0],) * len(node._fns)
    for i, (nxt, rule) in enumerate(zip(node._fns, rules)):
        if nxt is None:
            res.append(None)
            continue
        if rule.__class__ is _Marker:
            if rule is NOT_IMPLEMENTED:
                _not_implemented(node, i)
            res.append(None)
            continue
        gi = rule(xp, g, *ins, out, p) if not op.variadic else rule(xp, g, i, node._shapes, p)
        shape, dt = node._shapes[i]
        if gi.shape != shape:
            gi = _sum_to(xp, gi, shape)
        if create_graph:
            if gi._data.dtype != dt:
                from .._dtype import from_numpy_dtype  # noqa: PLC0415

                if gi._data.dtype.kind == "c" and dt.kind != "c":
                    gi = gi.real  # handle_r_to_c, recorded
                if gi._data.dtype != dt:
                    gi = gi.to(from_numpy_dtype(dt))
        elif gi.dtype != dt:
            gi = _to_dtype(gi, dt)
        res.append(gi)
    return res


# ------------------------------------------------------------------------ the engine
def execute(roots, grads, keep_graph: bool, create_graph: bool, inputs=None, accumulate=True):
    """Run backward from ``roots`` (a list of ``(node, output_nr)``) seeded with ``grads``.

    Without recursion. When a tracer, anomaly mode or captured ``inputs`` can observe the order,
    nodes run exactly as torch orders them (dependency counts; the ready node with the highest
    sequence number first; AccumulateGrad as soon as it is ready); otherwise the cheaper
    :func:`_execute_by_sequence` gives the same gradients and the same order for every other
    node. With ``inputs`` (a list of ``(node, output_nr)`` edges), the gradients flowing into
    those edges are returned, and nodes that lead to none of them are skipped.
    """
    depth = _REENTRANT.depth
    if depth:  # a backward called from inside a backward (a custom Function's, a hook)
        if depth >= MAX_REENTRANT_DEPTH:
            raise RuntimeError(
                f"reentrant backward nested more than {MAX_REENTRANT_DEPTH} levels deep (a "
                "backward() called from inside a backward, recursively): the nesting does not end"
            )
        if depth % _LEVELS_PER_THREAD == 0:
            return _on_new_thread(depth, roots, grads, keep_graph, create_graph, inputs, accumulate)
    _REENTRANT.depth = depth + 1
    # The engine allocates only short-lived objects; pausing the cyclic GC while it runs avoids
    # repeated full collections over a large live graph (torch's graph is invisible to it).
    gc_was_on = gc.isenabled()
    if gc_was_on:
        gc.disable()
    try:
        # torch's kernels never warn about inf/nan arithmetic: gradients at degenerate points
        # (0/0 masked by a where, inf * 0) are computed silently, as there
        with np.errstate(all="ignore"):
            if inputs is None and not FLAGS.anomaly and not FLAGS.backward_tracers:
                return _execute_by_sequence(roots, grads, keep_graph, create_graph)
            return _execute(roots, grads, keep_graph, create_graph, inputs, accumulate)
    finally:
        _REENTRANT.depth = depth
        if gc_was_on:
            gc.enable()


class _Depth(threading.local):
    depth = 0  # backward calls running in this thread, nested


_REENTRANT = _Depth()
# Each reentrant backward costs a dozen Python frames; like torch's engine, every few levels the
# nested backward continues on a fresh thread (its own stack and recursion budget), so that deep
# nesting neither hits RecursionError nor overflows the C stack. The caller waits for it.
_LEVELS_PER_THREAD = 16
MAX_REENTRANT_DEPTH = 10_000


def _on_new_thread(depth, *args):
    modes = (STATE.grad_enabled, STATE.inference)  # the caller's thread-local modes travel along
    box: list = [None, None]

    def run():
        STATE.grad_enabled, STATE.inference = modes
        _REENTRANT.depth = depth
        try:
            box[0] = _execute_here(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box[1] = e

    t = threading.Thread(target=run, name=f"jupyter_autograd reentrant backward {depth}")
    try:
        t.start()
    except RuntimeError as e:  # the system refuses more threads
        raise RuntimeError(
            f"reentrant backward nested {depth} levels deep: cannot start a thread for the next "
            f"level ({e})"
        ) from None
    t.join()
    if box[1] is not None:
        raise box[1]
    return box[0]


def _execute_here(roots, grads, keep_graph, create_graph, inputs, accumulate):
    _REENTRANT.depth += 1
    try:
        if inputs is None and not FLAGS.anomaly and not FLAGS.backward_tracers:
            return _execute_by_sequence(roots, grads, keep_graph, create_graph)
        return _execute(roots, grads, keep_graph, create_graph, inputs, accumulate)
    finally:
        _REENTRANT.depth -= 1


def _seed(roots, grads):
    """Gradient buffers holding the root seeds, and the set of arrays a leaf must not keep."""
    shared: set = set()  # arrays the caller can see: never stolen by a leaf
    for g in grads:
        _mark(shared, g)
    buffers: dict = {}
    for (fn, nr), g in zip(roots, grads):
        buf = buffers.get(fn)
        if buf is None:
            buf = buffers[fn] = [None] * fn._n_out
        buf[nr] = g if buf[nr] is None else _sum(buf[nr], g)
    return buffers, shared


def _priority(fn) -> int:
    """Heap key: the creation order; AccumulateGrad by its own creation (before every use)."""
    s = fn._seq
    return s - ACCUMULATE_PRIORITY if s >= ACCUMULATE_PRIORITY else s


def _frees(fn) -> bool:
    """Whether backward frees a node without saved tensors: torch frees what it saved, and a
    row that saved nothing (remainder(x, y) with y not requiring grad) can run again; Python
    numbers a rule reads count (torch saves them as wrapped-number tensors: ``x * 2``)."""
    saved = fn._saved
    if fn._op is None or saved.__class__ is not tuple:  # saved_tensors_hooks: packed tensors
        return True
    if saved[2] is fn._op.none_inputs:  # arrays among its saved parameters (gather's index)
        return True
    return any(r is not None for r in saved[2])


def _execute_by_sequence(roots, grads, keep_graph, create_graph):
    """backward without a dependency pass: every consumer of a node was created after it (has
    a higher sequence number), so running the discovered nodes strictly from the highest
    sequence number down completes each node's gradient before it runs. AccumulateGrad then
    runs once per leaf, with the full gradient, after the nodes that feed it (without hooks of
    its own, after every other node: nothing can tell). Used when nothing observes the visiting
    order (no tracer, no anomaly mode, no captured inputs)."""
    buffers, shared = _seed(roots, grads)
    heap = [(-_priority(fn), fn) for fn in buffers]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    leaves = []  # hook-free AccumulateGrad nodes, run once every other node has run
    fn = new = parent = None
    try:
        while True:
            if fn is None:
                if not heap:
                    break
                fn = pop(heap)[1]
            gs = buffers.pop(fn)
            if fn._plain and gs[0] is not None:
                outs = run_node(fn, gs, create_graph, fn._op)
            else:
                if fn.__class__ is AccumulateGrad and not fn._pre and not fn._hooks:
                    if gs[0] is not None:
                        _accumulate(fn, gs[0], create_graph, shared)
                    fn = None
                    continue
                outs = _run_general(fn, gs, create_graph, (), None, None, None, True, False, shared)
                if outs is None:  # AccumulateGrad
                    fn = None
                    continue
            if not keep_graph and fn._saved and (fn._vers or _frees(fn)):
                fn._saved = None
            new = None
            for nxt, nr, g in zip(fn._fns, fn._nrs, outs):
                if nxt is None:
                    continue
                buf = buffers.get(nxt)
                if buf is None:  # first seen: it joins the queue
                    if nr == 0 and nxt._n_out == 1:
                        buffers[nxt] = [g]
                    else:
                        buf = buffers[nxt] = [None] * nxt._n_out
                        buf[nr] = g
                    if (nxt.__class__ is AccumulateGrad and not nxt._pre and not nxt._hooks
                            and not nxt.variable._hooks and not nxt.variable._post_acc_hooks):
                        if nxt.variable._grad_fn is not None:
                            _leaf_gone(nxt.variable)  # torch raises when it reaches it, not last
                        leaves.append(nxt)  # no hook can tell when: after every other node
                    elif new is None:
                        new = nxt
                    else:
                        k = nxt._seq  # _priority, inline
                        push(heap, (ACCUMULATE_PRIORITY - k if k >= ACCUMULATE_PRIORITY else -k, nxt))
                elif g is not None:
                    old = buf[nr]
                    buf[nr] = g if old is None else _sum(old, g)
            if new is not None and heap:
                k = new._seq
                k = ACCUMULATE_PRIORITY - k if k >= ACCUMULATE_PRIORITY else -k
                if heap[0][0] < k:
                    push(heap, (k, new))  # a queued node comes first
                    new = None
            parent = fn
            fn = new
    except BaseException:
        # torch has run each leaf's AccumulateGrad as soon as its gradient was complete: the
        # leaves that no node left to run (the failing one included) leads to get theirs
        accumulate_complete(leaves, buffers, [f for _, f in heap] + [fn, new], create_graph,
                            shared, fn, parent)
        raise
    if leaves:
        with _ACC_LOCK:  # once for all the leaves (re-entrant for _accumulate)
            for acc in leaves:
                g = buffers.pop(acc)[0]
                if g is None:
                    continue
                var = acc.variable
                if var._grad is None and not create_graph and g.__class__ is _ndarray:
                    if _leaf_gone(var):
                        continue
                    _steal(var, g, shared)
                else:
                    _accumulate(acc, g, create_graph, shared)
    return None


def _execute(roots, grads, keep_graph, create_graph, inputs, accumulate):
    # 1. dependency counts over the reachable graph
    deps: dict = {}
    root_set = {fn for fn, _ in roots}
    stack = list(root_set)
    get = deps.get
    while stack:
        fn = stack.pop()
        for nxt in fn._fns:
            if nxt is not None:
                d = get(nxt)
                if d is None:
                    deps[nxt] = 1
                    if nxt not in root_set:
                        stack.append(nxt)
                else:
                    deps[nxt] = d + 1
    seen = root_set.union(deps) if inputs is not None else None

    # 2. with inputs: which nodes lead to a captured edge (the others are skipped)
    capture = None
    needed = None
    if inputs is not None:
        capture = {}
        targets = set()
        for k, (fn, nr) in enumerate(inputs):
            capture.setdefault((fn, nr), []).append(k)
            targets.add(fn)
        needed = set()
        for fn in sorted(seen, key=lambda n: n._seq):
            if isinstance(fn, AccumulateGrad) or (accumulate and fn in targets):
                # backward(inputs=...) runs a target node itself (its retain_grad hook fills
                # .grad, AccumulateGrad .grad); autograd.grad only captures what flows into it
                if fn in targets and accumulate:
                    needed.add(fn)
                continue
            for nxt in fn._fns:
                if nxt is not None and (nxt in needed or nxt in targets):
                    needed.add(fn)
                    break
        if len(roots) == 1:  # torch's graph root is then the root node itself: its hooks run
            capture[None] = roots[0][0]
        results = [None] * len(inputs)

    # 3. seed the roots
    buffers, shared = _seed(roots, grads)
    heap = [(-fn._seq, fn) for fn in buffers if fn not in deps]
    heapq.heapify(heap)

    anomaly = FLAGS.anomaly
    tracers = FLAGS.backward_tracers
    plain = not (anomaly or tracers or capture is not None)
    if capture is None:
        results = None
    pop, push = heapq.heappop, heapq.heappush
    # 4. run; a node that becomes ready while nothing else waits runs next without the heap
    fn = None
    while True:
        if fn is None:
            if not heap:
                break
            fn = pop(heap)[1]
        gs = buffers.pop(fn)
        op = fn._op
        if plain and op is not None and not fn._pre and not fn._hooks and gs[0] is not None and op.n_out == 1:
            # the common node: a registry op, one output, no hooks, nothing to capture
            outs = run_node(fn, gs, create_graph)
        else:
            outs = _run_general(fn, gs, create_graph, tracers, capture, needed, results,
                                accumulate, anomaly, shared)
            if outs is None:  # AccumulateGrad, or skipped
                fn = None
                continue
        if not keep_graph and fn._saved and (fn._vers or _frees(fn)):
            fn._saved = None
        single = None
        for nxt, nr, g in zip(fn._fns, fn._nrs, outs):
            if nxt is None:
                continue
            buf = buffers.get(nxt)
            if buf is None:
                buf = buffers[nxt] = [None] * nxt._n_out
            if g is not None:
                old = buf[nr]
                buf[nr] = g if old is None else _sum(old, g)
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                if single is None:
                    single = nxt
                else:
                    push(heap, (-nxt._seq, nxt))
        if single is not None and heap and heap[0][0] < -single._seq:
            push(heap, (-single._seq, single))  # a waiting node has a higher sequence number
            single = None
        fn = single
    if capture is not None:
        return results
    return None


def _run_general(fn, gs, create_graph, tracers, capture, needed, results, accumulate, anomaly, shared):
    """One node with everything the fast path leaves out: tracers, hooks, capture for
    autograd.grad, AccumulateGrad, custom Functions, several outputs, anomaly mode. Returns the
    gradients for the node's inputs, or None when nothing flows on (a leaf, a skipped node)."""
    if capture is not None and _capture(fn, gs, create_graph, capture, needed, results, shared):
        return None  # a node that leads to no input is not run (its hooks neither)
    if tracers:
        for cb in tracers:
            cb(fn, tuple(gs))
    if fn._pre:
        _call_prehooks(fn, gs, create_graph)
        for g in gs:
            if g is not None:
                _mark(shared, g)
    if fn.__class__ is AccumulateGrad:
        if gs[0] is not None and (accumulate and (capture is None or fn in needed)):
            _accumulate(fn, gs[0], create_graph, shared)
            if fn._hooks:
                go = (_as_tensor(gs[0]),)
                for h in list(fn._hooks.values()):
                    _hook_values((), h((), go), h)
        elif gs[0] is not None and fn.variable._hooks:
            _leaf_hooks(fn, gs, create_graph)  # autograd.grad's root leaf: hooks, no .grad
        return None
    if (gs[0] is None if len(gs) == 1 else all(g is None for g in gs)):
        # no gradient reached the node (linalg.vector_norm(x, 0) sends an undefined one): torch
        # still runs it, so its saved tensors are unpacked and checked, then it sends none on
        if fn._op is not None:
            if fn._saved is None:
                raise RuntimeError(E.ERR_BACKWARD_TWICE)
            if fn._vers:
                check_versions(fn)
        outs = [None] * len(fn._fns)
    else:
        if fn._n_out > 1:
            gs = [g if g is not None else _zeros_for(fn, i, create_graph, gs) for i, g in enumerate(gs)]
        if anomaly:
            from .anomaly_mode import run_with_anomaly  # noqa: PLC0415

            outs = run_with_anomaly(fn, gs, create_graph)
        elif fn._op is not None:
            outs = run_node(fn, gs, create_graph)
        else:
            outs = fn._apply(gs, create_graph)
            # a user's backward may return arrays of tensors it holds: never steal them
            for g in outs:
                if g is not None:
                    _mark(shared, g)
        hooks = fn._hooks
        if hooks:
            gi = tuple(_as_tensor(g) for g in outs)
            go = tuple(_as_tensor(g) for g in gs)
            for g in outs:
                if g is not None:
                    _mark(shared, g)
            for h in list(hooks.values()):
                gi = _hook_values(gi, h(gi, go), h)
            outs = [_unwrap(g, create_graph) for g in gi]
            for g in outs:
                if g is not None:
                    _mark(shared, g)
    return outs


def _capture(fn, gs, create_graph, capture, needed, results, shared) -> bool:
    """torch's captures for ``inputs``: a node that is not run (it leads to no other input)
    runs its tensors' hooks before its gradient is captured (the hooked value is returned),
    one that is run is captured before them; a single root's hooks always run. Returns whether
    the node is skipped."""
    caps = [(nr, ks) for nr, ks in ((nr, capture.get((fn, nr))) for nr in range(len(gs))) if ks]
    if fn in needed:
        for nr, ks in caps:
            for k in ks:
                results[k] = gs[nr]
        return False
    if not caps and capture.get(None) is not fn:
        return True
    if fn.__class__ is AccumulateGrad:
        if fn.variable._hooks and gs[0] is not None:
            _leaf_hooks(fn, gs, create_graph)
    elif fn._pre:
        _call_prehooks(fn, gs, create_graph, node_hooks=False)
    for nr, ks in caps:
        for k in ks:
            results[k] = gs[nr]
    return True


def _leaf_hooks(fn, gs, create_graph) -> None:
    g = _as_tensor(gs[0])
    for h in list(fn.variable._hooks.values()):
        g = _hook_value(g, h(g), h)
    gs[0] = _unwrap(g, create_graph)


def _zeros_for(fn: Node, i: int, create_graph: bool, gs=()):
    shape, dt = fn._out_meta[i]
    like = next((g for g in gs if g is not None), None)  # zeros on the other outputs' device
    if like is not None and hasattr(like, "_data"):
        like = like._data
    z = (NPX if like is None else xp_of(like)).zeros(shape, dt)
    if create_graph:
        return Tensor._wrap(z)
    return z
