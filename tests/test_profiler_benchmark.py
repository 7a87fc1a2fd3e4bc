"""torch.autograd.profiler, torch.profiler and torch.utils.benchmark against torch: which
events are recorded (the names torch gives its ATen ops and backward nodes), how the table and
a Measurement print, and the errors. Times differ by nature; what is compared is the rest."""

from __future__ import annotations

import re

import pytest

import jupyter_autograd as ja
from jupyter_autograd.utils import benchmark as ja_benchmark

from ._torch import require as require_torch

# ATen calls torch makes inside one of our ops (allocation, copies, dtype conversion): ours
# runs those as NumPy inside the op, so the profile lists only the ops themselves
_TORCH_INTERNAL = {
    "aten::to",
    "aten::_to_copy",
    "aten::empty_strided",
    "aten::copy_",
    "aten::as_strided",
    "aten::fill_",
    "aten::ones_like",
    "aten::empty_like",
    "aten::empty",
    "aten::expand",
    "aten::detach",
    "detach",
    "aten::zeros",
    "aten::zero_",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "aten::view",
    "aten::reshape",
    "aten::_reshape_alias",
    "aten::result_type",
    "aten::ones",
    "aten::new_empty_strided",
    "aten::lift_fresh",
    "aten::clone",
}


def _keys(m, program) -> list:
    with m.autograd.profiler.profile() as prof:
        program(m)
    return [k for k in (e.key for e in prof.key_averages()) if k not in _TORCH_INTERNAL]


def _mlp_step(m):
    g = m.Generator().manual_seed(0)
    x = m.randn(4, 3, generator=g, requires_grad=True)
    w = m.randn(3, 2, generator=g, requires_grad=True)
    y = (x @ w).relu().sin().sum()
    y.backward()


def _custom_function(m):
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = m.ones(2, requires_grad=True)
    Double.apply(x).exp().sum().backward()


def _grad_create_graph(m):
    x = m.ones(2, requires_grad=True)
    (gx,) = m.autograd.grad((x * x).sum(), x, create_graph=True)
    gx.sum()


def _subsequence(short, long) -> bool:
    it = iter(long)
    return all(k in it for k in short)


@pytest.mark.parametrize(
    "program",
    [
        _mlp_step,
        _custom_function,
        pytest.param(
            _grad_create_graph,
            marks=pytest.mark.xfail(
                strict=True,
                reason=(
                    "known gap since autograd.grad captures a leaf's gradient without running its "
                    "AccumulateGrad node: torch's profiler still shows that node's evaluate_function event"
                ),
            ),
        ),
    ],
)
def test_recorded_events_are_torchs(program):
    """The backward nodes run are torch's, in torch's order; each op recorded is one torch
    records, in the same order (torch also lists the ATen ops its composite ops and its
    backward formulas call: matmul around mm, cos inside SinBackward0)."""
    torch = require_torch()
    ours, theirs = _keys(ja, program), _keys(torch, program)

    def nodes(keys):
        return [k for k in keys if not k.startswith("aten::")]

    assert nodes(ours) == nodes(theirs)
    assert _subsequence(ours, theirs), (ours, theirs)


def _table_shape(table: str) -> list:
    """The table with every number replaced: its layout, names and counts stay."""
    return [re.sub(r" *(\d+\.\d+(us|ms|s|%)|NaN)", " T", line) for line in table.splitlines()]


def test_table_prints_as_torch():
    torch = require_torch()

    def program(m):
        x = m.ones(3, 4)
        with m.autograd.profiler.profile(record_shapes=True) as prof:
            with m.autograd.profiler.record_function("forward_pass"):
                x.sin().exp()
            x.exp()
        return prof

    ours, theirs = program(ja), program(torch)
    for group in (False, True):
        t_ours = ours.key_averages(group_by_input_shape=group).table(row_limit=10)
        t_theirs = theirs.key_averages(group_by_input_shape=group).table(row_limit=10)
        assert _table_shape(t_ours) == _table_shape(t_theirs)
    assert _table_shape(str(ours)) == _table_shape(str(theirs))  # every event, not averaged
    # sorted by a column, limited, header, and the unit forced
    kw = {"sort_by": "cpu_time_total", "row_limit": 1, "header": "HEAD", "time_unit": "ms"}
    t_ours = ours.key_averages().table(**kw)
    assert _table_shape(t_ours) == _table_shape(theirs.key_averages().table(**kw))
    assert t_ours.splitlines()[5].split()[0] == "forward_pass"  # the outer block: the most time
    kw = {"top_level_events_only": True, "max_name_column_width": 8}
    assert _table_shape(ours.table(**kw)) == _table_shape(theirs.table(**kw))


def test_event_attributes_and_empty_profiles():
    torch = require_torch()
    for m in (ja, torch):
        x = m.ones(2, 3)
        with m.autograd.profiler.profile() as prof:
            x.sin()
        (ev,) = [e for e in prof.function_events if e.key == "aten::sin"]
        assert ev.count == 1 and ev.cpu_time_total >= ev.self_cpu_time_total >= 0
        assert re.fullmatch(r"\d+\.\d{3}(us|ms|s)", ev.cpu_time_total_str)
        avg = prof.key_averages()
        assert avg.total_average().key == "Total"
        assert prof.self_cpu_time_total == pytest.approx(
            sum(e.self_cpu_time_total for e in prof.function_events)
        )
    for m in (ja, torch):
        p = m.autograd.profiler.profile()
        assert list(p.function_events) == [] and p.table() == "" and str(p) == ""
        assert list(p.key_averages()) == []
    for m in (ja, torch):
        with m.autograd.profiler.profile(enabled=False) as p:
            pass
        assert p is None


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return type(e).__name__, str(e)
    return None


