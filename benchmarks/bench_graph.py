"""Benchmark: every display of a graph is bounded (issue #15): JSON, SVG and text each at most
1 MB and built in at most 1 s, for 1,000- and 100,000-node graphs of every shape.

Shapes: a chain (``y = y * c``), shared weights (``y = tanh(y * w)``, one ``w`` for every
step), a sum over many leaves (``sum(xs)``), a stack of many leaves (``torch.stack(xs)``), and
a 2,000-node graph without repeated structure (so nothing folds and the layout does the work).
Each build is what a display does: ``build_graph`` (walk, fold, serialize), then ``to_json``,
``to_svg`` and ``to_text`` of that payload; times are the best of ``--repeat`` runs.

Run: ``python benchmarks/bench_graph.py`` (``--check`` exits 1 over budget; ``--quick`` skips
the 100,000-node graphs).
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import jupyter_autograd as torch
from jupyter_autograd import graph as G

BUDGET_BYTES = 1_000_000
BUDGET_S = 1.0


def chain(n: int):
    y = torch.ones(4, requires_grad=True)
    for _ in range(n - 3):
        y = y * 1.0001
    return y


def shared_weights(n: int):
    w = torch.ones(4, requires_grad=True)
    y = torch.ones(4)
    for _ in range((n - 3) // 2):
        y = torch.tanh(y * w)
    return y


def sum_of_leaves(n: int):
    xs = [torch.ones(4, requires_grad=True) for _ in range(n // 3)]
    return sum(xs[1:], xs[0])


def stack_of_leaves(n: int):
    xs = [torch.ones(4, requires_grad=True) for _ in range((n - 2) // 2)]
    return torch.stack(xs)


def unstructured(n: int):
    rng = random.Random(0)
    fns = [torch.exp, torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.neg, torch.abs]
    xs = [torch.ones(4, requires_grad=True) for _ in range(n // 5)]
    y = xs[0]
    for x in xs[1:]:
        y = y + rng.choice(fns)(x)
    return y


SHAPES = {
    "chain": chain,
    "shared weights": shared_weights,
    "sum over leaves": sum_of_leaves,
    "stack of leaves": stack_of_leaves,
}


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def display_cpu(root, repeat: int) -> float:
    """CPU seconds of a whole display (build, JSON, SVG, text), best of ``repeat``: on a busy
    machine wall time also counts waiting for a core, this does not."""
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        p = G.build_graph([root])
        G.to_json(p), G.to_svg(p), G.to_text(p)
        best = min(best, time.process_time() - c0)
    return best


def measure(root, repeat: int) -> dict:
    t_build, p = best_of(lambda: G.build_graph([root]), repeat)
    t_json, js = best_of(lambda: G.to_json(p), repeat)
    t_svg, svg = best_of(lambda: G.to_svg(p), repeat)
    t_text, text = best_of(lambda: G.to_text(p), repeat)
    return {
        "nodes": p["total_nodes"],
        "payload nodes": len(p["nodes"]),
        "json": (t_build + t_json, len(js.encode())),
        "svg": (t_build + t_svg, len(svg.encode())),
        "text": (t_build + t_text, len(text.encode())),
        "display": t_build + t_json + t_svg + t_text,
        "display cpu": display_cpu(root, repeat),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000-node graphs only")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="exit 1 when over budget")
    args = ap.parse_args()
    sizes = [1_000] if args.quick else [1_000, 100_000]
    cases = [(name, n, make) for n in sizes for name, make in SHAPES.items()]
    cases.append(("no repeats", 2_000, unstructured))
    over = []
    print(
        f"{'shape':<16} {'nodes':>8} {'kept':>5}  {'JSON ms/kB':>12} {'SVG ms/kB':>12} "
        f"{'text ms/kB':>12} {'display ms':>10} {'(CPU ms)':>8}"
    )
    for name, n, make in cases:
        root = make(n)
        r = measure(root, args.repeat)
        cells = []
        for key in ("json", "svg", "text"):
            t, size = r[key]
            cells.append(f"{t * 1e3:6.0f}/{size / 1e3:5.0f}")
            if t > BUDGET_S or size > BUDGET_BYTES:
                over.append(f"{name} {r['nodes']}: {key} {t * 1e3:.0f} ms, {size / 1e3:.0f} kB")
        print(
            f"{name:<16} {r['nodes']:>8} {r['payload nodes']:>5}  {cells[0]:>12} {cells[1]:>12} "
            f"{cells[2]:>12} {r['display'] * 1e3:>10.0f} {r['display cpu'] * 1e3:>8.0f}"
        )
        del root
    print(
        f"budget: each output <= {BUDGET_BYTES / 1e6:.0f} MB and <= {BUDGET_S * 1e3:.0f} ms "
        "(build included; wall time, so measure on a quiet machine: CPU ms alongside)"
    )
    if over:
        print("OVER BUDGET: " + "; ".join(over), file=sys.stderr)
        return 1 if args.check else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
