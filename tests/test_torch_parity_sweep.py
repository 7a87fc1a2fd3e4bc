"""Torch parity sweep: ~120 one-line programs run with ``torch`` bound to jupyter_autograd and to
torch 2.13; their results print identically (reprs, grad_fn names, next_functions, errors)."""

from __future__ import annotations

import re
import warnings

import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

ADDR = re.compile(r"0x[0-9a-f]+")
CASES = r"""
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x[0]
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x[:, 1]
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x[..., None]
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x[x > 2]
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x[[1, 0]]
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x[1:, ::2]
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.sum(1, keepdim=True)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.max(1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.mean()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.var(1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.std()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.norm()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.T
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.mT
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.flatten()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.view(-1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.unsqueeze(0).squeeze()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.expand(2, 2, 3)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.repeat(2, 1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = T.cat([x, x], 1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = T.stack([x, x])
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.split(1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.chunk(3, 1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.clamp(2, 5)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = T.where(x > 3, x, T.zeros(1))
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.softmax(1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.log_softmax(0)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.logsumexp(1)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.prod()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.double()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.to(T.float64)
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.clone()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.detach()
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x.t() @ x
x = T.tensor([[1.,2.,3.],[4.,5.,6.]], requires_grad=True); r = x @ T.ones(3)
x = T.tensor([1.,2.,3.], requires_grad=True); r = T.outer(x, x)
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.dot(x)
x = T.tensor([1.,2.,3.], requires_grad=True); r = 1 - x
x = T.tensor([1.,2.,3.], requires_grad=True); r = 1 / x
x = T.tensor([1.,2.,3.], requires_grad=True); r = 2 ** x
x = T.tensor([1.,2.,3.], requires_grad=True); r = x ** x
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.square()
x = T.tensor([1.,2.,3.], requires_grad=True); r = -x
x = T.tensor([1.,2.,3.], requires_grad=True); r = abs(x)
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.relu()
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.sigmoid()
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.max()
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.amax(0)
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.argmax()
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.flip(0)
x = T.tensor([1.,2.,3.], requires_grad=True); r = x * 2; r += 1
x = T.tensor([1.,2.,3.], requires_grad=True); r = x * 2; r.mul_(3)
x = T.tensor([1.,2.,3.], requires_grad=True); r = x * 2; r[0] = 5
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.exp().sum()
x = T.tensor([1,2,3]); r = x * 1.5
x = T.tensor([1,2,3]); r = x / 2
x = T.tensor([1,2,3]); r = x // 2
x = T.tensor([1,2,3]); r = x.float().mean()
x = T.tensor([True, False]); r = x + 1
x = T.tensor([1.,2.], dtype=T.float64); r = x + T.tensor(1.)
x = T.tensor([1,2]); r = x + T.tensor(1.5)
x = T.tensor([1.,2.]); r = x.sum(dtype=T.float64)
x = T.arange(6).reshape(2, 3); r = x.sum(0)
x = T.arange(6.).reshape(2, 3); r = x.mean(1)
x = T.zeros(2, 3, dtype=T.int32); r = x
x = T.ones(2, 3) * 1e-5; r = x
x = T.linspace(0, 1, 5); r = x
x = T.full((2,), 3); r = x
x = T.full((2,), 3.); r = x
x = T.eye(3); r = x[1:]
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.mse_loss(x, T.zeros(2, 2))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.l1_loss(x, T.zeros(2, 2))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.cross_entropy(x, T.tensor([0, 1]))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.cross_entropy(x, T.tensor([[0.5, 0.5],[1., 0.]]))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.nll_loss(x, T.tensor([0, 1]), reduction="none")
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.binary_cross_entropy(x.sigmoid(), T.ones(2, 2))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.linear(x, T.ones(3, 2), T.zeros(3))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.linear(x, T.ones(3, 2))
x = T.tensor([[1.,2.],[3.,4.]], requires_grad=True); r = T.nn.functional.softmax(x, dim=1)
x = T.tensor([[[1.,2.],[3.,4.]]], requires_grad=True); r = x @ x
x = T.tensor([[[1.,2.],[3.,4.]]], requires_grad=True); r = x @ T.ones(2, 2)
x = T.tensor([[[1.,2.],[3.,4.]]], requires_grad=True); r = T.bmm(x, x)
x = T.tensor([1., 2.]); r = x.numpy()
x = T.tensor(3.5); r = x.item()
x = T.tensor([[1, 2], [3, 4]]); r = x.tolist()
x = T.tensor([1.,2.,3.]); r = x.shape
x = T.tensor([1.,2.,3.]); r = x.size(0)
x = T.tensor([1.,2.,3.]); r = x.dtype
x = T.tensor([1.,2.,3.]); r = x.device
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.is_leaf, (x*2).is_leaf, (x*2).requires_grad
x = T.tensor([1.,2.,3.], requires_grad=True); r = x.grad_fn, (x*2).grad_fn.next_functions
x = T.tensor([1.,2.,3.], requires_grad=True); r = (x + 1).grad_fn.next_functions
x = T.tensor([1.,2.,3.], requires_grad=True); r = (x * x).grad_fn.next_functions
x = T.tensor([1.,2.,3.], requires_grad=True); r = (x.exp()).grad_fn._saved_result
x = T.tensor([1.,2.,3.], requires_grad=True); r = (x.sum()).grad_fn._saved_self_sym_sizes
x = T.tensor([1.,2.,3.], requires_grad=True); r = (x ** 3).grad_fn._saved_exponent
x = T.tensor([1.,2.,3.], requires_grad=True); r = T.autograd.grad((x ** 3).sum(), x, create_graph=True)
x = T.tensor([1.,2.,3.], requires_grad=True); r = T.autograd.functional.jacobian(lambda t: t ** 2, x)
x = T.tensor([1.,2.,3.], requires_grad=True); r = T.autograd.functional.hessian(lambda t: (t ** 3).sum(), x)
x = T.tensor([1.,2.,3.]); r = T.autograd.functional.vjp(lambda t: (t ** 2).sum(), x)
x = T.tensor([1.,2.,3.]); r = T.autograd.functional.jvp(lambda t: t ** 2, x, T.ones(3))
x = T.randn(3, 3) ; r = x.shape
x = T.tensor([0.1, 0.2]); r = T.tensor([[x[0], x[1]]])
x = T.tensor([1.,2.,3.,4.]); r = x.reshape(2, 2).t().contiguous()
x = T.tensor([1.,2.,3.,4.]); r = x.unflatten(0, (2, 2))
x = T.tensor([1.,2.,3.,4.]); r = x.masked_fill(x > 2, 0.)
x = T.tensor([1.,2.,3.,4.], requires_grad=True); r = x.masked_fill(x > 2, 0.)
x = T.tensor([1.,2.,3.,4.]); r = T.allclose(x, x + 1e-9)
x = T.tensor([1.,2.,3.,4.]); r = x == 2
x = T.tensor([1.,2.,3.,4.]); r = (x > 1).all(), (x > 1).any()
x = T.tensor([1.,2.,3.,4.]); r = x.where(x > 2, T.tensor(-1.))
x = T.tensor([1.,2.,3.,4.], requires_grad=True); r = x.gather(0, T.tensor([0, 0, 3]))
x = T.tensor([1.,2.,3.,4.], requires_grad=True); r = x.index_select(0, T.tensor([0, 2]))
x = T.tensor([1.,2.,3.,4.], requires_grad=True); r = x.narrow(0, 1, 2)
x = T.tensor([1.,2.,3.,4.], requires_grad=True); r = x.unbind()
x = T.tensor([1.,2.,3.,4.], requires_grad=True); r = x.cumsum(0)
x = T.tensor([1,2,3]); r = x.cumsum(0)
m = T.nn.Linear(2, 3); r = m.weight.shape, m.bias.shape, m.weight.requires_grad, m.training
m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh()); m.eval(); r = m.training, m[0].training
m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh()); r = m[0], len(m), m[-1]
m = T.nn.ModuleDict({"a": T.nn.ReLU(), "b": T.nn.Linear(1, 1)}); r = m
m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.GELU(), T.nn.LayerNorm(3), T.nn.Dropout(0.1), T.nn.Softmax(dim=-1)); r = m
m = T.nn.Sequential(T.nn.Flatten(), T.nn.Linear(4, 2), T.nn.LogSoftmax(dim=1)); r = m(T.ones(3, 2, 2)).shape
m = T.nn.Embedding(5, 2); r = m(T.tensor([[0, 4]])).shape, m
m = T.nn.LeakyReLU(0.2); r = m, m(T.tensor([-1., 1.]))
r = T.nn.Sigmoid()(T.tensor([0.])), T.nn.Tanh()(T.tensor([0.])), T.nn.Identity()(T.tensor([3.]))
r = T.nn.BCELoss()(T.tensor([0.5]), T.tensor([1.])), T.nn.BCEWithLogitsLoss()(T.tensor([0.]), T.tensor([1.]))
r = T.nn.L1Loss()(T.tensor([1., 2.]), T.tensor([0., 0.])), T.nn.NLLLoss()(T.tensor([[-1., -2.]]), T.tensor([1]))
m = T.nn.Linear(2, 2); r = sum(p.numel() for p in m.parameters()), [n for n, _ in m.named_modules()]
m = T.nn.Sequential(T.nn.Linear(2, 2)); r = [n for n, _ in m.named_parameters()], [n for n, _ in m.named_children()]
m = T.nn.Linear(2, 2); m.requires_grad_(False); r = [p.requires_grad for p in m.parameters()]
m = T.nn.Linear(2, 2); m.register_buffer("running", T.zeros(2)); r = list(m.state_dict().keys()), list(m.buffers())
m = T.nn.Linear(2, 2); r = m.load_state_dict({"weight": T.zeros(2, 2)})
m = T.nn.Linear(2, 2); r = m.load_state_dict({"weight": T.zeros(2, 2), "bias": T.zeros(2)})
m = T.nn.Linear(2, 2); r = m.load_state_dict({"weight": T.zeros(3, 2), "bias": T.zeros(2)})
m = T.nn.Linear(2, 2); m.zero_grad(); r = m.weight.grad
p = T.nn.Parameter(T.ones(2)); o = T.optim.SGD([p], lr=0.1, momentum=0.9); r = o.state_dict()
p = T.nn.Parameter(T.ones(2)); o = T.optim.Adam([p], lr=0.1); r = o.param_groups[0]["betas"], o.defaults["eps"]
p = T.nn.Parameter(T.ones(2)); o = T.optim.SGD([p], lr=-1)
p = T.nn.Parameter(T.ones(2)); o = T.optim.SGD([p], lr=0.1); s = T.optim.lr_scheduler.StepLR(o, 2, 0.5); [ (o.step(), s.step()) for _ in range(3)]; r = s.get_last_lr()
p = T.nn.Parameter(T.ones(2)); o = T.optim.SGD([p], lr=0.1); s = T.optim.lr_scheduler.CosineAnnealingLR(o, 10); [ (o.step(), s.step()) for _ in range(3)]; r = s.get_last_lr()
d = T.utils.data.TensorDataset(T.arange(6.), T.arange(6)); r = len(d), d[2]
d = T.utils.data.TensorDataset(T.arange(6.)); r = [b for b in T.utils.data.DataLoader(d, batch_size=4)]
d = T.utils.data.TensorDataset(T.arange(6.)); r = [b[0].shape for b in T.utils.data.DataLoader(d, batch_size=4, drop_last=True)]
r = T.nn.init.calculate_gain("relu"), T.nn.init.calculate_gain("tanh")
w = T.empty(3, 3); T.nn.init.constant_(w, 0.5); r = w
w = T.empty(3, 3); T.nn.init.eye_(w); r = w
w = T.empty(3, 3); T.nn.init.zeros_(w); r = w
r = T.nn.functional.gelu(T.tensor([-1., 0., 1.]))
r = T.nn.functional.leaky_relu(T.tensor([-1., 1.]), 0.1)
r = T.nn.functional.layer_norm(T.tensor([[1., 2., 3.]]), (3,))
r = T.nn.functional.embedding(T.tensor([1]), T.eye(3))
r = T.nn.functional.dropout(T.ones(3), 0.5, training=False)
r = T.nn.functional.dropout(T.ones(3), 1.5)
r = T.arange(1500.).reshape(30, 50)
r = T.arange(3000).reshape(10, 15, 20)
r = T.arange(20.).reshape(4, 5) / 7
r = T.arange(20.).reshape(2, 2, 5) * 1e-6
r = T.tensor(np.linspace(-3, 3, 25).reshape(5, 5))
r = T.tensor(np.linspace(-3, 3, 25).reshape(5, 5), dtype=T.float64, requires_grad=True)
r = T.tensor(np.linspace(0, 1, 40))
r = T.tensor(np.arange(40) * 1000.)
r = T.ones(100, 3) * 0.5
r = T.tensor([[float("inf"), 1.], [float("nan"), -2.5]])
r = T.tensor(np.arange(1200.).reshape(2, 600))
T.set_printoptions(precision=2); r = T.tensor([1.23456, 2.5]); T.set_printoptions(profile="default")
T.set_printoptions(sci_mode=True); r = T.tensor([1.5, 2.5]); T.set_printoptions(profile="default", sci_mode=None)
T.set_printoptions(threshold=5); r = T.arange(10.); T.set_printoptions(profile="default")
T.set_printoptions(linewidth=40); r = T.arange(20.); T.set_printoptions(profile="default")
T.set_printoptions(edgeitems=1, threshold=3); r = T.arange(16.).reshape(4, 4); T.set_printoptions(profile="default")
with T.autograd.forward_ad.dual_level(): d = T.autograd.forward_ad.make_dual(T.tensor([2., 3.]), T.tensor([1., 1.])); r = d ** 2
with T.autograd.forward_ad.dual_level(): d = T.autograd.forward_ad.make_dual(T.tensor([2., 3.]), T.tensor([1., 0.])); r = T.autograd.forward_ad.unpack_dual(d.sin())
r = T.autograd.functional.jacobian(lambda a, b: a * b, (T.tensor([1., 2.]), T.tensor([3., 4.])))
r = T.autograd.functional.jacobian(lambda a: (a * 2, a.sum()), T.tensor([1., 2.]))
r = T.autograd.functional.hessian(lambda a: (a ** 3).sum(), T.tensor([1., 2.]))
r = T.autograd.functional.vjp(lambda a: a ** 2, T.tensor([1., 2.]))
r = T.autograd.functional.vjp(lambda a: a ** 2, T.tensor([1., 2.]), T.tensor([1., 1.]))
r = T.autograd.functional.jvp(lambda a: a ** 2, T.tensor([1., 2.]), T.tensor([1., 0.]))
r = T.autograd.functional.hvp(lambda a: (a ** 3).sum(), T.tensor([1., 2.]), T.tensor([1., 0.]))
r = T.autograd.functional.vhp(lambda a: (a ** 3).sum(), T.tensor([1., 2.]), T.tensor([1., 0.]))
r = T.func.grad(lambda a: (a ** 2).sum())(T.tensor([1., 2.]))
r = T.func.jacrev(lambda a: a ** 2)(T.tensor([1., 2.]))
r = T.func.jacfwd(lambda a: a ** 2)(T.tensor([1., 2.]))
r = T.func.hessian(lambda a: (a ** 3).sum())(T.tensor([1., 2.]))
r = T.func.vjp(lambda a: a ** 2, T.tensor([1., 2.]))[1](T.ones(2))
r = T.func.jvp(lambda a: a ** 2, (T.tensor([1., 2.]),), (T.ones(2),))
r = T.func.grad_and_value(lambda a: (a ** 2).sum())(T.tensor([1., 2.]))
r = T.func.vmap(lambda a: a.sum())(T.ones(3, 2))
r = T.autograd.gradcheck(lambda a: a ** 2, (T.tensor([1., 2.], dtype=T.float64, requires_grad=True),))
x = T.ones(2, requires_grad=True); y = x * 2; y.retain_grad(); y.sum().backward(); r = y.grad, x.grad, y.retains_grad
x = T.ones(2, requires_grad=True); y = (x * 2).sum(); y.backward(retain_graph=True); y.backward(); r = x.grad
x = T.ones(2, requires_grad=True); y = x.exp(); y.sum().backward(); r = y.grad_fn._saved_result
x = T.ones(2, requires_grad=True); r = x.detach().requires_grad, x.detach().is_leaf
x = T.ones(2, requires_grad=True); y = x * 2; y.detach_(); r = y.is_leaf, y.requires_grad, y.grad_fn
x = T.ones(2, requires_grad=True); r = x.requires_grad_(False)
x = T.ones(2); x.requires_grad = True; r = x
with T.no_grad(): r = T.ones(2, requires_grad=True) * 2
with T.inference_mode(): r = T.ones(2) * 2
x = T.ones(2, requires_grad=True); r = T.autograd.grad((x * x).sum(), x)
x = T.ones(2, requires_grad=True); r = T.autograd.grad((x * x).sum(), x, create_graph=True)
x = T.ones(2, requires_grad=True); g, = T.autograd.grad((x ** 3).sum(), x, create_graph=True); r = T.autograd.grad(g.sum(), x)
x = T.ones(2, requires_grad=True); y = x * 2; r = T.autograd.grad(y, x, T.ones(2))
x = T.ones(2, requires_grad=True); y = x * 2; r = T.autograd.grad(y, x)
x = T.ones(2, requires_grad=True); r = T.autograd.grad(x.sum(), x)
x = T.ones(2, requires_grad=True); r = x.sum().grad_fn.next_functions[0][0].variable is x
x = T.ones(2, requires_grad=True); r = (x * 2).grad_fn.name(), x.sum().grad_fn.next_functions[0][0].name()
x = T.ones(2, requires_grad=True); h = x.register_hook(lambda g: g * 3); (x * 1).sum().backward(); h.remove(); (x * 1).sum().backward(); r = x.grad
x = T.tensor([1., 2.], requires_grad=True); y = x ** 2; y.backward(T.tensor([1., 1.])); r = x.grad
x = T.tensor([1., 2.], requires_grad=True); a = x.clone(); a[0] = 10.; a.sum().backward(); r = x.grad, a.grad_fn
x = T.tensor([1., 2.], requires_grad=True); a = x * 1; a.add_(x); a.sum().backward(); r = x.grad
x = T.tensor([1., 2.], requires_grad=True); r = (x > 1).requires_grad, (x.argmax()).requires_grad
x = T.tensor([1., 2.], requires_grad=True); r = x.int().requires_grad, x.double().requires_grad
x = T.tensor([1., 2.], requires_grad=True); y = x.double(); y.sum().backward(); r = x.grad
x = T.ones(3, requires_grad=True); y = x[1:]; y.sum().backward(); r = x.grad
x = T.ones(3, requires_grad=True); y = x[[0, 0, 2]]; y.sum().backward(); r = x.grad
x = T.ones(2, 2, requires_grad=True); y = x[x > 0]; y.sum().backward(); r = x.grad
x = T.ones(2, 2, requires_grad=True); y = x.sum(0); y.backward(T.tensor([1., 2.])); r = x.grad
x = T.ones(2, 2, requires_grad=True); y = x.expand(3, 2, 2); y.sum().backward(); r = x.grad
x = T.ones(2, 2, requires_grad=True); y = T.cat([x, x * 2]); y.sum().backward(); r = x.grad
x = T.ones(2, 2, requires_grad=True); a, b = x.unbind(); (a * 2 + b).sum().backward(); r = x.grad
x = T.ones(2, 2, requires_grad=True); a, b = x.split(1); (a * 2).sum().backward(); r = x.grad
x = T.tensor([3., 3., 1.], requires_grad=True); x.max().backward(); r = x.grad
x = T.tensor([[3., 3.], [1., 2.]], requires_grad=True); x.max(1)[0].sum().backward(); r = x.grad
x = T.tensor([3., 3., 1.], requires_grad=True); x.amax().backward(); r = x.grad
x = T.tensor([0., 2.], requires_grad=True); x.abs().sum().backward(); r = x.grad
x = T.tensor([0., 2.], requires_grad=True); x.relu().sum().backward(); r = x.grad
x = T.tensor([0., 2.], requires_grad=True); x.sqrt().sum().backward(); r = x.grad
x = T.tensor([0., 2.], requires_grad=True); x.norm().backward(); r = x.grad
x = T.tensor([0., 0.], requires_grad=True); x.norm().backward(); r = x.grad
x = T.tensor([1., 1.], requires_grad=True); T.maximum(x, T.tensor([1., 0.])).sum().backward(); r = x.grad
x = T.tensor([0., 2.], requires_grad=True); x.prod().backward(); r = x.grad
x = T.tensor([1., 2.], requires_grad=True); (x ** 0).sum().backward(); r = x.grad
x = T.tensor([0., 2.], requires_grad=True); (x ** x).sum().backward(); r = x.grad
x = T.tensor([1., 2.], requires_grad=True); x.clamp(1, 1.5).sum().backward(); r = x.grad
m = T.nn.Linear(3, 2); r = m
m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 1)); r = m
m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU()); r = list(m.state_dict().keys())
m = T.nn.Linear(3, 2); r = [(n, p.shape) for n, p in m.named_parameters()]
m = T.nn.Linear(3, 2); r = m(T.ones(4, 5))
r = T.nn.Parameter(T.ones(2))
r = T.nn.CrossEntropyLoss()
r = T.nn.MSELoss(reduction="sum")
r = T.nn.Dropout(0.2), T.nn.LayerNorm(4), T.nn.Embedding(10, 3)
r = T.nn.ModuleList([T.nn.ReLU(), T.nn.ReLU()])
p = T.nn.Parameter(T.ones(2)); r = T.optim.SGD([p], lr=0.1)
p = T.ones(2, requires_grad=True); r = T.optim.SGD([p * 2], lr=0.1)
p = T.nn.Parameter(T.ones(2)); o = T.optim.SGD([p], lr=0.1); (p * p).sum().backward(); o.step(); r = p
p = T.nn.Parameter(T.ones(2)); o = T.optim.Adam([p], lr=0.1); (p * p).sum().backward(); o.step(); o.zero_grad(); r = p, p.grad
r = T.arange(12).reshape(3, 4).sum(-1)
r = T.arange(12.).reshape(3, 4).mean(-2, keepdim=True)
r = T.arange(12.).reshape(3, 4)[:, -1]
r = T.arange(12.).reshape(3, 4)[-1]
r = T.arange(12.).reshape(3, 4).transpose(-1, -2)
r = T.zeros(0)
r = T.zeros(2, 0).sum(1)
r = T.ones(3, dtype=T.float64) * T.ones(3)
r = T.ones(3, dtype=T.int32) + T.ones(3, dtype=T.int64)
r = T.ones(3, dtype=T.int32) * 2.5
r = T.ones(3, dtype=T.bool) * 2
r = T.ones(3, dtype=T.float16) + 1
r = T.tensor(2) ** 3
r = T.tensor([2., 3.]) ** T.tensor([2, 3])
r = T.ones(2, 3) @ T.ones(4, 5)
r = T.ones(3) @ T.ones(4)
r = T.ones(2, 3) + T.ones(3, 2)
r = T.ones(2, 3).reshape(4, 2)
r = T.ones(2, 3).view(5)
r = T.ones(2, 3)[3]
r = T.ones(2, 3)[0, 0, 0]
r = T.ones(2, 3).sum(2)
r = T.ones(2, 3).softmax(5)
r = T.cat([T.ones(2, 3), T.ones(2, 4)])
r = T.stack([T.ones(2), T.ones(3)])
r = T.ones(3, requires_grad=True).numpy()
r = T.ones(3, requires_grad=True).add_(1)
r = T.tensor([1, 2], requires_grad=True)
r = T.arange(3).requires_grad_()
r = (T.ones(3, requires_grad=True) * 2).backward()
r = T.ones(3).backward()
r = T.ones(1, requires_grad=True).sum().backward(T.ones(2))
r = T.ones(2, 3).mean(dtype=T.float64)
r = T.arange(5).mean()
r = T.arange(5).float().var()
r = T.tensor([1., 2., 3.]).std(unbiased=False)
r = T.tensor([3., 1., 2.]).max(0)
r = T.tensor([[3., 1.], [2., 4.]]).min(1, keepdim=True)
r = T.tensor([3., 1., 2.]).argmin()
r = T.tensor([[1., 2.], [3., 4.]]).norm(dim=1)
r = T.tensor([[1., 2.], [3., 4.]]).norm(p=1)
r = T.tensor([1e-8, 1.])
r = T.tensor([123456.789, 1.])
r = T.tensor([1.5, float("nan")])
r = T.tensor([[1e-10, 1e10]])
r = T.tensor([-0.0, 0.0])
r = T.tensor([1, -2, 300])
r = T.tensor(True)
r = T.tensor([])
r = T.tensor([[]])
r = T.empty(0, 2, dtype=T.int64)
r = T.randn(2, 3).dtype, T.rand(2).shape
r = T.full((2, 2), True)
r = T.zeros_like(T.ones(2, dtype=T.int64))
r = T.ones(2, 2).new_zeros(3)
r = T.tensor([1., 2.]).new_tensor([3, 4])
r = T.ones(2, 3).type()
r = T.ones(2, 3).int().type()
r = T.ones(2).is_floating_point(), T.ones(2).long().is_floating_point()
r = T.ones(2, 3).stride()
r = T.ones(2, 3).t().is_contiguous()
r = T.ones(2, 3).element_size(), T.ones(2, dtype=T.float64).element_size()
r = T.tensor([[1., 2.], [3., 4.]]).diag()
r = T.tensor([1., 2.]).diag()
r = T.tensor([[1., 2.], [3., 4.]]).trace()
r = T.tensor([1., 2., 3.]).flip(0)
r = T.tensor([[1., 2.], [3., 4.]]).flip([0, 1])
r = T.tensor([1., 2., 3.]).repeat(2)
r = T.tensor([1., 2., 3.]).expand(2, -1)
r = T.tensor([1., 2., 3.]).expand(2, 4)
r = T.tensor([1., 2., 3.]).unsqueeze(-1).shape
r = T.tensor([[1., 2., 3.]]).squeeze(0).shape
r = T.tensor([1., 2., 3.]).chunk(2)
r = T.tensor([1., 2., 3., 4., 5.]).split([2, 3])
r = T.tensor([1., 2., 3.]).clamp(min=2)
r = T.tensor([1., 2., 3.]).clamp(max=2)
r = T.tensor([1., 2., 3.]).clamp()
r = T.tensor([1, 2, 3]).clamp(0.5, 2.5)
r = T.where(T.tensor([True, False]), 1., 0.)
r = T.where(T.tensor([True, False]), T.tensor([1, 2]), T.tensor([1.5, 2.5]))
r = T.tensor([0.5, -0.5]).sign(), T.tensor([0.5, -0.5]).abs()
r = T.tensor([1.4, 1.5, 2.5, -1.5]).round()
r = T.tensor([1.4, -1.6]).floor(), T.tensor([1.4, -1.6]).ceil()
r = T.tensor([4., 9.]).sqrt(), T.tensor([4., 9.]).rsqrt()
r = T.tensor([0.1, 0.2]).log1p(), T.tensor([0.1, 0.2]).expm1()
r = T.tensor([0., 1.]).sigmoid(), T.tensor([0., 1.]).tanh()
r = T.tensor([[1., 2.], [3., 4.]]).logsumexp(0)
r = T.tensor([[1., 2.], [3., 4.]]).prod(1)
r = T.tensor([[1., 2.], [3., 4.]]).amax(), T.tensor([[1., 2.], [3., 4.]]).amin(1)
r = T.tensor([1., 2.]).dot(T.tensor([3., 4.]))
r = T.tensor([[1., 2.], [3., 4.]]).mv(T.tensor([1., 1.]))
r = T.tensor([[1., 2.], [3., 4.]]).mm(T.tensor([[1.], [1.]]))
r = T.tensor([1., 2.]) @ T.tensor([[1., 2.], [3., 4.]])
r = T.ones(2, 3, 4) @ T.ones(4)
r = T.ones(4) @ T.ones(2, 4, 3)
r = T.ones(2, 1, 3, 4) @ T.ones(5, 4, 2)
r = T.ones(3).sum().item()
r = T.tensor([[1, 2], [3, 4]])[T.tensor([True, False])]
r = T.tensor([[1, 2], [3, 4]])[:, T.tensor([1, 0])]
r = T.tensor([[1, 2], [3, 4]])[T.tensor(1)]
r = T.tensor([[1., 2.], [3., 4.]]).softmax(-1).sum(-1)
r = T.nn.functional.relu(T.tensor([-1., 1.]))
r = T.nn.functional.mse_loss(T.ones(3), T.zeros(3), reduction="sum")
r = T.nn.functional.mse_loss(T.ones(3), T.zeros(3), reduction="bogus")
r = T.nn.functional.l1_loss(T.ones(3), T.zeros(3), reduction="none")
r = T.nn.functional.binary_cross_entropy_with_logits(T.ones(3), T.zeros(3), reduction="none")
r = T.nn.functional.binary_cross_entropy_with_logits(T.ones(3), T.zeros(2))
r = T.nn.functional.binary_cross_entropy(T.ones(3) * 0.5, T.zeros(3), reduction="sum")
r = T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 5]))
r = T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 1]), reduction="none")
r = T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, -100]))
r = T.nn.functional.cross_entropy(T.ones(3), T.tensor(1))
r = T.nn.functional.nll_loss(T.ones(2, 3), T.tensor([0., 1.]))
r = T.nn.functional.log_softmax(T.ones(2, 3), dim=1)
r = T.nn.functional.linear(T.ones(2, 3), T.ones(4, 5))
r = T.nn.functional.linear(T.ones(3), T.ones(4, 3), T.ones(4))
r = T.nn.functional.linear(T.ones(2, 2, 3), T.ones(4, 3), T.ones(4))
"""


def _run(module, line):
    import numpy as np

    ns = {"T": module, "np": np}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(line, ns)  # noqa: S102 - fixed programs from this file
        return ADDR.sub("0x", repr(ns["r"])).replace("jupyter_autograd.", "torch.")
    except Exception as e:  # noqa: BLE001 - errors are compared too
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("line", CASES.strip().splitlines())
def test_same_output_as_torch(line):
    torch = require_torch()
    assert _run(ja, line) == _run(torch, line)
