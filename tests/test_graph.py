"""Graph model: schema v1 payload, ids, edges, backward order, collapsing (G1, G2), exports."""

from __future__ import annotations

import json
import pathlib

import pytest

import jupyter_autograd as torch
from jupyter_autograd import graph as G
from jupyter_autograd import viz

jsonschema = pytest.importorskip("jsonschema")
ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "jupyter_autograd/schema/graph-v2.schema.json").read_text())
FIXTURES = ROOT / "tests" / "fixtures"
TUTORIAL = """x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
"""


def validate(payload):
    jsonschema.validate(payload, SCHEMA)


def tutorial_graph(backward=True, **kw):
    torch.manual_seed(0)
    ns = {"torch": torch}
    g = viz.run_traced(TUTORIAL, ns, backward="loss" if backward else None, retain_graph=True, **kw)
    return g, ns


def chain(n):
    x = torch.ones(3, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    return x, y


def test_tutorial_payload_validates_and_names_nodes():
    g, _ = tutorial_graph()
    p = g.payload
    validate(p)
    assert p["version"] == 2 and p["truncated"] is False
    names = {n.get("name") for n in p["nodes"] if n["kind"] == "tensor"}
    assert {"w", "b", "z", "loss", "y"} <= names
    ops = [n["op"] for n in p["nodes"] if n["kind"] == "function"]
    assert ops == [
        "BinaryCrossEntropyWithLogitsBackward0",
        "AddBackward0",
        "SqueezeBackward4",
        "MmBackward0",
    ]
    assert [n["id"] for n in p["nodes"]] == [f"n{i}" for i in range(len(p["nodes"]))]
    by = {n["id"]: n for n in p["nodes"]}
    # data-flow edges: w -> AccumulateGrad -> MmBackward0 (input 1)
    w = next(n for n in p["nodes"] if n.get("name") == "w")
    acc = [e for e in p["edges"] if e["source"] == w["id"]]
    assert len(acc) == 1 and by[acc[0]["target"]]["kind"] == "accumulate"
    mm = next(e for e in p["edges"] if e["source"] == acc[0]["target"])
    assert by[mm["target"]]["op"] == "MmBackward0" and mm["input"] == 1
    # y needs no grad but is drawn as BCE's input 1 thanks to the trace
    y = next(n for n in p["nodes"] if n.get("name") == "y")
    e = next(e for e in p["edges"] if e["source"] == y["id"])
    assert by[e["target"]]["op"].startswith("BinaryCrossEntropy") and e["input"] == 1
    fn = next(n for n in p["nodes"] if n.get("op") == "AddBackward0")
    assert fn["source"] == {"line": 5, "code": "z = torch.matmul(x, w)+b"}


def test_backward_order_matches_engine_and_grads_shown():
    g, ns = tutorial_graph()
    p = g.payload
    by = {n["id"]: n for n in p["nodes"]}
    order = [by[i]["op"] for i in p["backward_order"]]
    assert order[0].startswith("BinaryCrossEntropy") and order[1] == "AddBackward0"
    assert sorted(order[2:]) == sorted(
        ["SqueezeBackward4", "MmBackward0", "AccumulateGrad", "AccumulateGrad"]
    )
    for k, i in enumerate(p["backward_order"]):
        assert by[i]["backward_step"] == k
    w = next(n for n in p["nodes"] if n.get("name") == "w")
    assert w["grad"] == repr(ns["w"].grad)


def test_ids_are_deterministic():
    a = tutorial_graph()[0].to_json()
    b = tutorial_graph()[0].to_json()
    assert a == b and "0x" not in a


def test_saved_tensors_named_and_linked():
    g, _ = tutorial_graph(backward=False)
    p = g.payload
    bce = next(n for n in p["nodes"] if (n.get("op") or "").startswith("BinaryCross"))
    saved = {s["name"]: s for s in bce["saved"]}
    assert saved["_saved_self"]["shape"] == [3]
    z = next(n for n in p["nodes"] if n.get("name") == "z")
    assert saved["_saved_self"]["tensor"] == z["id"]
    assert saved["_saved_reduction"]["value"] == "1"


def test_freed_saved_values_say_so():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    p = G.build_graph([y])
    mul = next(n for n in p["nodes"] if n.get("op") == "MulBackward0")
    assert all("freed" in s["value"] for s in mul["saved"])
    validate(p)


def test_saved_flag_keeps_what_backward_used():
    """``%%autograd --backward loss --saved`` shows the saved tensors backward used, though
    backward (without retain_graph) freed them; torch's own attributes still raise."""
    ns = {"torch": torch}
    g = viz.run_traced(TUTORIAL, ns, backward="loss", saved=True)
    p = g.payload
    assert p["show_saved"] is True
    mm = next(n for n in p["nodes"] if n.get("op") == "MmBackward0")
    saved = {s["name"]: s for s in mm["saved"]}
    # x @ w with only w requiring grad: torch saves x (as (1, 5)) for w's gradient, not w
    assert saved["_saved_self"]["shape"] == [1, 5]
    assert saved["_saved_mat2"]["value"] == "None"
    assert not any("freed" in (s.get("value") or "") for s in mm["saved"])
    fn = ns["z"].grad_fn
    while fn.name() != "MmBackward0":
        fn = fn.next_functions[0][0]
    with pytest.raises(RuntimeError, match="freed"):
        fn._saved_self  # noqa: B018
    validate(p)
    # without --saved the graph says they were freed, as torch would
    g = viz.run_traced(TUTORIAL, {"torch": torch}, backward="loss")
    mm = next(n for n in g.payload["nodes"] if n.get("op") == "MmBackward0")
    assert all("freed" in s["value"] for s in mm["saved"] if s["name"] == "_saved_self")


def test_node_root_and_shared_subgraph_once():
    x = torch.ones(2, requires_grad=True)
    a = x * 2
    y = a * a + a
    p = G.build_graph([y.grad_fn], names={"a": a})
    validate(p)
    assert sum(n.get("name") == "a" for n in p["nodes"]) == 1
    assert p["nodes"][0]["is_root"] is True


def test_multiple_outputs_have_output_index():
    x = torch.randn(4, 3, requires_grad=True)
    vals, _idx = x.max(dim=1)
    p = G.build_graph([vals], names={"vals": vals})
    validate(p)
    e = next(e for e in p["edges"] if e["target"] == p["nodes"][0]["id"])
    assert e["output"] == 0


def test_g1_100k_nodes_collapsed_fast_and_small():
    x, y = chain(100_000 - 3)
    p = G.build_graph([y], names={"x": x, "y": y})
    s = G.to_json(p)
    assert p["total_nodes"] == 100_000
    assert p["truncated"] is True
    assert len(p["nodes"]) <= 2000 and len(s.encode()) <= 1_000_000
    (run,) = p["repeats"]  # the loop body, once, standing for all of its iterations
    assert run["count"] == 99_997 and run["label"] == "\u00d799997 MulBackward0"
    assert len(run["iterations"]) == 1 and len(p["nodes"]) < 10
    validate(p)
    assert "truncated=True" in viz.Graph(p).__repr__()


def test_wide_graph_cut_to_max_nodes():
    """A graph without repeated structure is cut to max_nodes, the rest one group."""
    import random

    rng = random.Random(0)
    fns = [torch.exp, torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.neg, torch.abs]
    xs = [torch.ones(1, requires_grad=True) for _ in range(300)]
    y = xs[0]
    for x in xs[1:]:
        y = y + rng.choice(fns)(x)
    p = G.build_graph([y], max_nodes=100)
    validate(p)
    assert len(p["nodes"]) <= 100 and p["truncated"] and p["total_nodes"] > 800
    assert p["nodes"][-1]["kind"] == "group"


def test_g2_refused_above_10mb_with_text():
    _, y = chain(101_000)
    g = viz.graph(y, names={}, max_nodes=None)
    assert g.payload is None
    bundle = g._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    assert "10 MB" in bundle["text/plain"] and "max_nodes" in bundle["text/plain"]
    with pytest.raises(G.GraphTooLarge):
        G.build_graph([y], max_nodes=None)


def test_max_bytes_shrinks_previews_then_nodes():
    x = torch.randn(200, 200, requires_grad=True)
    y = x
    for _ in range(50):
        y = y * x
    p = G.build_graph([y], max_bytes=20_000)
    assert len(G.to_json(p).encode()) <= 20_000
    validate(p)


def test_bad_arguments():
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="direction"):
        G.build_graph([x], direction="sideways")
    with pytest.raises(ValueError, match="max_nodes"):
        G.build_graph([x], max_nodes=0)
    with pytest.raises(TypeError, match="expected Tensor"):
        viz.graph(3)


