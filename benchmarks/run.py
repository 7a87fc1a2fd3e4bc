"""Core benchmarks: ours vs a hand-written NumPy forward/backward and (when installed) torch,
measured in one run, single-threaded. ``--smoke`` runs tiny sizes in seconds (CI).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python benchmarks/run.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import jupyter_autograd as ja

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # torch is optional
    torch = None


def median_time(fn, repeat, warmup=1):
    return compare({"x": fn}, repeat, warmup)["x"]


def compare(fns: dict, repeat: int, warmup: int = 1) -> dict:
    """Median seconds of each function, measured in interleaved rounds (ours, numpy, torch,
    ours, ...) so that load changes on a shared machine hit every contender alike."""
    fns = {k: v for k, v in fns.items() if v is not None}
    for f in fns.values():
        for _ in range(warmup):
            f()
    times = {k: [] for k in fns}
    for r in range(repeat):
        order = list(fns.items())
        order = order[r % len(order) :] + order[: r % len(order)]
        for k, f in order:
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


# ---------------------------------------------------------------- workloads
def chain_ops(lib, n_ops, dtype, device=None):
    """1000-op chain of + * tanh - on a (3,) float64 tensor, then sum().backward()."""
    x = lib.tensor([0.1, 0.2, 0.3], dtype=dtype, device=device, requires_grad=True)

    def run():
        x.grad = None
        y = x
        for i in range(n_ops // 4):
            y = y + 0.5
            y = y * 0.9
            y = y.tanh()
            y = y - 0.1
        y.sum().backward()

    return run


def chain_numpy(n_ops):
    x = np.array([0.1, 0.2, 0.3])

    def run():
        outs = []
        y = x
        for i in range(n_ops // 4):
            y = y + 0.5
            y = y * 0.9
            y = np.tanh(y)
            outs.append(y)
            y = y - 0.1
        g = np.ones(3)
        for t in reversed(outs):
            g = g * (1 - t * t) * 0.9
        return g

    return run


def big_chain(lib, n, device=None):
    x = lib.tensor(np.linspace(-1, 1, n), dtype=lib.float64, device=device, requires_grad=True)

    def run():
        x.grad = None
        y = x * 1.5
        y = y + 0.5
        y = y.tanh()
        y = y * y
        y = y.exp()
        y = y - 1.0
        y = y.sin()
        y = y * 0.5
        y = y.sigmoid()
        y = y + x
        y.sum().backward()

    return run


def big_chain_numpy(n):
    x = np.linspace(-1, 1, n)

    def run():
        a = x * 1.5
        b = a + 0.5
        c = np.tanh(b)
        d = c * c
        e = np.exp(d)
        f = e - 1.0
        g_ = np.sin(f)
        h = g_ * 0.5
        s = 1 / (1 + np.exp(-h))
        y = s + x
        g = np.ones_like(y)
        gx = g.copy()
        g = g * s * (1 - s)
        g = g * 0.5
        g = g * np.cos(f)
        g = g * e
        g = g * 2 * c
        g = g * (1 - c * c)
        g = g * 1.5
        return g + gx

    return run


def mlp_data(rng):
    """Weights in nn.Linear's (out, in) layout, as a PyTorch model holds them."""
    X = rng.standard_normal((64, 784)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    W1 = (rng.standard_normal((256, 784)) * 0.05).astype(np.float32)
    W2 = (rng.standard_normal((256, 256)) * 0.05).astype(np.float32)
    W3 = (rng.standard_normal((10, 256)) * 0.05).astype(np.float32)
    return (
        X,
        y,
        [W1, W2, W3],
        [np.zeros(256, np.float32), np.zeros(256, np.float32), np.zeros(10, np.float32)],
    )


def mlp_ours(lib, data, record=True):
    """The step as PyTorch code writes it: F.linear layers, tanh, cross-entropy, backward."""
    X, y, Ws, bs = data
    xt, yt = lib.tensor(X), lib.tensor(y)
    params = [lib.tensor(w, requires_grad=True) for w in Ws] + [
        lib.tensor(b, requires_grad=True) for b in bs
    ]
    F = lib.nn.functional

    def forward():
        h = F.linear(xt, params[0], params[3]).tanh()
        h = F.linear(h, params[1], params[4]).tanh()
        return F.cross_entropy(F.linear(h, params[2], params[5]), yt)

    def step():
        for p in params:
            p.grad = None
        forward().backward()

    def fwd_nograd():
        with lib.no_grad():
            forward()

    def fwd_record():
        forward()

    return step, fwd_nograd, fwd_record


def mlp_numpy(data):
    """Hand-written forward and backward of the same step (the baseline)."""
    X, y, Ws, bs = data
    W1, W2, W3 = (w.T for w in Ws)  # views: x @ W.T as F.linear computes it
    b1, b2, b3 = bs
    n = X.shape[0]

    def step():
        h1 = np.tanh(X @ W1 + b1)
        h2 = np.tanh(h1 @ W2 + b2)
        z = h2 @ W3 + b3
        m = z.max(1, keepdims=True)
        lse = np.log(np.exp(z - m).sum(1, keepdims=True)) + m
        logp = z - lse
        loss = -logp[np.arange(n), y].mean()
        dz = np.exp(logp)
        dz[np.arange(n), y] -= 1
        dz /= n
        gW3 = dz.T @ h2
        gb3 = dz.sum(0)
        dh2 = (dz @ W3.T) * (1 - h2 * h2)
        gW2 = dh2.T @ h1
        gb2 = dh2.sum(0)
        dh1 = (dh2 @ W2.T) * (1 - h1 * h1)
        gW1 = dh1.T @ X
        gb1 = dh1.sum(0)
        return loss, gW1, gb1, gW2, gb2, gW3, gb3

    return step


def deep_chain(lib, n):
    x = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
    c = 1e-5

    def run():
        x.grad = None
        y = x
        for _ in range(n):
            y = y + y * c
        y.backward()

    return run


# ---------------------------------------------------------------- report
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds (CI)")
    args = ap.parse_args(argv)
    smoke = args.smoke
    rep = 3 if smoke else 15
    n_ops = 100 if smoke else 1000
    big = 40_000 if smoke else 4_000_000
    deep = 2_000 if smoke else 100_000
    rows = []

    def row(name, ours, numpy_t=None, torch_t=None, unit=1.0, unit_name="s"):
        rows.append(
            (
                name,
                ours / unit,
                None if numpy_t is None else numpy_t / unit,
                None if torch_t is None else torch_t / unit,
                unit_name,
            )
        )

    def three(name, ours, np_fn, th_fn, rep_, unit, unit_name):
        m = compare({"ours": ours, "numpy": np_fn, "torch": th_fn}, rep_)
        row(name, m["ours"], m.get("numpy"), m.get("torch"), unit=unit, unit_name=unit_name)

    three(
        f"per-op overhead, (3,) f64, {n_ops}-op chain fwd+bwd",
        chain_ops(ja, n_ops, ja.float64),
        chain_numpy(n_ops),
        chain_ops(torch, n_ops, torch.float64) if torch else None,
        rep,
        n_ops * 1e-6,
        "us/op",
    )
    three(
        f"{big:,}-element f64 chain of 10 ops + backward",
        big_chain(ja, big),
        big_chain_numpy(big),
        big_chain(torch, big) if torch else None,
        max(3, rep // 2),
        1e-3,
        "ms",
    )
    data = mlp_data(np.random.default_rng(0))
    step, fwd_ng, fwd_rec = mlp_ours(ja, data)
    three(
        "MLP step f32 batch 64, 784-256-256-10 tanh CE",
        step,
        mlp_numpy(data),
        mlp_ours(torch, data)[0] if torch else None,
        rep * 2,
        1e-3,
        "ms",
    )
    m = compare({"rec": fwd_rec, "ng": fwd_ng}, rep * 2)
    row(
        "MLP forward: recording vs no_grad (numpy col = no_grad)",
        m["rec"],
        m["ng"],
        None,
        unit=1e-3,
        unit_name="ms",
    )
    three(
        f"{deep:,}-op chain fwd+bwd at recursion limit {sys.getrecursionlimit()}",
        deep_chain(ja, deep),
        None,
        deep_chain(torch, deep) if torch else None,
        3,
        1.0,
        "s",
    )

    print(
        f"{'workload':58s} {'ours':>10s} {'numpy':>10s} {'torch':>10s} {'/numpy':>7s} {'/torch':>7s}  unit"
    )
    for name, o, n, t, u in rows:
        fn = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10s}"
        rn = f"{o / n:7.2f}" if n else f"{'-':>7s}"
        rt = f"{o / t:7.2f}" if t else f"{'-':>7s}"
        print(f"{name:58s} {fn(o)} {fn(n)} {fn(t)} {rn} {rt}  {u}")
    return rows


if __name__ == "__main__":
    main()
