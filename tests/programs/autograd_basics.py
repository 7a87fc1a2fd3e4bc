"""What the autograd tutorial and notes show: graphs, grad_fn, backward with a gradient,
retain_grad, hooks, no_grad/detach, higher-order gradients, saved-tensor hooks."""

from _prelude import import_torch

torch = import_torch()

torch.manual_seed(0)
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
print("Q", Q, Q.grad_fn.name(), [type(f).__name__ for f, _ in Q.grad_fn.next_functions])
Q.backward(gradient=torch.tensor([1.0, 1.0]))
print("grads", a.grad, b.grad, 9 * a**2 == a.grad, -2 * b == b.grad)

x = torch.randn(5, requires_grad=True)
y = x * 2
y.retain_grad()
seen = []
y.register_hook(lambda g: seen.append(g.clone()))
z = (y.exp() * x).sum()
z.backward()
print("retain", y.grad, "hook", seen[0], "x.grad", x.grad)

with torch.no_grad():
    w = x * 2
print("no_grad", w.requires_grad, x.detach().requires_grad, (x * 2).requires_grad)

u = torch.tensor(1.5, requires_grad=True)
f = u**4
(g,) = torch.autograd.grad(f, u, create_graph=True)
(h,) = torch.autograd.grad(g, u)
print("higher", g, h)

log = []
with torch.autograd.graph.saved_tensors_hooks(
    lambda t: log.append(("pack", tuple(t.shape))) or t,
    lambda t: log.append(("unpack", tuple(t.shape))) or t,
):
    s = (a * b).sin().sum()
s.backward()
print("hooks", log)
print("is_leaf", a.is_leaf, Q.is_leaf, Q.requires_grad)
