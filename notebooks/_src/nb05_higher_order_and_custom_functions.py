"""05: gradients of gradients, custom autograd.Function, gradcheck, anomaly detection."""
from . import code, md

NAME = "05_higher_order_and_custom_functions"
REQUIRES = ("function", "gradcheck", "anomaly")

CELLS = [
    md(r"""
# Higher-order gradients and custom Functions

This notebook goes past first derivatives and past the built-in operations:

1. **gradients of gradients** with `create_graph=True`;
2. writing your own differentiable operation with `torch.autograd.Function`;
3. checking its backward against finite differences with `torch.autograd.gradcheck`;
4. finding the operation that produced a `nan` gradient with **anomaly detection**.
""", r"""
# 高阶梯度与自定义Function

本笔记本超越一阶导数和内置操作：

1. 使用`create_graph=True`计算**梯度的梯度**；
2. 使用`torch.autograd.Function`编写自己的可微操作；
3. 使用`torch.autograd.gradcheck`将其反向传播与有限差分进行对照检查；
4. 使用**异常检测**（anomaly detection）找到产生`nan`梯度的操作。
"""),
    code(r"""
import warnings

import jupyter_autograd as torch

_ = torch.manual_seed(0)
"""),
    md(r"""
## Gradients of gradients

`torch.autograd.grad(y, x)` returns $\frac{\partial y}{\partial x}$ without touching `x.grad`. With
`create_graph=True` the backward pass is itself recorded, so the gradient has a `grad_fn` and can be
differentiated again. For $y = x^3$ at $x = 2$: $y' = 3x^2 = 12$, $y'' = 6x = 12$, $y''' = 6$.
""", r"""
## 梯度的梯度

`torch.autograd.grad(y, x)`返回$\frac{\partial y}{\partial x}$，而不改动`x.grad`。传入`create_graph=True`时，反向传播本身也会被记录下来，因此得到的梯度带有`grad_fn`，可以再次求导。对于$y = x^3$，在$x = 2$处：$y' = 3x^2 = 12$，$y'' = 6x = 12$，$y''' = 6$。
"""),
    code(r"""
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3

(dy,) = torch.autograd.grad(y, x, create_graph=True)
(d2y,) = torch.autograd.grad(dy, x, create_graph=True)
(d3y,) = torch.autograd.grad(d2y, x)
print(dy)
print(d2y)
print(d3y)
"""),
    md(r"""
A common use is a **gradient penalty**: the norm of a gradient becomes part of the loss, and `backward`
goes through the gradient computation. For $L = \lVert \nabla_w (w \cdot w) \rVert^2 = 4\lVert w\rVert^2$
the gradient is $8w$:
""", r"""
一个常见用途是**梯度惩罚**：把梯度的范数作为损失的一部分，`backward`会穿过梯度的计算过程。对于$L = \lVert \nabla_w (w \cdot w) \rVert^2 = 4\lVert w\rVert^2$，其梯度为$8w$：
"""),
    code(r"""
w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
(g,) = torch.autograd.grad((w * w).sum(), w, create_graph=True)
penalty = (g ** 2).sum()
penalty.backward()
print(penalty)
print(w.grad, torch.allclose(w.grad, 8 * w.detach()))
"""),
    md(r"""
## A custom `autograd.Function`

When an operation is missing, or you want a different backward (a numerically stabler formula, a
straight-through estimator...), subclass `torch.autograd.Function` with two static methods:

- `forward(ctx, *inputs)` computes the result and saves what backward needs with `ctx.save_for_backward`;
- `backward(ctx, *grad_outputs)` receives $\frac{\partial L}{\partial \text{output}}$ and returns one
  gradient per input.

Call it through `.apply`. Here is $\operatorname{softplus}(x) = \log(1 + e^{x})$, whose derivative is the
sigmoid:
""", r"""
## 自定义`autograd.Function`

当缺少某个操作，或者你想要不同的反向传播（数值上更稳定的公式、直通估计器等）时，可以继承`torch.autograd.Function`并实现两个静态方法：

- `forward(ctx, *inputs)`计算结果，并用`ctx.save_for_backward`保存反向传播需要的值；
- `backward(ctx, *grad_outputs)`接收$\frac{\partial L}{\partial \text{output}}$，并为每个输入返回一个梯度。

通过`.apply`调用它。下面是$\operatorname{softplus}(x) = \log(1 + e^{x})$，它的导数是sigmoid函数：
"""),
    code(r"""
class SoftPlus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        # log(1 + e^x) written so that large x does not overflow
        return x.clamp(min=0) + (-x.abs()).exp().log1p()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.sigmoid()

x = torch.tensor([-2.0, 0.0, 3.0, 100.0], requires_grad=True)
y = SoftPlus.apply(x)
print(y)
y.sum().backward()
print(x.grad)
"""),
    md(r"""
The result's `grad_fn` is a node for our class, linked into the graph like any built-in operation:
""", r"""
结果的`grad_fn`是对应我们这个类的节点，它像任何内置操作一样连接到计算图中：
"""),
    code(r"""
z = (SoftPlus.apply(x) * 2).sum()
print(z.grad_fn.name(), "->", z.grad_fn.next_functions[0][0].name(),
      "->", z.grad_fn.next_functions[0][0].next_functions[0][0].name())
"""),
    md(r"""
## `gradcheck`

A hand-written backward is easy to get wrong. `torch.autograd.gradcheck` compares the analytical Jacobian
from `backward` with a finite-difference estimate; use `float64` inputs so the estimate is accurate.
""", r"""
## `gradcheck`

手写的反向传播很容易出错。`torch.autograd.gradcheck`把由`backward`得到的解析雅可比矩阵与有限差分估计进行比较；请使用`float64`输入，使估计足够精确。
"""),
    code(r"""
x64 = torch.randn(5, dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(SoftPlus.apply, (x64,)))
"""),
    md(r"""
A wrong backward (here a forgotten factor: `grad_output * x.sigmoid() * 2`) is caught, and the error shows
both Jacobians:
""", r"""
错误的反向传播（这里多乘了一个因子：`grad_output * x.sigmoid() * 2`）会被发现，错误信息会同时给出两个雅可比矩阵：
"""),
    code(r"""
class BadSoftPlus(SoftPlus):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.sigmoid() * 2

x2 = torch.tensor([-1.0, 0.5], dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(BadSoftPlus.apply, (x2,))
except Exception as err:  # torch raises GradcheckError, a RuntimeError
    print(type(err).__name__ + ":", err)
"""),
    md(r"""
`gradgradcheck` does the same for second derivatives (it needs a backward that is itself differentiable,
which ours is, because it is written with tensor operations):
""", r"""
`gradgradcheck`对二阶导数做同样的检查（它要求反向传播本身可微；我们的反向传播是用张量操作写的，所以满足要求）：
"""),
    code(r"""
print(torch.autograd.gradgradcheck(SoftPlus.apply, (x64,)))
"""),
    md(r"""
## Anomaly detection

A `nan` in a gradient is hard to trace back: the loss looks fine, and the `nan` appears only in `.grad`.
Consider $\sqrt{x}$ at $x = 0$: its derivative $\frac{1}{2\sqrt{x}}$ is infinite, and multiplying by a zero
upstream gradient gives $0 \cdot \infty = $ `nan`.
""", r"""
## 异常检测

梯度中的`nan`很难追溯：损失看起来一切正常，`nan`只出现在`.grad`中。考虑$\sqrt{x}$在$x = 0$处：它的导数$\frac{1}{2\sqrt{x}}$为无穷大，再乘以为零的上游梯度就得到$0 \cdot \infty = $ `nan`。
"""),
    code(r"""
x = torch.tensor([0.0, 4.0], requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # NumPy's divide-by-zero warning
    (x.sqrt() * torch.tensor([0.0, 1.0])).sum().backward()
print(x.grad)
"""),
    md(r"""
Inside `torch.autograd.detect_anomaly()`, the engine checks every node's output during `backward` and raises
at the first one that produces `nan`, naming it; it also warns with the traceback of the forward call that
created that node (we print just its first line here).
""", r"""
在`torch.autograd.detect_anomaly()`中，引擎会在`backward`期间检查每个节点的输出，并在第一个产生`nan`的节点处抛出错误，指出该节点的名字；它还会通过警告给出创建该节点的前向调用的调用栈（这里只打印它的第一行）。
"""),
    code(r"""
x.grad = None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = (x.sqrt() * torch.tensor([0.0, 1.0])).sum()
        try:
            y.backward()
        except RuntimeError as err:
            print("RuntimeError:", err)

for w in caught:
    first_line = str(w.message).splitlines()[0]
    if "Error detected" in first_line:
        print("warning:", first_line)
"""),
    md(r"""
Anomaly detection slows every operation down, so switch it on only while debugging.

## Summary

- `create_graph=True` records the backward pass, so gradients can be differentiated again.
- `torch.autograd.Function` defines an operation with its own `forward` and `backward`; `ctx` carries
  saved tensors between them.
- `gradcheck` / `gradgradcheck` compare your derivatives with finite differences (use `float64`).
- `detect_anomaly()` names the node that produced a `nan` and where it was created.

Next: `06_training_loop`.
""", r"""
异常检测会减慢每个操作，所以只在调试时开启它。

## 小结

- `create_graph=True`会记录反向传播过程，因此可以对梯度再次求导。
- `torch.autograd.Function`定义一个带有自己的`forward`和`backward`的操作；`ctx`在二者之间传递保存的张量。
- `gradcheck` / `gradgradcheck`将你的导数与有限差分进行比较（请使用`float64`）。
- `detect_anomaly()`指出产生`nan`的节点及其创建位置。

下一个笔记本：`06_training_loop`。
"""),
]
