"""Recording ops into the graph, and the iterative backward engine."""

from __future__ import annotations

import re

import numpy as np

from .. import _errors as E
from .. import _slots
from .._zerotensor import ZeroArray
from ..ops.registry import NOT_IMPLEMENTED, _Marker
from ..ops.xp import NPX, _ones, namespace_for
from .accumulate import (
    _type_str,
)
from .node import SEQ, AccumulateGrad, Node, is_saved_array

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


HOST_ARRAYS = (np.ndarray, ZeroArray)  # the host's array classes: one device


def same_device(a, b) -> bool:
    """Whether arrays ``a`` and ``b`` live on one device: the same array class, or two host
    classes (ndarray and the ZeroTensor's ZeroArray: a zero gradient meets normal tensors)."""
    ca, cb = a.__class__, b.__class__
    return ca is cb or (ca in HOST_ARRAYS and cb in HOST_ARRAYS)


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
    from ..backend import _BACKENDS

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


class _SavePlan:
    """What a node of one row keeps when a given set of its inputs has edges (torch's generated
    code saves a tensor only for the gradients that are computed): derived once per (row, set)
    from the row's ``save_needs`` / ``save_layout`` by :func:`save_plan`."""

    __slots__ = (
        "active",
        "empty",
        "inputs",
        "layout",
        "lead0",
        "lead1",
        "lead_n",
        "nones",
        "result",
    )

    def __init__(self, op, mask: int) -> None:
        def wanted(users) -> bool:
            return any(mask >> j & 1 for j in users)

        needs = op.save_needs
        saves = wanted if mask else _edgeless_saves(op)
        self.active = bool(op.save_inputs or op.save_result)  # a node with a _saved tuple
        # saved and version-checked in torch's unpack order, its generated code's sorted saved
        # names (which of two tensors modified in place an error names)
        order = sorted((n, i) for i, n in enumerate(op.inputs) if i in op.save_inputs)
        self.inputs = tuple(i for _, i in order if saves(needs[i]))
        lay = op.save_layout
        # read by a computed gradient for their memory layout only: arrays kept, not saved
        self.layout = tuple(
            i for i in op.save_inputs if i not in self.inputs and lay and wanted(lay.get(i, ()))
        )
        self.result = op.save_result and saves(needs[-1])
        # nothing saved for this set: a node's empty slots (a tuple of its own: the executor
        # tells a node with arrays among its parameters by op.none_inputs' identity)
        self.nones = tuple([None] * len(op.inputs))
        # no array kept: nodes of this set with the row's arity share the empty slots
        self.empty = not self.inputs and not self.layout
        # a lead call (input 0 the only tensor, Python scalars after it): input 0 saved (1),
        # kept for its strides only (2) or not at all (0); the scalar in slot 1 saved or not
        self.lead0 = 1 if 0 in self.inputs else 2 if 0 in self.layout else 0
        self.lead1 = 1 in self.inputs
        # the arity at which a lead call keeps nothing: its slots are the shared empty ones
        self.lead_n = len(self.nones) if not self.lead0 and not self.lead1 else -1


def _edgeless_saves(op):
    """What a node none of whose inputs has an edge saves: its input requires grad only through
    a base it was viewed from under no_grad. torch's generated code still creates the node and
    guards a saved value only where its row has several differentiable arguments and one
    formula reads it (should_compute_output of that edge: false here); a single-argument row
    (v.sin(), v ** 2) or a list row (cat) saves everything, the result always (a second
    backward is refused, an in-place change of the base detected)."""
    if op.variadic or sum(1 for d in op.differentiable if d) <= 1:
        return lambda users: True
    every = frozenset(range(len(op.inputs)))
    return lambda users: users == every


def save_plan(op, mask: int) -> _SavePlan:
    """``op``'s :class:`_SavePlan` for the inputs in bit set ``mask``, cached on the row."""
    plan = op.save_plans.get(mask)
    if plan is None:
        if len(op.save_plans) > 64:  # variadic rows: one set per arity and edge pattern
            op.save_plans.clear()
        plan = op.save_plans[mask] = _SavePlan(op, mask)
    return plan


