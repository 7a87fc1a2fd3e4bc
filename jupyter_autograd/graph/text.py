"""Plain text: the one neutraliser for user-controlled strings, the text tree, ``grad_fn_tree``."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..autograd.node import AccumulateGrad
from .common import shape_label
from .view import View

# What a terminal or a notebook would interpret rather than show: C0/C1 controls (ANSI escape
# sequences start with ESC or CSI), DEL, bidi marks, embeddings, overrides and isolates (U+202E
# reverses what follows), zero-width and line-separator characters, BOM, lone surrogates.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069"
    "\ufeff\ufff9-\ufffb\ud800-\udfff"
)
_UNSAFE_LINE = re.compile(f"[\t\n{_UNSAFE}]")
_UNSAFE_MULTILINE = re.compile(f"[{_UNSAFE}]")


def safe_text(s, *, multiline: bool = False) -> str:
    r"""Any user-controlled string made safe for plain text: unsafe characters as ``\uXXXX``.

    Control characters (the ESC of ANSI sequences included), bidi overrides and isolates,
    zero-width characters and lone surrogates are shown escaped, so a name can neither colour,
    move nor reorder the text around it. Tabs and newlines are escaped too unless
    ``multiline``. Every text output of the package (``%grad_fn``, text trees, DOT, SVG
    labels, reprs, widget labels) goes through this one function.

    Example:
        >>> safe_text("a\u202eb\x1b[31m")
        'a\\u202eb\\u001b[31m'
        >>> safe_text("two\nlines"), safe_text("two\nlines", multiline=True)
        ('two\\u000alines', 'two\nlines')
    """
    if not isinstance(s, str):
        s = str(s)
    pattern = _UNSAFE_MULTILINE if multiline else _UNSAFE_LINE
    return pattern.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


def _cap(s: str, cap: int) -> str:
    return s if len(s) <= cap else s[: cap - 1] + "\u2026"


def _one_line(s: str, cap: int = 80) -> str:
    return _cap(safe_text(" ".join(s.split())), cap)


def label_lines(n: dict) -> list:
    """The lines of a node's label (name, shape), each neutralised, for the SVG and DOT."""
    if n["kind"] == "tensor" and n.get("shape") is not None:
        label = ([n["name"]] if n.get("name") else []) + [shape_label(n["shape"])]
    else:
        label = [n["label"]]
    return [safe_text(x) for x in label]


def label_line(n: dict) -> str:
    """A node's label on one line; a name's own control characters shown escaped."""
    return " ".join(label_lines(n))


def summary(payload: dict) -> str:
    """The one-line text/plain summary, ``AutogradGraph(nodes=..., edges=..., truncated=...)``."""
    edges = payload.get("total_edges", len(payload["edges"]))
    return (
        f"AutogradGraph(nodes={payload['total_nodes']}, edges={edges}, "
        f"truncated={payload['truncated']})"
    )


def to_text(payload: dict, max_lines: int = 500) -> str:
    """A plain-text tree from the roots towards the inputs (the backward direction).

    A node reached twice is printed once; later references say ``(see nK above)``. A big
    repeated run is one line, ``[×100 MulBackward0 → TanhBackward0]``.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import build_graph, to_text
        >>> w = torch.ones(2, requires_grad=True)
        >>> print(to_text(build_graph([(w * 2).sum()], names={"w": w})))
        (): tensor(4., grad_fn=<SumBackward0>)
        └── SumBackward0
            └── MulBackward0
                └── AccumulateGrad
                    └── w (2,): tensor([1., 1.], requires_grad=True)
    """
    view = View(payload)
    inputs: dict = {}
    for s, t, count, e in view.edges:
        inputs.setdefault(t, []).append((e.get("input", 0), s, count))
    for v in inputs.values():
        v.sort()
    lines: list = []
    seen = set()
    stack = [(r, "", "", 1) for r in reversed(view.roots)]
    while stack and len(lines) < max_lines:
        v, prefix, child_prefix, count = stack.pop()
        n = view.nodes[v]
        text = _node_text(n) + (f"  (\u00d7{count} edges)" if count > 1 else "")
        if v in seen:
            lines.append(f"{prefix}{text} (see {n['id']} above)")
            continue
        seen.add(v)
        lines.append(prefix + text)
        kids = inputs.get(v, [])
        for k, (_, s, c) in reversed(list(enumerate(kids))):
            last = k == len(kids) - 1
            stack.append(
                (
                    s,
                    child_prefix + ("\u2514\u2500\u2500 " if last else "\u251c\u2500\u2500 "),
                    child_prefix + ("    " if last else "\u2502   "),
                    c,
                )
            )
    if stack:
        lines.append(f"\u2026 ({len(view.nodes) - len(seen)} more nodes not shown)")
    if payload.get("truncated"):
        lines.append(
            f"[collapsed: {len(payload['nodes'])} of {payload['total_nodes']} nodes shown]"
        )
    return "\n".join(lines)


def _node_text(n: dict) -> str:
    kind = n["kind"]
    if kind == "repeat":
        return f"[{_one_line(n['label'], 120)}]"
    if kind == "tensor":
        label = _cap(label_line(n), 60)
        val = n.get("value")
        text = f"{label}: {_one_line(val, 80)}" if val else label
        if n.get("grad"):
            text += f"  grad={_one_line(n['grad'], 60)}"
        return text
    text = _cap(label_line(n), 80)
    if n.get("backward_step") is not None:
        text += f"  [backward #{n['backward_step'] + 1}]"
    src = n.get("source")
    if src:
        text += f"  # line {src['line']}: {_one_line(src['code'], 60)}"
    return text


def grad_fn_tree(fn, names: Mapping[str, object] | None = None, max_lines: int = 500) -> str:
    """The ``grad_fn`` chain below ``fn`` as a text tree, with torch's node names.

    Leaves show as ``AccumulateGrad`` with their variable name when known; an input that needs
    no gradient shows as ``None``, as in ``next_functions``.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.graph import grad_fn_tree
        >>> w = torch.ones(2, requires_grad=True)
        >>> print(grad_fn_tree((w * 2).sum().grad_fn, {"w": w}))
        SumBackward0
        └── MulBackward0
            ├── AccumulateGrad (w)
            └── None
    """
    if fn is None:
        return "None"
    name_of = {}
    for k, v in (names or {}).items():
        name_of.setdefault(id(v), k)
    lines: list = []
    seen = set()
    stack = [(fn, "", "")]
    while stack:
        if len(lines) >= max_lines:
            lines.append("\u2026")
            break
        node, prefix, child = stack.pop()
        if node is None:
            lines.append(prefix + "None")
            continue
        if isinstance(node, AccumulateGrad):
            nm = name_of.get(id(node.variable))
            lines.append(prefix + "AccumulateGrad" + (f" ({safe_text(nm)})" if nm else ""))
            continue
        text = safe_text(type(node).__name__)
        if id(node) in seen:
            lines.append(f"{prefix}{text} (see above)")
            continue
        seen.add(id(node))
        lines.append(prefix + text)
        nf = list(node.next_functions)
        for k in range(len(nf) - 1, -1, -1):
            last = k == len(nf) - 1
            stack.append(
                (
                    nf[k][0],
                    child + ("\u2514\u2500\u2500 " if last else "\u251c\u2500\u2500 "),
                    child + ("    " if last else "\u2502   "),
                )
            )
    return "\n".join(lines)
