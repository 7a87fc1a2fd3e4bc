"""The backward engine: runs the recorded graph from its roots in one loop (without recursion),
in torch's order where something can observe it, and nests reentrant backward calls on fresh
threads. Recording and running one node are in :mod:`.engine`, a leaf's accumulation in
:mod:`.accumulate`."""

from __future__ import annotations

import gc
import heapq
import threading

from .. import _errors as E
from ..grad_mode import STATE
from ..ops.xp import NPX, QUIET, quiet_enter, quiet_exit
from . import engine
from .accumulate import (
    _accumulate,
    _as_tensor,
    _call_prehooks,
    _hook_value,
    _hook_values,
    _mark,
    _sum,
    _unwrap,
    accumulate_complete,
    accumulate_leaves,
    post_accumulate_hooks,
)
from .engine import FLAGS, check_versions, run_node, xp_of
from .node import ACCUMULATE_PRIORITY, ERROR_PRIORITY, AccumulateGrad, Node


def execute(roots, grads, keep_graph: bool, create_graph: bool, inputs=None, accumulate=True):
    """Run backward from ``roots`` (a list of ``(node, output_nr)``) seeded with ``grads``.

    Without recursion, in torch's order wherever something can observe it (:func:`_run`).
    With ``inputs`` (a list of ``(node, output_nr)`` edges), the gradients flowing into those
    edges are returned, and nodes that lead to none of them are skipped.
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
    return _execute_here(roots, grads, keep_graph, create_graph, inputs, accumulate)


class _Depth(threading.local):
    depth = 0  # backward calls running in this thread, nested


_REENTRANT = _Depth()
# Each reentrant backward costs a dozen Python frames; like torch's engine, every few levels the
# nested backward continues on a fresh thread (its own stack and recursion budget), so that deep
# nesting neither hits RecursionError nor overflows the C stack. The caller waits for it.
_LEVELS_PER_THREAD = 16
MAX_REENTRANT_DEPTH = 10_000
# The plain backward's order by sequence numbers (no dependency pass); tests set it False to
# run every backward through the dependency counts and compare (tests/fuzz/test_engine_modes.py).
BY_SEQUENCE = True


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
    # The engine allocates only short-lived objects; pausing the cyclic GC while it runs avoids
    # repeated full collections over a large live graph (torch's graph is invisible to it).
    gc_was_on = gc.isenabled()
    if gc_was_on:
        gc.disable()
    # torch's kernels never warn about inf/nan arithmetic: gradients at degenerate points
    # (0/0 masked by a where, inf * 0) are computed silently, as there (ops.xp.QUIET)
    q = quiet_enter(QUIET)
    try:
        buffers, shared = _seed(roots, grads)
        if inputs is None and BY_SEQUENCE and not FLAGS.anomaly and not FLAGS.backward_tracers:
            heap = [(-fn._seq, fn) for fn in buffers]
            heapq.heapify(heap)
            _run(heap, buffers, None, keep_graph, create_graph, shared, roots)
            return None
        ex = _Exact(roots, inputs, accumulate)
        return _run(ex.start(roots), buffers, ex, keep_graph, create_graph, shared, roots)
    finally:
        quiet_exit(q)
        _REENTRANT.depth -= 1
        if gc_was_on:
            gc.enable()


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


def _created(fn) -> int:
    """Creation order (a node's inputs were all created before it)."""
    s = fn._seq
    if s < ACCUMULATE_PRIORITY:
        return s
    return s - (ERROR_PRIORITY if s >= ERROR_PRIORITY else ACCUMULATE_PRIORITY)


def _frees(fn) -> bool:
    """Whether backward frees a node without saved tensors: torch frees what it saved, and a
    row that saved nothing (remainder(x, y) with y not requiring grad) can run again; Python
    numbers a rule reads count (torch saves them as wrapped-number tensors: ``x * 2``)."""
    saved = fn._saved
    if fn._op is None or saved.__class__ is not tuple:  # saved_tensors_hooks: packed tensors
        return True
    if saved[2] is fn._op.none_inputs:  # arrays among its saved parameters (gather's index)
        return True
    for r in saved[2]:
        if r is not None:
            return True
    return False


class _Exact:
    """What torch's order needs beyond sequence numbers: dependency counts (a node is queued
    once all its consumers have run), and with ``inputs`` which nodes run and what is captured."""

    __slots__ = ("accumulate", "capture", "deps", "execs", "needed", "results")

    def __init__(self, roots, inputs=None, accumulate=True, pending=None):
        # 1. dependency counts over the reachable graph (from the roots, or from the nodes
        # still to run when a backward by sequence numbers switches over)
        deps: dict = {}
        if pending is None:
            root_set = {fn for fn, _ in roots}
            stack = list(root_set)
        else:
            root_set = set(pending)
            stack = list(pending)
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
        self.deps = deps
        self.accumulate = accumulate
        self.capture = self.needed = self.results = self.execs = None
        if inputs is None:
            return
        # 2. with inputs: which nodes lead to a captured edge (the others are skipped)
        seen = root_set.union(deps)
        capture: dict = {}
        targets = set()
        for k, (fn, nr) in enumerate(inputs):
            capture.setdefault((fn, nr), []).append(k)
            targets.add(fn)
        needed = set()
        for fn in sorted(seen, key=_created):
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
        self.capture, self.needed, self.results = capture, needed, [None] * len(inputs)
        # torch queues only the nodes it executes (needed, or captured): the others are never
        # pushed, which matters for the queue's order
        self.execs = needed.union(k[0] for k in capture if k is not None)

    def start(self, roots) -> list:
        """The queue of a fresh backward: torch's GraphRoot pushes the roots in order, each
        once, when it is ready."""
        heap: list = []
        deps = self.deps
        for fn in dict.fromkeys(fn for fn, _ in reversed(roots)).__reversed__():
            if fn not in deps:
                heapq.heappush(heap, _entry(fn))
        return heap

    def resume(self, parent, roots, buffers, leaves, create_graph, shared) -> list:
        """The queue torch's engine has when a backward by sequence numbers meets a node whose
        running can be observed, at the round of ``parent`` (None: the roots): the nodes that
        round made ready pushed in the order it reached them, the others ready before it;
        the deferred leaves ready before it are accumulated now, as torch has by then."""
        deps = self.deps
        edges = parent._fns if parent is not None else [fn for fn, _ in roots]
        made = [
            n
            for n in reversed(dict.fromkeys(n for n in reversed(edges) if n is not None))
            if n not in deps
        ]
        made_set = set(made)
        accumulate_leaves(
            [acc for acc in leaves if acc not in deps and acc not in made_set],
            buffers,
            create_graph,
            shared,
        )
        heap = [_entry(f) for f in buffers if f not in deps and f not in made_set]
        heapq.heapify(heap)
        for f in made:
            heapq.heappush(heap, _entry(f))
        return heap


# Heap entries: (-sequence number, node) for ordinary nodes, whose numbers are unique; torch's
# AccumulateGrad and Error nodes all have the largest one, and its ready queue (a binary heap,
# std::priority_queue) then orders them by where they sit in the heap. heapq's push and pop move
# items exactly as libstdc++'s push_heap and pop_heap do, so the same pushes give the same order
# provided two such entries compare as neither smaller: their middle item is a fresh NaN (two
# distinct NaN objects are neither equal nor ordered, and the node is never compared).
_TOP = -(1 << 64)
_nan = float("nan")


def _entry(fn):
    k = fn._seq
    if k < ACCUMULATE_PRIORITY:
        return (-k, fn)
    return (_TOP, -_nan, fn)  # -_nan: a new NaN object each time


def _run(heap, buffers, ex, keep_graph, create_graph, shared, roots):
    """The backward loop: pop the queued node with the highest sequence number, run it, hand
    its gradients to the nodes it leads to. Returns the captured gradients (``inputs``).

    With ``ex`` (:class:`_Exact`), this is torch's engine: a node is queued once its
    dependency count drops to 0, the nodes a round makes ready are pushed in the order of its
    edges (only those it executes), AccumulateGrad and Error nodes tie at the top.

    Without (a plain backward that nothing observes), no dependency pass: every consumer of a
    node was created after it (has a higher sequence number), so running the nodes found
    strictly from the highest sequence number down completes each node's gradient before it
    runs, in torch's order. A leaf's AccumulateGrad then runs once, with the full gradient,
    after every other node (nothing can tell). Where something can (a leaf with hooks, a leaf
    moved into the graph, an Error node that fails), the dependency counts of what is left are
    taken there and the rest runs as torch's engine (:meth:`_Exact.resume`).

    Either way a round that makes one node ready, which would come out on top anyway, runs it
    without pushing it (a push and pop of a new top leaves a heap as it was)."""
    pop, push = heapq.heappop, heapq.heappush
    leaves: list = []  # deferred AccumulateGrad nodes (no dependency counts only)
    general = False  # every node through _run_general: something observes each one
    anomaly = tracers = capture = needed = results = execs = deps = None
    accumulate = True
    if ex is not None:
        deps, execs, capture, needed, results, accumulate = (
            ex.deps,
            ex.execs,
            ex.capture,
            ex.needed,
            ex.results,
            ex.accumulate,
        )
        anomaly, tracers = FLAGS.anomaly, FLAGS.backward_tracers
        general = anomaly or tracers or capture is not None
    fn = parent = nxt = None
    try:
        while True:
            if fn is None:
                if not heap:
                    break
                fn = pop(heap)[-1]
            gs = buffers.pop(fn)
            if fn._plain and not general and gs[0] is not None:
                # the common node: a registry op, one output, no hooks, nothing observing
                outs = run_node(fn, gs, create_graph, fn._op)
            else:
                if deps is None and (fn._error or fn.__class__ is AccumulateGrad):
                    # an Error node, or a leaf whose AccumulateGrad something can observe (a
                    # hook; an error), is found: torch runs it as soon as it is ready. From
                    # here on, run exactly as torch does.
                    buffers[fn] = gs
                    ex = _Exact(roots, pending=buffers)
                    deps = ex.deps
                    heap = ex.resume(parent, roots, buffers, leaves, create_graph, shared)
                    leaves = []
                    fn = None
                    continue
                outs = _run_general(
                    fn,
                    gs,
                    create_graph,
                    tracers,
                    capture,
                    needed,
                    results,
                    accumulate,
                    anomaly,
                    shared,
                    execs,
                )
                if outs is None:  # AccumulateGrad, or skipped
                    fn = None
                    continue
            if not keep_graph and fn._saved and (fn._vers or fn._frees or _frees(fn)):
                fn._saved = None
            nxt = None  # the node to run next without the heap, if any
            if deps is None:  # by sequence number: a node is queued when first reached
                for n, nr, g in zip(fn._fns, fn._nrs, outs):
                    if n is None:
                        continue
                    buf = buffers.get(n)
                    if buf is None:
                        if nr == 0 and n._n_out == 1:
                            buffers[n] = [g]
                        else:
                            buf = buffers[n] = [None] * n._n_out
                            buf[nr] = g
                        if (
                            n.__class__ is AccumulateGrad
                            and not n._pre
                            and not n._hooks
                            and (
                                not (v := n.variable)._hooks
                                and not v._post_acc_hooks
                                and v._grad_fn is None
                            )
                        ):
                            # nothing can watch it run (no hook on it or its leaf, the leaf
                            # still a leaf): it runs after every other node, once
                            leaves.append(n)
                        elif nxt is None:
                            nxt = n
                        else:
                            push(heap, (-n._seq, n))
                    elif g is not None:
                        old = buf[nr]
                        buf[nr] = g if old is None else _sum(old, g)
                if nxt is not None and heap and heap[0][0] < -nxt._seq:
                    push(heap, (-nxt._seq, nxt))  # a queued node comes first
                    nxt = None
                parent = fn
            else:  # dependency counts: a node is queued when its last consumer has run
                several = False
                for n, nr, g in zip(fn._fns, fn._nrs, outs):
                    if n is None:
                        continue
                    d = deps[n] - 1
                    deps[n] = d
                    if execs is not None and n not in execs:
                        continue
                    buf = buffers.get(n)
                    if buf is None:
                        buf = buffers[n] = [None] * n._n_out
                    if g is not None:
                        old = buf[nr]
                        buf[nr] = g if old is None else _sum(old, g)
                    if d == 0:
                        if nxt is None:
                            nxt = n
                        else:
                            if not several:
                                several = True
                                push(heap, _entry(nxt))
                            push(heap, _entry(n))
                if several:
                    nxt = None
                elif nxt is not None and heap:
                    e = _entry(nxt)
                    if not e < heap[0]:  # a waiting node comes first (or ties with it: the
                        push(heap, e)  # heap decides)
                        nxt = None
            fn = nxt
    except BaseException:
        if leaves:
            # torch has run each leaf's AccumulateGrad as soon as its gradient was complete: the
            # leaves that no node left to run (the failing one included) leads to get theirs
            accumulate_complete(
                leaves, buffers, [e[-1] for e in heap] + [fn, nxt], create_graph, shared
            )
        raise
    if leaves:
        accumulate_leaves(leaves, buffers, create_graph, shared)
    return results


def _run_general(
    fn, gs, create_graph, tracers, capture, needed, results, accumulate, anomaly, shared, execs
):
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
        if gs[0] is None:
            if fn.variable._hooks:
                _leaf_hooks(fn, gs, create_graph)  # torch calls them with None too
            if accumulate and (capture is None or fn in needed):
                post_accumulate_hooks(fn.variable)  # torch runs them without a gradient too
        elif accumulate and (capture is None or fn in needed):
            _accumulate(fn, gs[0], create_graph, shared)
            if fn._hooks:
                go = (_as_tensor(gs[0]),)
                for h in list(fn._hooks.values()):
                    _hook_values((), h((), go), h)
        elif fn.variable._hooks:
            _leaf_hooks(fn, gs, create_graph)  # autograd.grad's root leaf: hooks, no .grad
        return None
    if (gs[0] is None if len(gs) == 1 else all(g is None for g in gs)) and (
        getattr(fn, "_forward_cls", None) is None  # a custom Function's backward runs on zeros
    ):
        # no gradient reached the node (linalg.vector_norm(x, 0) sends an undefined one): torch
        # still runs it, so its saved tensors are unpacked and checked, then it sends none on
        if fn._op is not None:
            if fn._saved is None:
                raise RuntimeError(E.ERR_BACKWARD_TWICE)
            if fn._vers:
                check_versions(fn)
        outs = [None] * len(fn._fns)
        if fn._hooks:  # its hooks see the undefined gradients, in and out
            nones = (None,) * len(outs)
            for h in list(fn._hooks.values()):
                _hook_values(nones, h(nones, tuple(gs)), h)
    else:
        given = gs  # what the hooks see as grad_outputs: undefined ones stay None
        if fn._n_out > 1:
            gs = [
                g if g is not None else _zeros_for(fn, i, create_graph, gs)
                for i, g in enumerate(gs)
            ]
        fns = None
        if execs is not None and fn._op is not None and not fn._error:
            # torch's generated nodes compute only the gradients whose edge leads to a node
            # that runs (should_compute_output): a target of backward(inputs=[y]) runs with
            # nothing below it computed, unless it leads to another input (an Error node,
            # NotImplemented, raises whatever it computes)
            fns = fn._fns
            if any(n is not None and n not in execs for n in fns):
                fns = tuple(n if n in execs else None for n in fns)
        if anomaly:
            from .anomaly_mode import run_with_anomaly

            outs = run_with_anomaly(fn, gs, create_graph, fns)
        elif fn._op is not None:
            outs = run_node(fn, gs, create_graph, None, fns)
        else:
            outs = fn._apply(gs, create_graph)
            # a user's backward may return arrays of tensors it holds: never steal them
            for g in outs:
                if g is not None:
                    _mark(shared, g)
        hooks = fn._hooks
        if hooks:
            gi = tuple(_as_tensor(g) for g in outs)
            go = tuple(_as_tensor(g) for g in given)
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
        if fn.variable._hooks:
            _leaf_hooks(fn, gs, create_graph)
    elif fn._pre:
        _call_prehooks(fn, gs, create_graph, node_hooks=False)
    for nr, ks in caps:
        for k in ks:
            results[k] = gs[nr]
    return True


def _leaf_hooks(fn, gs, create_graph) -> None:
    g = None if gs[0] is None else _as_tensor(gs[0])
    for h in list(fn.variable._hooks.values()):
        g = _hook_value(g, h(g), h)
    gs[0] = None if g is None else _unwrap(g, create_graph)


def _zeros_for(fn: Node, i: int, create_graph: bool, gs=()):
    shape, dt = fn._out_meta[i]
    like = next((g for g in gs if g is not None), None)  # zeros on the other outputs' device
    if like is not None and hasattr(like, "_data"):
        like = like._data
    z = (NPX if like is None else xp_of(like)).zeros(shape, dt)
    if create_graph:
        return engine.Tensor._wrap(z)
    return z
