"""Graphviz DOT source of the folded view (for those who want to run ``dot`` themselves)."""

from __future__ import annotations

from .svg import STYLE
from .text import label_lines, safe_text
from .view import View


def _escape(s: str) -> str:
    return safe_text(s).replace("\\", "\\\\").replace('"', '\\"')


def to_dot(payload: dict) -> str:
    """Graphviz DOT source; a bundled edge says how many it stands for.

    Example:
        >>> to_dot({"nodes": [{"id": "n0", "kind": "tensor", "label": 'a"b'}], "edges": [],
        ...         "roots": [], "direction": "forward"}).splitlines()[3]
        '  n0 [label="a\\\\"b", shape=box, style="filled", fillcolor="#dbeafe"];'
    """
    view = View(payload)
    out = [
        "digraph autograd {",
        f"  rankdir={'TB' if payload.get('direction', 'forward') == 'forward' else 'BT'};",
        '  node [fontname="monospace", fontsize=10];',
    ]
    for n in view.nodes:
        label = "\\n".join(_escape(x) for x in label_lines(n))
        fill = STYLE[n["kind"]][0]
        if n["kind"] in ("tensor", "group", "repeat"):
            out.append(
                f'  {n["id"]} [label="{label}", shape=box, style="filled", fillcolor="{fill}"];'
            )
        else:
            out.append(
                f'  {n["id"]} [label="{label}", shape=box, style="rounded,filled", '
                f'fillcolor="{fill}"];'
            )
    for s, t, count, _ in view.edges:
        extra = f' [label="\u00d7{count}", penwidth=2]' if count > 1 else ""
        out.append(f"  {view.nodes[s]['id']} -> {view.nodes[t]['id']}{extra};")
    out.append("}")
    return "\n".join(out)
