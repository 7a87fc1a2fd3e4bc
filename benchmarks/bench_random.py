"""Benchmark: drawing a million random numbers with torch's values, ours vs torch vs NumPy.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_random.py``. Prints the best of several
repeats per contender, interleaved in one run, and the ratios ours/torch and ours/NumPy (torch
is optional). NumPy draws different numbers (PCG64); it is the floor for a NumPy program.
"""

from __future__ import annotations

import time

import numpy as np

import jupyter_autograd as ja

N = 10**6


def _best(fn, repeat=5):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main() -> None:
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    ones = {m: m.ones(N) for m in ((ja, torch) if torch else (ja,))}
    rows = [
        ("randn float32", lambda m: m.randn(N), lambda: rng.standard_normal(N, dtype=np.float32)),
        ("randn float64", lambda m: m.randn(N, dtype=m.float64), lambda: rng.standard_normal(N)),
        ("rand float32", lambda m: m.rand(N), lambda: rng.random(N, dtype=np.float32)),
        ("randint", lambda m: m.randint(0, 100, (N,)), lambda: rng.integers(0, 100, N)),
        ("randperm", lambda m: m.randperm(N), lambda: rng.permutation(N)),
        (
            "dropout",
            lambda m: m.nn.functional.dropout(ones[m], 0.5),
            lambda: np.ones(N, np.float32) * (rng.random(N, dtype=np.float32) >= 0.5) * 2,
        ),
    ]
    print(
        f"{'10^6 samples':16} {'ours ms':>9} {'torch ms':>9} {'numpy ms':>9} {'/torch':>7} {'/numpy':>7}"
    )
    for name, draw, numpy_draw in rows:
        ours = _best(lambda d=draw: d(ja))
        theirs = _best(lambda d=draw: d(torch)) if torch else float("nan")
        base = _best(numpy_draw)
        print(
            f"{name:16} {ours:9.2f} {theirs:9.2f} {base:9.2f} {ours / theirs:7.1f} {ours / base:7.1f}"
        )


if __name__ == "__main__":
    main()
