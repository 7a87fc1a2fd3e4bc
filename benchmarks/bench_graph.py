"""Benchmark: a 2,000-node graph to JSON and SVG (target < 1 s), and the 100,000-node collapse.

Run: ``.venv/bin/python benchmarks/bench_graph.py``
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import jupyter_autograd as torch  # noqa: E402
from jupyter_autograd import graph as G  # noqa: E402


def chain(n: int, mixed: bool = True):
    x = torch.ones(4, requires_grad=True)
    y = x
    for k in range(n):
        y = y * 1.0001 if (k % 2 or not mixed) else y + 1.0
    return x, y


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    x, y = chain(1997)
    names = {"x": x, "y": y}
    p = G.build_graph([y], names=names)
    t_json = best_of(lambda: G.to_json(G.build_graph([y], names=names)))
    t_svg = best_of(lambda: G.to_svg(p))
    t_both = best_of(lambda: G.to_svg(G.build_graph([y], names=names)) + G.to_json(p))
    print(f"2,000 nodes: build+JSON {t_json * 1e3:.0f} ms, SVG {t_svg * 1e3:.0f} ms, "
          f"both {t_both * 1e3:.0f} ms (target < 1000 ms); JSON {len(G.to_json(p)) / 1e3:.0f} kB")
    # a wider one: a 2-layer MLP-like graph repeated, so the layout has real crossings
    xs = [torch.randn(3, requires_grad=True) for _ in range(200)]
    acc = xs[0]
    for k, v in enumerate(xs[1:]):
        acc = acc + (v * v).tanh() if k % 2 else acc * v.exp()
    pw = G.build_graph([acc])
    t_wide = best_of(lambda: G.to_svg(G.build_graph([acc])))
    print(f"wide graph ({len(pw['nodes'])} nodes): build+SVG {t_wide * 1e3:.0f} ms")
    x, y = chain(100_000 - 3, mixed=False)
    t0 = time.perf_counter()
    p = G.build_graph([y])
    s = G.to_json(p)
    t = time.perf_counter() - t0
    print(f"100,000 nodes: collapsed to {len(p['nodes'])} in {t * 1e3:.0f} ms, {len(s)} bytes")


if __name__ == "__main__":
    main()
