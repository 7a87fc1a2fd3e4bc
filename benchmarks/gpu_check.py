"""GPU check: the op suite's gradient checks and the benchmark workloads on CUDA (CuPy), with a
table comparing CPU and GPU. Sized to finish in well under 3 minutes on one GPU.

    python benchmarks/gpu_check.py           # on a machine with CuPy and a GPU
    python benchmarks/gpu_check.py --fake    # the same run on the NumPy stand-in (no GPU)

Without CuPy or a GPU (and without ``--fake``) it says so and exits 0. Exit status 1 means an
op disagreed between devices or failed its gradient check.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
import jupyter_autograd as ja

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as run_bench


def _sync():
    if ja.cuda.is_available():
        ja.cuda.synchronize()


def median_time(fn, repeat, sync=False):
    fn()  # warm-up (and CuPy kernel compilation)
    if sync:
        _sync()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            _sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


# ---------------------------------------------------------------- op suite
def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _host(t):
    return None if t is None else t.detach().cpu().numpy()


def _grads(case, dev, vs):
    ja.set_default_device(dev)
    try:
        ts = [ja.tensor(a, dtype=ja.float64, device=dev, requires_grad=True) for a in case.arrays]
        outs = [o for o in _outs(case.ours(*ts)) if o.is_floating_point()]
        diff = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
        if diff:
            loss = sum((o * ja.tensor(v, device=dev)).sum() for o, v in diff)
            gs = ja.autograd.grad(loss, ts, allow_unused=True)
        else:
            gs = [None] * len(ts)
        return [_host(o) for o in outs], [_host(g) for g in gs]
    finally:
        ja.set_default_device(None)


def _numeric(case, dev, vs, i, eps=1e-3, max_elems=12):
    """Central differences for the first elements of input ``i``, evaluated on ``dev``."""
    a = case.arrays[i]
    out = np.zeros(a.shape)
    flat = out.reshape(-1)
    for k in range(min(a.size, max_elems)):
        vals = []
        for s in (eps, -eps):
            xs = [x.copy() for x in case.arrays]
            xs[i].reshape(-1)[k] += s
            with ja.no_grad():
                outs, _ = _grads_nograd(case, dev, xs)
            vals.append(sum(float(np.sum(o * v)) for o, v in zip(outs, vs)))
        flat[k] = (vals[0] - vals[1]) / (2 * eps)
    return out, min(a.size, max_elems)


def _grads_nograd(case, dev, arrays):
    ja.set_default_device(dev)
    try:
        ts = [ja.tensor(a, dtype=ja.float64, device=dev) for a in arrays]
        return [_host(o) for o in _outs(case.ours(*ts)) if o.is_floating_point()], None
    finally:
        ja.set_default_device(None)


def op_suite(dev):
    from jupyter_autograd.ops import OPS
    from tests._op_samples import Unsampleable, cases

    rows, failures = [], []
    t0 = time.perf_counter()
    for name in sorted(OPS):
        try:
            cs = cases(OPS[name], np.random.default_rng(0))
        except Unsampleable:
            rows.append((name, "no sampler"))
            continue
        status = "ok"
        try:
            for k, case in enumerate(cs):
                rng = np.random.default_rng(k)
                cpu_out, _ = _grads_nograd(case, "cpu", case.arrays)
                vs = [rng.uniform(-1, 1, size=o.shape) for o in cpu_out]
                c_out, c_g = _grads(case, "cpu", vs)
                g_out, g_g = _grads(case, dev, vs)
                for a, b in zip(c_out, g_out):
                    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg="forward")
                for i, (a, b) in enumerate(zip(c_g, g_g)):
                    if a is None or b is None:
                        assert a is None and b is None, "gradient present on one device only"
                        continue
                    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=f"grad {i}")
                    # central differences need float64 outputs (a float32 cast would swamp them)
                    if OPS[name].smooth and all(o.dtype == np.float64 for o in c_out):
                        # eps=1e-3 and these tolerances survive internal float32 casts (_to_copy);
                        # a wrong rule is off by O(1)
                        num, n = _numeric(case, dev, vs, i)
                        np.testing.assert_allclose(
                            b.reshape(-1)[:n],
                            num.reshape(-1)[:n],
                            rtol=2e-3,
                            atol=2e-3 * max(1.0, float(np.abs(num).max())),
                            err_msg=f"finite differences {i}",
                        )
        except Exception as e:  # noqa: BLE001 - reported in the table
            status = f"FAIL {type(e).__name__}: {str(e).splitlines()[0][:90] if str(e) else ''}"
            failures.append(name)
        rows.append((name, status))
    return rows, failures, time.perf_counter() - t0


# ---------------------------------------------------------------- workloads
def chain_ops(lib, dev, n_ops=1000):
    return run_bench.chain_ops(lib, n_ops, lib.float64, device=dev)


def big_chain(lib, dev, n):
    return run_bench.big_chain(lib, n, device=dev)


def mlp_step(lib, dev):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 784)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    shapes = [(784, 256), (256, 256), (256, 10)]
    ws = [
        lib.tensor(
            (rng.standard_normal(s) * 0.05).astype(np.float32), device=dev, requires_grad=True
        )
        for s in shapes
    ]
    bs = [lib.zeros(s[1], device=dev, requires_grad=True) for s in shapes]
    xt, yt = lib.tensor(X, device=dev), lib.tensor(y, device=dev)

    def run():
        for p in ws + bs:
            p.grad = None
        h = (xt @ ws[0] + bs[0]).tanh()
        h = (h @ ws[1] + bs[1]).tanh()
        lib.nn.functional.cross_entropy(h @ ws[2] + bs[2], yt).backward()

    return run


def workloads(dev, big, repeat):
    try:
        import torch
    except ImportError:
        torch = None
    torch_cuda = torch is not None and torch.cuda.is_available()
    table = []
    for label, make, per in (
        ("per-op overhead (1000-op chain, (3,) f64)", lambda lib, d: chain_ops(lib, d), 1000),
        (
            f"{big / 1e6:g}M-element chain (10 ops + backward)",
            lambda lib, d: big_chain(lib, d, big),
            None,
        ),
        ("MLP 784-256-256-10 step, batch 64", lambda lib, d: mlp_step(lib, d), None),
    ):
        row = [label]
        for lib, d, sync in ((ja, "cpu", False), (ja, dev, True)):
            t = median_time(make(lib, d), repeat, sync)
            row.append(t / per * 1e6 if per else t * 1e3)
        if torch_cuda:

            def tsync():
                torch.cuda.synchronize()

            fn = make(torch, "cuda")
            fn()
            tsync()
            ts = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn()
                tsync()
                ts.append(time.perf_counter() - t0)
            t = statistics.median(ts)
            row.append(t / per * 1e6 if per else t * 1e3)
        else:
            row.append(None)
        row.append("us/op" if per else "ms")
        table.append(row)
    return table, torch_cuda


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fake", action="store_true", help="use the NumPy stand-in as cuda (no GPU)")
    ap.add_argument("--small", action="store_true", help="40k-element chain instead of 4M (smoke)")
    args = ap.parse_args(argv)
    if args.fake:
        from jupyter_autograd.testing import fake_cuda

        fake_cuda.install()
    elif not ja.cuda.is_available():
        try:
            ja.zeros(1, device="cuda")
        except RuntimeError as e:
            reason = str(e)
        else:
            reason = "CUDA reported unavailable"
        print(f"GPU check: no usable CUDA device, nothing to check here ({reason}).")
        print(
            "Install CuPy for your CUDA version (pip install jupyter-autograd[cuda]) on a GPU machine."
        )
        return 0
    dev = "cuda"
    name = ja.cuda.get_device_name()
    print(f"GPU check on {name} (jupyter_autograd {ja.__version__}, numpy {np.__version__})\n")

    rows, failures, secs = op_suite(dev)
    ok = sum(1 for _, s in rows if s == "ok")
    print(
        f"Op suite on cuda: {ok}/{len(rows)} rows agree with cpu and pass gradient checks "
        f"({secs:.1f} s)"
    )
    for n, s in rows:
        if s != "ok":
            print(f"  {n:32s} {s}")

    big = 40_000 if args.small else 4_000_000
    table, torch_cuda = workloads(dev, big, repeat=3 if args.small else 5)
    print()
    head = ("workload", "ours cpu", "ours cuda", "torch cuda", "unit")
    print(f"| {head[0]:44s} | {head[1]:>9s} | {head[2]:>9s} | {head[3]:>10s} | {head[4]:5s} |")
    print(f"|{'-' * 46}|{'-' * 11}|{'-' * 11}|{'-' * 12}|{'-' * 7}|")
    for label, c, g, t, unit in table:
        tt = f"{t:10.2f}" if t is not None else f"{'n/a':>10s}"
        print(f"| {label:44s} | {c:9.2f} | {g:9.2f} | {tt} | {unit:5s} |")
    if not torch_cuda:
        print("\n(torch with CUDA not available here: its column is n/a)")
    if failures:
        print(f"\nFAILED rows: {', '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
