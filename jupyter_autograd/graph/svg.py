"""The static SVG: the folded view laid out by :mod:`.layout` (no Graphviz, bounded in size)."""

from __future__ import annotations

import hashlib
import re

from .common import shape_label
from .layout import layered
from .text import label_lines, safe_text
from .view import View

# fill, stroke per kind
STYLE = {
    "tensor": ("#dbeafe", "#1d4ed8"),
    "function": ("#fde7c7", "#b45309"),
    "accumulate": ("#d1fae5", "#047857"),
    "group": ("#ede9fe", "#6d28d9"),
    "repeat": ("#ede9fe", "#6d28d9"),
}
_CHAR_W = 7.2  # 12px monospace advance
_LINE_H = 15.0
_PAD_X = 8.0
_PAD_Y = 6.0
_MAX_LINE = 44
_MARGIN = 12.0
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_COLOR = {"l": "#111", "m": "#555", "g": "#b91c1c"}


def _xml(s: str) -> str:
    s = _XML_BAD.sub("\ufffd", s)
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def _cut(s: str, n: int = _MAX_LINE) -> str:
    s = s.replace("\t", " ")
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _box_lines(n: dict, show_saved: bool, show_values: bool) -> list:
    """(text, css class) lines drawn in a node's box."""
    kind = n["kind"]
    lines = [(_cut(x), "l") for x in label_lines(n)]
    if kind == "tensor":
        if n.get("requires_grad") and n.get("is_leaf"):
            lines.append(("requires_grad", "m"))
        if show_values and n.get("value"):
            lines.append((_cut(safe_text(" ".join(n["value"].split())), 36), "m"))
        if n.get("grad"):
            lines.append((_cut(safe_text("grad " + " ".join(n["grad"].split())), 36), "g"))
    elif kind == "function":
        src = n.get("source")
        if src and src.get("code"):
            lines.append((_cut(safe_text(f"L{src['line']}: {src['code'].strip()}")), "m"))
        if show_saved:
            for s in (n.get("saved") or [])[:6]:
                if s.get("shape") is not None:
                    desc = shape_label(s["shape"])
                else:
                    desc = " ".join((s.get("value") or "").split())
                    if desc.startswith("<freed"):
                        desc = "freed"
                lines.append((_cut(safe_text(f"{s['name']}: {desc}")), "m"))
    elif kind == "repeat":
        lines.append((f"repeated \u00d7{n['count']}", "m"))
    return lines


def _tooltip(n: dict) -> str:
    tip = n["label"].replace("\n", " ")
    if n.get("source"):
        tip += f"\nline {n['source']['line']}: {n['source']['code']}"
    if n.get("value"):
        tip += "\n" + n["value"]
    return _xml(safe_text(tip[:2000], multiline=True))


