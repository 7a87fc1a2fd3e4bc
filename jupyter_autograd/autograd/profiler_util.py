"""The profiler's events and tables (torch.autograd.profiler_util): :class:`FunctionEvent`
(one op, node or ``record_function`` block, with its children), :class:`FunctionEventAvg`
(events grouped by name, and by input shapes when asked), :class:`EventList` with
``key_averages()``, ``table()`` in torch's format and ``export_chrome_trace()``.

What records the events while a profiler runs is :mod:`.profiler`.
"""

from __future__ import annotations

import json
from collections import OrderedDict

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


class _Times:
    """Times shared by events and their averages (torch's FormattedTimesMixin)."""

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    # torch's device columns: always zero on the CPU
    device_time = device_time_total = self_device_time_total = cuda_time = 0.0
    cpu_memory_usage = self_cpu_memory_usage = device_memory_usage = self_device_memory_usage = 0
    node_id = -1
    is_async = False
    is_remote = False
    is_legacy = False
    use_device = None
    overload_name = ""
    flops = 0


class FunctionEvent(_Times):
    """One profiled call: its name, start and end (microseconds), and the events inside it."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        input_shapes=None,
        sequence_nr=-1,
        is_user_annotation=False,
    ) -> None:
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = (start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list = []
        self.cpu_parent = None
        self.count = 1
        self.stack: list = []
        self.scope = 0

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        start, end = self.time_range
        return end - start

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        start, end = self.time_range
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name= "
            f"device_type=DeviceType.CPU node_id=-1 cpu_time={self.cpu_time_str} "
            f"start_us={start:.3f} end_us={end:.3f} "
            f"cpu_children={[c.id for c in self.cpu_children]} None_time=0.000us "
            f"name={self.name} thread={self.thread} input_shapes={self.input_shapes} "
            "cpu_memory_usage=0 None_memory_usage=0 is_async=False is_remote=False "
            f"seq_nr={self.sequence_nr} is_legacy=False>"
        )


class FunctionEventAvg(_Times):
    """The events of one key added up: ``count`` calls, total and self times."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.cpu_children = None
        self.cpu_parent = None
        self.is_user_annotation = False
        self.stack = None
        self.scope = None

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.cpu_children = other.cpu_children
            self.cpu_parent = other.cpu_parent
            self.is_user_annotation = other.is_user_annotation
            self.stack = other.stack
            self.scope = other.scope
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError(  # noqa: TRY004 - torch's
                "Expected other to be a FunctionEvent or FunctionEventAvg"
            )
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_cuda_time=0.000us cuda_time=0.000us "
            f"input_shapes={self.input_shapes} "
            "cpu_memory_usage=0 cuda_memory_usage=0>"
        )


class EventList(list):
    """A list of events with torch's summaries: ``key_averages``, ``table``, ``total_average``."""

    def __init__(self, *args, **kwargs) -> None:
        for k in ("use_device", "profile_memory", "with_flops"):
            kwargs.pop(k, None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(
        self,
        group_by_input_shapes: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """One :class:`FunctionEventAvg` per name (and input shapes), in order of first call."""
        groups: OrderedDict = OrderedDict()
        for e in self:
            k = (e.key, str(e.input_shapes)) if group_by_input_shapes else e.key
            groups.setdefault(k, FunctionEventAvg()).add(e)
        avgs = EventList(groups.values())
        if not group_by_input_shapes:  # torch shows the shapes only when it groups by them
            for a in avgs:
                a.input_shapes = ""
        return avgs

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
            total.key = None  # each event joins whatever its name
        total.key = "Total"
        return total

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
        """torch's summary table: one row per event, sorted by ``sort_by`` (an attribute such
        as ``"self_cpu_time_total"``) when given."""
        return _build_table(
            self,
            sort_by,
            header,
            row_limit,
            max_name_column_width,
            max_shapes_column_width,
            top_level_events_only,
            time_unit,
        )

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto)."""
        trace = [
            {
                "name": e.name,
                "ph": "X",
                "ts": e.time_range[0],
                "dur": e.cpu_time_total,
                "tid": e.thread,
                "pid": "CPU functions",
                "args": {},
            }
            for e in self
        ]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)

    def __str__(self) -> str:
        return self.table()


def _unit(time_us: float, default: str, time_unit) -> str:
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return default


def _build_table(
    events, sort_by, header, row_limit, max_name_width, max_shapes_width, top_level_only, time_unit
) -> str:
    if len(events) == 0:
        return ""
    if sort_by is not None:
        key = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, key), reverse=True)
    shapes = any(e.input_shapes for e in events)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_width is not None:
        name_w = min(name_w, max_name_width)
    heads = [
        "Name",
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
        "# of Calls",
    ]
    widths = [name_w] + [12] * 6
    if shapes:
        shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_width is not None:
            shapes_w = min(shapes_w, max_shapes_width)
        heads.append("Input Shapes")
        widths.append(shapes_w)
    row = "".join("{: >" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    line_len = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * line_len, header]
    if top_level_only:
        out += ["=" * line_len, "This report only display top-level ops statistics"]
    out += [sep, row.format(*heads), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[: max_name_width - 3] + "..."
        vals = [
            name,
            _format_share(e.self_cpu_time_total, total),
            _unit(e.self_cpu_time_total, e.self_cpu_time_total_str, time_unit),
            _format_share(e.cpu_time_total, total),
            _unit(e.cpu_time_total, e.cpu_time_total_str, time_unit),
            _unit(e.cpu_time, e.cpu_time_str, time_unit),
            e.count,
        ]
        if shapes:
            vals.append(str(e.input_shapes)[:shapes_w])
        out.append(row.format(*vals))
    out += [sep, f"Self CPU time total: {_unit(total, _format_time(total), time_unit)}"]
    return "".join(s + "\n" for s in out)
