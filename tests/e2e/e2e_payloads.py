"""Graph payloads for the browser tests and the first-paint benchmark (schema v1).

Python twins of labextension/src/__tests__/helpers.ts: an MLP-like autograd graph of any size,
a linear chain, and the hostile-label corpus of test plan F1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"

# Mirrors render.ts: MAX_LABEL_LINES, MAX_LABEL_CHARS.
MAX_LABEL_LINES = 3
MAX_LABEL_CHARS = 40


def tutorial() -> dict[str, Any]:
    """The hand-written tutorial graph (11 nodes, 10 edges, 6 backward steps)."""
    return json.loads((FIXTURES / "graph_tutorial.json").read_text(encoding="utf-8"))


def _payload(
    nodes: list[dict[str, Any]], edges: list[dict[str, Any]], roots: list[str]
) -> dict[str, Any]:
    return {
        "version": 1,
        "nodes": nodes,
        "edges": edges,
        "roots": roots,
        "truncated": False,
        "total_nodes": len(nodes),
        "total_edges": len(edges),
    }


def chain(count: int) -> dict[str, Any]:
    """n0 -> n1 -> ... -> n{count-1}, alternating tensors and MulBackward0 nodes."""
    nodes = []
    edges = []
    for i in range(count):
        fn = i % 2 == 1
        nodes.append(
            {
                "id": f"n{i}",
                "kind": "function" if fn else "tensor",
                "label": "MulBackward0" if fn else f"t{i}\n(3,)",
                "op": "MulBackward0" if fn else None,
                "shape": None if fn else [3],
            }
        )
        if i:
            edges.append({"source": f"n{i - 1}", "target": f"n{i}"})
    return _payload(nodes, edges, [f"n{count - 1}"])


def mlp(count: int) -> dict[str, Any]:
    """An MLP-like autograd graph of about ``count`` nodes (10 per layer) with a backward order."""
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []

    def add(kind: str, label: str, **extra: Any) -> str:
        nid = f"n{len(nodes)}"
        nodes.append({"id": nid, "kind": kind, "label": label, **extra})
        return nid

    h = add("tensor", "x\n(64, 32)", name="x", shape=[64, 32], is_leaf=True, requires_grad=False)
    layer = 0
    order: list[str] = []
    while len(nodes) + 11 <= count:
        w = add(
            "tensor",
            f"w{layer}\n(32, 32)",
            name=f"w{layer}",
            shape=[32, 32],
            is_leaf=True,
            requires_grad=True,
            dtype="float32",
            value="tensor([[...]])",
            grad="tensor([[...]])",
        )
        aw = add("accumulate", "AccumulateGrad", op="AccumulateGrad")
        b = add(
            "tensor",
            f"b{layer}\n(32,)",
            name=f"b{layer}",
            shape=[32],
            is_leaf=True,
            requires_grad=True,
        )
        ab = add("accumulate", "AccumulateGrad", op="AccumulateGrad")
        mm = add("function", "MmBackward0", op="MmBackward0")
        t1 = add("tensor", "(64, 32)", shape=[64, 32])
        ad = add("function", "AddBackward0", op="AddBackward0")
        t2 = add("tensor", "(64, 32)", shape=[64, 32])
        re = add("function", "ReluBackward0", op="ReluBackward0")
        t3 = add("tensor", f"h{layer}\n(64, 32)", name=f"h{layer}", shape=[64, 32])
        for s, t in [
            (w, aw),
            (b, ab),
            (h, mm),
            (aw, mm),
            (mm, t1),
            (t1, ad),
            (ab, ad),
            (ad, t2),
            (t2, re),
            (re, t3),
        ]:
            edges.append({"source": s, "target": t, "grad": "tensor([...])"})
        order = [re, ad, ab, mm, aw] + order
        h = t3
        layer += 1
    s = add("function", "SumBackward0", op="SumBackward0")
    loss = add("tensor", "loss\n()", name="loss", shape=[], is_root=True)
    edges += [{"source": h, "target": s}, {"source": s, "target": loss}]
    p = _payload(nodes, edges, [loss])
    p["backward_order"] = [s] + order
    return p


# Test plan F1. The lone surrogate cannot cross the kernel's UTF-8 wire; jest covers it.
LABEL_CORPUS = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    "</text><script>window.__pwned=1</script>",
    '<svg onload="window.__pwned=1">',
    ']]><foreignObject><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe></foreignObject>',
    "javascript:window.__pwned=1",
    '" onmouseover="window.__pwned=1"',
    "{{constructor.constructor('window.__pwned=1')()}}",
    '<button data-commandlinker-command="console:create">x</button>',
    '<a id="jp-main-dock-panel" name="x" href="javascript:window.__pwned=1">a</a>',
    "abc\u202edef",
    "nul\u0000byte",
    "x" * 2000,
]


def corpus() -> dict[str, Any]:
    """A valid payload whose every text field is an F1 string."""
    nodes = []
    edges = []
    for i, s in enumerate(LABEL_CORPUS):
        nodes.append(
            {
                "id": f"n{i}",
                "kind": "function" if i % 2 else "tensor",
                "label": s,
                "name": s,
                "op": s,
                "dtype": s[:200],
                "value": s,
                "grad": s,
                "saved": [{"name": s[:200], "value": s}],
                "source": {"line": 1, "code": s},
            }
        )
        if i:
            edges.append({"source": f"n{i - 1}", "target": f"n{i}", "grad": s})
    p = _payload(nodes, edges, [f"n{len(LABEL_CORPUS) - 1}"])
    p["title"] = LABEL_CORPUS[0]
    p["backward_order"] = [n["id"] for n in reversed(nodes) if n["kind"] == "function"]
    return p


def cap_text(text: str, limit: int) -> str:
    """render.ts capText: at most ``limit`` code points, then an ellipsis."""
    return text if len(text) <= limit else text[:limit] + "\u2026"


def drawn_lines(label: str) -> list[str]:
    """The label lines the renderer draws for a payload node label."""
    lines = label.split("\n")
    out = [cap_text(line, MAX_LABEL_CHARS) for line in lines[:MAX_LABEL_LINES]]
    if len(lines) > MAX_LABEL_LINES:
        out[-1] = cap_text(out[-1] + "\u2026", MAX_LABEL_CHARS + 1)
    return out


def utf16_units(text: str) -> list[int]:
    """UTF-16 code units, to compare strings inside the browser exactly."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
