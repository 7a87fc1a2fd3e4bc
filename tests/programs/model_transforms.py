"""torch.func and torch.autograd.functional over a model, as the Jacobians/Hessians and
neural tangent kernel tutorials use them: jacrev and jacfwd with respect to the parameters
through functional_call, a batched Jacobian with vmap, a Hessian with respect to the input,
grad_and_value with has_aux, an empirical NTK, and the autograd.functional API."""

from _prelude import import_torch

torch = import_torch()
func = torch.func
nn = torch.nn

torch.manual_seed(8)
net = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 2))
params = {k: v.detach() for k, v in net.named_parameters()}
x = torch.randn(5, 3)


def f(p, inp):
    return func.functional_call(net, p, (inp,))


jac = func.jacrev(f)(params, x[:1])
print({k: tuple(v.shape) for k, v in jac.items()})
print("d out / d bias", jac["2.bias"].squeeze())
jac_fwd = func.jacfwd(f, argnums=1)(params, x[0])
print("input jacobian", jac_fwd)
print("rev == fwd", torch.allclose(func.jacrev(f, argnums=1)(params, x[0]), jac_fwd, atol=1e-6))

batched = func.vmap(func.jacrev(f, argnums=1), in_dims=(None, 0))(params, x)
print("batched jacobian", tuple(batched.shape), torch.allclose(batched[0], jac_fwd, atol=1e-6))
chunked = func.vmap(lambda v: f(params, v), chunk_size=2)(x)
print("chunked vmap", torch.allclose(chunked, net(x), atol=1e-6))


def scalar_out(inp):
    return f(params, inp).pow(2).sum()


h = func.hessian(scalar_out)(x[0])
print("hessian", h)
print("symmetric", torch.allclose(h, h.T, atol=1e-5))


def loss_with_aux(p, inp, target):
    out = f(p, inp)
    loss = nn.functional.mse_loss(out, target)
    return loss, out.detach().argmax(1)


target = torch.zeros(5, 2)
grads, (loss, aux) = func.grad_and_value(loss_with_aux, has_aux=True)(params, x, target)
print("grad_and_value", loss, aux, grads["0.bias"])
torch_grads = torch.autograd.grad(nn.functional.mse_loss(net(x), target), list(net.parameters()))
print("same as autograd", all(torch.allclose(grads[k], g) for k, g in zip(params, torch_grads)))


def ntk(x1, x2):
    def one(p, v):
        return f(p, v.unsqueeze(0)).squeeze(0)

    j1 = func.vmap(func.jacrev(one), (None, 0))(params, x1)
    j2 = func.vmap(func.jacrev(one), (None, 0))(params, x2)
    blocks = [torch.einsum("Naf,Mbf->NMab", j1[k].flatten(2), j2[k].flatten(2)) for k in j1]
    return torch.stack(blocks).sum(0)


k = ntk(x[:2], x[2:5])
print("ntk", tuple(k.shape), k[0, 0])

fn = torch.autograd.functional
v = torch.ones(3)
print("functional.jacobian", fn.jacobian(lambda t: net(t).sum(0), x[:2]).shape)
print("functional.hessian", fn.hessian(scalar_out, x[1]).diagonal())
out, vjp = fn.vjp(lambda t: net(t), x[:1], torch.ones(1, 2))
print("functional.vjp", vjp)
out, hvp = fn.hvp(scalar_out, x[0], v)
print("functional.hvp", out, hvp)
out, jvp = fn.jvp(lambda t: net(t), x[:1], torch.ones(1, 3))
print("functional.jvp", jvp)
