"""03: grad modes: no_grad, enable_grad, inference_mode, detach, frozen parameters."""
from . import code, md

NAME = "03_grad_modes"
REQUIRES = ()

CELLS = [
    md(r"""
# Grad modes: when autograd records and when it does not

Recording the computational graph costs memory and time, and sometimes it is simply wrong (updating
weights, evaluating a trained model). This notebook covers the switches that control recording:
`torch.no_grad()`, `torch.enable_grad()`, `torch.set_grad_enabled()`, `torch.inference_mode()`, and the
per-tensor tools `detach()` and `requires_grad_()` used to freeze parameters.
""", r"""
# 梯度模式：autograd何时记录、何时不记录

记录计算图需要消耗内存和时间，而且有时根本不应该记录（例如更新权重，或评估训练好的模型）。本笔记本介绍控制记录的开关：`torch.no_grad()`、`torch.enable_grad()`、`torch.set_grad_enabled()`、`torch.inference_mode()`，以及用于冻结参数的单个张量工具`detach()`和`requires_grad_()`。
"""),
    code(r"""
import jupyter_autograd as torch

_ = torch.manual_seed(0)
x = torch.ones(3, requires_grad=True)
print(torch.is_grad_enabled())
"""),
    md(r"""
## `no_grad` and `enable_grad`

Inside `torch.no_grad()` results do not require gradients and no `grad_fn` is recorded, even when the inputs
require gradients. `torch.enable_grad()` turns recording back on inside a `no_grad` block.
""", r"""
## `no_grad`与`enable_grad`

在`torch.no_grad()`内部，即使输入需要梯度，结果也不需要梯度，也不会记录`grad_fn`。在`no_grad`块内部，`torch.enable_grad()`可以重新开启记录。
"""),
    code(r"""
with torch.no_grad():
    y = x * 2
    print("inside no_grad:", torch.is_grad_enabled())
    with torch.enable_grad():
        z = x * 2
print(y.requires_grad, y.grad_fn)
print(z.requires_grad, z.grad_fn.name())
"""),
    md(r"""
Both also work as decorators, which is handy for evaluation or update functions:
""", r"""
二者也都可以用作装饰器，这在编写评估函数或参数更新函数时很方便：
"""),
    code(r"""
@torch.no_grad()
def evaluate(t):
    return (t * 3).sum()

print(evaluate(x))
"""),
    md(r"""
`torch.set_grad_enabled(mode)` takes a boolean, so one code path can serve training and evaluation:
""", r"""
`torch.set_grad_enabled(mode)`接受一个布尔值，因此同一段代码可以同时用于训练和评估：
"""),
    code(r"""
for is_train in (True, False):
    with torch.set_grad_enabled(is_train):
        out = (x * 2).sum()
    print(f"is_train={is_train}: requires_grad={out.requires_grad}")
"""),
    md(r"""
In a notebook, the `%grad_mode off` / `%grad_mode on` magics switch recording for all the following cells
(like calling `torch.set_grad_enabled`), which is convenient for a few cells of evaluation:
""", r"""
在笔记本中，魔术命令`%grad_mode off` / `%grad_mode on`会为之后所有单元格切换记录状态（相当于调用`torch.set_grad_enabled`），便于运行几个评估单元格：
""", requires=("magics",)),
    code(r"""
%load_ext jupyter_autograd
%grad_mode off
""", requires=("magics",)),
    code(r"""
print((x * 2).requires_grad)
""", requires=("magics",)),
    code(r"""
%grad_mode on
""", requires=("magics",)),
    md(r"""
## Updating parameters in place

A leaf that requires gradients cannot be modified in place while autograd is recording, because the
update itself would become part of the graph. Gradient-descent steps are therefore written inside
`no_grad`:
""", r"""
## 原地更新参数

在autograd记录时，需要梯度的叶节点不能被原地修改，因为这个更新本身会成为计算图的一部分。因此，梯度下降的更新步骤要写在`no_grad`中：
"""),
    code(r"""
w = torch.tensor([1.0, -2.0], requires_grad=True)
loss = (w ** 2).sum()
loss.backward()

try:
    w -= 0.1 * w.grad
except RuntimeError as err:
    print("RuntimeError:", err)

with torch.no_grad():
    w -= 0.1 * w.grad
w.grad.zero_()
print(w)
"""),
    md(r"""
## `inference_mode`

`torch.inference_mode()` is a stricter `no_grad` for pure inference. Tensors created inside it are
*inference tensors*: they can never enter a graph later, which lets the library skip all bookkeeping.
""", r"""
## `inference_mode`

`torch.inference_mode()`是用于纯推理的更严格的`no_grad`。在其中创建的张量是*推理张量*：它们之后永远不能进入计算图，因此库可以省去所有记录工作。
"""),
    code(r"""
with torch.inference_mode():
    i = x * 2
    print("inference mode on:", torch.is_inference_mode_enabled())
print(i.requires_grad, i.is_inference())

try:
    (i * x).sum().backward()
except RuntimeError as err:
    print("RuntimeError:", err)
"""),
    md(r"""
## `detach`

`t.detach()` returns a tensor that shares the data of `t` but is cut out of the graph: it is a new leaf
with `requires_grad=False`. Because the data is shared, writing into the detached tensor changes the
original too.
""", r"""
## `detach`

`t.detach()`返回一个与`t`共享数据、但从计算图中分离出来的张量：它是一个新的叶节点，`requires_grad=False`。由于数据是共享的，对分离后的张量进行写入也会改变原张量。
"""),
    code(r"""
h = x * 2
h_det = h.detach()
print(h_det.requires_grad, h_det.is_leaf, h_det.grad_fn)
h_det[0] = 100.0
print(h)
"""),
    md(r"""
`detach` is also how a value is treated as a constant inside a computation: the gradient flows through
`u * u` twice but through `u * u.detach()` only once.
""", r"""
`detach`也可以让某个值在计算中被当作常数：梯度会两次流经`u * u`，但只会一次流经`u * u.detach()`。
"""),
    code(r"""
u = torch.tensor(3.0, requires_grad=True)
(u * u).backward()
print(u.grad)
u.grad = None
(u * u.detach()).backward()
print(u.grad)
"""),
    md(r"""
## Frozen parameters

To **freeze** a parameter (for example the pretrained part of a network while fine-tuning the rest),
set its `requires_grad` to `False`. `backward` then computes gradients only for the parameters that are
still trainable, and skips the frozen branch of the graph entirely.
""", r"""
## 冻结参数

要**冻结**某个参数（例如在微调网络其余部分时冻结预训练的部分），将其`requires_grad`设为`False`即可。之后`backward`只为仍然可训练的参数计算梯度，并完全跳过计算图中被冻结的分支。
"""),
    code(r"""
inputs = torch.randn(4, 3)
w1 = torch.randn(3, 2, requires_grad=True)  # pretrained, to be frozen
w2 = torch.randn(2, 1, requires_grad=True)  # trained

w1.requires_grad_(False)
out = torch.matmul(torch.matmul(inputs, w1).tanh(), w2).sum()
out.backward()
print("w1.grad:", w1.grad)
print("w2.grad:", w2.grad)
mm = out.grad_fn.next_functions[0][0]
print(mm.name(), [fn.name() if fn is not None else None for fn, _ in mm.next_functions])
"""),
    md(r"""
## The grad-mode toggle

Switch between normal recording, `torch.no_grad()` and `torch.inference_mode()` and watch
`requires_grad`, `grad_fn`, `is_leaf` and `is_inference()` of `y = (x * 2).sum()` and of `y.detach()`
change (without a kernel, the text below the widget lists all three modes).
""", r"""
## 梯度模式切换器

在正常记录、`torch.no_grad()`和`torch.inference_mode()`之间切换，观察`y = (x * 2).sum()`及`y.detach()`的`requires_grad`、`grad_fn`、`is_leaf`和`is_inference()`如何变化（在没有内核时，小部件下方的文本会列出全部三种模式）。
""", requires=("widgets",)),
    code(r"""
from jupyter_autograd.widgets import GradModeToggle

GradModeToggle()
""", requires=("widgets",)),
    md(r"""
## Summary

| tool | scope | result requires grad | can enter a graph later |
|---|---|---|---|
| `torch.no_grad()` | a block or function | no | yes |
| `torch.enable_grad()` | a block inside `no_grad` | yes | yes |
| `torch.set_grad_enabled(b)` | a block, chosen at run time | `b` | yes |
| `torch.inference_mode()` | a block or function | no | no (inference tensors) |
| `t.detach()` | one tensor | no | yes, as a new leaf |
| `p.requires_grad_(False)` | one leaf (frozen parameter) | no | yes |

Next: `04_jacobian_products`.
""", r"""
## 小结

| 工具 | 作用范围 | 结果是否需要梯度 | 之后能否进入计算图 |
|---|---|---|---|
| `torch.no_grad()` | 一个代码块或函数 | 否 | 能 |
| `torch.enable_grad()` | `no_grad`内的一个代码块 | 是 | 能 |
| `torch.set_grad_enabled(b)` | 一个代码块，运行时决定 | `b` | 能 |
| `torch.inference_mode()` | 一个代码块或函数 | 否 | 不能（推理张量） |
| `t.detach()` | 单个张量 | 否 | 能，作为新的叶节点 |
| `p.requires_grad_(False)` | 单个叶节点（冻结参数） | 否 | 能 |

下一个笔记本：`04_jacobian_products`。
"""),
]
