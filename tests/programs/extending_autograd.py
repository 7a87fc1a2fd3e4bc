"""The "Extending PyTorch" notes' examples: custom Functions (a polynomial, a linear layer with
saved tensors and needs_input_grad, mark_non_differentiable), gradcheck, once_differentiable,
and a profile of a training step."""

from _prelude import import_torch

torch = import_torch()


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * (5 * x**3 - 3 * x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * x**2 - 1)


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MaxWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return x[idx].clone(), idx

    @staticmethod
    def backward(ctx, g, _):
        x, idx = ctx.saved_tensors
        out = torch.zeros_like(x)
        out[idx] = g
        return out


torch.manual_seed(3)
x = torch.linspace(-1, 1, 5, requires_grad=True)
y = LegendrePolynomial3.apply(x)
y.sum().backward()
print("P3", y, x.grad, y.grad_fn.name())

inp = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
w = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
bias = torch.randn(2, dtype=torch.double, requires_grad=True)
print(
    "gradcheck", torch.autograd.gradcheck(LinearFunction.apply, (inp, w, bias), eps=1e-6, atol=1e-4)
)
print(
    "gradgradcheck P3",
    torch.autograd.gradgradcheck(
        LegendrePolynomial3.apply, (torch.tensor(0.3, dtype=torch.double, requires_grad=True),)
    ),
)
out = LinearFunction.apply(inp, w.detach(), None)
out.sum().backward()
print("needs_input_grad", inp.grad.sum(), w.grad)

xs = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
v, i = MaxWithIndex.apply(xs)
print("max", v, i, i.requires_grad, v.grad_fn.name())
(v * 10).backward()
print("max grad", xs.grad)

lin = torch.nn.Linear(3, 2)
with torch.autograd.profiler.profile() as prof, torch.autograd.profiler.record_function("step"):
    lin(torch.ones(4, 3)).relu().sum().backward()
names = [e.key for e in prof.key_averages()]
print("profiled", [n for n in names if "Backward" in n or n == "step"])
