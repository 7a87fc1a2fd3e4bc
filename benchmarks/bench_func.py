"""torch.func workloads of issue 14, jupyter_autograd vs torch (CPU, single-threaded):

- per-sample gradients of an MLP (784-128-10, tanh, cross-entropy) over a batch of 64:
  ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)`` with ``functional_call``;
- ``jacfwd`` of f: R^100 -> R^100 (``f(x) = sin(W x) * x``), and the same Jacobian by
  ``autograd.functional.jacobian(strategy="forward-mode", vectorize=True)``.

Both libraries compute from the same weights; the results are checked to agree. Rounds
alternate between the two so that load on the machine hits both alike; the figures are the
medians and their ratio (issue 14's targets: per-sample gradients within 2x torch, jacfwd no
slower than torch). jacfwd and the forward-mode jacobian run one batched forward pass
(jupyter_autograd/_batching.py); vmap(grad(...)) runs one batched forward and backward
(jupyter_autograd/_vmap_batch.py).

    python benchmarks/bench_func.py            # full measurement
    python benchmarks/bench_func.py --smoke    # a few seconds, for CI
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import statistics
import time

import numpy as np

import jupyter_autograd as ja


def per_sample(mod, w1, b1, w2, b2, x, y):
    F = mod.nn.functional
    model = mod.nn.Sequential(mod.nn.Linear(784, 128), mod.nn.Tanh(), mod.nn.Linear(128, 10))
    with mod.no_grad():
        for p, v in zip(model.parameters(), (w1, b1, w2, b2)):
            p.copy_(mod.tensor(v))
    params = {k: v.detach() for k, v in model.named_parameters()}
    xs, ys = mod.tensor(x), mod.tensor(y)

    def loss(p, xi, yi):
        return F.cross_entropy(
            mod.func.functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0)
        )

    step = mod.func.vmap(mod.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: step(params, xs, ys)


def jac(mod, w, x, how):
    W, X = mod.tensor(w), mod.tensor(x)

    def f(v):
        return (W @ v).sin() * v

    if how == "jacfwd":
        return lambda: mod.func.jacfwd(f)(X)
    return lambda: mod.autograd.functional.jacobian(f, X, strategy="forward-mode", vectorize=True)


def _time(fn, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _compare(name, ours, theirs, rounds, reps):
    o, t = ours(), theirs()
    flat = (
        (lambda r: [v.detach().numpy() for v in r.values()])
        if isinstance(o, dict)
        else (lambda r: [r.detach().numpy()])
    )
    for a, b in zip(flat(o), flat(t)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    to, tt = [], []
    for _ in range(rounds):
        to.append(_time(ours, reps))
        tt.append(_time(theirs, reps))
    mo, mt = statistics.median(to), statistics.median(tt)
    print(
        f"{name:<58} ours {mo * 1e3:8.2f} ms   torch {mt * 1e3:8.2f} ms   ours/torch {mo / mt:5.2f}"
    )
    return mo, mt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    rounds, reps = (1, 1) if args.smoke else (7, 3)
    rng = np.random.default_rng(0)
    batch = 8 if args.smoke else 64
    w1 = (rng.standard_normal((128, 784)) * 0.03).astype(np.float32)
    b1 = np.zeros(128, np.float32)
    w2 = (rng.standard_normal((10, 128)) * 0.1).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    _compare(
        f"per-sample grads, MLP 784-128-10, batch {batch} (vmap(grad))",
        per_sample(ja, w1, b1, w2, b2, x, y),
        per_sample(torch, w1, b1, w2, b2, x, y),
        rounds,
        reps,
    )
    n = 20 if args.smoke else 100
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float64)
    v = rng.standard_normal(n)
    _compare(
        f"jacfwd R^{n} -> R^{n}", jac(ja, w, v, "jacfwd"), jac(torch, w, v, "jacfwd"), rounds, reps
    )
    _compare(
        f"jacobian(forward-mode, vectorize=True) R^{n} -> R^{n}",
        jac(ja, w, v, "jacobian"),
        jac(torch, w, v, "jacobian"),
        rounds,
        reps,
    )


if __name__ == "__main__":
    main()
