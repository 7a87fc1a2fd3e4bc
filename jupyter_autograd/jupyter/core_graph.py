"""The graph payload of a tensor for the explorers, and the state behind GraphExplorer."""

from __future__ import annotations

import pathlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..autograd.node import Node
from ..graph import label_line, safe_text
from ..tensor import Tensor

if TYPE_CHECKING:
    from .core_stepper import BackwardStep

GRAPH_MIME = "application/vnd.jupyter-autograd.graph+json"


def _adapter_graph_payload(
    root: Tensor, steps: Sequence[BackwardStep], names=None, **replay
) -> dict:
    """Payload of ``root`` with ``steps`` marked, from ``jupyter_autograd.graph``."""
    from .. import graph as _graph
    from .. import viz as _viz

    rec = _graph.BackwardRecord()
    rec.order = [s.node for s in steps]
    rec.grads = {s.node: list(s.grad_outputs) for s in steps}

    def source_of(obj):
        src = _viz._source_of(obj)
        if src is None and isinstance(obj, Node):
            src = _source_of(obj)
        return src

    return _graph.build_graph(
        [root],
        names=names,
        source_of=source_of,
        inputs_of=_viz._inputs_of,
        modules_of=_viz._modules_of,
        backward=rec,
        **replay,
    )


def graph_bundle(payload: dict) -> dict:
    """The display bundle of a payload: our MIME type, an SVG fallback and text."""
    from ..viz import Graph

    bundle = Graph(payload)._repr_mimebundle_()
    bundle["text/plain"] = graph_text(payload)
    return bundle


def _source_of(fn: Node) -> dict | None:
    """The user's forward source line, where anomaly mode recorded a traceback for the node."""
    tb = (fn._metadata or {}).get("traceback_")
    if not tb:
        return None
    frames = tb if isinstance(tb, list) else [tb]
    pkg = str(pathlib.Path(__file__).resolve().parents[1])
    for entry in reversed(frames):
        m = re.match(r'\s*File "(.*)", line (\d+), in .*\n(.*)', str(entry))
        if m and not str(pathlib.Path(m.group(1)).resolve()).startswith(pkg):
            return {
                "line": int(m.group(2)),
                "code": m.group(3).strip()[:2000],
                "file": m.group(1)[-2000:],
            }
    return None


def graph_payload(
    root: Tensor,
    steps: Sequence[BackwardStep] = (),
    upto: int | None = None,
    names=None,
) -> dict:
    """The graph payload of ``root`` with its backward steps; the view opens after ``upto``.

    Args:
        root: the output tensor whose ``grad_fn`` graph is drawn.
        steps: a backward trace from :func:`backward_trace`.
        upto: how many steps have run (all of them when None); the payload then carries
            every step, and the view shows the first ``upto`` without its own replay
            controls, so an outer stepper and the view count the same steps.
        names: a ``graph.Names`` or a mapping name -> tensor or module, drawn as labels.

    Returns:
        A JSON-safe dict for the MIME type ``application/vnd.jupyter-autograd.graph+json``.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> graph_payload((x * 2).sum())["nodes"][1]["op"]
        'SumBackward0'
    """
    steps = list(steps)
    if upto is None:
        return _adapter_graph_payload(root, steps, names)
    return _adapter_graph_payload(root, steps, names, replay_step=upto, replay_controls=False)


def node_label(n: dict) -> str:
    """One-line name of a payload node: its op, or its name and shape (``leaf w (3,)``)."""
    first = label_line(n)
    if n["kind"] == "tensor":
        return f"{'leaf' if n.get('is_leaf') else 'tensor'} {first}"
    return first


def graph_text(payload: dict) -> str:
    """A plain-text rendering of a payload (the fallback where widgets cannot render)."""
    title = safe_text(payload.get("title", "output"))
    lines = [f"graph of {title}: {payload['total_nodes']} nodes"]
    for n in payload["nodes"]:
        step = n.get("backward_step")
        mark = f"  [backward step {step}]" if step is not None else ""
        lines.append(f"  {n['id']} {node_label(n)}{mark}")
    return "\n".join(lines)
