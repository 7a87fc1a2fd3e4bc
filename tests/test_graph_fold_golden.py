"""The folded graph of every benchmark shape is unchanged (issue #15): the repeat analysis is
an optimisation target (``benchmarks/bench_graph.py``), so its output is pinned here.

For each shape and size, the digests of ``to_json``, ``to_svg`` and ``to_text`` of
``build_graph`` and the payload's folded runs must equal those stored in
``tests/fixtures/fold_shapes_digests.json``. After an intended change to what a graph looks like,
regenerate it with ``python tests/test_graph_fold_golden.py`` and review the diff of the runs.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys

import pytest

import jupyter_autograd as torch
from jupyter_autograd import graph as G

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "fold_shapes_digests.json"


def chain(n):
    y = torch.ones(4, requires_grad=True)
    for _ in range(n - 3):
        y = y * 1.0001
    return [y]


def shared_weights(n):
    w, y = torch.ones(4, requires_grad=True), torch.ones(4)
    for _ in range((n - 3) // 2):
        y = torch.tanh(y * w)
    return [y]


def sum_of_leaves(n):
    xs = [torch.ones(4, requires_grad=True) for _ in range(n // 3)]
    return [sum(xs[1:], xs[0])]


def stack_of_leaves(n):
    return [torch.stack([torch.ones(4, requires_grad=True) for _ in range((n - 2) // 2)])]


def rnn(n):
    """Each step owns side nodes (an input leaf and its product): the loop body is a subgraph."""
    w, u = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y = torch.zeros(3)
    for _ in range(n // 7):
        y = torch.tanh(y * w + torch.ones(3, requires_grad=True) * u)
    return [y]


def residual(n):
    """A residual block reuses its input twice (out-degree 2 on the spine)."""
    w = torch.ones(3, requires_grad=True)
    y = torch.ones(3, requires_grad=True)
    for _ in range(n // 4):
        y = y + torch.sin(y * w)
    return [y]


def stack_of_subtrees(n):
    """Siblings with a few nodes each, some sharing one weight, in two alternating kinds."""
    w = torch.ones(2, requires_grad=True)
    xs = []
    for i in range(n // 4):
        x = torch.ones(2, requires_grad=True)
        xs.append(torch.exp(x * 2.0) if i % 40 < 30 else x * w)
    return [torch.stack(xs)]


def two_roots(n):
    """Two losses over one trunk: the second root's spine stops where the first one's runs."""
    y = torch.ones(2, requires_grad=True)
    for _ in range(n // 3):
        y = torch.sin(y)
    a = y
    for _ in range(n // 3):
        y = torch.cos(y)
    return [y.sum(), a.sum()]


SHAPES = {
    "chain": chain,
    "shared weights": shared_weights,
    "sum over leaves": sum_of_leaves,
    "stack of leaves": stack_of_leaves,
    "rnn": rnn,
    "residual": residual,
    "stack of subtrees": stack_of_subtrees,
    "two roots": two_roots,
}
CASES = [(s, n) for s in SHAPES for n in (1_000, 5_000)] + [
    (s, 100_000) for s in ("chain", "shared weights", "sum over leaves", "stack of leaves")
]


def outputs(shape: str, n: int) -> dict:
    roots = SHAPES[shape](n)
    p = G.build_graph(roots)
    digest = {
        k: hashlib.sha256(text.encode()).hexdigest()[:16]
        for k, text in (("json", G.to_json(p)), ("svg", G.to_svg(p)), ("text", G.to_text(p)))
    }
    runs = [
        [r["kind"], r["count"], r["label"], len(r["iterations"]), len(r["iterations"][0])]
        for r in p["repeats"]
    ]
    return {"nodes": p["total_nodes"], "kept": len(p["nodes"]), "runs": runs, **digest}


def _stored() -> dict:
    return json.loads(FIXTURE.read_text())


@pytest.mark.parametrize(("shape", "n"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_folded_graph_unchanged(shape, n):
    expected = _stored()[f"{shape} {n}"]
    got = outputs(shape, n)
    assert got["runs"] == expected["runs"]  # readable first: which runs were found
    assert got == expected


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    FIXTURE.write_text(json.dumps({f"{s} {n}": outputs(s, n) for s, n in CASES}, indent=1) + "\n")
    print(f"wrote {FIXTURE}", file=sys.stderr)
