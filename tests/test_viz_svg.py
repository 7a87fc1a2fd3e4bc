"""SVG export: structure of the tutorial graph, no overlapping boxes, escaping (F5), save()."""

from __future__ import annotations

import json
import pathlib
import re
import xml.etree.ElementTree as ET

import jupyter_autograd as torch
from jupyter_autograd import graph as G
from jupyter_autograd import viz

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
NS = "{http://www.w3.org/2000/svg}"


def boxes(svg: str):
    root = ET.fromstring(svg)
    out = []
    for g in root.iter(NS + "g"):
        if (g.get("class") or "").startswith("node "):
            r = g.find(NS + "rect")
            texts = ["".join(t.itertext()) for t in g.findall(NS + "text")]
            out.append(
                (
                    g.get("class").split()[1],
                    [float(r.get(k)) for k in ("x", "y", "width", "height")],
                    texts,
                )
            )
    return root, out


def overlaps(bs):
    for i in range(len(bs)):
        x1, y1, w1, h1 = bs[i][1]
        for j in range(i + 1, len(bs)):
            x2, y2, w2, h2 = bs[j][1]
            if x1 < x2 + w2 and x2 < x1 + w1 and y1 < y2 + h2 and y2 < y1 + h1:
                return bs[i], bs[j]
    return None


def test_tutorial_svg_structure():
    """One box per node with its label, edges as paths, no overlaps, visit numbers from 1."""
    from tests.fixtures.generate_graph_fixtures import tutorial

    g, _ = tutorial()
    payload = g.payload
    root, bs = boxes(g.to_svg())
    assert len(bs) == len(payload["nodes"])  # one box per tensor and function
    labels = [t[0] for _, _, t in bs]
    for name in (
        "x",
        "w",
        "b",
        "z",
        "y",
        "loss",
        "MmBackward0",
        "AddBackward0",
        "BinaryCrossEntropyWithLogitsBackward0",
    ):
        assert name in labels
    assert overlaps(bs) is None
    paths = [el for el in root.iter(NS + "path") if el.get("marker-end")]
    assert len(paths) == len(payload["edges"])
    badges = sorted(
        int("".join(t.itertext()))
        for g_ in root.iter(NS + "g")
        for c in g_.findall(NS + "circle")
        for t in g_.findall(NS + "text")[-1:]
    )
    assert badges == list(range(1, len(payload["backward_order"]) + 1))
    assert float(root.get("width")) < 2000 and float(root.get("height")) < 2000


def test_no_overlap_on_wide_and_deep_graphs():
    xs = [torch.ones(2, requires_grad=True) for _ in range(12)]
    y = xs[0]
    for k, x in enumerate(xs[1:]):
        y = y * x if k % 2 else y + x.exp()
    for rankdir in ("TB", "LR"):
        for direction in ("forward", "backward"):
            p = G.build_graph([y], direction=direction)
            _, bs = boxes(G.to_svg(p, show_saved=True, show_values=True, rankdir=rankdir))
            assert len(bs) == len(p["nodes"]) - sum(
                len(it) for r in p["repeats"] for it in r["iterations"]
            ) + len(p["repeats"])
            assert overlaps(bs) is None, (rankdir, direction)


def test_f5_labels_escaped_in_svg_and_text():
    payload = json.loads((FIXTURES / "graph_labels_xss.json").read_text(encoding="utf-8"))
    svg = G.to_svg(payload, show_values=True, show_saved=True)
    root = ET.fromstring(svg)  # well-formed XML despite NUL, surrogates, ]]>
    tags = {el.tag.replace(NS, "") for el in root.iter()}
    assert tags <= {"svg", "defs", "marker", "path", "rect", "g", "title", "text", "circle"}
    for el in root.iter():
        for k, v in el.attrib.items():
            assert not k.startswith("on")
            assert "script" not in v and "javascript" not in v
    assert "<script" not in svg and "<img" not in svg and "<iframe" not in svg
    text = G.to_text(payload)
    assert "\u202e" not in text and "\x00" not in text
    text = G.to_text({**payload, "repeats": []})  # unfolded, every hostile name is printed
    assert "\u202e" not in text and "\x00" not in text and "\\u202e" in text
    bundle = viz.Graph(payload)._repr_mimebundle_()
    assert bundle["text/plain"].startswith("AutogradGraph(nodes=")
    assert "</" not in G.to_json(payload)


def test_mimebundle_and_formats(tmp_path):
    x = torch.ones(2, requires_grad=True)
    g = viz.graph((x * 2).sum(), names={"x": x})
    b = g._repr_mimebundle_()
    assert set(b) == {G.MIME_TYPE, "image/svg+xml", "text/plain"}
    assert b[G.MIME_TYPE]["version"] == 2
    assert re.fullmatch(r"AutogradGraph\(nodes=5, edges=4, truncated=False\)", b["text/plain"])
    assert set(viz.graph(x * 2, format="svg")._repr_mimebundle_()) == {
        "image/svg+xml",
        "text/plain",
    }
    assert "AccumulateGrad" in viz.graph(x * 2, format="text")._repr_mimebundle_()["text/plain"]
    for ext in ("svg", "json", "dot", "txt"):
        g.save(tmp_path / f"g.{ext}")
        assert (tmp_path / f"g.{ext}").stat().st_size > 0
    assert json.loads((tmp_path / "g.json").read_text())["version"] == 2
    import pytest

    with pytest.raises(ValueError, match="unknown extension"):
        g.save(tmp_path / "g.png")


def test_svg_2000_nodes_folds_the_loop():
    """A 2,000-node loop is one block in the SVG (the time budget is bench_graph.py's)."""
    x = torch.ones(2, requires_grad=True)
    y = x
    for k in range(1997):
        y = y * 1.0001 if k % 2 else y + 1.0
    p = G.build_graph([y])
    svg = G.to_svg(p)
    _, bs = boxes(svg)
    assert len(p["nodes"]) == 2000 and len(bs) < 10
    assert any(kind == "repeat" and "repeated \u00d7998" in texts for kind, _, texts in bs)
