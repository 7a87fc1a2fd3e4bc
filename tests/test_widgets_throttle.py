"""The widgets' F6 rate limits: slider bursts coalesced, one redraw per spaced change, one
output update per click, the redraw throttle's trailing draw and back-off (counted on a fake
comm and a fake clock, never with sleeps)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from jupyter_autograd.jupyter import widget_core
from jupyter_autograd.jupyter.widget_core import RedrawThrottle
from jupyter_autograd.widgets import (
    AccumulationDemo,
    BackwardStepper,
    JacobianExplorer,
)

from ._widget_helpers import (
    FakeClock,
    comms_fixture,  # noqa: F401 - the comms fixture
    f_r2_r3,
    messages_from,
    sample_loss,
)


# ------------------------------------------------------------------------ F6: throttling
@pytest.fixture
def cheap_png(monkeypatch):
    """Skip PNG encoding where only message counts matter (keeps the suite fast)."""
    from jupyter_autograd.jupyter import widgets

    monkeypatch.setattr(widgets, "_png", lambda fig: "iVBORw0KGgo=")


def test_slider_burst_is_coalesced_under_100_messages_per_second(comms, cheap_png):
    clock = FakeClock()
    ex = JacobianExplorer(f_r2_r3, [0.3, -1.2], clock=clock, schedule=clock.schedule)
    assert ex.throttle.draws == 1
    comms.clear()
    # a 1 000-updates-per-second burst from the frontend for half a second
    for k in range(500):
        ex.v_sliders[0].set_state({"value": -2.0 + 0.008 * k})
        clock.advance(0.001)
    clock.advance(1.0)  # the trailing redraw fires
    out_msgs = messages_from(comms, ex.plot_out)
    # 0.5 s at min_interval=0.05: at most 11 redraws, far below 100 messages per second
    assert 1 < len(out_msgs) <= 11
    assert ex.throttle.draws - 1 == len(out_msgs)
    np.testing.assert_allclose(ex.report.v[0], -2.0 + 0.008 * 499)  # the last value is drawn
    # the sliders only echo what they received (ipywidgets 8), never more
    assert len(messages_from(comms, ex.v_sliders[0])) <= 500
    # every other widget of the explorer stays silent
    others = [w for w in ex.x_sliders + ex.u_sliders + ex.v_sliders[1:]]
    assert all(messages_from(comms, w) == [] for w in others)
    # per-second rate of every widget except the echoing slider
    per_widget: dict = {}
    for cid, t, _ in comms:
        per_widget[cid] = per_widget.get(cid, 0) + 1
    per_widget.pop(ex.v_sliders[0].model_id, None)
    assert max(per_widget.values()) <= 100


def test_one_redraw_per_spaced_change(comms, cheap_png):
    clock = FakeClock()
    ex = JacobianExplorer(lambda x: x * x, [1.0, 2.0], clock=clock, schedule=clock.schedule)
    before = ex.updates
    for k in range(5):
        clock.advance(1.0)
        ex.v_sliders[0].value = 0.1 * k
    assert ex.updates - before == 5 and ex.throttle.draws == 6
    clock.advance(1.0)
    ex.v_sliders[0].value = 0.4  # unchanged value: traitlets sends no change, no redraw
    assert ex.updates - before == 5


def test_buttons_send_one_output_update_per_click(comms):
    demo = AccumulationDemo()
    comms.clear()
    for _ in range(10):
        demo.backward_button.click()
    assert len(messages_from(comms, demo.out)) == 10
    st = BackwardStepper(sample_loss()[2])
    comms.clear()
    st.next_button.click()
    # one message each for the step text, the graph view and the slider position
    assert len(messages_from(comms, st.step_out)) == 1
    assert len(messages_from(comms, st.graph_out)) == 1
    assert len(messages_from(comms, st.step_slider)) == 1


def test_redraw_throttle_trailing_draw_and_rate():
    clock = FakeClock()
    drawn = []
    th = RedrawThrottle(
        lambda: drawn.append(clock.t), min_interval=0.05, clock=clock, schedule=clock.schedule
    )
    for _ in range(400):  # 10 000 requests per second for 0.04 s
        th.request()
        clock.advance(0.0001)
    assert len(drawn) == 1 and th.pending
    clock.advance(0.1)
    assert len(drawn) == 2 and not th.pending


def test_redraw_throttle_backs_off_for_slow_draws():
    clock = FakeClock()

    def slow_draw():
        clock.t += 0.2  # a plot that takes 200 ms

    th = RedrawThrottle(slow_draw, min_interval=0.05, clock=clock, schedule=clock.schedule)
    th.request()
    assert th.interval == pytest.approx(0.4)
    for _ in range(100):  # requests over the next 2 s
        th.request()
        clock.advance(0.02)
    # drawing keeps the kernel busy about half the time, not all of it
    assert th.draws > 3 and th.draws * 0.2 / clock.t <= 0.55


def test_default_schedule_uses_the_running_loop():
    # in a thread of its own: a session-wide browser fixture (Playwright's sync API) may own the
    # main thread's event loop
    import threading

    result = {}

    def body():
        fired = []

        async def main():
            assert widget_core._loop_call_later(0.0, lambda: fired.append(1)) is True
            await asyncio.sleep(0)
            await asyncio.sleep(0)

        asyncio.run(main())
        result["fired"] = fired
        result["no_loop"] = widget_core._loop_call_later(0.0, lambda: None)  # no loop here

    t = threading.Thread(target=body)
    t.start()
    t.join(10)
    assert result == {"fired": [1], "no_loop": False}
