"""Explorer widgets built from stock ipywidgets + Output; the logic lives in ``widget_core``.

Each widget is a ``VBox`` whose ``_repr_mimebundle_`` adds a readable ``text/plain`` (and, where
it helps, a PNG or the graph payload) so nbconvert and terminals show something useful.
Outputs are replaced in one trait assignment per redraw: one comm message per change.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import ipywidgets as W
import numpy as np

from ..tensor import Tensor
from . import plotting
from .widget_core import (
    GRAD_MODES,
    GRAPH_MIME,
    AccumulationState,
    GraphState,
    RedrawThrottle,
    StepperState,
    grad_mode_probe,
    grad_mode_text,
    graph_bundle,
    graph_text,
    jacobian_report,
)

__all__ = [
    "AccumulationDemo",
    "BackwardStepper",
    "GradModeToggle",
    "GraphExplorer",
    "JacobianExplorer",
]

MAX_JACOBIAN_DIM = 8


def _caller_names():
    """Names from the namespace of the code that made the widget (two frames up)."""
    from ..viz import _caller_names as names

    return names(3)


def _text_output(text: str) -> dict:
    return {"output_type": "display_data", "data": {"text/plain": text}, "metadata": {}}


def _graph_output(payload: dict) -> dict:
    # our MIME type renders with the lab extension; the SVG shows where it is missing
    return {"output_type": "display_data", "data": graph_bundle(payload), "metadata": {}}


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    return base64.b64encode(buf.getvalue()).decode("ascii")


class _Explorer(W.VBox):
    """Shared plumbing: counted Output updates and the text fallback."""

    def __init__(self, children, **kwargs) -> None:
        super().__init__(children, **kwargs)
        self.updates = 0  # Output replacements sent (each is one comm message)
        self._tag_controls()

    def _tag_controls(self) -> None:
        """Stable CSS classes for browser tests and styling: ``jp-AutogradWidget-<attribute>``
        on each control (``-<k>`` appended in slider lists), the class name on the box."""
        self.add_class("jp-AutogradExplorer")
        self.add_class(f"jp-AutogradWidget-{type(self).__name__}")
        for name, value in list(vars(self).items()):
            if name.startswith("_"):
                continue
            if isinstance(value, W.DOMWidget):
                value.add_class(f"jp-AutogradWidget-{name}")
            elif isinstance(value, list):
                for k, w in enumerate(value):
                    if isinstance(w, W.DOMWidget):
                        w.add_class(f"jp-AutogradWidget-{name}-{k}")

    def _set(self, out: W.Output, *items: dict) -> None:
        self.updates += 1
        out.outputs = tuple(items)

    def _fallback_text(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self._fallback_text()
        return data


def _button(description: str, tooltip: str, style: str = "") -> W.Button:
    return W.Button(
        description=description, tooltip=tooltip, button_style=style, layout=W.Layout(width="auto")
    )


# ------------------------------------------------------------------------ GraphExplorer
class GraphExplorer(_Explorer):
    """The graph of ``root`` with a node picker, a details pane and backward / zero_ buttons.

    Args:
        root: the output tensor whose graph is shown.
        names: variable name -> tensor, used as labels (e.g. ``{"w": w, "loss": loss}``).

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> ex = GraphExplorer((x * x).sum())
        >>> ex.backward_button.click()
        >>> x.grad
        tensor([2., 4.])
    """

    def __init__(self, root: Tensor, names=None) -> None:
        # by default every name in the caller's namespace labels the graph, as viz.graph does
        self.state = GraphState(root, _caller_names() if names is None else names)
        self.graph_out = W.Output(layout=W.Layout(border="1px solid var(--jp-border-color2)"))
        self.node_select = W.Dropdown(description="node", options=self.state.node_ids())
        self.details_out = W.Output()
        self.backward_button = _button("backward()", "root.backward()", "primary")
        self.retain_button = _button(
            "backward(retain_graph=True)",
            "root.backward(retain_graph=True): the graph can run again",
        )
        self.zero_button = _button("zero_() leaves' grads", "leaf.grad.zero_() for each leaf")
        self.status = W.Label(value="")
        self.backward_button.on_click(lambda _: self._backward(False))
        self.retain_button.on_click(lambda _: self._backward(True))
        self.zero_button.on_click(lambda _: self._zero())
        self.node_select.observe(lambda _: self._show_details(), names="value")
        super().__init__(
            [
                self.graph_out,
                W.HBox([self.backward_button, self.retain_button, self.zero_button]),
                self.status,
                self.node_select,
                self.details_out,
            ]
        )
        self._refresh()

    def _backward(self, retain_graph: bool) -> None:
        self.state.backward(retain_graph=retain_graph)
        self._refresh()

    def _zero(self) -> None:
        self.state.zero_grad()
        self._refresh()

    def _refresh(self) -> None:
        self.payload = self.state.payload()
        self._set(self.graph_out, _graph_output(self.payload))
        self.status.value = self.state.message
        self._show_details()

    def _show_details(self) -> None:
        nid = self.node_select.value
        if nid is not None:
            self._set(self.details_out, _text_output(self.state.details(nid)))

    def _fallback_text(self) -> str:
        return graph_text(self.state.payload())

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        graph = graph_bundle(self.state.payload())
        for key in (GRAPH_MIME, "image/svg+xml"):
            data.setdefault(key, graph[key])
        return data


# ------------------------------------------------------------------------ BackwardStepper
class BackwardStepper(_Explorer):
    """Step through ``loss.backward()`` node by node, in the engine's order.

    Each step shows the gradient arriving at the node, what it sends to each input, and for
    AccumulateGrad the leaf's ``.grad`` before and after; the graph view marks the steps run.

    Args:
        loss: the tensor to differentiate.
        gradient: the ``v`` of ``backward(v)`` for non-scalar outputs.
        names: variable name -> tensor, used as labels in the graph view.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> st = BackwardStepper((x * x).sum())
        >>> st.next_button.click(); st.next_button.click(); st.next_button.click()
        >>> x.grad
        tensor([2., 4.])
    """

    def __init__(self, loss: Tensor, gradient: Tensor | None = None, names=None) -> None:
        self.state = StepperState(loss, gradient, _caller_names() if names is None else names)
        n = len(self.state.steps)
        self.prev_button = _button("◀ previous", "undo one backward step")
        self.next_button = _button("next ▶", "run the next node of backward", "primary")
        self.reset_button = _button("reset", "back to before backward")
        self.step_slider = W.IntSlider(
            value=0, min=0, max=n, description="step", continuous_update=False
        )
        self.step_out = W.Output()
        self.graph_out = W.Output(layout=W.Layout(border="1px solid var(--jp-border-color2)"))
        self.prev_button.on_click(lambda _: self._goto(self.state.position - 1))
        self.next_button.on_click(lambda _: self._goto(self.state.position + 1))
        self.reset_button.on_click(lambda _: self._goto(0))
        self.step_slider.observe(lambda ch: self._goto(ch["new"]), names="value")
        super().__init__(
            [
                W.HBox([self.prev_button, self.next_button, self.reset_button, self.step_slider]),
                self.step_out,
                self.graph_out,
            ]
        )
        self._draw()

    def _goto(self, k: int) -> None:
        k = max(0, min(int(k), len(self.state.steps)))
        if k == self.state.position and self.step_slider.value == k:
            return
        self.state.goto(k)
        # the slider echo re-enters _goto with the same k and returns above: one redraw
        self.step_slider.value = k
        self._draw()

    def _draw(self) -> None:
        self.payload = self.state.payload()
        self._set(self.step_out, _text_output(self.state.text()))
        self._set(self.graph_out, _graph_output(self.payload))

    def _fallback_text(self) -> str:
        return "\n\n".join(s.describe() for s in self.state.steps)


# ------------------------------------------------------------------------ AccumulationDemo
class AccumulationDemo(_Explorer):
    """The tutorial's experiment: gradients add up over backward calls until ``grad.zero_()``.

    Args:
        x: the leaf (default ``torch.eye(4, 5, requires_grad=True)``).
        f: the function of ``x`` (default ``lambda x: (x + 1).pow(2).t()``).
        retain_graph: passed to each backward (False shows the "backward twice" error).

    Example:
        >>> demo = AccumulationDemo()
        >>> demo.backward_button.click(); demo.backward_button.click()
        >>> demo.state.x.grad[0, 0].item()
        8.0
    """

    def __init__(
        self,
        x: Tensor | None = None,
        f: Callable[[Tensor], Tensor] | None = None,
        retain_graph: bool = True,
    ) -> None:
        self.state = AccumulationState(x, f, retain_graph)
        self.backward_button = _button(
            "backward()",
            "out.backward(torch.ones_like(out), retain_graph=True): grads add up",
            "primary",
        )
        self.zero_button = _button("inp.grad.zero_()", "reset the accumulated gradient", "warning")
        self.count = W.Label(value="presses: 0")
        self.out = W.Output()
        self.backward_button.on_click(lambda _: self._press(self.state.backward))
        self.zero_button.on_click(lambda _: self._press(self.state.zero_))
        super().__init__([W.HBox([self.backward_button, self.zero_button, self.count]), self.out])
        self._set(self.out, _text_output(self.state.text()))

    def _press(self, action: Callable[[], None]) -> None:
        action()
        self.count.value = f"presses: {self.state.presses}"
        self._set(self.out, _text_output(self.state.text()))

    def _fallback_text(self) -> str:
        return "AccumulationDemo\n" + ("\n".join(self.state.log) or self.state.text())


# ------------------------------------------------------------------------ GradModeToggle
class GradModeToggle(_Explorer):
    """Switch grad mode and watch ``requires_grad``, ``grad_fn`` and ``is_leaf`` change live.

    Args:
        x: the leaf of the sample expression.
        expr: the sample expression (default ``(x * 2).sum()``).

    Example:
        >>> t = GradModeToggle()
        >>> t.mode.value = "no_grad"
        >>> t.probe["y"]["grad_fn"] is None
        True
    """

    def __init__(
        self, x: Tensor | None = None, expr: Callable[[Tensor], Tensor] | None = None
    ) -> None:
        self._x, self._expr = x, expr
        self.mode = W.ToggleButtons(
            # buttons as wide as their labels: "torch.inference_mode()" is never cut
            style={"button_width": "auto"},
            options=[
                ("grad enabled", "enabled"),
                ("torch.no_grad()", "no_grad"),
                ("torch.inference_mode()", "inference_mode"),
            ],
            value="enabled",
            description="grad mode",
        )
        # one under the other at full width: side by side, half a cell's width wrapped the
        # lines mid-word ("is_inf" / "erence()")
        self.y_out = W.Output(layout=W.Layout(width="100%", overflow="auto"))
        self.detach_out = W.Output(layout=W.Layout(width="100%", overflow="auto"))
        self.mode.observe(lambda _: self._draw(), names="value")
        super().__init__([self.mode, self.y_out, self.detach_out])
        self._draw()

    def _draw(self) -> None:
        self.probe = grad_mode_probe(self.mode.value, self._x, self._expr)
        lines = grad_mode_text(self.probe).splitlines()
        self._set(self.y_out, _text_output("\n".join(lines[:4])))
        d = self.probe["detached"]
        self._set(
            self.detach_out,
            _text_output(
                "d = y.detach()  # always a leaf, cut from the graph\n"
                f"d.requires_grad={d['requires_grad']} d.grad_fn={d['grad_fn']} "
                f"d.is_leaf={d['is_leaf']} d.is_inference()={d['is_inference']}"
            ),
        )

    def _fallback_text(self) -> str:
        return "\n\n".join(
            grad_mode_text(grad_mode_probe(m, self._x, self._expr)) for m in GRAD_MODES
        )


# ------------------------------------------------------------------------ JacobianExplorer
class JacobianExplorer(_Explorer):
    """f: ℝⁿ → ℝᵐ at x: the function, its Jacobian, vᵀJ by ``backward(v)`` and J·u by forward mode.

    Sliders set x, the cotangent v ∈ ℝᵐ and (when n ≠ m) the tangent u ∈ ℝⁿ; when n = m one
    vector v serves both, and the plot says J·v. Finite differences are drawn over each bar.
    Sliders send their value on release (``continuous_update=False``) and redraws are
    coalesced by a :class:`RedrawThrottle`: one figure per change, at most 20 per second.

    Args:
        f: a function of a 1-D tensor returning a tensor (flattened to ℝᵐ).
        x: the point, n ≤ 8 values.
        v: initial cotangent (default all ones), u: initial tangent (default e_0).
        x_range: half-width of the x sliders' range, and of the curve plot for n = 1.
        min_interval: seconds between redraws.

    Example:
        >>> import jupyter_autograd as torch
        >>> ex = JacobianExplorer(lambda x: torch.sin(x), [0.0])
        >>> ex.report.jvp
        array([1.])
    """

    def __init__(
        self,
        f: Callable[[Tensor], Tensor],
        x,
        v=None,
        u=None,
        x_range: float = 2.0,
        min_interval: float = 0.05,
        **throttle_kwargs,
    ) -> None:
        self.f = f
        x0 = np.asarray(x._data if isinstance(x, Tensor) else x, np.float64).reshape(-1)
        n = x0.size
        m = int(np.asarray(f(Tensor._wrap(x0.copy()))._data).size)
        if not (1 <= n <= MAX_JACOBIAN_DIM and 1 <= m <= MAX_JACOBIAN_DIM):
            raise ValueError(
                f"JacobianExplorer: f maps R^{n} -> R^{m}; sliders need 1 <= n, m <= "
                f"{MAX_JACOBIAN_DIM}; pick a smaller example"
            )
        self.n, self.m = n, m
        self.shared = n == m
        self.x_range = x_range
        v0 = np.ones(m) if v is None else np.asarray(v, np.float64).reshape(-1)
        if u is None:
            u0 = v0 if self.shared and v is not None else np.eye(n)[0]
        else:
            u0 = np.asarray(u, np.float64).reshape(-1)

        def sliders(prefix, values, lo, hi):
            return [
                W.FloatSlider(
                    value=float(a),
                    min=lo,
                    max=hi,
                    step=0.05,
                    description=f"{prefix}{k}",
                    continuous_update=False,
                    readout_format=".2f",
                )
                for k, a in enumerate(values)
            ]

        self.x_sliders = sliders("x", x0, float(x0.min()) - x_range, float(x0.max()) + x_range)
        self.v_sliders = sliders("v", v0, -2.0, 2.0)
        self.u_sliders = [] if self.shared else sliders("u", u0, -2.0, 2.0)
        self.tangent_name = "v" if self.shared else "u"
        self.plot_out = W.Output()
        self.fig, self.axes = plotting.new_figure(2, 2)
        self.throttle = RedrawThrottle(self._draw, min_interval=min_interval, **throttle_kwargs)
        for s in self.x_sliders + self.v_sliders + self.u_sliders:
            s.observe(lambda _: self.throttle.request(), names="value")
        groups = [
            W.VBox([W.HTML("<b>x</b> (the point)")] + self.x_sliders),
            W.VBox(
                [
                    W.HTML(
                        "<b>v</b> ∈ ℝᵐ: backward(v) → vᵀJ"
                        + (", forward mode → J·v" if self.shared else "")
                    )
                ]
                + self.v_sliders
            ),
        ]
        if self.u_sliders:
            groups.append(W.VBox([W.HTML("<b>u</b> ∈ ℝⁿ: forward mode → J·u")] + self.u_sliders))
        super().__init__([W.HBox(groups), self.plot_out])
        self.throttle.request()

    def refresh(self) -> None:
        """Draw now if a throttled redraw is pending (``report`` is then up to date)."""
        self.throttle.flush()

    def values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = np.array([s.value for s in self.x_sliders])
        v = np.array([s.value for s in self.v_sliders])
        u = v if self.shared else np.array([s.value for s in self.u_sliders])
        return x, v, u

    def _draw(self) -> None:
        x, v, u = self.values()
        self.report = r = jacobian_report(self.f, x, v, u)
        for ax in self.axes:
            ax.clear()
        a_fun, a_jac, a_vjp, a_jvp = self.axes
        if self.n == 1:
            t = np.linspace(x[0] - self.x_range, x[0] + self.x_range, 81)
            ys = np.stack(
                [
                    np.asarray(self.f(Tensor._wrap(np.array([ti])))._data, np.float64).reshape(-1)
                    for ti in t
                ]
            )
            plotting.plot_curves_with_tangents(a_fun, t, ys, float(x[0]), r.y, r.J[:, 0])
        else:
            plotting.plot_outputs(a_fun, r.y)
        plotting.plot_jacobian(a_jac, r.J)
        plotting.plot_vjp(a_vjp, r.vjp, r.vjp_fd)
        plotting.plot_jvp(a_jvp, r.jvp, r.jvp_fd, name=self.tangent_name)
        self.fig.suptitle(f"max |autograd − finite differences| = {r.max_error:.2e}", fontsize=9)
        self._set(
            self.plot_out,
            {
                "output_type": "display_data",
                "data": {"image/png": _png(self.fig), "text/plain": self._report_text()},
                "metadata": {},
            },
        )

    def _report_text(self) -> str:
        return self.report.text(self.tangent_name)

    def _fallback_text(self) -> str:
        return "JacobianExplorer\n" + self._report_text()

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        data.setdefault("image/png", _png(self.fig))
        return data
