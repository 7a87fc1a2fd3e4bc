"""02: the computational graph in depth."""
from . import code, md

NAME = "02_graphs_and_grad_fn"
REQUIRES = ()

CELLS = [
    md(r"""
# The computational graph and `grad_fn`

Notebook 01 said that autograd records a **directed acyclic graph (DAG)** of `Function` objects while your
code runs. This notebook opens that graph up: what a `grad_fn` node is, how nodes are linked through
`next_functions`, which tensors they save for the backward pass, how leaves are reached through
`AccumulateGrad`, and in which order `backward` visits the nodes.
""", r"""
# 计算图与 `grad_fn`

笔记本01提到，autograd会在代码运行时记录一个由`Function`对象组成的**有向无环图（DAG）**。本笔记本将深入这个计算图：`grad_fn`节点是什么，节点如何通过`next_functions`相连，它们为反向传播保存了哪些张量，如何经由`AccumulateGrad`到达叶节点，以及`backward`按什么顺序访问各个节点。
"""),
    code(r"""
import jupyter_autograd as torch

_ = torch.manual_seed(0)
"""),
    md(r"""
## A small graph

Two leaf tensors `a` and `b` that require gradients, and a few operations on them:
""", r"""
## 一个小的计算图

两个需要梯度的叶张量`a`和`b`，以及对它们的几个操作：
"""),
    code(r"""
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.5, -1.0], requires_grad=True)
c = a * b
d = c.exp()
e = (d + c).sum()
print(c)
print(d)
print(e)
"""),
    md(r"""
Every tensor produced by a tracked operation has a `grad_fn`: the node of the graph that knows how to
compute the gradient of that operation. Leaves have none; they are the ends of the graph.
""", r"""
每个由被跟踪的操作产生的张量都有一个`grad_fn`：它是计算图中的节点，知道如何计算该操作的梯度。叶节点没有`grad_fn`，它们是计算图的末端。
"""),
    code(r"""
for name, t in [("a", a), ("b", b), ("c", c), ("d", d), ("e", e)]:
    print(f"{name}: is_leaf={t.is_leaf!s:5}  grad_fn={t.grad_fn.name() if t.grad_fn else None}")
"""),
    md(r"""
## `next_functions`: the edges

Each node lists, in `next_functions`, one `(node, input_nr)` pair per input of its operation: the node that
produced that input, or `None` when the input does not require gradients. For `e = (d + c).sum()` the root
is `SumBackward0`, whose only input came from `AddBackward0`, whose two inputs came from `ExpBackward0`
and `MulBackward0`:
""", r"""
## `next_functions`：计算图的边

每个节点在`next_functions`中为其操作的每个输入列出一个`(node, input_nr)`对：产生该输入的节点；如果该输入不需要梯度，则为`None`。对于`e = (d + c).sum()`，根节点是`SumBackward0`，它唯一的输入来自`AddBackward0`，而`AddBackward0`的两个输入分别来自`ExpBackward0`和`MulBackward0`：
"""),
    code(r"""
print(e.grad_fn.name(), [(fn.name(), nr) for fn, nr in e.grad_fn.next_functions])
add = e.grad_fn.next_functions[0][0]
print(add.name(), [(fn.name(), nr) for fn, nr in add.next_functions])
"""),
    md(r"""
Walking `next_functions` recursively prints the whole graph. `MulBackward0` is reached twice (once through
`ExpBackward0`, once directly): the graph is a DAG, not a tree.
""", r"""
递归遍历`next_functions`就能打印整个计算图。`MulBackward0`被访问了两次（一次经过`ExpBackward0`，一次直接到达）：计算图是一个有向无环图，而不是一棵树。
"""),
    code(r"""
def show(fn, depth=0):
    print("    " * depth + fn.name())
    for next_fn, _ in fn.next_functions:
        if next_fn is not None:
            show(next_fn, depth + 1)

show(e.grad_fn)
"""),
    md(r"""
The magics do the same walk for you: `%grad_fn e` prints the tree, and `%autograd_graph e --saved` draws
the graph with each node's saved tensors.
""", r"""
魔术命令可以替你完成同样的遍历：`%grad_fn e`打印这棵树，`%autograd_graph e --saved`绘制计算图并显示每个节点保存的张量。
""", requires=("magics",)),
    code(r"""
%load_ext jupyter_autograd
%grad_fn e
""", requires=("magics",)),
    code(r"""
%autograd_graph e --saved
""", requires=("magics",)),
    md(r"""
## `AccumulateGrad`: where gradients reach the leaves

The edges from `MulBackward0` end in `AccumulateGrad` nodes. There is one per leaf tensor, its `variable`
is that leaf, and its job during `backward` is to add the incoming gradient into `leaf.grad`.
""", r"""
## `AccumulateGrad`：梯度到达叶节点的地方

从`MulBackward0`出发的边终止于`AccumulateGrad`节点。每个叶张量对应一个这样的节点，其`variable`属性就是该叶张量；在`backward`期间，它的任务是把传入的梯度累加到`leaf.grad`中。
"""),
    code(r"""
mul = c.grad_fn
acc_a, acc_b = (fn for fn, _ in mul.next_functions)
print(type(acc_a).__name__, acc_a.variable is a, acc_b.variable is b)
"""),
    md(r"""
## Saved tensors

To compute its gradient, a node often needs values from the forward pass. The derivative of $c = a \cdot b$
needs both factors, so `MulBackward0` saves `self` and `other`; the derivative of $d = e^{c}$ is $e^{c}$
itself, so `ExpBackward0` saves its `result`. They are visible as `_saved_*` attributes:
""", r"""
## 保存的张量

为了计算梯度，节点通常需要前向传播中的一些值。$c = a \cdot b$的导数需要两个因子，所以`MulBackward0`保存了`self`和`other`；$d = e^{c}$的导数就是$e^{c}$本身，所以`ExpBackward0`保存了它的`result`。它们可以通过`_saved_*`属性查看：
"""),
    code(r"""
print(mul._saved_self)
print(mul._saved_other)
print(d.grad_fn._saved_result)
p = a.pow(3)
print(p.grad_fn._saved_exponent)
"""),
    md(r"""
## The backward pass, step by step

Node hooks let us watch `backward` run. The engine starts at the root and visits a node only once all the
gradients flowing into it have arrived, so `MulBackward0` runs after both `AddBackward0` and `ExpBackward0`.
A tensor hook on the leaf `a` sees the gradient just before `AccumulateGrad` stores it; `retain_grad()`
keeps the gradient of the non-leaf `c`.
""", r"""
## 逐步查看反向传播

通过节点钩子（hook）可以观察`backward`的执行过程。引擎从根节点开始，只有当流入某个节点的所有梯度都到达后才会访问它，因此`MulBackward0`在`AddBackward0`和`ExpBackward0`之后执行。叶张量`a`上的张量钩子会在`AccumulateGrad`存储梯度之前看到它；`retain_grad()`则保留非叶节点`c`的梯度。
"""),
    code(r"""
order = []
for fn in (e.grad_fn, add, d.grad_fn, mul):
    fn.register_hook(lambda grad_inputs, grad_outputs, fn=fn: order.append(fn.name()))
a.register_hook(lambda grad: print("gradient arriving at a:", grad))
c.retain_grad()

e.backward()
print("order:", " -> ".join(order))
print("c.grad =", c.grad)
print("a.grad =", a.grad)
print("b.grad =", b.grad)
"""),
    md(r"""
By the chain rule, $\frac{\partial e}{\partial c} = e^{c} + 1$ and $\frac{\partial e}{\partial a} =
\frac{\partial e}{\partial c}\, b$. Let us check the numbers by hand:
""", r"""
根据链式法则，$\frac{\partial e}{\partial c} = e^{c} + 1$，$\frac{\partial e}{\partial a} = \frac{\partial e}{\partial c}\, b$。我们手工验证一下这些数值：
"""),
    code(r"""
with torch.no_grad():
    de_dc = c.exp() + 1
    print(torch.allclose(c.grad, de_dc), torch.allclose(a.grad, de_dc * b), torch.allclose(b.grad, de_dc * a))
"""),
    md(r"""
After `backward` the saved tensors are freed (unless `retain_graph=True` was passed), so reading them now
is an error:
""", r"""
`backward`之后，保存的张量会被释放（除非传入了`retain_graph=True`），所以此时再读取它们会报错：
"""),
    code(r"""
try:
    mul._saved_self
except RuntimeError as err:
    print("RuntimeError:", err)
"""),
    md(r"""
## Exploring a graph interactively

`GraphExplorer` draws the graph of a tensor (nodes, `next_functions` edges, saved tensors) and has buttons
for `backward()`, `backward(retain_graph=True)` and zeroing the leaves' gradients; pick a node to see its
details. `BackwardStepper` runs `backward` one node at a time, in the engine's order, showing what each
node receives and what it sends on. Both work on a fresh graph here, so the graph above is not touched.
""", r"""
## 交互式地探索计算图

`GraphExplorer`绘制一个张量的计算图（节点、`next_functions`边、保存的张量），并提供`backward()`、`backward(retain_graph=True)`以及将叶节点梯度归零的按钮；选择一个节点即可查看其详细信息。`BackwardStepper`按引擎的顺序逐个节点地执行`backward`，显示每个节点接收到的梯度以及它向下传递的梯度。这里两者都作用于一个新的计算图，不会影响上面的计算图。
""", requires=("widgets",)),
    code(r"""
from jupyter_autograd.widgets import BackwardStepper, GraphExplorer

def build():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([0.5, -1.0], requires_grad=True)
    c = a * b
    return (c.exp() + c).sum()

GraphExplorer(build())
""", requires=("widgets",)),
    code(r"""
BackwardStepper(build())
""", requires=("widgets",)),
    md(r"""
## Summary

- `grad_fn` is the node that produced a tensor; leaves have `grad_fn=None`.
- `next_functions` are the edges towards the inputs; `AccumulateGrad` nodes end them at the leaves.
- Nodes save the forward values they need (`_saved_*`) and free them after `backward`.
- `backward` runs a node once all its incoming gradients have arrived, root first, leaves last.

Next: `03_grad_modes`, turning the recording off and on.
""", r"""
## 小结

- `grad_fn`是产生某个张量的节点；叶节点的`grad_fn=None`。
- `next_functions`是指向输入的边；这些边在叶节点处以`AccumulateGrad`节点结束。
- 节点保存它们需要的前向值（`_saved_*`），并在`backward`之后释放它们。
- `backward`在一个节点的所有传入梯度都到达后才执行它：从根节点开始，最后到达叶节点。

下一个笔记本：`03_grad_modes`，关闭和开启计算图的记录。
"""),
]
