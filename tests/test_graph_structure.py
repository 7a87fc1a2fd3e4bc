"""The graph of a real model (issue #15): names from the whole namespace and module paths,
modules as groups, repeated structure folded, every output bounded."""

from __future__ import annotations

import json
import pathlib
import re
import xml.etree.ElementTree as ET

import pytest

import jupyter_autograd as torch
from jupyter_autograd import graph as G
from jupyter_autograd import nn, viz

jsonschema = pytest.importorskip("jsonschema")
SCHEMA = json.loads(
    (pathlib.Path(G.__file__).parents[1] / "schema" / "graph-v2.schema.json").read_text()
)
NS = "{http://www.w3.org/2000/svg}"


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2)
        self.register_buffer("scale", torch.full((2,), 0.5))

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def by_name(p):
    return {n["name"]: n for n in p["nodes"] if n.get("name")}


def traced(cell: str, ns: dict, **kw):
    g = viz.run_traced(cell, ns, **kw)
    jsonschema.validate(g.payload, SCHEMA)
    return g.payload


def test_names_come_from_the_whole_namespace_not_only_the_cell():
    """w, b, x bound in an earlier cell are labelled by name, not as bare shapes."""
    torch.manual_seed(0)
    ns = {
        "torch": torch,
        "x": torch.ones(5),
        "y": torch.zeros(3),
        "w": torch.randn(5, 3, requires_grad=True),
        "b": torch.randn(3, requires_grad=True),
    }
    p = traced("z = torch.matmul(x, w) + b\nloss = (z - y).pow(2).sum()", ns, backward="loss")
    names = by_name(p)
    assert {"w", "b", "y", "z", "loss"} <= set(names)
    assert names["w"]["label"] == "w\n(5, 3)" and names["b"]["label"] == "b\n(3,)"
    # the two (3,) tensors are told apart by name
    threes = [n["label"] for n in p["nodes"] if n.get("shape") == [3]]
    assert len(threes) == len(set(threes)) >= 2


def test_parameters_and_buffers_by_path_and_every_name_kept():
    model = MLP()
    w1 = model.fc1.weight
    ns = {"torch": torch, "model": model, "w1": w1, "x": torch.randn(3, 4)}
    p = traced("loss = model(x).sum()", ns)
    names = by_name(p)
    assert {"model.fc1.bias", "model.fc2.weight", "model.fc2.bias", "model.scale"} <= set(names)
    # a variable name wins the label; the payload keeps the parameter path too
    n = names["w1"]
    assert n["label"] == "w1\n(8, 4)"
    assert n["names"] == [
        {"name": "w1", "kind": "variable"},
        {"name": "model.fc1.weight", "kind": "parameter"},
    ]
    assert names["model.scale"]["names"][0]["kind"] == "buffer"
    # the same names in the text tree, the SVG and the DOT
    g = viz.graph(*[t for t in [ns["loss"]]], names=G.Names.from_namespace(ns))
    for text in (g.to_text(), g.to_dot(), g.to_svg()):
        assert "model.fc2.weight" in text and "w1" in text


def test_items_of_lists_are_named():
    xs = [torch.ones(2, requires_grad=True) for _ in range(3)]
    p = G.build_graph([xs[0] * xs[2]], names=G.Names.from_namespace({"xs": xs}))
    assert {"xs[0]", "xs[2]"} <= set(by_name(p))


def test_modules_as_groups_with_paths_labels_and_nesting():
    model = MLP()
    ns = {"torch": torch, "model": model, "x": torch.randn(3, 4)}
    p = traced("loss = model(x).sum()", ns)
    mods = {m["path"]: m for m in p["modules"]}
    assert mods["model.fc1"]["label"] == "Linear fc1 (4 \u2192 8)"
    assert mods["model.fc2"]["label"] == "Linear fc2 (8 \u2192 2)"
    assert mods["model.act"]["label"] == "ReLU act"
    assert mods["model"]["label"] == "MLP model" and mods["model"]["parent"] is None
    parents = {mods[k]["parent"] for k in ("model.fc1", "model.act", "model.fc2")}
    assert parents == {mods["model"]["id"]}
    of = {n.get("op") or n.get("name"): n.get("module") for n in p["nodes"]}
    assert of["ReluBackward0"] == mods["model.act"]["id"]
    assert of["model.fc1.weight"] == mods["model.fc1"]["id"]  # a parameter sits in its module
    assert of["SumBackward0"] is None  # made outside any module
    # the mul by the buffer happens in MLP.forward itself
    assert of["MulBackward0"] == mods["model"]["id"]


LOOP = "y = x\nfor _ in range(100):\n    y = torch.tanh(y * w)\nloss = y.sum()\n"


def loop_ns():
    torch.manual_seed(0)
    return {"torch": torch, "w": torch.randn(3, requires_grad=True), "x": torch.randn(3)}


