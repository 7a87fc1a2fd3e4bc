"""04: vector-Jacobian versus Jacobian-vector products, full Jacobians and Hessians, forward mode."""
from . import code, md

NAME = "04_jacobian_products"
REQUIRES = ("functional", "forward_ad")

CELLS = [
    md(r"""
# Jacobian products: $v^T J$ and $J u$

Notebook 01 ended with `out.backward(v)`, which computes the **Jacobian product** $v^T J$ without ever
building $J$. This notebook puts the two kinds of Jacobian products side by side:

- **reverse mode** (`backward`, `torch.autograd.grad`, `autograd.functional.vjp`): $v^T J$, one pass per
  output direction $v$, cheap when there are few outputs (a scalar loss);
- **forward mode** (`torch.autograd.forward_ad`, `autograd.functional.jvp`): $J u$, one pass per input
  direction $u$, cheap when there are few inputs;

and then builds full Jacobians and Hessians from them.
""", r"""
# 雅可比积：$v^T J$与$J u$

笔记本01的结尾使用了`out.backward(v)`，它在不构造$J$的情况下计算**雅可比积**$v^T J$。本笔记本把两种雅可比积放在一起比较：

- **反向模式**（`backward`、`torch.autograd.grad`、`autograd.functional.vjp`）：计算$v^T J$，每个输出方向$v$需要一次传播，输出很少时（例如标量损失）代价很低；
- **前向模式**（`torch.autograd.forward_ad`、`autograd.functional.jvp`）：计算$J u$，每个输入方向$u$需要一次传播，输入很少时代价很低；

然后用它们构造完整的雅可比矩阵和黑塞矩阵（Hessian）。
"""),
    code(r"""
import jupyter_autograd as torch
import jupyter_autograd.autograd.forward_ad as fwAD
from jupyter_autograd.autograd.functional import hessian, jacobian, jvp, vjp

_ = torch.manual_seed(0)
"""),
    md(r"""
## A function from $\mathbb{R}^2$ to $\mathbb{R}^3$

$$f(x) = \left(x_0 x_1,\ \sin x_0,\ x_1^2\right),\qquad
J = \begin{pmatrix} x_1 & x_0 \\ \cos x_0 & 0 \\ 0 & 2x_1 \end{pmatrix}$$
""", r"""
## 一个从$\mathbb{R}^2$到$\mathbb{R}^3$的函数

$$f(x) = \left(x_0 x_1,\ \sin x_0,\ x_1^2\right),\qquad
J = \begin{pmatrix} x_1 & x_0 \\ \cos x_0 & 0 \\ 0 & 2x_1 \end{pmatrix}$$
"""),
    code(r"""
def f(x):
    return torch.stack([x[0] * x[1], x[0].sin(), x[1] ** 2])

x = torch.tensor([1.0, 2.0])
J = jacobian(f, x)
print(J)
"""),
    md(r"""
## Reverse mode: $v^T J$

`backward(v)` on the output gives $v^T J$ in the input's `.grad`. With $v = (1, 0, 1)$ that is the sum of
the first and third rows of $J$. `autograd.functional.vjp` does the same and also returns $f(x)$:
""", r"""
## 反向模式：$v^T J$

对输出调用`backward(v)`，会在输入的`.grad`中得到$v^T J$。当$v = (1, 0, 1)$时，它就是$J$的第一行与第三行之和。`autograd.functional.vjp`做同样的事，并同时返回$f(x)$：
"""),
    code(r"""
v = torch.tensor([1.0, 0.0, 1.0])

x_leaf = x.clone().requires_grad_(True)
f(x_leaf).backward(v)
print("backward(v):   ", x_leaf.grad)
print("vjp:           ", vjp(f, x, v)[1])
print("v @ J:         ", torch.matmul(v, J))
"""),
    md(r"""
## Forward mode: $J u$

Forward-mode AD carries a **tangent** $u$ alongside each value. Inside a `dual_level`, `make_dual` attaches
the tangent to the input and `unpack_dual` reads the output's tangent, which is $J u$: with $u = (1, 0)$,
the first column of $J$. No graph is recorded and no `backward` is needed.
""", r"""
## 前向模式：$J u$

前向模式自动微分让每个值都携带一个**切向量**（tangent）$u$。在`dual_level`中，`make_dual`把切向量附加到输入上，`unpack_dual`读取输出的切向量，即$J u$：当$u = (1, 0)$时，它就是$J$的第一列。这一过程不记录计算图，也不需要`backward`。
"""),
    code(r"""
u = torch.tensor([1.0, 0.0])

with fwAD.dual_level():
    out = f(fwAD.make_dual(x, u))
    primal, tangent = fwAD.unpack_dual(out)
print("f(x):          ", primal)
print("forward mode:  ", tangent)
print("jvp:           ", jvp(f, x, u)[1])
print("J @ u:         ", torch.matmul(J, u))
"""),
    md(r"""
## Full Jacobians from products

A full Jacobian is $m$ vector-Jacobian products (one per row, $v = e_i$) or $n$ Jacobian-vector products
(one per column, $u = e_j$). `jacobian` does exactly this: by default it builds rows in reverse mode, and
`strategy="forward-mode"` (with `vectorize=True`, as in PyTorch) builds columns instead:
""", r"""
## 由雅可比积得到完整的雅可比矩阵

一个完整的雅可比矩阵等于$m$个向量-雅可比积（每行一个，$v = e_i$），或者$n$个雅可比-向量积（每列一个，$u = e_j$）。`jacobian`正是这样做的：默认以反向模式按行构造，而`strategy="forward-mode"`（与PyTorch一样需同时指定`vectorize=True`）则按列构造：
"""),
    code(r"""
rows = torch.stack([vjp(f, x, e)[1] for e in torch.eye(3)])
cols = torch.stack([jvp(f, x, e)[1] for e in torch.eye(2)], dim=1)
print(torch.allclose(rows, J), torch.allclose(cols, J))
print(torch.allclose(jacobian(f, x, vectorize=True, strategy="forward-mode"), J))
"""),
    md(r"""
## Hessians

The **Hessian** of a scalar function is the Jacobian of its gradient. For
$g(x) = x_0^3 + x_1^3 + x_0 x_1$ it is $\begin{pmatrix} 6x_0 & 1 \\ 1 & 6x_1 \end{pmatrix}$:
""", r"""
## 黑塞矩阵

标量函数的**黑塞矩阵**（Hessian）是其梯度的雅可比矩阵。对于$g(x) = x_0^3 + x_1^3 + x_0 x_1$，它是$\begin{pmatrix} 6x_0 & 1 \\ 1 & 6x_1 \end{pmatrix}$：
"""),
    code(r"""
def g(x):
    return (x ** 3).sum() + x[0] * x[1]

print(hessian(g, x))
print(jacobian(lambda t: jacobian(g, t, create_graph=True), x))
"""),
    md(r"""
## Plotted: derivative as a Jacobian product

For an elementwise function, $J$ is diagonal, so one `backward(torch.ones_like(y))` gives every
derivative $f'(x_i)$ at once. Here is $\tanh$ and its derivative $1 - \tanh^2$, computed by autograd:
""", r"""
## 绘图：作为雅可比积的导数

对于逐元素函数，$J$是对角矩阵，因此一次`backward(torch.ones_like(y))`就能同时得到每个导数$f'(x_i)$。下面是$\tanh$及其由autograd计算出的导数$1 - \tanh^2$：
""", requires=("matplotlib",)),
    code(r"""
import matplotlib.pyplot as plt

xs = torch.linspace(-3, 3, 101, requires_grad=True)
ys = xs.tanh()
ys.backward(torch.ones_like(ys))
print(torch.allclose(xs.grad, 1 - ys.detach() ** 2))

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(xs.detach().numpy(), ys.detach().numpy(), label="tanh(x)")
ax.plot(xs.detach().numpy(), xs.grad.numpy(), label="autograd: d tanh / dx")
ax.legend()
ax.grid(True)
plt.show()
""", requires=("matplotlib",)),
    md(r"""
## The Jacobian explorer

`JacobianExplorer` shows $f$, its Jacobian, $v^T J$ from `backward(v)` and $J u$ from forward mode, each
checked against finite differences. Move the sliders to change $x$, $v$ and $u$ (the text below the widget
is what a notebook viewer without a kernel shows).
""", r"""
## 雅可比探索器

`JacobianExplorer`展示$f$、它的雅可比矩阵、由`backward(v)`得到的$v^T J$以及由前向模式得到的$J u$，并分别与有限差分结果对照。拖动滑块即可改变$x$、$v$和$u$（在没有内核的笔记本查看器中，会显示小部件下方的文本）。
""", requires=("widgets",)),
    code(r"""
from jupyter_autograd.widgets import JacobianExplorer

JacobianExplorer(f, [1.0, 2.0], v=[1.0, 0.0, 1.0], u=[1.0, 0.0])
""", requires=("widgets",)),
    md(r"""
## Summary

| want | use | cost |
|---|---|---|
| $v^T J$ | `y.backward(v)`, `autograd.grad(y, x, v)`, `functional.vjp` | one reverse pass |
| $J u$ | `forward_ad.make_dual`/`unpack_dual`, `functional.jvp` | one forward pass |
| $J$ | `functional.jacobian` | $m$ reverse or $n$ forward passes |
| $H$ | `functional.hessian` | Jacobian of the gradient |

Next: `05_higher_order_and_custom_functions`.
""", r"""
## 小结

| 目标 | 使用 | 代价 |
|---|---|---|
| $v^T J$ | `y.backward(v)`、`autograd.grad(y, x, v)`、`functional.vjp` | 一次反向传播 |
| $J u$ | `forward_ad.make_dual`/`unpack_dual`、`functional.jvp` | 一次前向传播 |
| $J$ | `functional.jacobian` | $m$次反向或$n$次前向传播 |
| $H$ | `functional.hessian` | 梯度的雅可比矩阵 |

下一个笔记本：`05_higher_order_and_custom_functions`。
"""),
]
