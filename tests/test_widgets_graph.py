"""Widgets and the graph view agree (issue #15): one stepper, names by default, readable labels."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import jupyter_autograd as torch
from jupyter_autograd.jupyter import plotting
from jupyter_autograd.widgets import BackwardStepper, GradModeToggle, GraphExplorer


def test_stepper_and_its_view_are_one_stepper_numbered_the_same():
    w = torch.ones(3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    st = BackwardStepper(((w * 2) + b).sum())
    total = len(st.state.steps)
    for k in range(total + 1):
        st._goto(k)
        p = st.payload
        # the view gets every step and opens at the stepper's position, without its own controls
        assert len(p["backward_order"]) == total
        assert p["replay"] == {"step": k, "controls": False}
        if k:
            assert st.state.text().startswith(f"{k}/{total}  step {k}:")
    assert [s.describe().split(":")[0] for s in st.state.steps] == [
        f"step {k}" for k in range(1, total + 1)
    ]


def test_graph_explorer_names_nodes_from_the_callers_namespace():
    w = torch.ones(3, requires_grad=True)
    loss = (w * 2).sum()
    ex = GraphExplorer(loss)
    labels = [label for label, _ in ex.node_select.options]
    assert labels[0] == "tensor loss ()  [n0]"
    assert any(label.startswith("leaf w (3,)") for label in labels)
    assert not any(label.startswith("n0:") for label in labels)


def test_grad_mode_buttons_fit_their_labels():
    t = GradModeToggle()
    assert t.mode.style.button_width == "auto"


def test_jacobian_heatmap_numbers_readable_on_dark_cells():
    import numpy as np

    _, (ax,) = plotting.new_figure(1, 1)
    plotting.plot_jacobian(ax, np.array([[5.0, 0.1], [-5.0, 0.0]]))
    colours = {t.get_text(): t.get_color() for t in ax.texts}
    assert colours["5"] == "white" and colours["-5"] == "white" and colours["0.1"] == "black"
