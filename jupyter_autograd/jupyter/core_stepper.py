"""Backward one node at a time: the trace of a real backward and the state behind BackwardStepper."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..autograd.node import AccumulateGrad, Node
from ..graph import safe_text
from ..tensor import Tensor
from .core_graph import graph_payload

PREVIEW_CHARS = 2000


def _preview(t: Any) -> str | None:
    """Torch-printed value, cut to PREVIEW_CHARS."""
    if t is None:
        return None
    s = repr(t)
    return s if len(s) <= PREVIEW_CHARS else s[: PREVIEW_CHARS - 1] + "…"


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
                            for n in fn._fns  # aligned with grad_inputs (one per input)
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
