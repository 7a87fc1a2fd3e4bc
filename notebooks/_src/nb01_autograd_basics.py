"""01: the seed tutorial (torch.autograd 自动微分), with jupyter_autograd."""
from . import code, md

NAME = "01_autograd_basics"
REQUIRES = ()

CELLS = [
    md(r"""
# Automatic differentiation with `torch.autograd`

When training neural networks, the most frequently used algorithm is **back propagation**. In this
algorithm, parameters (model weights) are adjusted according to the **gradient** of the loss function
with respect to the given parameter.

To compute those gradients, PyTorch has a built-in differentiation engine called `torch.autograd`. It
supports automatic computation of gradient for any computational graph.

This notebook runs the PyTorch tutorial on **jupyter_autograd**, a NumPy autograd engine with PyTorch's
API: we import it under the name `torch`, and every cell below is the tutorial's own code.
""", r"""
# torch.autograd 自动微分

在训练神经网络时，最常用的算法是**反向传播**。在该算法中，参数（模型权重）根据损失函数相对于给定参数的**梯度**进行调整。

为了计算这些梯度，PyTorch有一个内置的称为`torch.autograd`的微分引擎。它支持对任何计算图自动计算梯度。

本笔记本在 **jupyter_autograd** 上运行这篇 PyTorch 教程：jupyter_autograd 是一个基于 NumPy、与 PyTorch API 相同的自动微分引擎。我们以 `torch` 的名字导入它，下面每个单元格都是教程原有的代码。
"""),
    code(r"""
import jupyter_autograd as torch

# Seed the random number generator: the same numbers on every run.
_ = torch.manual_seed(0)
"""),
    md(r"""
`%load_ext jupyter_autograd` adds the graph magics used below (`%autograd_graph`, `%%autograd`).
""", r"""
`%load_ext jupyter_autograd`会加载下文使用的计算图魔术命令（`%autograd_graph`、`%%autograd`）。
""", requires=("magics",)),
    code(r"""
%load_ext jupyter_autograd
""", requires=("magics",)),
    md(r"""
Consider the simplest one-layer neural network, with input `x`, parameters `w` and `b`, and some loss
function (here binary cross-entropy). It can be defined in PyTorch in the following manner:
""", r"""
考虑最简单的一层神经网络：输入`x`，参数`w`和`b`，损失函数为交叉熵损失函数（这里是二元交叉熵）。在PyTorch中可按以下方式定义：
"""),
    code(r"""
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
"""),
    md(r"""
## Tensors, Functions and Computational graph

This code defines the following **computational graph**:

```
x ──┐
    ├─ matmul ──┐
w ──┘           ├─ + ── z ──┐
b ──────────────┘           ├─ BCE ── loss
                       y ───┘
```

In this network, `w` and `b` are **parameters**, which we need to optimize. Thus, we need to be able to
compute the gradients of the loss function with respect to those variables. In order to do that, we set
the `requires_grad` property of those tensors.
""", r"""
## 张量、函数与计算图

以上代码定义了以下**计算图**：

```
x ──┐
    ├─ matmul ──┐
w ──┘           ├─ + ── z ──┐
b ──────────────┘           ├─ BCE ── loss
                       y ───┘
```

在这个网络中，`w`和`b`是需要优化的**参数**。因此，我们需要能够计算损失函数相对于这些变量的梯度。为了做到这一点，我们设置了这些张量的`requires_grad`属性为True。
"""),
    md(r"""
The magic `%autograd_graph loss` draws the same graph from the live tensors: the tensors are labelled with
their variable names, and the functions between them are the backward nodes described below.
""", r"""
魔术命令`%autograd_graph loss`根据实际的张量绘制同一个计算图：张量以其变量名标注，它们之间的函数就是下文介绍的反向传播节点。
""", requires=("magics",)),
    code(r"""
%autograd_graph loss
""", requires=("magics",)),
    md(r"""
> **Note:** You can set the value of `requires_grad` when creating a tensor, or later by using the
> `x.requires_grad_(True)` method.
""", r"""
> **注：** 你可以在创建张量时设置`requires_grad`的值，或创建之后使用`x.requires_grad_(True)`方法设定。
"""),
    code(r"""
a = torch.ones(2)
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
"""),
    md(r"""
A function that we apply to tensors to construct the computational graph is in fact an object of class
`Function`. This object knows how to compute the function in the *forward* direction, and also how to
compute its derivative during the *backward propagation* step. A reference to the backward propagation
function is stored in the `grad_fn` property of a tensor.
""", r"""
我们构造计算图的函数实际上是`Function`类的对象。该对象知道如何计算*正向*函数，以及如何在*反向传播*步骤中计算其导数。对反向传播函数的引用存储在张量的`grad_fn`属性中。
"""),
    code(r"""
print('Gradient function for z =', z.grad_fn)
print('Gradient function for loss =', loss.grad_fn)
"""),
    md(r"""
## Computing Gradients

To optimize weights of parameters in the neural network, we need to compute the derivatives of our loss
function with respect to parameters, namely, we need $\frac{\partial loss}{\partial w}$ and
$\frac{\partial loss}{\partial b}$ under some fixed values of `x` and `y`. To compute those derivatives,
we call `loss.backward()`, and then retrieve the values from `w.grad` and `b.grad`:
""", r"""
## 计算梯度

为了优化神经网络中参数的权重，我们需要计算损失函数对参数的导数，即我们需要以固定值`x`和`y`求偏导：$\frac{\partial loss}{\partial w}$，$\frac{\partial loss}{\partial b}$。要计算这些导数，我们调用`loss.backward()`，然后从`w.grad`和`b.grad`获取梯度值：
"""),
    code(r"""
loss.backward()
print(w.grad)
print(b.grad)
"""),
    md(r"""
> **Note:**
> - We can only obtain the `grad` properties for the **leaf nodes** of the computational graph, which have
>   the `requires_grad` property set to `True`. For all other nodes in our graph, gradients will not be
>   available.
> - We can only perform gradient calculations using `backward` once on a given graph, for performance
>   reasons. If we need to do several `backward` calls on the same graph, we need to pass
>   `retain_graph=True` to the `backward` call.

Both points can be seen directly. `w` is a leaf and `z` is not; reading `z.grad` gives `None` and a
warning that explains how to keep it (`z.retain_grad()`):
""", r"""
> **注：**
> - 我们只能获得计算图中**叶节点**（`requires_grad=True`）的`grad`属性。对于图中的其他节点，梯度将不可用。
> - 出于性能方面的原因，我们只能在给定的图上使用一次`backward`来执行梯度计算。如果我们需要在同一个图上执行几次`backward`，我们需要将`retain_graph=True`传递给`backward`。

这两点都可以直接验证。`w`是叶节点，`z`不是；读取`z.grad`得到`None`，并给出一条警告，说明如何保留它（`z.retain_grad()`）：
"""),
    code(r"""
print(w.is_leaf, b.is_leaf, z.is_leaf, loss.is_leaf)
print(z.grad)
"""),
    md(r"""
The graph of `loss` has already been used by `loss.backward()`, so its saved intermediate values are
freed and a second call fails:
""", r"""
`loss`的计算图已经被`loss.backward()`使用过，保存的中间值已被释放，所以第二次调用会失败：
"""),
    code(r"""
try:
    loss.backward()
except RuntimeError as err:
    print("RuntimeError:", err)
"""),
    md(r"""
With `retain_graph=True` the graph is kept, and a second `backward` adds to the gradients again:
""", r"""
传入`retain_graph=True`时计算图会被保留，第二次`backward`会再次把梯度累加上去：
"""),
    code(r"""
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
b.grad.zero_()
loss.backward(retain_graph=True)
print(b.grad)
loss.backward()
print(b.grad)
"""),
    md(r"""
## Disabling Gradient Tracking

By default, all tensors with `requires_grad=True` are tracking their computational history and support
gradient computation. However, there are some cases when we do not need to do that, for example, when we
have trained the model and just want to apply it to some input data, i.e. we only want to do *forward*
computations through the network. We can stop tracking computations by surrounding our computation code
with a `torch.no_grad()` block:
""", r"""
## 禁用梯度跟踪

默认情况下，所有`requires_grad=True`的张量都在跟踪其计算历史并支持梯度计算。然而，在某些情况下，我们不想要这样做，例如，当我们训练模型后，只想通过网络进行*正向*计算时。这种情况下，我们可以通过用`torch.no_grad()`包围计算代码来停止跟踪计算：
"""),
    code(r"""
z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
"""),
    md(r"""
Another way to achieve the same result is to use the `detach()` method on the tensor:
""", r"""
另一种方法是对张量使用`detach()`方法：
"""),
    code(r"""
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
"""),
    md(r"""
There are reasons you might want to disable gradient tracking:
- To mark some parameters in your neural network as **frozen parameters**. This is a very common
  scenario for fine-tuning a pretrained network.
- To **speed up computations** when you are only doing a forward pass, because computations on tensors
  that do not track gradients are more efficient.
""", r"""
下面是禁用梯度跟踪的几个原因：
- 将神经网络中的某些参数标记为**冻结参数**。这常用于预训练和微调（fine tuning）网络。
- 当你只做前向传播时，这可以**加快计算速度**，因为在不跟踪梯度的张量上计算会更高效。
"""),
    md(r"""
## More on Computational Graphs

Conceptually, autograd keeps a record of data (tensors) and all executed operations (along with the
resulting new tensors) in a **directed acyclic graph (DAG)** consisting of `Function` objects. In this
DAG, leaves are the input tensors, roots are the output tensors. By tracing this graph from roots to
leaves, you can automatically compute the gradients using the chain rule.

In a forward pass, autograd does two things simultaneously:
- run the requested operation to compute a resulting tensor
- maintain the operation's *gradient function* in the DAG.

The backward pass kicks off when `.backward()` is called on the DAG root. `autograd` then:
- computes the gradients from each `.grad_fn`,
- accumulates them in the respective tensor's `.grad` attribute
- using the chain rule, propagates all the way to the leaf tensors.

You can walk this DAG yourself: each `grad_fn` lists the functions that feed it in `next_functions`, and
the leaves end in `AccumulateGrad` nodes that write into `.grad`.
""", r"""
## 更多关于计算图的信息

从概念上讲，autograd在由`Function`对象组成的**有向无环图（DAG）**中记录数据（张量）和所有执行的操作（以及生成的新张量）。在这个DAG中，叶是输入张量，根是输出张量。通过从根到叶跟踪此图，可以使用链式法则自动计算梯度。

在前向传播中，autograd同时做两件事：
- 运行请求的操作以计算结果张量
- 在DAG中维护该操作的*梯度函数*。

对DAG根调用`.backward()`时反向传播开始，然后`autograd`：
- 从每个`.grad_fn`计算梯度
- 将它们累加到各自张量的`.grad`属性中
- 使用链式法则，一直传播到叶张量。

你可以自己遍历这个DAG：每个`grad_fn`在`next_functions`中列出为它提供输入的函数，叶节点则以`AccumulateGrad`节点结束，由它写入`.grad`。
"""),
    code(r"""
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

def show(fn, depth=0):
    print("    " * depth + fn.name())
    for next_fn, _ in fn.next_functions:
        if next_fn is not None:
            show(next_fn, depth + 1)

show(loss.grad_fn)
"""),
    md(r"""
The cell magic `%%autograd` runs a cell and draws the graph it built; with `--backward loss` it also calls
`loss.backward()` and shows the order in which the backward pass visited the nodes and the gradients that
reached the leaves.
""", r"""
单元格魔术命令`%%autograd`运行一个单元格并绘制它构建的计算图；加上`--backward loss`时，它还会调用`loss.backward()`，并显示反向传播访问各节点的顺序以及到达叶节点的梯度。
""", requires=("magics",)),
    code(r"""
%%autograd --backward loss
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
""", requires=("magics",)),
    md(r"""
> **Note: DAGs are dynamic in PyTorch.** An important thing to note is that the graph is recreated from
> scratch; after each `.backward()` call, autograd starts populating a new graph. This is exactly what
> allows you to use control flow statements in your model; you can change the shape, size and operations
> at every iteration if needed.
""", r"""
> **注：在PyTorch中，DAG是动态的。** 需要注意的一点是，图是从头开始重新创建的；每次调用`.backward()`后，autograd都会开始构建一个新的图。这正是允许你在模型中使用控制流语句的原因；如果需要，你可以在每次迭代中更改形状、大小和操作。
"""),
    code(r"""
def f(t):
    # Python control flow decides which operations enter the graph on this call.
    return t.exp() if t.sum() > 0 else t.pow(2)

for start in (1.0, -1.0):
    t = torch.tensor([start, 2.0 * start], requires_grad=True)
    out = f(t).sum()
    out.backward()
    print(out.grad_fn.next_functions[0][0].name(), t.grad)
"""),
    md(r"""
## Optional Reading: Tensor Gradients and Jacobian Products

In many cases, we have a scalar loss function, and we need to compute the gradient with respect to some
parameters. However, there are cases when the output function is an arbitrary tensor. In this case,
PyTorch allows you to compute the so-called **Jacobian product**, and not the actual gradient.

For a vector function $\vec{y}=f(\vec{x})$, where $\vec{x}=\langle x_1,\dots,x_n\rangle$ and
$\vec{y}=\langle y_1,\dots,y_m\rangle$, a gradient of $\vec{y}$ with respect to $\vec{x}$ is given by the
**Jacobian matrix**:

$$
J=\left(\begin{array}{ccc}
\frac{\partial y_{1}}{\partial x_{1}} & \cdots & \frac{\partial y_{1}}{\partial x_{n}}\\
\vdots & \ddots & \vdots\\
\frac{\partial y_{m}}{\partial x_{1}} & \cdots & \frac{\partial y_{m}}{\partial x_{n}}
\end{array}\right)
$$

Instead of computing the Jacobian matrix itself, PyTorch allows you to compute the **Jacobian product**
$v^T\cdot J$ for a given input vector $v=(v_1 \dots v_m)$. This is achieved by calling `backward` with
$v$ as an argument. The size of $v$ should be the same as the size of the original tensor, with respect to
which we want to compute the product:
""", r"""
## 可选阅读：张量梯度和雅可比积

在很多情况下，我们有一个标量损失函数，我们需要计算一些参数的梯度。然而，在某些情况下，输出函数是任意张量。在这种情况下，PyTorch允许您计算所谓的**雅可比积**，而不是实际的梯度。

对于向量函数$\vec{y}=f(\vec{x})$，其中$\vec{x}=\langle x_1,\dots,x_n\rangle$，$\vec{y}=\langle y_1,\dots,y_m\rangle$，$\vec{y}$相对于$\vec{x}$的梯度由**雅可比矩阵**给出：

$$
J=\left(\begin{array}{ccc}
\frac{\partial y_{1}}{\partial x_{1}} & \cdots & \frac{\partial y_{1}}{\partial x_{n}}\\
\vdots & \ddots & \vdots\\
\frac{\partial y_{m}}{\partial x_{1}} & \cdots & \frac{\partial y_{m}}{\partial x_{n}}
\end{array}\right)
$$

PyTorch不计算雅可比矩阵本身，而是允许你对给定的输入向量$v=(v_1 \dots v_m)$计算**雅可比积**$v^T\cdot J$。这可以通过以$v$为参数调用`backward`来实现。$v$的大小应与我们要对其求积的原始张量的大小相同：
"""),
    code(r"""
inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
"""),
    md(r"""
The same experiment on a vector made with `torch.range` (as in the original version of this tutorial;
`torch.range` includes its end point and is deprecated in favour of `torch.arange`, hence the warning)
and on a square identity matrix made with `torch.eye(5)`:
""", r"""
同样的实验也可以在用`torch.range`创建的向量上（本教程最初的版本就是这样写的；`torch.range`包含终点，已被弃用并推荐改用`torch.arange`，因此会出现警告），以及在用`torch.eye(5)`创建的方形单位矩阵上进行：
"""),
    code(r"""
inp = torch.range(0, 5, requires_grad=True)
out = (inp + 1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)  # v=torch.ones_like(inp)
print("First call\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nSecond call\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nCall after zeroing gradients\n", inp.grad)
"""),
    code(r"""
inp = torch.eye(5, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)  # v=torch.ones_like(inp)
print("First call\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nSecond call\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nCall after zeroing gradients\n", inp.grad)
"""),
    md(r"""
Notice that when we call `backward` for the second time with the same argument, the value of the
gradient is different. This happens because when doing `backward` propagation, PyTorch **accumulates the
gradients**, i.e. the value of computed gradients is added to the `grad` property of all leaf nodes of
the computational graph. If you want to compute the proper gradients, you need to zero out the `grad`
property before. In real-life training an *optimizer* helps us to do this.
""", r"""
请注意，当我们使用相同的参数第二次调用`backward`时，梯度的值是不同的。这是因为在进行`backward`时，PyTorch会**累积梯度**，即计算的梯度值会添加到计算图的所有叶节点的`grad`属性中。如果要计算正确的梯度，则需要先将`grad`属性归零。在实际训练中，*优化器*可以帮助我们做到这一点。
"""),
    md(r"""
Try it with buttons: each press of **backward()** runs
`out.backward(torch.ones_like(out), retain_graph=True)` on the `torch.eye(4, 5)` example and shows
`inp.grad` adding up; **inp.grad.zero_()** resets it.
""", r"""
用按钮试一试：每按一次 **backward()** 就对`torch.eye(4, 5)`的例子执行一次`out.backward(torch.ones_like(out), retain_graph=True)`，并显示`inp.grad`不断累加；**inp.grad.zero_()** 则将其归零。
""", requires=("widgets",)),
    code(r"""
from jupyter_autograd.widgets import AccumulationDemo

AccumulationDemo()
""", requires=("widgets",)),
    md(r"""
> **Note:** Previously we were calling the `backward()` function without parameters. This is essentially
> equivalent to calling `backward(torch.tensor(1.0))`, which is a useful way to compute the gradients in
> case of a scalar-valued function, such as the loss during neural network training.
""", r"""
> **注意：** 之前我们调用的是`backward()`函数，没有参数。实际上，这相当于调用`backward(torch.tensor(1.0))`，这是一种计算标量值函数梯度的有用方法，例如在神经网络训练期间的损失。
"""),
    code(r"""
w.grad = None
loss = torch.nn.functional.binary_cross_entropy_with_logits(torch.matmul(x, w)+b, y)
loss.backward(torch.tensor(1.0))
print(w.grad[0])
"""),
    md(r"""
### Further Reading
- [Autograd Mechanics](https://pytorch.org/docs/stable/notes/autograd.html)
- The original tutorial: <https://pytorch.org/tutorials/beginner/basics/autogradqs_tutorial.html>
- Next notebook: `02_graphs_and_grad_fn`, the graph in depth.
""", r"""
### 延伸阅读
- [Autograd机制](https://pytorch.org/docs/stable/notes/autograd.html)
- 原教程：<https://pytorch.org/tutorials/beginner/basics/autogradqs_tutorial.html>
- 下一个笔记本：`02_graphs_and_grad_fn`，深入了解计算图。
"""),
]
