"""Benchmark: Hessian-vector product and the Jacobian of a 100-input function, ours vs torch.

Run: ``python benchmarks/bench_functional.py``. Prints the median of several repeats for each
library and the ratio ours/torch (torch is optional; without it only our times are shown).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import jupyter_autograd as ja


def _median_time(fn, repeat=7, number=1):
    fn()  # warm up
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        ts.append((time.perf_counter() - t0) / number)
    return statistics.median(ts)


def _cases(m, F):
    rng = np.random.default_rng(0)
    w = m.tensor(rng.normal(size=(100, 100)) / 10)
    x100 = m.tensor(rng.normal(size=100))
    v100 = m.tensor(rng.normal(size=100))

    def loss(x):  # a smooth scalar of 100 inputs
        return (m.tanh(w @ x) ** 2).sum() + (x * x.sin()).sum()

    def vec(x):  # R^100 -> R^100
        return m.tanh(w @ x) * x.exp()

    return {
        "hvp (100 inputs)": lambda: F.hvp(loss, x100, v100),
        "vhp (100 inputs)": lambda: F.vhp(loss, x100, v100),
        "jacobian R^100->R^100 (reverse)": lambda: F.jacobian(vec, x100),
        "jacobian R^100->R^100 (forward)": lambda: F.jacobian(
            vec, x100, vectorize=True, strategy="forward-mode"
        ),
    }


def main() -> None:
    ours = _cases(ja, ja.autograd.functional)
    try:
        import torch

        torch.set_num_threads(1)
        theirs = _cases(torch, torch.autograd.functional)
    except ImportError:
        theirs = {}
    print(f"{'case':36s} {'ours (ms)':>10s} {'torch (ms)':>11s} {'ratio':>7s}")
    for name, fn in ours.items():
        a = _median_time(fn, repeat=5) * 1e3
        if name in theirs:
            b = _median_time(theirs[name], repeat=5) * 1e3
            print(f"{name:36s} {a:10.2f} {b:11.2f} {a / b:7.1f}x")
        else:
            print(f"{name:36s} {a:10.2f} {'-':>11s} {'-':>7s}")


if __name__ == "__main__":
    main()