def test_errors_as_torch():
    torch = require_torch()

    def reenter(m):
        p = m.autograd.profiler.profile()
        with p:
            pass
        with p:
            pass

    def new_api_before_run(m):
        m.profiler.profile().key_averages()

    for sc in (reenter, new_api_before_run):
        assert _err(lambda sc=sc: sc(ja)) == _err(lambda sc=sc: sc(torch))


def test_profiler_restores_the_fast_paths():
    from jupyter_autograd.autograd import engine, executor, function
    from jupyter_autograd.ops import OPS

    before = (
        executor._run_general,
        function._apply_function,
        OPS["mul"].fwd,
        list(engine.FLAGS.backward_tracers),
        list(engine.FLAGS.record_tracers),
    )
    with ja.autograd.profiler.profile(), ja.profiler.profile():
        (ja.ones(2, requires_grad=True) * 2).sum().backward()
    after = (
        executor._run_general,
        function._apply_function,
        OPS["mul"].fwd,
        list(engine.FLAGS.backward_tracers),
        list(engine.FLAGS.record_tracers),
    )
    assert before == after


def test_new_profiler_api_and_schedule():
    torch = require_torch()

    def program(m):
        seen = []
        x = m.ones(3)
        sched = m.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
        with m.profiler.profile(
            activities=[m.profiler.ProfilerActivity.CPU],
            schedule=sched,
            on_trace_ready=lambda p: seen.append(
                [e.key for e in p.key_averages() if e.key == "aten::sin"]
            ),
        ) as prof:
            for _ in range(6):
                x.sin()
                prof.step()
        return seen, [sched(i).name for i in range(8)]

    assert program(ja) == program(torch)

    def inference(m):
        with (
            m.profiler.profile(activities=[m.profiler.ProfilerActivity.CPU]) as prof,
            m.profiler.record_function("model_inference"),
        ):
            m.ones(2).exp()
        return [e.key for e in prof.key_averages() if e.key not in _TORCH_INTERNAL]

    assert inference(ja) == inference(torch)


def _measurement_shape(m) -> str:
    text = re.sub(r"0x[0-9a-f]+", "ADDR", repr(m))
    text = re.sub(r"\d+\.\d+ (ns|us|ms|s)", "T", text)
    text = re.sub(r"\d+\.\d+%", "P", text)
    # the warnings depend on the machine's noise, not on the library
    return "\n".join(
        ln
        for ln in text.splitlines()
        if "WARNING" not in ln and "suggests" not in ln and "indicate" not in ln
    )


def test_timer_measurements_print_as_torch():
    require_torch()
    from torch.utils import benchmark as tb

    for kw in (
        {"stmt": "x * 2", "setup": "x = torch.ones(8)"},
        {
            "stmt": "y = x + 1\ny.sum()",
            "globals": None,
            "label": "add",
            "sub_label": "small",
            "description": "f64",
            "setup": "x = torch.ones(4)",
        },
        {"stmt": "x.sum()", "setup": "import math\nx = torch.ones(4)", "num_threads": 2},
    ):
        ours = ja_benchmark.Timer(**kw).timeit(50)
        theirs = tb.Timer(**kw).timeit(50)
        assert _measurement_shape(ours) == _measurement_shape(theirs)
        assert ours.number_per_run == theirs.number_per_run == 50
        assert len(ours.times) == len(theirs.times) == 1
    # several measurements: Median and IQR lines; the statistics are torch's
    m = ja_benchmark.Measurement(
        10, [1e-5, 2e-5, 3e-5, 4e-5, 9e-5], ja_benchmark.TaskSpec("f(x)", "pass")
    )
    t = tb.Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5, 9e-5], tb.utils.common.TaskSpec("f(x)", "pass"))
    assert re.sub(r"0x[0-9a-f]+", "", repr(m)) == re.sub(r"0x[0-9a-f]+", "", repr(t))
    assert (m.median, m.mean, m.iqr, m.significant_figures, m.has_warnings) == pytest.approx(
        (t.median, t.mean, t.iqr, t.significant_figures, t.has_warnings)
    )
    assert [x.times for x in ja_benchmark.Measurement.merge([m, m])] == [
        x.times for x in tb.Measurement.merge([t, t])
    ]


def test_timer_autorange_and_errors():
    require_torch()
    from torch.utils import benchmark as tb

    x = ja.ones(4)
    m = ja_benchmark.Timer("x.sum()", globals={"x": x}).blocked_autorange(min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and m.number_per_run >= 1
    calls = []
    m = ja_benchmark.Timer("x.sum()", globals={"x": x}).adaptive_autorange(
        max_run_time=0.05, callback=lambda n, t: calls.append(n)
    )
    assert calls and len(m.raw_times) == len(calls)
    for kw in ({"stmt": 1}, {"global_setup": "int x;"}, {"language": "java"}):
        assert _err(lambda kw=kw: ja_benchmark.Timer(**kw)) == _err(lambda kw=kw: tb.Timer(**kw))
    for meth in ("repeat", "autorange"):
        assert _err(lambda meth=meth: getattr(ja_benchmark.Timer(), meth)()) == _err(
            lambda meth=meth: getattr(tb.Timer(), meth)()
        )
