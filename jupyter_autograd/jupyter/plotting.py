"""Matplotlib helpers for the explorers: each draws on an Axes it is given, never plt.show().

Titles say exactly what was computed: ``backward(v)`` gives vᵀJ (a vector-Jacobian product,
reverse mode); J·u is a Jacobian-vector product from forward mode. Finite differences are
drawn as markers over the AD bars so a mismatch is visible.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "TITLE_JACOBIAN",
    "TITLE_JVP",
    "TITLE_VJP",
    "new_figure",
    "plot_curves_with_tangents",
    "plot_jacobian",
    "plot_jvp",
    "plot_outputs",
    "plot_vjp",
]

TITLE_VJP = "vᵀJ via backward(v) (vector-Jacobian product, reverse mode)"
TITLE_JVP = "J·{u} via forward mode (Jacobian-vector product)"
TITLE_JACOBIAN = "Jacobian J = ∂f/∂x (rows: outputs i, columns: inputs j)"
FD_LABEL = "finite differences"


def new_figure(nrows: int = 2, ncols: int = 2, size: tuple[float, float] = (9.0, 6.5)):
    """A Figure with an Agg canvas and its Axes, made without pyplot (no global state, no show).

    Example:
        >>> fig, axes = new_figure(1, 2)
        >>> len(axes)
        2
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # a fixed layout: constrained/tight layout would double the cost of every redraw
    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.1, top=0.9, wspace=0.3, hspace=0.55)
    return fig, axes


def _bars_with_check(
    ax, values: np.ndarray, fd: np.ndarray | None, title: str, xlabel: str, color: str
) -> None:
    idx = np.arange(len(values))
    ax.bar(idx, values, color=color, label="autograd", width=0.6)
    if fd is not None:
        ax.plot(idx, fd, linestyle="none", marker="x", color="black", markersize=9, label=FD_LABEL)
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    ax.set_xticks(idx, [f"{xlabel}{k}" for k in idx])
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="best")


def plot_vjp(ax, vjp: Sequence[float], fd: Sequence[float] | None = None) -> None:
    """Bars of vᵀJ (one per input j) from ``backward(v)``, finite differences as crosses.

    Example:
        >>> fig, (ax,) = new_figure(1, 1)
        >>> plot_vjp(ax, [1.0, 2.0], [1.0, 2.0])
        >>> ax.get_title().startswith("vᵀJ via backward(v)")
        True
    """
    _bars_with_check(
        ax,
        np.asarray(vjp, float),
        None if fd is None else np.asarray(fd, float),
        TITLE_VJP,
        "j=",
        "tab:orange",
    )
    ax.set_xlabel("input index j (vᵀJ lives in input space, ℝⁿ)", fontsize=8)


def plot_jvp(ax, jvp: Sequence[float], fd: Sequence[float] | None = None, name: str = "v") -> None:
    """Bars of J·``name`` (one per output i) from forward mode, finite differences as crosses.

    Example:
        >>> fig, (ax,) = new_figure(1, 1)
        >>> plot_jvp(ax, [3.0], name="u")
        >>> ax.get_title()
        'J·u via forward mode (Jacobian-vector product)'
    """
    _bars_with_check(
        ax,
        np.asarray(jvp, float),
        None if fd is None else np.asarray(fd, float),
        TITLE_JVP.format(u=name),
        "i=",
        "tab:green",
    )
    ax.set_xlabel(f"output index i (J·{name} lives in output space, ℝᵐ)", fontsize=8)


def plot_jacobian(ax, J: np.ndarray, annotate: bool = True) -> None:
    """The Jacobian as a heatmap (diverging colours centred at 0), entries written in cells.

    Example:
        >>> fig, (ax,) = new_figure(1, 1)
        >>> plot_jacobian(ax, np.eye(2))
        >>> len(ax.images), len(ax.texts)
        (1, 4)
    """
    J = np.atleast_2d(np.asarray(J, float))
    lim = float(np.max(np.abs(J))) or 1.0
    ax.imshow(J, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    m, n = J.shape
    if annotate and m * n <= 64:
        for i in range(m):
            for j in range(n):
                # white on the dark ends of the colour map, black on the light middle
                dark = abs(J[i, j]) > 0.6 * lim
                ax.text(
                    j,
                    i,
                    f"{J[i, j]:.3g}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "black",
                )
    ax.set_xticks(range(n), [f"x{j}" for j in range(n)])
    ax.set_yticks(range(m), [f"f{i}" for i in range(m)])
    ax.set_title(TITLE_JACOBIAN, fontsize=9)


def plot_outputs(ax, y: Sequence[float]) -> None:
    """f(x) as bars, one per output component (for inputs of more than one dimension).

    Example:
        >>> fig, (ax,) = new_figure(1, 1)
        >>> plot_outputs(ax, [1.0, -1.0])
        >>> len(ax.patches)
        2
    """
    y = np.asarray(y, float)
    idx = np.arange(len(y))
    ax.bar(idx, y, color="tab:blue", width=0.6)
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    ax.set_xticks(idx, [f"f{i}" for i in idx])
    ax.set_title("f(x), one bar per output component", fontsize=9)


def plot_curves_with_tangents(
    ax, t: np.ndarray, ys: np.ndarray, x0: float, y0: Sequence[float], slopes: Sequence[float]
) -> None:
    """Curves f_i(t) of a function of one variable, with the tangent line of each at ``x0``.

    Args:
        ax: the Axes.
        t: sample points, shape (k,).
        ys: values, shape (k, m).
        x0: the point of tangency.
        y0: f(x0), shape (m,).
        slopes: df_i/dx at x0 (the Jacobian's single column), shape (m,).

    Example:
        >>> fig, (ax,) = new_figure(1, 1)
        >>> t = np.linspace(-1, 1, 5)
        >>> plot_curves_with_tangents(ax, t, (t ** 2)[:, None], 0.5, [0.25], [1.0])
        >>> len(ax.lines)
        3
    """
    ys = np.asarray(ys, float).reshape(len(t), -1)
    for i in range(ys.shape[1]):
        (line,) = ax.plot(t, ys[:, i], label=f"f{i}(x)")
        tan = y0[i] + slopes[i] * (t - x0)
        ax.plot(
            t,
            tan,
            linestyle="--",
            color=line.get_color(),
            label=f"tangent at x={x0:.3g}, slope {slopes[i]:.3g}",
        )
    ax.plot([x0] * ys.shape[1], y0, linestyle="none", marker="o", color="black")
    lo, hi = float(np.min(ys)), float(np.max(ys))
    pad = 0.1 * (hi - lo or 1.0)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlabel("x")
    ax.set_title("f and its tangent line(s) at x", fontsize=9)
    ax.legend(fontsize=7, loc="best")
