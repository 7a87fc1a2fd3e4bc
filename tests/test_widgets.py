"""Headless tests of the explorer widgets (issue 7): controls driven through .value / .click(),
resulting tensors, plotted artists (Agg), the graph payload, text fallbacks, and the F6 rate
limits are in test_widgets_throttle.py."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ._torch import require as require_torch

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import jupyter_autograd as torch
from jupyter_autograd.jupyter import plotting
from jupyter_autograd.jupyter.widget_core import (
    GRAPH_MIME,
    StepperState,
    backward_trace,
    finite_difference_jacobian,
    grad_mode_probe,
    jacobian,
    jacobian_report,
    jvp_forward,
    vjp_backward,
)
from jupyter_autograd.widgets import (
    AccumulationDemo,
    BackwardStepper,
    GradModeToggle,
    GraphExplorer,
    JacobianExplorer,
)

from ._widget_helpers import (
    comms_fixture,  # noqa: F401 - the comms fixture
    displayed,
    f_r2_r3,
    sample_loss,
    valid_payload,
)


# ------------------------------------------------------------------------ backward trace / stepper
def test_backward_trace_follows_the_engine_order_and_matches_torch():
    x, w, loss = sample_loss()
    steps = backward_trace(loss)
    names = [s.name for s in steps]
    assert names[0] == "AddBackward0" and names.count("AccumulateGrad") == 2
    np.testing.assert_allclose(x.grad.numpy(), [0.5, -1.0])
    np.testing.assert_allclose(w.grad.numpy(), [1.0 + 1.0, 2.0 - 2.0])
    # what MulBackward0 sends to each input is the product rule
    mul = next(s for s in steps if s.name == "MulBackward0")
    np.testing.assert_allclose(mul.grad_inputs[0].numpy(), [0.5, -1.0])
    np.testing.assert_allclose(mul.grad_inputs[1].numpy(), [1.0, 2.0])
    pt = require_torch()
    tx = pt.tensor([1.0, 2.0], requires_grad=True)
    tw = pt.tensor([0.5, -1.0], requires_grad=True)
    tl = (tx * tw).sum() + tw.pow(2).sum()
    order = []
    seen, stack = set(), [tl.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if fn.name() != "torch::autograd::AccumulateGrad":
            fn.register_hook(lambda gi, go, fn=fn: order.append(fn.name()))
        stack.extend(n for n, _ in fn.next_functions)
    tl.backward()
    assert [n for n in names if n != "AccumulateGrad"] == order


def test_backward_stepper_clicks_accumulate_leaves_step_by_step(comms):
    x, w, loss = sample_loss()
    st = BackwardStepper(loss)
    n = len(st.state.steps)
    assert x.grad is None and w.grad is None  # nothing accumulated before stepping
    assert st.step_slider.max == n and st.step_slider.continuous_update is False
    seen_grads = []
    for k in range(n):
        st.next_button.click()
        assert st.state.position == k + 1 and st.step_slider.value == k + 1
        step = st.state.steps[k]
        text = displayed(st.step_out)[0]["text/plain"]
        assert step.name in text
        if step.kind == "accumulate":
            np.testing.assert_allclose(step.leaf.grad.numpy(), step.grad_after.numpy())
            seen_grads.append(step.leaf)
        payload = valid_payload(displayed(st.graph_out)[0][GRAPH_MIME])
        # the view gets every step and opens where the stepper is (one stepper, #15)
        assert len(payload["backward_order"]) == n and payload["replay"]["step"] == k + 1
        marked = {nd["id"]: nd.get("backward_step") for nd in payload["nodes"]}
        assert marked[payload["backward_order"][k]] == k
    assert {id(t) for t in seen_grads} == {id(x), id(w)}
    np.testing.assert_allclose(x.grad.numpy(), [0.5, -1.0])
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 0.0])
    st.next_button.click()  # past the end: stays done
    assert st.state.position == n
    st.prev_button.click()
    assert st.state.position == n - 1
    last = st.state.steps[-1]
    assert last.kind == "accumulate" and last.leaf.grad is None  # undone
    st.step_slider.value = 0
    assert x.grad is None and w.grad is None
    assert displayed(st.graph_out)[0][GRAPH_MIME]["replay"] == {"step": 0, "controls": False}
    st.reset_button.click()
    assert st.state.position == 0


def test_backward_stepper_payload_carries_the_gradients():
    x = torch.tensor([3.0], requires_grad=True)
    st = StepperState((x * x).sum())
    mul = next(s for s in st.steps if s.name == "MulBackward0")
    # MulBackward0 of x * x sends g * x = 3 to each of its two inputs (both are x)
    assert [repr(g) for g in mul.grad_inputs] == ["tensor([3.])", "tensor([3.])"]
    st.goto(len(st.steps))
    payload = valid_payload(st.payload())
    by_op = {nd.get("op"): nd for nd in payload["nodes"]}
    assert by_op["MulBackward0"]["grad"] == "tensor([1.])"  # what arrived at the node
    acc_id = by_op["AccumulateGrad"]["id"]
    acc_edges = [e for e in payload["edges"] if e["source"] == acc_id]
    assert acc_edges and all(e["grad"] == "tensor([6.])" for e in acc_edges)  # 3 + 3 summed
    np.testing.assert_allclose(x.grad.numpy(), [6.0])
    st.goto(2)  # AccumulateGrad has not run yet: the view opens before it
    payload = valid_payload(st.payload())
    assert payload["replay"]["step"] == 2 < len(payload["backward_order"])
    assert x.grad is None


def test_backward_stepper_rejects_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        StepperState(torch.ones(2).sum())


# ------------------------------------------------------------------------ GraphExplorer
def test_graph_explorer_buttons_and_details(comms):
    x, w, loss = sample_loss()
    ex = GraphExplorer(loss)
    payload = valid_payload(displayed(ex.graph_out)[0][GRAPH_MIME])
    ops = {nd.get("op") for nd in payload["nodes"]}
    assert {"AddBackward0", "MulBackward0", "PowBackward0", "AccumulateGrad"} <= ops
    ex.retain_button.click()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 0.0])
    payload = valid_payload(displayed(ex.graph_out)[0][GRAPH_MIME])
    assert len(payload["backward_order"]) == 7
    leaf_grads = [
        nd["grad"] for nd in payload["nodes"] if nd["kind"] == "tensor" and nd.get("is_leaf")
    ]
    assert any("0.5000, -1.0000" in g for g in leaf_grads if g)
    ex.backward_button.click()  # second run: graph was retained, so grads add up
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 0.0])
    ex.backward_button.click()  # third run: freed by the previous one without retain_graph
    assert ex.status.value.startswith(
        "RuntimeError: Trying to backward through the graph a second time"
    )
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 0.0])
    ex.zero_button.click()
    np.testing.assert_allclose(w.grad.numpy(), [0.0, 0.0])
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    # details pane: pick the MulBackward0 node
    mul_id = next(i for label, i in ex.node_select.options if "MulBackward0" in label)
    ex.node_select.value = mul_id
    text = displayed(ex.details_out)[0]["text/plain"]
    assert "MulBackward0" in text and "_saved_self" in text and "source:" in text
    leaf_id = next(i for label, i in ex.node_select.options if "leaf" in label)
    ex.node_select.value = leaf_id
    assert "grad: tensor([0., 0.])" in displayed(ex.details_out)[0]["text/plain"]


def test_graph_explorer_source_line_under_anomaly_mode():
    from jupyter_autograd.autograd.engine import FLAGS

    FLAGS.anomaly = True  # what detect_anomaly() sets; restored below
    try:
        x = torch.tensor([1.0], requires_grad=True)
        y = (x * 3).sum()  # the source line
    finally:
        FLAGS.anomaly = False
    ex = GraphExplorer(y)
    sources = [nd["source"] for nd in valid_payload(ex.payload)["nodes"] if nd.get("source")]
    assert sources and all(s["code"] == "y = (x * 3).sum()  # the source line" for s in sources)
    mul_id = next(i for label, i in ex.node_select.options if "MulBackward0" in label)
    ex.node_select.value = mul_id
    assert "source: y = (x * 3).sum()" in displayed(ex.details_out)[0]["text/plain"]


def test_graph_explorer_rejects_non_tensor():
    with pytest.raises(TypeError, match="expected a Tensor"):
        GraphExplorer([1.0])


# ------------------------------------------------------------------------ AccumulationDemo
def test_accumulation_demo_grads_add_up_then_zero(comms):
    demo = AccumulationDemo()
    assert demo.state.x.grad is None
    demo.backward_button.click()
    g1 = demo.state.x.grad.numpy().copy()
    expected = np.full((4, 5), 2.0)
    np.fill_diagonal(expected, 4.0)
    np.testing.assert_allclose(g1, expected)
    assert "inp.grad =" in displayed(demo.out)[0]["text/plain"]
    demo.backward_button.click()
    np.testing.assert_allclose(demo.state.x.grad.numpy(), 2 * expected)
    assert "tensor([[8., 4., 4., 4., 4.]" in displayed(demo.out)[0]["text/plain"].replace("\n", "")
    demo.zero_button.click()
    np.testing.assert_allclose(demo.state.x.grad.numpy(), 0.0)
    assert "zero_()" in displayed(demo.out)[0]["text/plain"]
    demo.backward_button.click()
    np.testing.assert_allclose(demo.state.x.grad.numpy(), expected)
    assert demo.count.value == "presses: 4"
    assert "[2]" in demo._repr_mimebundle_()["text/plain"]


def test_accumulation_demo_matches_torch_tutorial():
    pt = require_torch()
    inp = pt.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(pt.ones_like(out), retain_graph=True)
    out.backward(pt.ones_like(out), retain_graph=True)
    demo = AccumulationDemo()
    demo.backward_button.click()
    demo.backward_button.click()
    np.testing.assert_allclose(demo.state.x.grad.numpy(), inp.grad.numpy())


def test_accumulation_demo_without_retain_graph_shows_torch_error():
    demo = AccumulationDemo(retain_graph=False)
    demo.backward_button.click()
    demo.backward_button.click()
    text = displayed(demo.out)[0]["text/plain"]
    assert "RuntimeError: Trying to backward through the graph a second time" in text


# ------------------------------------------------------------------------ GradModeToggle
@pytest.mark.parametrize(
    "mode, y_requires_grad, y_grad_fn, y_inference",
    [
        ("enabled", True, "SumBackward0", False),
        ("no_grad", False, None, False),
        ("inference_mode", False, None, True),
    ],
)
def test_grad_mode_toggle_values(comms, mode, y_requires_grad, y_grad_fn, y_inference):
    tog = GradModeToggle()
    tog.mode.value = mode
    p = tog.probe
    assert p["mode"] == mode
    assert p["y"] == {
        "requires_grad": y_requires_grad,
        "grad_fn": y_grad_fn,
        "is_leaf": not y_requires_grad,
        "is_inference": y_inference,
    }
    assert p["detached"]["grad_fn"] is None and p["detached"]["is_leaf"] is True
    assert p["detached"]["requires_grad"] is False
    y_text = displayed(tog.y_out)[0]["text/plain"]
    assert f"grad_fn={y_grad_fn}" in y_text
    assert "y.detach()" in displayed(tog.detach_out)[0]["text/plain"]
    assert torch.is_grad_enabled()  # the probe leaves the mode as it was


def test_grad_mode_probe_matches_torch():
    pt = require_torch()
    ctx = {"enabled": pt.enable_grad, "no_grad": pt.no_grad, "inference_mode": pt.inference_mode}
    for mode, cm in ctx.items():
        x = pt.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with cm():
            y = (x * 2).sum()
        d = y.detach()
        p = grad_mode_probe(mode)
        got = (
            p["y"]["requires_grad"],
            p["y"]["grad_fn"],
            p["y"]["is_leaf"],
            p["y"]["is_inference"],
            p["detached"]["is_inference"],
        )
        want = (
            y.requires_grad,
            None if y.grad_fn is None else y.grad_fn.name(),
            y.is_leaf,
            y.is_inference(),
            d.is_inference(),
        )
        assert got == want, mode


def test_grad_mode_probe_rejects_unknown_mode():
    with pytest.raises(ValueError, match="grad mode must be one of"):
        grad_mode_probe("off")


# ------------------------------------------------------------------------ Jacobian cores
def test_jacobian_vjp_jvp_against_finite_differences_and_torch():
    x = [0.3, -1.2]
    J = jacobian(f_r2_r3, x)
    assert J.shape == (3, 2)
    np.testing.assert_allclose(J, finite_difference_jacobian(f_r2_r3, x), atol=1e-6)
    v, u = np.array([1.0, -2.0, 0.5]), np.array([0.7, 0.1])
    np.testing.assert_allclose(vjp_backward(f_r2_r3, x, v), v @ J, atol=1e-12)
    np.testing.assert_allclose(jvp_forward(f_r2_r3, x, u), J @ u, atol=1e-12)
    pt = require_torch()

    def tf(t):
        return pt.stack([t[0] * t[1], pt.sin(t[0]), t[1] ** 2])

    tx = pt.tensor(x, dtype=pt.float64)
    _, tvjp = pt.autograd.functional.vjp(tf, tx, pt.tensor(v))
    _, tjvp = pt.func.jvp(tf, (tx,), (pt.tensor(u),))
    np.testing.assert_allclose(vjp_backward(f_r2_r3, x, v), tvjp.numpy(), atol=1e-12)
    np.testing.assert_allclose(jvp_forward(f_r2_r3, x, u), tjvp.numpy(), atol=1e-12)


def test_jvp_forward_uses_forward_mode_and_vjp_uses_backward():
    from jupyter_autograd.graph import BackwardRecord

    with BackwardRecord() as rec:
        np.testing.assert_allclose(jvp_forward(f_r2_r3, [1.0, 2.0], [0.0, 1.0]), [1.0, 0.0, 4.0])
    assert rec.order == []  # J·u ran no backward node at all
    with BackwardRecord() as rec:
        np.testing.assert_allclose(vjp_backward(f_r2_r3, [1.0, 2.0], [0.0, 0.0, 1.0]), [0.0, 4.0])
    assert "StackBackward0" in [fn.name() for fn in rec.order]


def test_jacobian_report_shape_errors():
    with pytest.raises(ValueError, match="v has shape"):
        jacobian_report(f_r2_r3, [0.0, 0.0], v=[1.0], u=[1.0, 0.0])
    with pytest.raises(ValueError, match="u has shape"):
        jacobian_report(f_r2_r3, [0.0, 0.0], v=[1.0, 1.0, 1.0], u=[1.0])


# ------------------------------------------------------------------------ JacobianExplorer
def bar_heights(ax):
    return np.array([p.get_height() for p in ax.patches])


def test_jacobian_explorer_sliders_drive_plots(comms):
    ex = JacobianExplorer(f_r2_r3, [0.3, -1.2])
    a_fun, a_jac, a_vjp, a_jvp = ex.axes
    assert a_vjp.get_title() == "vᵀJ via backward(v) (vector-Jacobian product, reverse mode)"
    assert a_jvp.get_title() == "J·u via forward mode (Jacobian-vector product)"
    assert len(ex.v_sliders) == 3 and len(ex.u_sliders) == 2 and len(ex.x_sliders) == 2
    assert all(s.continuous_update is False for s in ex.x_sliders + ex.v_sliders + ex.u_sliders)
    np.testing.assert_allclose(a_jac.images[0].get_array(), ex.report.J)
    ex.v_sliders[0].value = -1.5
    ex.throttle.flush()
    J = ex.report.J
    v = np.array([-1.5, 1.0, 1.0])
    np.testing.assert_allclose(ex.report.v, v)
    np.testing.assert_allclose(bar_heights(a_vjp), v @ J, atol=1e-9)
    # finite-difference crosses sit on the bars
    fd_line = next(ln for ln in a_vjp.lines if ln.get_marker() == "x")
    np.testing.assert_allclose(fd_line.get_ydata(), v @ J, atol=1e-5)
    ex.u_sliders[1].value = 1.0
    ex.throttle.flush()
    np.testing.assert_allclose(bar_heights(a_jvp), J @ np.array([1.0, 1.0]), atol=1e-9)
    ex.x_sliders[0].value = 1.0
    ex.throttle.flush()
    np.testing.assert_allclose(ex.report.x, [1.0, -1.2])
    np.testing.assert_allclose(ex.report.J[1, 0], np.cos(1.0))
    np.testing.assert_allclose(bar_heights(a_fun), [1.0 * -1.2, np.sin(1.0), 1.44])
    data = displayed(ex.plot_out)[0]
    assert data["image/png"] and "vᵀJ via backward(v)" in data["text/plain"]
    assert ex.report.max_error < 1e-5


def test_jacobian_explorer_square_uses_one_v_and_says_Jv():
    ex = JacobianExplorer(lambda x: x * x, [1.0, 2.0])
    assert ex.u_sliders == [] and ex.tangent_name == "v"
    assert ex.axes[3].get_title() == "J·v via forward mode (Jacobian-vector product)"
    ex.v_sliders[1].value = 2.0
    ex.refresh()
    np.testing.assert_allclose(bar_heights(ex.axes[2]), [2.0, 8.0])  # vᵀJ
    np.testing.assert_allclose(bar_heights(ex.axes[3]), [2.0, 8.0])  # J·v (J symmetric)
    assert "J·v via forward mode" in ex._repr_mimebundle_()["text/plain"]


def test_jacobian_explorer_1d_curves_with_tangent_lines():
    ex = JacobianExplorer(lambda x: torch.sin(x), [0.5])
    ax = ex.axes[0]
    curve, tangent = ax.lines[0], ax.lines[1]
    t = curve.get_xdata()
    np.testing.assert_allclose(curve.get_ydata(), np.sin(t), atol=1e-12)
    slope = np.diff(tangent.get_ydata()) / np.diff(t)
    np.testing.assert_allclose(slope, np.cos(0.5), atol=1e-9)
    ex.x_sliders[0].value = 1.0
    ex.throttle.flush()
    slope = np.diff(ex.axes[0].lines[1].get_ydata()) / np.diff(ex.axes[0].lines[1].get_xdata())
    np.testing.assert_allclose(slope, np.cos(1.0), atol=1e-9)


def test_jacobian_explorer_rejects_large_dimensions():
    with pytest.raises(ValueError, match="sliders need 1 <= n, m <= 8"):
        JacobianExplorer(lambda x: x, np.zeros(9))


# ------------------------------------------------------------------------ fallbacks, plotting
def test_every_widget_has_a_text_fallback():
    loss = sample_loss()[2]
    bundles = {
        "graph": GraphExplorer(loss)._repr_mimebundle_(),
        "stepper": BackwardStepper(sample_loss()[2])._repr_mimebundle_(),
        "accumulation": AccumulationDemo()._repr_mimebundle_(),
        "gradmode": GradModeToggle()._repr_mimebundle_(),
        "jacobian": JacobianExplorer(lambda t: t * t, [1.0])._repr_mimebundle_(),
    }
    for name, b in bundles.items():
        assert "application/vnd.jupyter.widget-view+json" in b, name
        assert len(b["text/plain"]) > 20 and "VBox(" not in b["text/plain"], name
    assert "MulBackward0" in bundles["graph"]["text/plain"]
    valid_payload(bundles["graph"][GRAPH_MIME])
    assert "step 1: AddBackward0" in bundles["stepper"]["text/plain"]
    assert "torch.inference_mode()" in bundles["gradmode"]["text/plain"]
    assert bundles["jacobian"]["image/png"]


def test_controls_carry_stable_css_classes_for_browser_tests():
    demo = AccumulationDemo()
    assert "jp-AutogradWidget-AccumulationDemo" in demo._dom_classes
    assert "jp-AutogradWidget-backward_button" in demo.backward_button._dom_classes
    assert "jp-AutogradWidget-out" in demo.out._dom_classes
    tog = GradModeToggle()
    assert "jp-AutogradWidget-mode" in tog.mode._dom_classes
    ex = JacobianExplorer(lambda t: t * t, [1.0, 2.0])
    assert "jp-AutogradWidget-v_sliders-1" in ex.v_sliders[1]._dom_classes
    assert "jp-AutogradWidget-plot_out" in ex.plot_out._dom_classes


def test_plotting_helpers_draw_on_given_axes_without_pyplot():
    fig, axes = plotting.new_figure(1, 2)
    plotting.plot_jacobian(axes[0], np.array([[1.0, -2.0]]))
    assert axes[0].images[0].get_clim() == (-2.0, 2.0)
    assert [t.get_text() for t in axes[0].texts] == ["1", "-2"]
    plotting.plot_vjp(axes[1], [1.0, 2.0], [1.0, 2.0])
    assert [p.get_height() for p in axes[1].patches] == [1.0, 2.0]
    assert fig.canvas.__class__.__name__ == "FigureCanvasAgg"


def test_widget_core_imports_no_jupyter_packages():
    code = (
        "import sys, jupyter_autograd.jupyter.widget_core\n"
        "bad = [m for m in ('ipywidgets', 'IPython', 'matplotlib') if m in sys.modules]\n"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
