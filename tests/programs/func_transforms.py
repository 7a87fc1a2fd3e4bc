"""The torch.func tutorials' computations on a small MLP: per-sample gradients with
functional_call + vmap(grad), Jacobians with jacrev/jacfwd, a Hessian, model ensembling with
stack_module_state, jvp and vjp with pytrees."""

from _prelude import import_torch

torch = import_torch()
from_func = torch.func
F = torch.nn.functional

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
params = {k: v.detach() for k, v in model.named_parameters()}
data = torch.randn(6, 4)
targets = torch.randint(0, 3, (6,))


def loss_fn(p, x, t):
    out = from_func.functional_call(model, p, (x.unsqueeze(0),))
    return F.cross_entropy(out, t.unsqueeze(0))


per_sample = from_func.vmap(from_func.grad(loss_fn), in_dims=(None, 0, 0))(params, data, targets)
print({k: v.shape for k, v in per_sample.items()})
print(
    "mean of per-sample grads == batch grad:",
    all(
        torch.allclose(per_sample[k].mean(0), g, atol=1e-6)
        for k, g in zip(
            params,
            torch.autograd.grad(F.cross_entropy(model(data), targets), list(model.parameters())),
        )
    ),
)
print(per_sample["2.bias"])


def f(x):
    return x.sin() * x.cos().sum()


x = torch.randn(3)
print("jacrev", from_func.jacrev(f)(x))
print("jacfwd==jacrev", torch.allclose(from_func.jacfwd(f)(x), from_func.jacrev(f)(x), atol=1e-6))
print("hessian", from_func.hessian(lambda v: (v**3).sum() + v.prod())(x))
out, tangent = from_func.jvp(f, (x,), (torch.ones(3),))
print("jvp", out, tangent)
o, vjp_fn = from_func.vjp(lambda d: {"s": d["a"].exp()}, {"a": x})
print("vjp", vjp_fn({"s": torch.ones(3)}))

models = [torch.nn.Linear(4, 2) for _ in range(3)]
stacked, buffers = from_func.stack_module_state(models)
base = torch.nn.Linear(4, 2)
ens = from_func.vmap(
    lambda p, b, xx: from_func.functional_call(base, (p, b), (xx,)), in_dims=(0, 0, None)
)(stacked, buffers, data)
print("ensemble", ens.shape, torch.allclose(ens[1], models[1](data)))
print("batched dot", torch.vmap(torch.dot)(data, data))
