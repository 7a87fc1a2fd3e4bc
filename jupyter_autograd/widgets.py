"""``jupyter_autograd.widgets``: the explorer widgets (needs the Jupyter extras: ipywidgets, matplotlib).

The core never imports this module; ``import jupyter_autograd`` stays NumPy-only.

Example:
    >>> from jupyter_autograd.widgets import AccumulationDemo
    >>> AccumulationDemo().backward_button.description
    'backward()'
"""

from __future__ import annotations

from .jupyter.widgets import (
    AccumulationDemo,
    BackwardStepper,
    GradModeToggle,
    GraphExplorer,
    JacobianExplorer,
)

__all__ = [
    "AccumulationDemo",
    "BackwardStepper",
    "GradModeToggle",
    "GraphExplorer",
    "JacobianExplorer",
]
