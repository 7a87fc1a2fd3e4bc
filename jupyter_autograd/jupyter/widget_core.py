"""Plain-function cores of the explorer widgets: no IPython, ipywidgets or matplotlib here.

The widgets in ``widgets.py`` only wire controls to these functions, so tests (and scripts)
drive the same logic without a browser. One module per explorer: ``core_graph`` (the graph
payload), ``core_explorer`` (GraphExplorer), ``core_stepper`` (BackwardStepper),
``core_accumulation`` (AccumulationDemo), ``core_grad_mode`` (GradModeToggle),
``core_jacobian`` (JacobianExplorer) and ``throttle`` (redraw coalescing); this module gathers
their public names.
"""

from __future__ import annotations

from .core_accumulation import AccumulationState
from .core_explorer import GraphState
from .core_grad_mode import GRAD_MODES, grad_mode_probe, grad_mode_text
from .core_graph import GRAPH_MIME, graph_bundle, graph_payload, graph_text, node_label
from .core_jacobian import (
    JacobianReport,
    finite_difference_jacobian,
    jacobian,
    jacobian_report,
    jvp_forward,
    vjp_backward,
)
from .core_stepper import BackwardStep, StepperState, backward_trace
from .throttle import RedrawThrottle, _loop_call_later

__all__ = [
    "GRAD_MODES",
    "GRAPH_MIME",
    "AccumulationState",
    "BackwardStep",
    "GraphState",
    "JacobianReport",
    "RedrawThrottle",
    "StepperState",
    "_loop_call_later",
    "backward_trace",
    "finite_difference_jacobian",
    "grad_mode_probe",
    "grad_mode_text",
    "graph_bundle",
    "graph_payload",
    "graph_text",
    "jacobian",
    "jacobian_report",
    "jvp_forward",
    "node_label",
    "vjp_backward",
]
