"""06: a classifier trained with nn, optim and DataLoader; loss curve plotted."""
from . import code, md

NAME = "06_training_loop"
REQUIRES = ("nn", "optim", "data", "datasets", "matplotlib")

CELLS = [
    md(r"""
# A training loop: `nn`, `optim` and `DataLoader`

Everything from the previous notebooks comes together here: a small neural network classifies the points
of three interleaved spirals. The model is built from `torch.nn` modules, the gradients come from
`loss.backward()`, an optimizer from `torch.optim` applies them (and zeroes them, as notebook 01 promised),
and a `DataLoader` serves shuffled mini-batches.
""", r"""
# 训练循环：`nn`、`optim`与`DataLoader`

前面各笔记本的内容在这里汇合：一个小型神经网络对三条交错螺旋线上的点进行分类。模型由`torch.nn`模块构建，梯度来自`loss.backward()`，由`torch.optim`中的优化器应用这些梯度（并将它们归零，正如笔记本01所说），`DataLoader`则提供打乱顺序的小批量（mini-batch）数据。
"""),
    code(r"""
import matplotlib.pyplot as plt

import jupyter_autograd as torch
from jupyter_autograd import nn
from jupyter_autograd.datasets import make_spiral
from jupyter_autograd.utils.data import DataLoader, TensorDataset

_ = torch.manual_seed(0)
"""),
    md(r"""
## The data

`make_spiral` ships with the library and is generated deterministically (no download): 2-D points `X` and
integer class labels `y`.
""", r"""
## 数据

`make_spiral`随库提供，确定性地生成数据（无需下载）：二维点`X`和整数类别标签`y`。
"""),
    code(r"""
X, y = make_spiral(300, 3)
print(X.shape, X.dtype, y.shape, y.dtype)
print("points per class:", [int((y == k).sum()) for k in range(3)])

fig, ax = plt.subplots(figsize=(4, 4))
ax.scatter(X[:, 0].numpy(), X[:, 1].numpy(), c=y.numpy(), cmap="viridis", s=10)
ax.set_aspect("equal")
plt.show()
"""),
    md(r"""
## The model, the loss and the optimizer

A multilayer perceptron with two hidden layers. Its parameters are leaf tensors with `requires_grad=True`,
exactly like `w` and `b` in notebook 01; `nn.Module` just keeps track of them.
""", r"""
## 模型、损失函数与优化器

一个带两个隐藏层的多层感知机。它的参数是`requires_grad=True`的叶张量，与笔记本01中的`w`和`b`完全一样；`nn.Module`只是负责管理它们。
"""),
    code(r"""
model = nn.Sequential(
    nn.Linear(2, 32), nn.Tanh(),
    nn.Linear(32, 32), nn.Tanh(),
    nn.Linear(32, 3),
)
print(model)
print(sum(p.numel() for p in model.parameters()), "parameters")
print(all(p.is_leaf and p.requires_grad for p in model.parameters()))

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
"""),
    md(r"""
## The loop

Each step is the pattern of notebook 01 with the bookkeeping handed to the optimizer:
`optimizer.zero_grad()` (gradients accumulate otherwise), forward, `loss.backward()`, `optimizer.step()`.
""", r"""
## 训练循环

每一步都是笔记本01中的模式，只是把管理工作交给了优化器：`optimizer.zero_grad()`（否则梯度会累积），前向计算，`loss.backward()`，`optimizer.step()`。
"""),
    code(r"""
def accuracy():
    with torch.no_grad():
        return (model(X).argmax(dim=1) == y).float().mean().item()

losses = []
for epoch in range(60):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    losses.append(total / len(X))
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1:3d}  loss {losses[-1]:.3f}  accuracy {accuracy():.2f}")
"""),
    md(r"""
## The loss curve
""", r"""
## 损失曲线
"""),
    code(r"""
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(range(1, len(losses) + 1), losses)
ax.set_xlabel("epoch")
ax.set_ylabel("cross-entropy loss")
ax.set_yscale("log")
ax.grid(True)
plt.show()
"""),
    md(r"""
## What the model learned

Evaluating on a grid inside `torch.no_grad()` (no graph is needed for plotting) shows the decision
regions:
""", r"""
## 模型学到了什么

在`torch.no_grad()`中对网格点求值（绘图不需要计算图），即可显示决策区域：
"""),
    code(r"""
grid = torch.linspace(-1.2, 1.2, 121)
gx, gy = grid.reshape(1, -1).expand(121, 121), grid.reshape(-1, 1).expand(121, 121)
points = torch.stack([gx.reshape(-1), gy.reshape(-1)], dim=1)
with torch.no_grad():
    regions = model(points).argmax(dim=1).reshape(121, 121)

fig, ax = plt.subplots(figsize=(4, 4))
ax.contourf(grid.numpy(), grid.numpy(), regions.numpy(), levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.3)
ax.scatter(X[:, 0].numpy(), X[:, 1].numpy(), c=y.numpy(), cmap="viridis", s=10)
ax.set_aspect("equal")
plt.show()
"""),
    md(r"""
## Summary

- `nn.Module` parameters are ordinary leaf tensors with `requires_grad=True`.
- One training step: `zero_grad()`, forward, `backward()`, `step()`.
- `DataLoader` batches and shuffles (seeded by `torch.manual_seed`), `torch.no_grad()` for evaluation.

Next: `07_gpu_with_cupy`, the same code on a GPU.
""", r"""
## 小结

- `nn.Module`的参数就是`requires_grad=True`的普通叶张量。
- 一个训练步骤：`zero_grad()`，前向计算，`backward()`，`step()`。
- `DataLoader`负责分批和打乱顺序（由`torch.manual_seed`设定随机种子），评估时使用`torch.no_grad()`。

下一个笔记本：`07_gpu_with_cupy`，在GPU上运行同样的代码。
"""),
]