def to_svg(
    payload: dict, *, show_saved: bool = False, show_values: bool = False, rankdir: str = "TB"
) -> str:
    """A static SVG of the graph (big repeated runs folded into ``×k`` blocks).

    Args:
        payload: a ``build_graph`` dict.
        show_saved: list saved tensors in function boxes.
        show_values: print value previews in tensor boxes.
        rankdir: ``"TB"`` (top to bottom) or ``"LR"`` (left to right).

    Returns:
        SVG text; every label is neutralised and XML-escaped.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import build_graph, to_svg
        >>> w = torch.ones(2, requires_grad=True)
        >>> svg = to_svg(build_graph([w * 2], names={"<w>": w}))
        >>> "&lt;w&gt;" in svg, "<w>" in svg
        (True, False)
    """
    view = View(payload)
    lines = [_box_lines(n, show_saved, show_values) for n in view.nodes]
    sizes = [
        (
            max(48.0, max(len(t) for t, _ in ls) * _CHAR_W + 2 * _PAD_X),
            len(ls) * _LINE_H + 2 * _PAD_Y,
        )
        for ls in lines
    ]
    direction = payload.get("direction", "forward")
    boxes, (width, height) = layered(
        sizes, [(s, t) for s, t, _, _ in view.edges], direction, rankdir
    )
    m = _MARGIN
    W, H = width + 2 * m, height + 2 * m
    digest = hashlib.sha1(
        "|".join(n["id"] + n["label"] for n in view.nodes[:200]).encode("utf-8", "replace")
    ).hexdigest()[:8]
    arrow = f"ja-arrow-{digest}"
    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:.0f}" height="{H:.0f}" '
            f'viewBox="0 0 {W:.0f} {H:.0f}" class="jp-AutogradGraph-svg" '
            'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="12">'
        ),
        (
            f'<defs><marker id="{arrow}" viewBox="0 0 10 10" refX="10" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>'
        ),
        f'<rect width="{W:.0f}" height="{H:.0f}" fill="#ffffff"/>',
        '<g class="edges" fill="none" stroke="#555" stroke-width="1.2">',
    ]
    lr = rankdir == "LR"
    end = "marker-end" if direction == "forward" else "marker-start"
    labels = []
    for s, t, count, _ in view.edges:
        x1, y1, x2, y2 = _ends(boxes[s], boxes[t], lr)
        if lr:
            mx = (x1 + x2) / 2
            d = f"M{x1:.1f},{y1:.1f} C{mx:.1f},{y1:.1f} {mx:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
        else:
            my = (y1 + y2) / 2
            d = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{my:.1f} {x2:.1f},{my:.1f} {x2:.1f},{y2:.1f}"
        # arrows follow data flow (forward) or gradient flow (backward)
        width_attr = f' stroke-width="{min(4.0, 1.2 + count / 50):.1f}"' if count > 1 else ""
        out.append(f'<path d="{d}" {end}="url(#{arrow})"{width_attr}/>')
        if count > 1:
            labels.append(
                f'<text x="{(x1 + x2) / 2 + 4:.1f}" y="{(y1 + y2) / 2:.1f}" fill="#6d28d9" '
                f'font-size="11">\u00d7{count}</text>'
            )
    out.append("</g>")
    out.extend(labels)
    out.append('<g class="nodes">')
    for n, (x, y, w, h), ls in zip(view.nodes, boxes, lines):
        out.extend(_node(n, x + m, y + m, w, h, ls))
    out.append("</g>")
    if payload.get("truncated"):
        total = payload["total_nodes"]
        note = f"collapsed: {len(payload['nodes'])} of {total} nodes shown"
        out.append(
            f'<text x="{m:.0f}" y="{H - 2:.0f}" fill="#6d28d9" font-size="11">{_xml(note)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _ends(a, b, lr: bool) -> tuple:
    """Where an edge from box ``a`` to box ``b`` leaves and arrives (facing sides)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    m = _MARGIN
    if lr:
        down = ax < bx
        return (
            ax + (aw if down else 0) + m,
            ay + ah / 2 + m,
            bx + (0 if down else bw) + m,
            by + bh / 2 + m,
        )
    down = ay < by
    return (
        ax + aw / 2 + m,
        ay + (ah if down else 0) + m,
        bx + bw / 2 + m,
        by + (0 if down else bh) + m,
    )


def _node(n: dict, x: float, y: float, w: float, h: float, lines: list) -> list:
    kind = n["kind"]
    fill, stroke = STYLE[kind]
    rx = 10 if kind in ("function", "accumulate") else 3
    sw = 2.2 if n.get("is_root") else 1.2
    dashed = kind in ("group", "repeat") or (kind == "tensor" and not n.get("requires_grad"))
    dash = ' stroke-dasharray="5,3"' if dashed else ""
    out = [f'<g class="node {kind}"><title>{_tooltip(n)}</title>']
    if kind == "repeat":  # a stack of cards: one iteration stands for count
        out.append(
            f'<rect x="{x + 4:.1f}" y="{y - 4:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>'
        )
    out.append(
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}"{dash}/>'
    )
    ty = y + _PAD_Y + 11.5
    for text, cls in lines:
        size = "" if cls == "l" else ' font-size="11"'
        out.append(
            f'<text x="{x + w / 2:.1f}" y="{ty:.1f}" text-anchor="middle" '
            f'fill="{_COLOR[cls]}"{size}>{_xml(text)}</text>'
        )
        ty += _LINE_H
    step = n.get("backward_step")
    if step is not None:  # visit numbers count from 1, as the stepper does
        out.append(
            f'<circle cx="{x + w:.1f}" cy="{y:.1f}" r="9" fill="#b91c1c"/>'
            f'<text x="{x + w:.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="#fff" '
            f'font-size="11">{step + 1}</text>'
        )
    out.append("</g>")
    return out
