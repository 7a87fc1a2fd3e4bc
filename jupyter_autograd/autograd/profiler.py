"""``torch.autograd.profiler``: time each op and each backward node, and print torch's table.

``profile()`` records, while it is active, one event per registry op run forward (named as
torch names the ATen op: ``aten::mul``, ``aten::sum``), one pair per node run by backward
(``autograd::engine::evaluate_function: MulBackward0`` around ``MulBackward0``) and one per
``record_function`` block. Events nest by time; an event's *self* time is its time less its
children's. ``key_averages()`` groups them by name (and by input shapes when asked) and
``table()`` prints them in torch's format (the events and tables are :mod:`.profiler_util`).

Nothing on the per-op path pays for this when no profiler runs: entering a profiler wraps the
forward of every registry row and the engine's general node runner, and leaving it restores
them. Ops torch runs as separate ATen calls inside one of ours (``aten::empty``,
``aten::fill_``, ``aten::to``) do not appear: the table lists what this library runs.

Example:
    >>> import jupyter_autograd as torch
    >>> x = torch.ones(3, requires_grad=True)
    >>> with torch.autograd.profiler.profile() as prof:
    ...     (x * 2).sum().backward()
    >>> [e.key for e in prof.key_averages()][:2]
    ['aten::mul', 'aten::sum']
"""

from __future__ import annotations

import threading
import time

from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]

_LOCK = threading.RLock()
_ACTIVE: list = []  # running profilers (the innermost records)
_SAVED: dict = {}  # what entering the first profiler replaced, to restore on leaving the last
_TLS = threading.local()


def _now_us() -> float:
    return time.perf_counter_ns() / 1000.0


# ------------------------------------------------------------------ recording
class _Recorder:
    """The events of one profiler, and this thread's stack of open events."""

    def __init__(self, record_shapes: bool) -> None:
        self.record_shapes = record_shapes
        self.events: list = []
        self.next_id = 0
        self.t0 = _now_us()

    def open(self, name: str, shapes=None, user: bool = False):
        stack = getattr(_TLS, "stack", None)
        if stack is None:
            stack = _TLS.stack = []
        self.next_id += 1
        ev = FunctionEvent(
            self.next_id,
            name,
            _thread_id(),
            _now_us() - self.t0,
            0.0,
            shapes if self.record_shapes else None,
            is_user_annotation=user,
        )
        if stack:
            ev.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(ev)
        stack.append(ev)
        self.events.append(ev)
        return ev

    def close(self, ev) -> None:
        ev.time_range = (ev.time_range[0], _now_us() - self.t0)
        stack = _TLS.stack
        if stack and stack[-1] is ev:
            stack.pop()


def _thread_id() -> int:
    # torch numbers the profiled threads from 1 (the main thread)
    return 1 if threading.current_thread() is threading.main_thread() else threading.get_ident()


def _current():
    return _ACTIVE[-1] if _ACTIVE else None


def _shape_of(a) -> list:
    s = getattr(a, "shape", None)
    return list(s) if s is not None else []


def _wrap_fwd(op, fwd):
    name = "aten::" + op.name.split(".")[0]

    def profiled(xp, *args):
        rec = _current()
        if rec is None:
            return fwd(xp, *args)
        ev = rec.open(name, [_shape_of(a) for a in args[:-1]])
        try:
            return fwd(xp, *args)
        finally:
            rec.close(ev)

    profiled.__wrapped__ = fwd
    return profiled


def _wrap_run_general(run_general):
    from .node import AccumulateGrad

    def profiled(fn, *args):
        rec = _current()
        # args: gs, create_graph, tracers, capture, needed, results, accumulate, ...; torch
        # does not evaluate a node autograd.grad does not need
        if rec is None or (args[3] is not None and fn not in args[4]):
            return run_general(fn, *args)
        name = fn.name()
        outer = rec.open("autograd::engine::evaluate_function: " + name)
        # a leaf autograd.grad does not fill: evaluated, its AccumulateGrad not called
        inner = None if fn.__class__ is AccumulateGrad and not args[6] else rec.open(name)
        try:
            return run_general(fn, *args)
        finally:
            if inner is not None:
                rec.close(inner)
            rec.close(outer)

    return profiled


