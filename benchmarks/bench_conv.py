"""LeNet forward + backward, batch of 64 28x28 images, float32: jupyter_autograd vs torch (CPU).

The model (conv 1->6 5x5 pad 2, ReLU, max pool 2; conv 6->16 5x5, ReLU, max pool 2; 400-120-84-10
with ReLU; cross-entropy) is built in both libraries from the same weights and run on the same
batch; the two losses and gradients are checked to agree. Both run single-threaded (OpenBLAS and
torch's intra-op threads set to 1). Blocks of steps alternate between the two so that load on
the machine hits both alike; the figure is the ratio of the median step times (target: 2x).

    python benchmarks/bench_conv.py            # full measurement
    python benchmarks/bench_conv.py --smoke    # a few seconds, for CI
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


def lenet(mod):
    nn, F = mod.nn, mod.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet()


def make(mod, state, x, y):
    model = lenet(mod)
    model.load_state_dict({k: mod.tensor(v) for k, v in state.items()})
    xt, yt = mod.tensor(x), mod.tensor(y)

    def step():
        for p in model.parameters():
            p.grad = None
        loss = mod.nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        return loss

    return model, step


def _time(step, n):
    """Wall and CPU (this process) seconds of each of n steps: on a shared machine the CPU time
    is the steadier of the two (it leaves out the time other processes hold the core)."""
    wall, cpu = [], []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="a few steps only")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    ja.manual_seed(0)
    state = {k: v.detach().numpy().copy() for k, v in lenet(ja).state_dict().items()}
    ours_model, ours = make(ja, state, x, y)
    try:
        import torch

        torch.set_num_threads(1)
        theirs_model, theirs = make(torch, state, x, y)
    except ImportError:
        theirs = None
    la = float(ours())
    if theirs is not None:
        lb = float(theirs().detach())
        assert abs(la - lb) < 1e-4, (la, lb)
        for (n, a), (_, b) in zip(ours_model.named_parameters(), theirs_model.named_parameters()):
            np.testing.assert_allclose(
                a.grad.numpy(), b.grad.numpy(), rtol=1e-3, atol=1e-4, err_msg=n
            )
    blocks, per = (2, 3) if args.smoke else (10, 10)
    ours_t, theirs_t = ([], []), ([], [])
    for _ in range(blocks):
        for acc, res in zip(ours_t, _time(ours, per)):
            acc += res
        if theirs is not None:
            for acc, res in zip(theirs_t, _time(theirs, per)):
                acc += res
    a, ac = (statistics.median(t) * 1e3 for t in ours_t)
    res = {"ours_ms": a, "ours_cpu_ms": ac}
    line = f"LeNet fwd+bwd, batch 64, f32: ours {a:.1f} ms (cpu {ac:.1f})"
    if theirs is not None:
        b, bc = (statistics.median(t) * 1e3 for t in theirs_t)
        res.update(torch_ms=b, torch_cpu_ms=bc, ratio=a / b, cpu_ratio=ac / bc)
        line += (
            f", torch {b:.1f} ms (cpu {bc:.1f}), ratio {a / b:.2f}x (cpu {ac / bc:.2f}x; "
            "target <= 2x)"
        )
    print(line)
    return res


if __name__ == "__main__":
    main()
