"""What autograd records under each grad mode, behind GradModeToggle."""

from __future__ import annotations

from collections.abc import Callable

from .. import grad_mode
from ..tensor import Tensor

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