def test_text_tree_and_grad_fn_tree():
    x = torch.ones(2, requires_grad=True)
    c = torch.ones(2)
    y = (x * c).sum()
    tree = G.grad_fn_tree(y.grad_fn, {"x": x})
    assert tree.splitlines() == [
        "SumBackward0",
        "\u2514\u2500\u2500 MulBackward0",
        "    \u251c\u2500\u2500 AccumulateGrad (x)",
        "    \u2514\u2500\u2500 None",
    ]
    text = G.to_text(G.build_graph([y], names={"x": x, "y": y}))
    assert text.splitlines()[0].startswith("y ():")


def test_dot_export_escapes_quotes():
    x = torch.ones(1, requires_grad=True)
    p = G.build_graph([x * 2], names={'a"b': x})
    dot = G.to_dot(p)
    assert dot.startswith("digraph autograd {") and 'a\\"b' in dot and dot.rstrip().endswith("}")


def test_json_escapes_script_close_and_is_utf8_safe():
    x = torch.ones(1, requires_grad=True)
    p = G.build_graph([x * 2], names={"</script>\ud800": x})
    s = G.to_json(p)
    assert "</script>" not in s and "<\\/script>" in s
    s.encode("utf-8")
    validate(json.loads(s))


def test_fixtures_validate_and_are_current():
    for path in sorted(FIXTURES.glob("graph_*.json")):
        validate(json.loads(path.read_text(encoding="utf-8")))
    g, _ = tutorial_graph()
    stored = json.loads((FIXTURES / "graph_tutorial_backward.json").read_text(encoding="utf-8"))
    assert stored == json.loads(g.to_json())


def test_engine_tracers_off_by_default():
    from jupyter_autograd.autograd.engine import FLAGS

    assert FLAGS.record_tracers == [] and FLAGS.backward_tracers == []
    x = torch.ones(1, requires_grad=True)
    with G.BackwardRecord() as rec:
        (x * 2).sum().backward()
    assert FLAGS.backward_tracers == [] and len(rec.order) == 3
