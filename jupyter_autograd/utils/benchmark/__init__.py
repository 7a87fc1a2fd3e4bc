"""``torch.utils.benchmark``: ``Timer`` (``timeit``, ``blocked_autorange``,
``adaptive_autorange``) and the ``Measurement`` it returns, printed as torch prints it.

A ``Timer`` compiles ``stmt`` and ``setup`` as :class:`timeit.Timer` does, with ``torch``
(this library) in its globals. ``timeit(n)`` warms up with ``n // 100`` runs and then times
``n`` runs as one measurement; ``blocked_autorange`` first grows a block size until the timer's
own overhead is negligible, then times blocks until ``min_run_time`` seconds have passed.
Statistics (median, IQR and the warnings about a wide IQR) follow torch's ``Measurement``.

Example:
    >>> import jupyter_autograd as torch
    >>> from jupyter_autograd.utils import benchmark
    >>> t = benchmark.Timer(stmt="x * 2", setup="x = torch.ones(8)")
    >>> m = t.timeit(100)
    >>> m.number_per_run, len(m.times)
    (100, 1)
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import math
import textwrap
import timeit
from typing import Any

import numpy as np

__all__ = ["Language", "Measurement", "TaskSpec", "Timer", "select_unit", "timer"]

_MIN_CONFIDENCE_INTERVAL = 25e-9
_MAX_SIGNIFICANT_FIGURES = 4
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25

timer = timeit.default_timer


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer runs and how it is labelled (everything but its globals)."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def select_unit(t: float) -> tuple[str, float]:
    """The unit that shows ``t`` seconds with one to three integer digits."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """Times of ``number_per_run`` runs each (``raw_times``, seconds) and their statistics."""

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    def __post_init__(self) -> None:
        self._sorted_times: tuple = ()
        self._warnings: tuple = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """Digits the interquartile spread supports (at most 4)."""
        self._lazy_init()
        n = len(self._sorted_times)
        mid = self._sorted_times[n // 4 : math.ceil(3 * n / 4)]
        std = float(np.std(mid)) if mid else 0.0
        ci = max(1.645 * std / math.sqrt(len(mid)) if mid else 0.0, _MIN_CONFIDENCE_INTERVAL)
        digits = math.floor(math.log10(self._median / ci))
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            a = np.asarray(self._sorted_times, dtype=np.float64)
            self._median = float(np.quantile(a, 0.5))
            self._mean = float(a.mean())
            self._p25 = float(np.quantile(a, 0.25))
            self._p75 = float(np.quantile(a, 0.75))

            def warn(msg: str) -> None:
                rel = self.iqr / self.median * 100
                text = (
                    f"  WARNING: Interquartile range is {rel:.1f}% of the median "
                    f"measurement.\n           {msg}"
                )
                self._warnings += (text,)

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                warn("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                warn("This could indicate system fluctuation.")

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [
            object.__repr__(self),
            self.task_spec.summarize(),
            f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}",
        ]
        if n >= 4:
            lines.append(
                f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                f"{self._p75 / scale:.2f})"
            )
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {threads}"
        )
        lines.append("\n".join(self._warnings))
        return "\n".join("\n".join(lines).strip().splitlines())

    @staticmethod
    def merge(measurements) -> list:
        """One Measurement per task, its times extrapolated to one run each."""
        groups = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].append(m)
        return [Measurement(1, [t for m in g for t in m.times], spec) for spec, g in groups.items()]


# torch's class prints its own module in the repr's first line
Measurement.__module__ = "torch.utils.benchmark.utils.common"
Measurement.__qualname__ = "Measurement"


#: what ``torch`` names in a timed statement: the package, set by the package itself as it loads
#: (it sits above this module)
PACKAGE = None


class Timer:
    """Time a PyTorch statement (see the module docstring).

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.utils.benchmark import Timer
        >>> m = Timer("x.sum()", globals={"x": torch.ones(4)}).blocked_autorange(min_run_time=0.01)
        >>> m.median > 0
        True
    """

    _timer_cls = timeit.Timer

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer=timer,
        globals: dict | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")  # noqa: TRY004 - torch's
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", PACKAGE)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(
                    f"global_setup is C++ only, got `{global_setup}`. Most likely "
                    "this code can simply be moved to `setup`."
                )
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("C++ timing is not available: this library has no C++ API")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run ``stmt`` ``number`` times (after ``number // 100`` warm-up runs): one
        measurement."""
        self._timeit(number=max(int(number // 100), 2))
        return Measurement(
            number_per_run=number,
            raw_times=[self._timeit(number=number)],
            task_spec=self._task_spec,
        )

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _loop(self, number, stop_hook, min_run_time, max_run_time=None, callback=None) -> list:
        total, can_stop, times = 0.0, False, []
        while total < min_run_time or not can_stop:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            can_stop = stop_hook(times)
            if max_run_time and total > max_run_time:
                break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        overhead = float(np.median([self._timeit(0) for _ in range(5)]))
        number = 1
        while True:
            taken = self._timeit(number)
            if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                break
            if taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Time blocks of runs (a block size large enough to hide the timer's overhead) until
        ``min_run_time`` seconds have been measured."""
        number = self._estimate_block_size(min_run_time)
        times = self._loop(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback=None,
    ) -> Measurement:
        """As ``blocked_autorange``, until the IQR is below ``threshold`` of the median (or
        ``max_run_time`` has passed)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times) -> bool:
            return len(times) > 3 and Measurement(number, times, self._task_spec).meets_confidence(
                threshold=threshold
            )

        times = self._loop(number, stop, min_run_time, max_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