def _wrap_apply_function(apply_function):
    def profiled(cls, args, kwargs):
        rec = _current()
        if rec is None:
            return apply_function(cls, args, kwargs)
        ev = rec.open(cls.__name__, [_shape_of(a) for a in args])  # torch: the class's name
        try:
            return apply_function(cls, args, kwargs)
        finally:
            rec.close(ev)

    return profiled


def _backward_tracer(fn, grads) -> None:
    """Installed while profiling so that the engine runs every node through its general
    runner (which the profiler times)."""


def _install() -> None:
    from ..ops.registry import OPS
    from . import engine, executor, function

    fwds = {}
    for op in list(OPS.values()):
        fwds[op] = op.fwd
        op.fwd = _wrap_fwd(op, op.fwd)
    _SAVED["fwd"] = fwds
    _SAVED["apply_function"] = function._apply_function
    function._apply_function = _wrap_apply_function(function._apply_function)
    _SAVED["run_general"] = executor._run_general
    executor._run_general = _wrap_run_general(executor._run_general)
    engine.FLAGS.backward_tracers.append(_backward_tracer)
    # the fused linear path runs addmm's forward inline unless something observes recording
    engine.FLAGS.record_tracers.append(_record_tracer)


def _record_tracer(node, inputs) -> None:
    """Installed while profiling: F.linear then takes the general path (timed per op)."""


def _uninstall() -> None:
    from . import engine, executor, function

    for op, fwd in _SAVED.pop("fwd").items():
        op.fwd = fwd
    executor._run_general = _SAVED.pop("run_general")
    function._apply_function = _SAVED.pop("apply_function")
    for lst, cb in (
        (engine.FLAGS.backward_tracers, _backward_tracer),
        (engine.FLAGS.record_tracers, _record_tracer),
    ):
        if cb in lst:
            lst.remove(cb)
    _SAVED.clear()


class profile:
    """Context manager recording the ops run inside it (see the module docstring).

    ``key_averages()``, ``table()``, ``function_events`` and ``total_average()`` read the
    events once the block has ended. ``use_cuda``, ``profile_memory``, ``with_stack`` and
    the other collection options of torch are accepted; this CPU library records times and,
    with ``record_shapes=True``, input shapes.

    Example:
        >>> import jupyter_autograd as torch
        >>> with torch.autograd.profiler.profile() as prof:
        ...     y = torch.ones(2, 3).sin()
        >>> [e.key for e in prof.function_events]
        ['aten::sin']
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device=None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config=None,
        acc_events: bool = False,
        custom_trace_id_callback=None,
    ) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.use_device = use_device
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.entered = False
        self.function_events = EventList()
        self._rec = None

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._rec = _Recorder(self.record_shapes)
        with _LOCK:
            if not _ACTIVE:
                _install()
            _ACTIVE.append(self._rec)
        return self

    def __exit__(self, *exc) -> bool:
        if not self.enabled:
            return False
        with _LOCK:
            if self._rec in _ACTIVE:
                _ACTIVE.remove(self._rec)
            if not _ACTIVE and _SAVED:
                _uninstall()
        self.function_events = EventList(sorted(self._rec.events, key=lambda e: e.time_range[0]))
        return False

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        return self.function_events.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def table(
        self,
        sort_by=None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header=None,
        top_level_events_only: bool = False,
        time_unit=None,
    ) -> str:
        return self.function_events.table(
            sort_by,
            row_limit,
            max_src_column_width,
            max_name_column_width,
            max_shapes_column_width,
            header,
            top_level_events_only,
            time_unit,
        )

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    def export_chrome_trace(self, path: str) -> None:
        self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def __str__(self) -> str:
        return str(self.function_events)

    __repr__ = __str__


class record_function:
    """Label a block (or a decorated function) in the profile: its time appears under
    ``name``, around the ops it runs.

    Example:
        >>> import jupyter_autograd as torch
        >>> with torch.autograd.profiler.profile() as prof:
        ...     with torch.autograd.profiler.record_function("my_block"):
        ...         y = torch.ones(2).exp()
        >>> [e.key for e in prof.key_averages()]
        ['my_block', 'aten::exp']
    """

    def __init__(self, name: str, args=None) -> None:
        self.name = name
        self.args = args
        self._ev = None
        self._rec = None

    def __enter__(self):
        rec = _current()
        if rec is not None:
            self._rec = rec
            self._ev = rec.open(self.name, [], user=True)
        return self

    def __exit__(self, *exc) -> bool:
        if self._ev is not None:
            self._rec.close(self._ev)
            self._ev = self._rec = None
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped
