"""07: the same code on device="cuda" through CuPy; says so and skips without a GPU."""
from . import code, md

NAME = "07_gpu_with_cupy"
REQUIRES = ()

CELLS = [
    md(r"""
# The same code on a GPU (CuPy)

jupyter_autograd runs on NumPy by default. With [CuPy](https://cupy.dev) installed
(`pip install jupyter-autograd[cuda]`) and an NVIDIA GPU present, tensors created with `device="cuda"`
(or moved with `.to("cuda")` / `.cuda()`) live in GPU memory, and every operation, the backward pass
included, runs there, exactly as in PyTorch.

The cells that need a GPU are guarded: without one this notebook says so and skips them. (They carry an
`# NBVAL_IGNORE_OUTPUT` marker: the notebook tests run them on any machine, but compare their output only
where it does not depend on the hardware.)
""", r"""
# 在GPU上运行同样的代码（CuPy）

jupyter_autograd默认在NumPy上运行。安装[CuPy](https://cupy.dev)（`pip install jupyter-autograd[cuda]`）并且有NVIDIA GPU时，用`device="cuda"`创建的张量（或用`.to("cuda")` / `.cuda()`移动过去的张量）存放在GPU显存中，所有操作，包括反向传播，都在GPU上运行，与PyTorch完全一样。

需要GPU的单元格都有保护：没有GPU时，本笔记本会说明这一点并跳过它们。（这些单元格带有`# NBVAL_IGNORE_OUTPUT`标记：笔记本测试在任何机器上都会运行它们，但由于其输出取决于硬件，不会比较输出。）
"""),
    code(r"""
import jupyter_autograd as torch

_ = torch.manual_seed(0)
has_gpu = torch.cuda.is_available()
device = "cuda" if has_gpu else "cpu"
"""),
    code(r"""
# NBVAL_IGNORE_OUTPUT
# The answer depends on the machine; the notebook tests run with and without a GPU.
if has_gpu:
    print("GPU found:", torch.cuda.device_count(), "device(s); running on", device)
else:
    print("no GPU: CuPy or a CUDA device is missing, so the GPU cells below are skipped")
"""),
    md(r"""
## Tensors on the device

`device=` works in the factories, and `.to(device)` moves a tensor. Printing shows the device, as in
PyTorch:
""", r"""
## 设备上的张量

工厂函数支持`device=`参数，`.to(device)`可以移动张量。打印时会显示设备，与PyTorch一样：
"""),
    code(r"""
# NBVAL_IGNORE_OUTPUT  (GPU cell: runs on a GPU, prints "skipped" without one)
if has_gpu:
    x = torch.ones(5, device="cuda")
    w = torch.randn(5, 3, device="cuda", requires_grad=True)
    b = torch.randn(3).to("cuda").requires_grad_(True)
    print(x)
    print(w.device, b.device, b.is_leaf)
else:
    print("skipped: no GPU")
"""),
    md(r"""
## Autograd on the GPU

The network of notebook 01, unchanged except for the device. Gradients are computed on the GPU and stored
on the same device as their leaves; `.cpu()` brings a result back (and `.numpy()` needs a CPU tensor,
as in PyTorch).
""", r"""
## GPU上的自动微分

笔记本01中的网络，除设备之外没有任何改动。梯度在GPU上计算，并存放在与其叶节点相同的设备上；`.cpu()`把结果取回主机（与PyTorch一样，`.numpy()`需要CPU张量）。
"""),
    code(r"""
# NBVAL_IGNORE_OUTPUT  (GPU cell: runs on a GPU, prints "skipped" without one)
if has_gpu:
    y = torch.zeros(3, device="cuda")
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    print(loss.grad_fn.name(), w.grad.device)
    print(w.grad.cpu())
    print(b.grad.cpu().numpy())
else:
    print("skipped: no GPU")
"""),
    md(r"""
## Same results as on the CPU

The same computation on the CPU gives the same gradients, up to floating-point rounding:
""", r"""
## 与CPU上的结果相同

在CPU上进行同样的计算会得到相同的梯度（在浮点舍入误差范围内）：
"""),
    code(r"""
# NBVAL_IGNORE_OUTPUT  (GPU cell: runs on a GPU, prints "skipped" without one)
if has_gpu:
    w_cpu = w.detach().cpu().requires_grad_(True)
    b_cpu = b.detach().cpu().requires_grad_(True)
    loss_cpu = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.matmul(torch.ones(5), w_cpu) + b_cpu, torch.zeros(3))
    loss_cpu.backward()
    print(torch.allclose(w_cpu.grad, w.grad.cpu(), atol=1e-6),
          torch.allclose(b_cpu.grad, b.grad.cpu(), atol=1e-6))
else:
    print("skipped: no GPU")
"""),
    md(r"""
## Mixing devices is an error

As in PyTorch, an operation never copies between host and device silently:
""", r"""
## 混用设备会报错

与PyTorch一样，操作永远不会在主机与设备之间静默地复制数据：
"""),
    code(r"""
# NBVAL_IGNORE_OUTPUT  (GPU cell: runs on a GPU, prints "skipped" without one)
if has_gpu:
    try:
        torch.ones(3) + torch.ones(3, device="cuda")
    except RuntimeError as err:
        print("RuntimeError:", err)
else:
    print("skipped: no GPU")
"""),
    md(r"""
## Summary

- `torch.cuda.is_available()` tells whether CuPy and a CUDA device are usable.
- `device="cuda"`, `.to("cuda")`, `.cuda()` and `.cpu()` work as in PyTorch; autograd follows the data.
- Without a GPU everything above runs on the CPU with `device="cpu"`, unchanged.
""", r"""
## 小结

- `torch.cuda.is_available()`表示CuPy和CUDA设备是否可用。
- `device="cuda"`、`.to("cuda")`、`.cuda()`和`.cpu()`的用法与PyTorch相同；自动微分跟随数据所在的设备。
- 没有GPU时，上述所有代码都可以不加修改地以`device="cpu"`在CPU上运行。
"""),
]