def record(op, inputs, outs, p, results, lead=None) -> Node:
    """Create the node for one op application and attach it to the result tensors: the one
    node builder (every recorded row comes here).

    ``lead``: the caller's word (dispatch.fast_entry, the hot path of small-tensor code) that
    ``inputs`` is one tensor that requires grad, is differentiable and is neither a view nor an
    inference tensor, and at most one Python scalar after it; ``lead`` is then the row's
    save plan for that call (``save_plan(op, 1)``), and the edge is taken without the loop over
    the inputs. Everything else (what the node saves, its version checks, the results'
    history) is the same code."""
    cls = op.node_cls
    node = cls.__new__(cls)
    if lead is not None:
        plan = lead
        t = inputs[0]
        fn = t._grad_fn
        if fn is not None:
            nr = t._output_nr
        else:
            fn = t._grad_accumulator()
            nr = 0
        d = t._data
        n = len(inputs)
        shapes = _META1.get((d.shape, d.dtype, n - 1))
        node._shapes = shapes if shapes is not None else _meta1(d, n - 1)
        if p is not None:
            node._p = p
        if n == 1:
            node._fns = (fn,)
            node._nrs = _NRS1[nr] if nr < 2 else (nr,)
        else:
            node._fns = (fn, None)
            node._nrs = _NRS2[nr] if nr < 2 else (nr, 0)
        if plan.active:
            # the plan's inputs for a lead call: the tensor (saved, or kept for its strides)
            # and the Python scalar after it, which is saved as itself
            s0 = plan.lead0
            if plan.lead_n == n:
                ins = raw = plan.nones
                vers = ()
            else:
                if s0 == 1:
                    vc = t._vc
                    vers = (None, vc[0] if vc is not None else 0, 0)
                    a0 = t
                    r0 = d
                else:
                    vers = ()
                    a0 = None
                    r0 = d if s0 == 2 else None
                if n == 1:
                    ins = (a0,)
                    raw = (r0,)
                else:
                    s = inputs[1] if plan.lead1 else None
                    ins = (a0, s)
                    raw = (r0, s)
                    if s is not None:  # x * 2: torch saves the number, and frees it
                        node._frees = True
    else:
        n = len(inputs)
        fns = [None] * n
        nrs = [0] * n
        metas = [None] * n
        mask = 0
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
            d = t._data
            m = _META.get((d.shape, d.dtype))
            metas[i] = m if m is not None else _meta(d)
            mask |= 1 << i
        node._fns = tuple(fns)
        node._nrs = tuple(nrs)
        node._shapes = tuple(metas)
        if p is not None:
            node._p = p
        plan = op.save_plans.get(mask)
        if plan is None:
            plan = save_plan(op, mask)
        if plan.active:
            keep = plan.inputs
            if plan.empty and n == len(plan.nones):
                ins = raw = plan.nones
                vers = ()
            else:
                ins = [None] * n
                raw = [None] * n  # the arrays too: the first-order backward reads them directly
                vers = ()
                for i in keep:
                    t = inputs[i]
                    ins[i] = t
                    if t is None or t.__class__ in _NUMBER_SET:
                        raw[i] = t
                        continue
                    raw[i] = t._data
                    if t._inf:
                        raise RuntimeError(E.ERR_INFERENCE_SAVE)
                    # an input's counter is read from the saved tensor itself at check time, so a
                    # fresh tensor needs no counter object now (None stands for "the tensor's")
                    vc = t._vc
                    vers += (None, vc[0] if vc is not None else 0, i)
                for i in plan.layout:
                    raw[i] = inputs[i]._data  # its strides only: not saved, not checked
                ins = tuple(ins)
                raw = tuple(raw)
    if plan.active:
        if plan.result:
            vc = results[0]._vc = [0]
            node._saved = (ins, outs, raw)
            node._vers = vers + (vc, 0, -1)
        else:
            node._saved = (ins, None, raw)
            node._vers = vers
    elif p is not None and op.saved_params and _saves_arrays(op, p):
        node._saved = (op.none_inputs, None, op.none_inputs)
    node._seq = next(SEQ)
    if len(results) == 1:
        results[0]._grad_fn = node
    else:
        for i, r in enumerate(results):
            r._grad_fn = node
            r._output_nr = i
    if FLAGS.anomaly or FLAGS.record_tracers:
        _observe(node, inputs)
    return node


def _observe(node, inputs) -> None:
    """Anomaly mode's traceback and the graph tracers' callbacks for a new node."""
    if FLAGS.anomaly:
        from .anomaly_mode import record_traceback

        record_traceback(node)
    for cb in FLAGS.record_tracers:  # graph tracing (jupyter_autograd.viz.trace)
        cb(node, inputs)


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


_BACKWARD_SUFFIX = re.compile(r"Backward(\d*)$")


def _modified_error(t, fn, nr: int, version: int, expected: int) -> RuntimeError:
    """torch's SavedVariable::unpack error for a saved tensor modified in place since."""
    where = ""
    if fn is not None and not isinstance(fn, AccumulateGrad):
        opname = fn.name()
        # (torch drops a trailing "Backward" and a 0 overload: ExpBackward0 -> Exp,
        # ProdBackward1 -> Prod1; torch::autograd::CopyBackwards keeps its name)
        base = _BACKWARD_SUFFIX.sub(lambda m: "" if m.group(1) in ("", "0") else m.group(1), opname)
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
    if xp.is_txp:
        return xp.sum_to(g, shape)
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
            g = (
                g.sum(axis=tuple(range(lead)))
                if g.__class__ is _ndarray
                else xp.sum(g, axis=tuple(range(lead)))
            )
        else:
            g = xp.reshape(g, shape)
        gs = g.shape
    axes = tuple(i for i, (a, b) in enumerate(zip(gs, shape)) if a != b)
    if axes:
        g = (
            g.sum(axis=axes, keepdims=True)
            if g.__class__ is _ndarray
            else xp.sum(g, axis=axes, keepdims=True)
        )
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
        g = g.real  # a view, as torch's at::real
    return g.astype(dt, copy=False)


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


def run_node(node: Node, grads, create_graph: bool, op=None, fns=None):
    """Compute the gradients a registry node sends to each of its inputs.

    ``fns``: the node's edges with those whose gradient is not wanted set to None (torch's
    should_compute_output: under ``inputs=`` only the edges leading to a node that runs)."""
    if fns is None:
        fns = node._fns
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
        xp, as_graph_tensor = _slots.TXP, _slots.as_graph_tensor
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
    rules = op.vjp if not op.variadic else (op.vjp[0],) * len(fns)
    for i, (nxt, rule) in enumerate(zip(fns, rules)):
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
                from .._dtype import from_numpy_dtype

                if gi._data.dtype.kind == "c" and dt.kind != "c":
                    gi = gi.real  # handle_r_to_c, recorded
                if gi._data.dtype != dt:
                    gi = gi.to(from_numpy_dtype(dt))
        elif gi.dtype != dt:
            gi = _to_dtype(gi, dt)
        res.append(gi)
    return res
