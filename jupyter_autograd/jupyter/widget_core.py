"""Plain-function cores of the explorer widgets: no IPython, ipywidgets or matplotlib here.

The widgets in ``widgets.py`` only wire controls to these functions, so tests (and scripts)
drive the same logic without a browser. Everything works on the public core API plus the node
hooks the engine already runs, so the backward order shown is the engine's real order.

The ``_adapter_*`` functions are the only places that touch the graph export, forward AD and
``autograd.functional`` APIs, so a change there is a change in one place.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import grad_mode
from ..graph import label_line, safe_text
from ..autograd.node import AccumulateGrad, Node
from ..tensor import Tensor

GRAPH_MIME = "application/vnd.jupyter-autograd.graph+json"
PREVIEW_CHARS = 2000

__all__ = [
    "GRAD_MODES",
    "GRAPH_MIME",
    "AccumulationState",
    "BackwardStep",
    "GraphState",
    "JacobianReport",
    "RedrawThrottle",
    "StepperState",
    "backward_trace",
    "finite_difference_jacobian",
    "grad_mode_probe",
    "graph_bundle",
    "graph_payload",
    "jacobian",
    "jacobian_report",
    "jvp_forward",
    "vjp_backward",
]


def _preview(t: Any) -> str | None:
    """Torch-printed value, cut to PREVIEW_CHARS."""
    if t is None:
        return None
    s = repr(t)
    return s if len(s) <= PREVIEW_CHARS else s[: PREVIEW_CHARS - 1] + "…"


# ------------------------------------------------------------------------ graph payload
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
        [root], names=names, source_of=source_of, inputs_of=_viz._inputs_of,
        modules_of=_viz._modules_of, backward=rec, **replay,
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


# ------------------------------------------------------------------------ backward trace
@dataclasses.dataclass
class BackwardStep:
    """One node executed by backward, in the engine's order.

    ``kind`` is ``"function"`` (a grad_fn: ``grad_outputs`` arrived, ``grad_inputs[i]`` was sent
    to ``next_functions[i]``) or ``"accumulate"`` (AccumulateGrad: ``grad_outputs[0]`` was added
    into ``leaf.grad``, which went from ``grad_before`` to ``grad_after``).
    """

    index: int
    kind: str
    name: str
    node: Node
    grad_outputs: tuple
    grad_inputs: tuple = ()
    targets: tuple = ()
    leaf: Tensor | None = None
    grad_before: Tensor | None = None
    grad_after: Tensor | None = None

    def describe(self) -> str:
        """One readable paragraph for this step (names shown escaped, as every text output)."""
        return safe_text(self._describe(), multiline=True)

    def _describe(self) -> str:
        if self.kind == "accumulate":
            return (
                f"step {self.index + 1}: AccumulateGrad adds\n  {_preview(self.grad_outputs[0])}\n"
                f"into leaf.grad: {_preview(self.grad_before)}\n  -> {_preview(self.grad_after)}"
            )
        lines = [f"step {self.index + 1}: {safe_text(self.name)} receives"]
        for g in self.grad_outputs:
            lines.append(f"  {_preview(g)}")
        for tgt, g in zip(self.targets, self.grad_inputs):
            lines.append(f"  sends to {safe_text(tgt)}: {_preview(g)}")
        return "\n".join(lines)


def _clone(t: Tensor | None) -> Tensor | None:
    return None if t is None else Tensor._wrap(np.array(t._data, copy=True))


def _reachable(root_fn: Node) -> list[Node]:
    seen, stack, out = set(), [root_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(fn)
        stack.extend(n for n, _ in fn.next_functions)
    return out


def backward_trace(
    output: Tensor, gradient: Tensor | None = None, retain_graph: bool = True
) -> list[BackwardStep]:
    """Run ``output.backward(gradient)`` and record every node it executes, in order.

    The order is observed through node hooks and leaf hooks during a real backward, so it is
    the engine's order. Leaves' ``.grad`` end up exactly as after a plain ``backward``.

    Args:
        output: the tensor to differentiate.
        gradient: the vector ``v`` of ``backward(v)`` (omit for scalars).
        retain_graph: keep saved tensors so the graph can be inspected or run again.

    Returns:
        The list of :class:`BackwardStep`.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> [s.name for s in backward_trace((x * x).sum())]
        ['SumBackward0', 'MulBackward0', 'AccumulateGrad']
    """
    root = output.grad_fn if output.grad_fn is not None else output._grad_accumulator()
    steps: list[BackwardStep] = []
    handles = []
    for fn in _reachable(root):
        if isinstance(fn, AccumulateGrad):
            leaf = fn.variable
            pending: dict = {}

            def pre(g, leaf=leaf, fn=fn, pending=pending):
                pending["g"] = _clone(g)
                pending["before"] = _clone(leaf._grad)

            def post(t, fn=fn, pending=pending):
                steps.append(
                    BackwardStep(
                        index=len(steps),
                        kind="accumulate",
                        name="AccumulateGrad",
                        node=fn,
                        grad_outputs=(pending.get("g"),),
                        leaf=t,
                        grad_before=pending.get("before"),
                        grad_after=_clone(t._grad),
                    )
                )

            handles.append(leaf.register_hook(pre))
            handles.append(leaf.register_post_accumulate_grad_hook(post))
        else:

            def hook(grad_inputs, grad_outputs, fn=fn):
                steps.append(
                    BackwardStep(
                        index=len(steps),
                        kind="function",
                        name=fn.name(),
                        node=fn,
                        grad_outputs=tuple(_clone(g) for g in grad_outputs),
                        grad_inputs=tuple(_clone(g) for g in grad_inputs),
                        targets=tuple(
                            "None" if n is None else n.name().replace("torch::autograd::", "")
                            for n, _ in fn.next_functions
                        ),
                    )
                )

            handles.append(fn.register_hook(hook))
    try:
        output.backward(gradient, retain_graph=retain_graph)
    finally:
        for h in handles:
            h.remove()
    return steps


class StepperState:
    """Backward one node at a time, in the engine's order, with leaves' grads updated per step.

    The whole backward runs once up front (traced, graph retained); the leaves' ``.grad`` are
    then put back as they were and each AccumulateGrad step writes its recorded result, so
    after the last step the leaves hold exactly what a plain ``backward`` gives.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> s = StepperState((x * x).sum())
        >>> s.goto(len(s.steps)); x.grad
        tensor([2., 4.])
    """

    def __init__(
        self, output: Tensor, gradient: Tensor | None = None, names: dict | None = None
    ) -> None:
        if not isinstance(output, Tensor):
            raise TypeError(
                f"BackwardStepper(loss): expected a Tensor, got {type(output).__name__}"
            )
        if not output.requires_grad:
            raise RuntimeError(
                "BackwardStepper(loss): loss does not require grad and has no grad_fn; "
                "make it from tensors created with requires_grad=True"
            )
        self.output = output
        self.names = names
        root = output.grad_fn if output.grad_fn is not None else output._grad_accumulator()
        self._leaves = [n.variable for n in _reachable(root) if isinstance(n, AccumulateGrad)]
        before = [_clone(t._grad) for t in self._leaves]
        self.steps = backward_trace(output, gradient, retain_graph=True)
        self._initial = before
        for t, g in zip(self._leaves, before):
            t._grad = _clone(g)
        self.position = 0

    def goto(self, k: int) -> None:
        """Show the state after ``k`` steps (0 = before backward, ``len(steps)`` = done)."""
        k = max(0, min(int(k), len(self.steps)))
        for t, g in zip(self._leaves, self._initial):
            t._grad = _clone(g)
        for s in self.steps[:k]:
            if s.kind == "accumulate":
                s.leaf._grad = _clone(s.grad_after)
        self.position = k

    def next(self) -> None:
        self.goto(self.position + 1)

    def previous(self) -> None:
        self.goto(self.position - 1)

    def payload(self) -> dict:
        return graph_payload(self.output, self.steps, upto=self.position, names=self.names)

    def text(self) -> str:
        if self.position == 0:
            return f"before backward: {len(self.steps)} nodes will run (press next)"
        return f"{self.position}/{len(self.steps)}  " + self.steps[self.position - 1].describe()


# ------------------------------------------------------------------------ graph explorer
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


# ------------------------------------------------------------------------ accumulation demo
def _tutorial_experiment() -> tuple[Tensor, Callable[[Tensor], Tensor]]:
    from ..factories import eye

    inp = eye(4, 5, requires_grad=True)
    return inp, lambda x: (x + 1).pow(2).t()


class AccumulationState:
    """The tutorial's accumulation experiment: backward again adds up, ``grad.zero_()`` resets.

    Args:
        x: the leaf (default ``torch.eye(4, 5, requires_grad=True)``).
        f: the function (default ``lambda x: (x + 1).pow(2).t()``), called once.
        retain_graph: pass ``retain_graph`` to each backward (needed for a second press).

    Example:
        >>> s = AccumulationState()
        >>> s.backward(); s.backward()
        >>> s.x.grad[0, 0].item()
        8.0
    """

    def __init__(
        self,
        x: Tensor | None = None,
        f: Callable[[Tensor], Tensor] | None = None,
        retain_graph: bool = True,
    ) -> None:
        dx, df = _tutorial_experiment()
        self.x = dx if x is None else x
        self.f = df if f is None else f
        self.out = self.f(self.x)
        self.retain_graph = retain_graph
        self.log: list[str] = []
        self.presses = 0

    def backward(self) -> None:
        """``out.backward(torch.ones_like(out), retain_graph=...)``; errors go to the log."""
        from ..factories import ones_like

        self.presses += 1
        call = f"out.backward(torch.ones_like(out), retain_graph={self.retain_graph})"
        try:
            self.out.backward(ones_like(self.out), retain_graph=self.retain_graph)
            self.log.append(f"[{self.presses}] {call}\ninp.grad =\n{self.x.grad!r}")
        except RuntimeError as e:
            self.log.append(f"[{self.presses}] {call}\nRuntimeError: {e}")

    def zero_(self) -> None:
        """``inp.grad.zero_()`` (a no-op message while grad is None)."""
        self.presses += 1
        if self.x.grad is None:
            self.log.append(f"[{self.presses}] inp.grad is None: nothing to zero")
            return
        self.x.grad.zero_()
        self.log.append(f"[{self.presses}] inp.grad.zero_()\ninp.grad =\n{self.x.grad!r}")

    def text(self) -> str:
        return self.log[-1] if self.log else "inp.grad = None (press backward)"


# ------------------------------------------------------------------------ grad mode
GRAD_MODES = ("enabled", "no_grad", "inference_mode")


def _mode_context(mode: str):
    if mode == "enabled":
        return grad_mode.enable_grad()
    if mode == "no_grad":
        return grad_mode.no_grad()
    if mode == "inference_mode":
        return grad_mode.inference_mode()
    raise ValueError(f"grad mode must be one of {GRAD_MODES}, got {mode!r}")


def _props(t: Tensor) -> dict:
    fn = t.grad_fn
    return {
        "requires_grad": bool(t.requires_grad),
        "grad_fn": None if fn is None else fn.name(),
        "is_leaf": bool(t.is_leaf),
        "is_inference": bool(t.is_inference()),
    }


def grad_mode_probe(
    mode: str, x: Tensor | None = None, expr: Callable[[Tensor], Tensor] | None = None
) -> dict:
    """Evaluate a sample expression under a grad mode and report what autograd recorded.

    Args:
        mode: ``"enabled"``, ``"no_grad"`` or ``"inference_mode"``.
        x: the leaf (default ``tensor([1., 2., 3.], requires_grad=True)``).
        expr: the sample expression (default ``(x * 2).sum()``).

    Returns:
        ``{"mode", "is_grad_enabled", "x", "y", "detached"}``; the last three hold
        ``requires_grad``, ``grad_fn``, ``is_leaf`` and ``is_inference``; ``detached`` is
        ``y.detach()`` taken outside the mode.

    Example:
        >>> grad_mode_probe("no_grad")["y"]["grad_fn"] is None
        True
    """
    from ..factories import tensor

    x = tensor([1.0, 2.0, 3.0], requires_grad=True) if x is None else x
    expr = (lambda t: (t * 2).sum()) if expr is None else expr
    with _mode_context(mode):
        enabled = grad_mode.is_grad_enabled()
        y = expr(x)
    return {
        "mode": mode,
        "is_grad_enabled": enabled,
        "x": _props(x),
        "y": _props(y),
        "detached": _props(y.detach()),
    }


def grad_mode_text(probe: dict) -> str:
    ctx = {
        "enabled": "torch.enable_grad()",
        "no_grad": "torch.no_grad()",
        "inference_mode": "torch.inference_mode()",
    }[probe["mode"]]
    lines = [
        f"with {ctx}:  # is_grad_enabled() -> {probe['is_grad_enabled']}",
        "    y = (x * 2).sum()",
    ]
    for name, key in (("x", "x"), ("y", "y"), ("y.detach()", "detached")):
        p = probe[key]
        lines.append(
            f"{name:11s} requires_grad={p['requires_grad']!s:5s} grad_fn={p['grad_fn']} "
            f"is_leaf={p['is_leaf']} is_inference={p['is_inference']}"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------ Jacobian, VJP, JVP
def _as_vector_fn(f: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    def g(x: Tensor) -> Tensor:
        y = f(x)
        if not isinstance(y, Tensor):
            raise TypeError(f"JacobianExplorer: f must return a Tensor, got {type(y).__name__}")
        return y.reshape(-1)

    return g


def _leaf(x, requires_grad: bool) -> Tensor:
    arr = np.array(x._data if isinstance(x, Tensor) else x, dtype=np.float64, copy=True).reshape(-1)
    t = Tensor._wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def vjp_backward(f: Callable[[Tensor], Tensor], x, v) -> np.ndarray:
    """vᵀJ of ``f`` at ``x``, computed the reverse-mode way: ``f(x).backward(v)``, read ``x.grad``.

    Example:
        >>> import jupyter_autograd as torch
        >>> vjp_backward(lambda x: x * x, [1.0, 2.0], [1.0, 1.0])
        array([2., 4.])
    """
    xl = _leaf(x, True)
    y = _as_vector_fn(f)(xl)
    vv = Tensor._wrap(np.asarray(v, dtype=y._data.dtype).reshape(y.shape))
    y.backward(vv)
    return np.array(xl.grad._data, dtype=np.float64)


def _adapter_forward_jvp(f: Callable[[Tensor], Tensor], x: Tensor, u: np.ndarray):
    """(f(x), J·u) by forward-mode AD: a dual tensor through f, no backward pass."""
    from ..autograd import forward_ad as fwad

    tangent = Tensor._wrap(np.asarray(u, dtype=x._data.dtype).reshape(x.shape))
    with fwad.dual_level():
        primal, tan = fwad.unpack_dual(f(fwad.make_dual(x, tangent)))
    return primal, tan


def jvp_forward(f: Callable[[Tensor], Tensor], x, u) -> np.ndarray:
    """J·u of ``f`` at ``x`` by forward-mode AD (a true Jacobian-vector product, no backward).

    Example:
        >>> jvp_forward(lambda x: x * x, [1.0, 2.0], [1.0, 0.0])
        array([2., 0.])
    """
    xl = _leaf(x, False)
    y, tan = _adapter_forward_jvp(_as_vector_fn(f), xl, np.asarray(u, dtype=np.float64))
    if tan is None:  # output does not depend on x
        return np.zeros(y.shape, np.float64)
    return np.array(tan._data, dtype=np.float64).reshape(-1)


def _adapter_jacobian(f: Callable[[Tensor], Tensor], x: Tensor) -> np.ndarray:
    """The m×n Jacobian by reverse mode (``autograd.functional.jacobian``)."""
    from ..autograd.functional import jacobian as _jacobian

    J = _jacobian(f, x)
    return np.asarray(J._data, np.float64).reshape(-1, x.numel())


def jacobian(f: Callable[[Tensor], Tensor], x) -> np.ndarray:
    """The Jacobian of ``f`` (flattened to R^n -> R^m) at ``x``, shape (m, n).

    Example:
        >>> jacobian(lambda x: x * x, [1.0, 2.0])
        array([[2., 0.],
               [0., 4.]])
    """
    return _adapter_jacobian(_as_vector_fn(f), _leaf(x, False))


def finite_difference_jacobian(f: Callable[[Tensor], Tensor], x, eps: float = 1e-6) -> np.ndarray:
    """Central-difference Jacobian, (f(x + eps e_j) - f(x - eps e_j)) / 2 eps, in float64.

    Example:
        >>> finite_difference_jacobian(lambda x: x * x, [3.0]).round(6)
        array([[6.]])
    """
    fv = _as_vector_fn(f)
    x0 = _leaf(x, False)._data
    cols = []
    with grad_mode.no_grad():
        for j in range(x0.size):
            d = np.zeros_like(x0)
            d[j] = eps
            hi = fv(Tensor._wrap(x0 + d))._data
            lo = fv(Tensor._wrap(x0 - d))._data
            cols.append((np.asarray(hi, np.float64) - np.asarray(lo, np.float64)) / (2 * eps))
    return np.stack(cols, axis=1)


@dataclasses.dataclass
class JacobianReport:
    """Everything the Jacobian explorer draws for one (x, v, u)."""

    x: np.ndarray
    y: np.ndarray
    J: np.ndarray
    v: np.ndarray  # cotangent, R^m
    u: np.ndarray  # tangent, R^n
    vjp: np.ndarray  # vᵀJ via backward(v)
    jvp: np.ndarray  # J·u via forward mode
    J_fd: np.ndarray
    vjp_fd: np.ndarray
    jvp_fd: np.ndarray

    @property
    def max_error(self) -> float:
        """Largest |AD - finite differences| over vᵀJ and J·u."""
        return float(
            max(np.max(np.abs(self.vjp - self.vjp_fd)), np.max(np.abs(self.jvp - self.jvp_fd)))
        )

    def text(self, tangent: str = "u") -> str:
        """The numbers, labelled; ``tangent`` names the forward-mode vector (v when n = m)."""
        np_opts = {"precision": 4, "suppress_small": True}

        def a(arr):
            return np.array2string(arr, **np_opts)

        tan = "" if tangent == "v" else f"   {tangent} = {a(self.u)}"
        return "\n".join(
            [
                f"x = {a(self.x)}   f(x) = {a(self.y)}",
                f"J (m={self.J.shape[0]} x n={self.J.shape[1]}) =\n{a(self.J)}",
                f"v = {a(self.v)}{tan}",
                f"vᵀJ via backward(v)   = {a(self.vjp)}   (finite differences {a(self.vjp_fd)})",
                f"J·{tangent} via forward mode  = {a(self.jvp)}   (finite differences {a(self.jvp_fd)})",
            ]
        )


def jacobian_report(f: Callable[[Tensor], Tensor], x, v, u, eps: float = 1e-6) -> JacobianReport:
    """Jacobian, vᵀJ (reverse mode), J·u (forward mode) and their finite-difference checks.

    Example:
        >>> r = jacobian_report(lambda x: x * x, [1.0, 2.0], v=[1.0, 0.0], u=[0.0, 1.0])
        >>> r.vjp, r.jvp
        (array([2., 0.]), array([0., 4.]))
    """
    x0 = _leaf(x, False)
    with grad_mode.no_grad():
        y = np.array(_as_vector_fn(f)(x0)._data, dtype=np.float64)
    v = np.asarray(v, np.float64).reshape(-1)
    u = np.asarray(u, np.float64).reshape(-1)
    if v.shape != y.shape:
        raise ValueError(f"jacobian_report: v has shape {v.shape}, expected f(x)'s shape {y.shape}")
    if u.shape != x0.shape:
        raise ValueError(
            f"jacobian_report: u has shape {u.shape}, expected x's shape {tuple(x0.shape)}"
        )
    J = jacobian(f, x0)
    J_fd = finite_difference_jacobian(f, x0, eps)
    return JacobianReport(
        x=np.asarray(x0._data, np.float64),
        y=y,
        J=J,
        v=v,
        u=u,
        vjp=vjp_backward(f, x0, v),
        jvp=jvp_forward(f, x0, u),
        J_fd=J_fd,
        vjp_fd=v @ J_fd,
        jvp_fd=J_fd @ u,
    )


# ------------------------------------------------------------------------ throttling
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
