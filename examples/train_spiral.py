"""Train an MLP on the shipped spiral data, written exactly as in PyTorch.

Run: ``python examples/train_spiral.py`` (prints accuracy and wall time; swap the import for
``import torch`` and it runs unchanged on PyTorch).
"""

from __future__ import annotations

import os

# A 64-wide MLP is too small for BLAS threads: on a busy 2-core machine they spin and make
# each step ~10x slower (measured). Set before NumPy loads; an explicit setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import time

import jupyter_autograd as torch
from jupyter_autograd import nn


def main(epochs: int = 200, seed: int = 0) -> tuple[float, float]:
    torch.manual_seed(seed)
    X, y = torch.datasets.spiral()  # 300 points, 3 interleaved arms
    model = nn.Sequential(
        nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3)
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)

    start = time.perf_counter()
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        if epoch % 50 == 0:
            print(f"epoch {epoch:3d}  loss {loss.item():.4f}")
    seconds = time.perf_counter() - start

    model.eval()
    with torch.no_grad():
        accuracy = (model(X).argmax(dim=1) == y).float().mean().item()
    print(model)
    print(f"accuracy {accuracy:.1%} after {epochs} epochs in {seconds:.2f} s")
    return accuracy, seconds


if __name__ == "__main__":
    main()
