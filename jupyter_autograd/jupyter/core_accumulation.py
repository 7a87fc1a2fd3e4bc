"""The tutorial's accumulation experiment behind AccumulationDemo."""

from __future__ import annotations

from collections.abc import Callable

from ..tensor import Tensor


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
