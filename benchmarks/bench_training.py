"""Per-step training time: jupyter_autograd vs a hand-written NumPy step of the same MLP.

Both train the examples' MLP (2-64-64-3, ReLU, cross-entropy, Adam lr=0.01) on the shipped
spiral data, full batch, float32, from the same weights. Blocks of steps alternate between the
two so that load on the machine hits both alike; the figure is the ratio of the median block
times (target: within 1.3x). The two are also checked to compute the same loss.

Each side runs as two independent instances (two models, two sets of arrays) and keeps the
faster median: where arrays land in memory can make a step much slower in one process and not
in the next (measured: the NumPy step at 0.37 ms instead of 0.26 ms in some processes, gone once
its arrays were allocated anew), and one unlucky layout should not decide the ratio either way.
The NumPy step's own arrays are placed to avoid that effect (see ``_spaced``).

    python benchmarks/bench_training.py            # full measurement
    python benchmarks/bench_training.py --smoke    # a few seconds, for CI
"""

from __future__ import annotations

import os

# A 64-wide MLP is too small for BLAS threads: on a busy 2-core machine they spin and make
# each step ~10x slower (measured). Set before NumPy loads; an explicit setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import time

import numpy as np

import jupyter_autograd as torch
from jupyter_autograd import nn


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3)
    )


def _spaced(arrays, start):
    """Copies of ``arrays``, each at its own offset modulo 4 KiB. Same-size buffers allocated one
    after another otherwise start 16 bytes apart modulo 4 KiB, and the in-place updates between
    them (Adam's p, m, v) can stall on the CPU's 4K aliasing: measured, the NumPy step ran 45%
    slower in some processes and not in others. A careful hand-written step avoids that."""
    out = []
    for k, a in enumerate(arrays, start):
        pad = (k * 3 % 61) * 16  # a different multiple of 16 bytes for each array
        buf = np.empty(a.nbytes + pad + 64, np.uint8)
        off = (-buf.ctypes.data) % 64 + pad
        view = buf[off : off + a.nbytes].view(a.dtype).reshape(a.shape)
        view[...] = a
        out.append(view)
    return out


class NumpyMLP:
    """The same MLP, forward, backward and Adam written by hand in NumPy."""

    def __init__(self, model, lr=0.01, betas=(0.9, 0.999), eps=1e-8):
        params = [p.detach().numpy() for p in model.parameters()]
        n = len(params)
        self.params = _spaced(params, 0)
        self.m = _spaced([np.zeros_like(p) for p in params], n)
        self.v = _spaced([np.zeros_like(p) for p in params], 2 * n)
        self.t = 0
        self.lr, self.betas, self.eps = lr, betas, eps

    def step(self, x, y):
        w1, b1, w2, b2, w3, b3 = self.params
        n = x.shape[0]
        h1 = x @ w1.T + b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2.T + b2
        a2 = np.maximum(h2, 0)
        z = a2 @ w3.T + b3
        z = z - z.max(1, keepdims=True)
        e = np.exp(z)
        s = e.sum(1, keepdims=True)
        logp = z - np.log(s)
        loss = -logp[np.arange(n), y].mean()
        dz = e / s
        dz[np.arange(n), y] -= 1
        dz /= n
        gw3, gb3 = dz.T @ a2, dz.sum(0)
        da2 = dz @ w3
        da2 *= h2 > 0
        gw2, gb2 = da2.T @ a1, da2.sum(0)
        da1 = da2 @ w2
        da1 *= h1 > 0
        gw1, gb1 = da1.T @ x, da1.sum(0)
        self.t += 1
        b1_, b2_ = self.betas
        bc1, bc2 = 1 - b1_**self.t, 1 - b2_**self.t
        for p, g, m, v in zip(self.params, (gw1, gb1, gw2, gb2, gw3, gb3), self.m, self.v):
            m += (1 - b1_) * (g - m)
            v *= b2_
            v += (1 - b2_) * g * g
            denom = np.sqrt(v) / bc2**0.5
            denom += self.eps
            p += (-self.lr / bc1) * m / denom
        return float(loss)


def make_ours(model):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def run(blocks: int, steps: int) -> dict:
    X, y = torch.datasets.spiral()
    xn, yn = X.numpy(), y.numpy()
    pairs = []
    for _ in range(2):  # two instances of each side (see the module docstring)
        model = make_model()
        pairs.append((make_ours(model), NumpyMLP(model)))
    # same weights, same data: the losses must agree step by step
    for _ in range(3):
        for ours, ref in pairs:
            lo, ln = ours(X, y), ref.step(xn, yn)
            assert abs(lo - ln) < 1e-4 * max(1.0, abs(ln)), (lo, ln)
    t_ours = [[], []]
    t_np = [[], []]
    for _ in range(blocks):
        for k, (ours, ref) in enumerate(pairs):
            t0 = time.perf_counter()
            for _ in range(steps):
                ours(X, y)
            t1 = time.perf_counter()
            for _ in range(steps):
                ref.step(xn, yn)
            t2 = time.perf_counter()
            t_ours[k].append((t1 - t0) / steps)
            t_np[k].append((t2 - t1) / steps)
    mo = min(statistics.median(t) for t in t_ours)
    mn = min(statistics.median(t) for t in t_np)
    return {"ours_ms": mo * 1e3, "numpy_ms": mn * 1e3, "ratio": mo / mn}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="a few blocks only (CI)")
    ap.add_argument("--blocks", type=int, default=15)
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args(argv)
    blocks, steps = (3, 20) if args.smoke else (args.blocks, args.steps)
    r = run(blocks, steps)
    print(
        f"per step: jupyter_autograd {r['ours_ms']:.3f} ms, hand-written NumPy "
        f"{r['numpy_ms']:.3f} ms, ratio {r['ratio']:.2f}x (target <= 1.3x)"
    )
    return r


if __name__ == "__main__":
    main()
