"""``torch.profiler``: the newer profiler API over :mod:`jupyter_autograd.autograd.profiler`.

``profile(activities=[ProfilerActivity.CPU], record_shapes=..., schedule=...,
on_trace_ready=...)`` records the same events; with a ``schedule`` it records only in the
steps the schedule marks (``prof.step()`` ends each step) and calls ``on_trace_ready(prof)``
when a recording cycle ends, as torch does.

Example:
    >>> import jupyter_autograd as torch
    >>> from jupyter_autograd.profiler import ProfilerActivity, profile, record_function
    >>> with profile(activities=[ProfilerActivity.CPU]) as prof:
    ...     with record_function("model_inference"):
    ...         y = torch.ones(2, 3).sin()
    >>> [e.key for e in prof.key_averages()]
    ['model_inference', 'aten::sin']
"""

from __future__ import annotations

import enum

from .autograd import profiler as _ap
from .autograd.profiler import EventList, record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule"]


class ProfilerActivity(enum.Enum):
    """What to profile (only the CPU is recorded here)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5

    def __repr__(self) -> str:
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class ProfilerAction(enum.Enum):
    """What a schedule asks for at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
):
    """torch's profiler schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (the last one ``RECORD_AND_SAVE``), ``repeat``
    times (0: forever).

    Example:
        >>> from jupyter_autograd.profiler import schedule
        >>> s = schedule(wait=1, warmup=1, active=2)
        >>> [s(i).name for i in range(4)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE']
    """
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings

        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:  # start the first cycle at its warmup
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod = step % num_steps
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(_step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class profile:
    """Profile the block (or the steps a ``schedule`` selects); read the result with
    ``key_averages()``, ``events()``, ``export_chrome_trace()``."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events: bool = False,
        use_cuda=None,
        custom_trace_id_callback=None,
    ) -> None:
        self.activities = set(activities) if activities else {ProfilerActivity.CPU}
        self.record_shapes = record_shapes
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._inner = None
        self._events = None

    # a recording lasts from a WARMUP/RECORD step to the end of a RECORD_AND_SAVE step
    def _begin(self) -> None:
        if self._inner is None:
            self._inner = _ap.profile(record_shapes=self.record_shapes)
            self._inner.__enter__()

    def _end(self, ready: bool) -> None:
        if self._inner is not None:
            self._inner.__exit__(None, None, None)
            self._events = self._inner.function_events
            self._inner = None
            if ready and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def start(self) -> None:
        if self.current_action != ProfilerAction.NONE:
            self._begin()

    def stop(self) -> None:
        self._end(True)

    def step(self) -> None:
        """End the current step; the schedule decides what the next one records."""
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE:
            self._end(True)
        if self.current_action != ProfilerAction.NONE and self._inner is None:
            self._begin()
        elif self.current_action == ProfilerAction.NONE and self._inner is not None:
            self._end(False)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False

    def events(self) -> EventList:
        return self._events

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self._events.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def export_chrome_trace(self, path: str) -> None:
        self._events.export_chrome_trace(path)