def test_a_100_step_loop_is_one_run_of_100_iterations():
    p = traced(LOOP, loop_ns(), backward="loss")
    (run,) = p["repeats"]
    assert run["count"] == 100 and len(run["iterations"]) == 100
    assert run["label"] == "\u00d7100 MulBackward0 \u2192 TanhBackward0"
    ops = {n["id"]: n.get("op") for n in p["nodes"]}
    assert all(
        sorted(ops[i] for i in it) == ["MulBackward0", "TanhBackward0"] for it in run["iterations"]
    )
    # the static outputs draw it folded: one block, the shared weight once, one bundled edge
    svg = viz.Graph(p).to_svg()
    root = ET.fromstring(svg)
    assert sum(1 for g in root.iter(NS + "g") if g.get("class") == "node repeat") == 1
    assert "\u00d7100" in svg
    assert "[\u00d7100 MulBackward0 \u2192 TanhBackward0]" in G.to_text(p)
    assert sum(1 for g in root.iter(NS + "g") if (g.get("class") or "").startswith("node ")) < 12


def test_truncated_loop_keeps_one_iteration_and_bundles_the_shared_edge():
    p = traced(LOOP, loop_ns(), max_nodes=50)
    (run,) = p["repeats"]
    assert p["truncated"] and run["count"] == 100 and len(run["iterations"]) == 1
    acc = next(n["id"] for n in p["nodes"] if n["kind"] == "accumulate")
    (edge,) = [e for e in p["edges"] if e["source"] == acc]
    assert edge["count"] == 100  # w feeds all 100 multiplications: one edge stands for them
    assert len(p["nodes"]) < 12


@pytest.mark.parametrize("n", [5, 50])
def test_identical_siblings_fold(n):
    xs = [torch.ones(3, requires_grad=True) for _ in range(n)]
    p = G.build_graph([torch.stack(xs)])
    (run,) = p["repeats"]
    assert run["kind"] == "siblings" and run["count"] == n
    assert {len(it) for it in run["iterations"]} == {2}  # AccumulateGrad and its leaf


def test_sum_over_leaves_and_a_chain_fold():
    xs = [torch.ones(2, requires_grad=True) for _ in range(40)]
    p = G.build_graph([sum(xs[1:], xs[0])])
    assert p["repeats"][0]["count"] == 39
    y = torch.ones(2, requires_grad=True)
    for _ in range(30):
        y = y * 2
    assert G.build_graph([y])["repeats"][0]["count"] == 30


def test_different_steps_do_not_fold():
    y = torch.ones(2, requires_grad=True)
    for f in (torch.exp, torch.sin, torch.cos, torch.tanh, torch.exp, torch.sin):
        y = f(y)
    assert G.build_graph([y])["repeats"] == []


def _shapes(n):
    def chain():
        y = torch.ones(4, requires_grad=True)
        for _ in range(n):
            y = y * 1.0001
        return y

    def shared():
        w, y = torch.ones(4, requires_grad=True), torch.ones(4)
        for _ in range(n // 2):
            y = torch.tanh(y * w)
        return y

    def leaves():
        xs = [torch.ones(4, requires_grad=True) for _ in range(n // 3)]
        return sum(xs[1:], xs[0])

    def stack():
        return torch.stack([torch.ones(4, requires_grad=True) for _ in range(n // 2)])

    return {"chain": chain, "shared weights": shared, "sum over leaves": leaves, "stack": stack}


@pytest.mark.parametrize("n", [1_000, 100_000])
@pytest.mark.parametrize("shape", ["chain", "shared weights", "sum over leaves", "stack"])
def test_every_output_bounded(shape, n):
    """JSON, SVG and text each under 1 MB, whatever the shape (times: bench_graph.py)."""
    root = _shapes(n)[shape]()
    g = viz.graph(root, names={})
    assert g.payload["total_nodes"] >= n * 0.98
    for text in (g.to_json(), g.to_svg(), g.to_text(), g.to_dot()):
        assert len(text.encode()) < 1_000_000
    b = g._repr_mimebundle_()
    assert len(b["image/svg+xml"].encode()) < 1_000_000


def test_long_edges_are_one_curve_each():
    """Near-linear SVG layout: an edge spanning 300 layers is one curve, not 300 segments."""
    import random

    rng = random.Random(1)
    w = torch.ones(2, requires_grad=True)
    y = w
    fns = [torch.exp, torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.neg, torch.abs]
    for _ in range(300):
        y = rng.choice(fns)(y) * w  # hardly any repeated run, w used by every step
    p = G.build_graph([y])
    svg = G.to_svg(p)
    paths = re.findall(r'<path d="([^"]+)" marker', svg)
    assert len(paths) > 400  # mostly unfolded: hundreds of edges from w span many layers
    assert all(d.count("C") == 1 for d in paths)
    assert len(svg.encode()) < 1_000_000
