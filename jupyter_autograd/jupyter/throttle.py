"""Coalescing bursts of widget changes into few redraws."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class RedrawThrottle:
    """Coalesce bursts of change notifications into at most one redraw per ``min_interval``.

    A request inside the interval marks the state dirty and schedules one trailing redraw, so
    the last value is always drawn and a slider drag never queues a redraw per pixel (F6).

    Args:
        draw: the redraw callback.
        min_interval: seconds between redraws (0.05 -> at most 20 per second).
        clock: time source (injectable for tests).
        schedule: ``schedule(delay, callback)``; defaults to the running asyncio loop's
            ``call_later`` (the kernel's loop); without a loop every request draws.

    Example:
        >>> calls = []
        >>> t = RedrawThrottle(lambda: calls.append(1), clock=lambda: 0.0, schedule=lambda d, cb: True)
        >>> t.request(); t.request(); t.request()
        >>> len(calls), t.pending
        (1, True)
    """

    def __init__(
        self,
        draw: Callable[[], None],
        min_interval: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
        schedule: Callable[[float, Callable[[], None]], Any] | None = None,
    ) -> None:
        self.draw = draw
        self.min_interval = min_interval
        self.clock = clock
        self.schedule = schedule if schedule is not None else _loop_call_later
        self.last = -float("inf")
        self.pending = False
        self._scheduled = False
        self.draws = 0
        self.last_duration = 0.0

    @property
    def interval(self) -> float:
        """The gap enforced now: ``min_interval``, or twice the last draw's duration if longer,
        so a slow plot never keeps the kernel busy more than half the time."""
        return max(self.min_interval, 2.0 * self.last_duration)

    def request(self) -> None:
        now = self.clock()
        if now - self.last >= self.interval:
            self._run(now)
            return
        self.pending = True
        if not self._scheduled:
            self._scheduled = bool(self.schedule(self.interval - (now - self.last), self._fire))
            if not self._scheduled:  # no event loop to defer to: nothing can flood, draw now
                self._run(now)

    def _fire(self) -> None:
        self._scheduled = False
        self.flush()

    def flush(self) -> None:
        """Run the pending redraw now, if any."""
        if self.pending:
            self._run(self.clock())

    def _run(self, now: float) -> None:
        self.pending = False
        self.last = now
        self.draws += 1
        self.draw()
        self.last_duration = max(0.0, self.clock() - now)


def _loop_call_later(delay: float, cb: Callable[[], None]) -> bool:
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_later(max(delay, 0.0), cb)
    return True
