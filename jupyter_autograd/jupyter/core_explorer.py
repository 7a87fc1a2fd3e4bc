"""The state behind GraphExplorer: node details and the backward / zero_ actions."""

from __future__ import annotations

import numpy as np

from ..autograd.node import AccumulateGrad
from ..graph import safe_text
from ..tensor import Tensor
from .core_graph import graph_payload, node_label
from .core_stepper import BackwardStep, _reachable, backward_trace


class GraphState:
    """State behind ``GraphExplorer``: node details and the backward / zero_ actions.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> g = GraphState((x * x).sum())
        >>> g.backward(retain_graph=True)
        >>> x.grad
        tensor([2., 4.])
    """

    def __init__(self, root: Tensor, names: dict | None = None) -> None:
        if not isinstance(root, Tensor):
            raise TypeError(f"GraphExplorer(root): expected a Tensor, got {type(root).__name__}")
        self.root = root
        self.names = names
        self.steps: list[BackwardStep] = []
        self.message = ""

    def payload(self) -> dict:
        return graph_payload(self.root, self.steps, names=self.names)

    def leaves(self) -> list[Tensor]:
        fn = self.root.grad_fn
        if fn is None:
            return [self.root] if self.root.requires_grad else []
        return [n.variable for n in _reachable(fn) if isinstance(n, AccumulateGrad)]

    def node_ids(self) -> list[tuple[str, str]]:
        """(label, id) pairs of every node, for a selection control."""
        return [(f"{node_label(n)}  [{n['id']}]", n["id"]) for n in self.payload()["nodes"]]

    def details(self, node_id: str) -> str:
        """Value, grad, saved tensors and source line of one payload node, as text."""
        n = next((n for n in self.payload()["nodes"] if n["id"] == node_id), None)
        if n is None:
            return f"no node {node_id!r}"
        lines = [f"{n['id']}  {node_label(n)}  ({n['kind']})"]
        if n.get("value") is not None:
            lines.append(f"value: {n['value']}")
        if "grad" in n:
            lines.append(f"grad: {n['grad']}")
        for s in n.get("saved", []):
            lines.append(f"{safe_text(s['name'])}: {s.get('value')}")
        src = n.get("source")
        lines.append(
            f"source: {safe_text(src['code'])}  (line {src['line']})"
            if src
            else "source: (unknown: enable anomaly mode to record it)"
        )
        if n.get("backward_step") is not None:
            lines.append(f"backward visit: {n['backward_step'] + 1}")
        return safe_text("\n".join(lines), multiline=True)

    def backward(self, retain_graph: bool = False) -> None:
        """``root.backward(retain_graph=...)``, traced; a RuntimeError is kept as ``message``."""
        try:
            gradient = (
                None if self.root.numel() == 1 else Tensor._wrap(np.ones_like(self.root._data))
            )
            self.steps = backward_trace(self.root, gradient, retain_graph=retain_graph)
            self.message = f"backward(retain_graph={retain_graph}) ran {len(self.steps)} nodes"
        except RuntimeError as e:
            self.message = safe_text(f"RuntimeError: {e}")

    def zero_grad(self) -> None:
        """``leaf.grad.zero_()`` for every leaf that has a grad."""
        for leaf in self.leaves():
            if leaf.grad is not None:
                leaf.grad.zero_()
        self.message = "leaves' grads zeroed"
