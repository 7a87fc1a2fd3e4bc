"""Source snippets a program may need: custom autograd Functions and hooks.

Each snippet is Python source written against ``torch`` (either library); programs name the
snippets they use, and reproducers include exactly those. Hooks append what they see to ``LOG``
(a list in the program's namespace), which the runner observes after every step.
"""

from __future__ import annotations

SNIPPETS = {
    "_conj": """
def _conj(t):
    return t.conj() if t.is_complex() else t
""",
    # ---- custom Functions
    "MulSaveInputs": """
class MulSaveInputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * _conj(y), g * _conj(x)
""",
    "ExpSaveOutput": """
class ExpSaveOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * _conj(out)
""",
    "ScaleSetupContext": """
class ScaleSetupContext(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
""",
    "SplitNonDiff": """
class SplitNonDiff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x * 2
        b = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(b)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2
""",
    "AddOneInplace": """
class AddOneInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g
""",
    "SquareDouble": """
class SquareDouble(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * g * _conj(x)
""",
    # ---- tensor hooks: receive the gradient, may replace it
    "hook_log": """
def hook_log(name):
    def hook(g):
        LOG.append((name, g))
    return hook
""",
    "hook_double": """
def hook_double(name):
    def hook(g):
        LOG.append((name, g))
        return g * 2
    return hook
""",
    "hook_bad_dtype": """
def hook_bad_dtype(name):
    def hook(g):
        LOG.append((name, g))
        return g.to(torch.float64 if g.dtype != torch.float64 else torch.float32)
    return hook
""",
    "hook_bad_shape": """
def hook_bad_shape(name):
    def hook(g):
        LOG.append((name, g))
        return g.sum()[None].expand(2, *g.shape)
    return hook
""",
    # ---- grad_fn hooks: post hooks see (grad_inputs, grad_outputs), pre hooks grad_outputs
    "node_hook_log": """
def node_hook_log(name):
    def hook(grad_inputs, grad_outputs):
        LOG.append((name, tuple(grad_inputs), tuple(grad_outputs)))
    return hook
""",
    "node_prehook_log": """
def node_prehook_log(name):
    def hook(grad_outputs):
        LOG.append((name, tuple(grad_outputs)))
    return hook
""",
    "post_acc_log": """
def post_acc_log(name):
    def hook(t):
        LOG.append((name, t.grad))
    return hook
""",
}


def snippet_source(names) -> str:
    return "\n".join(SNIPPETS[n].strip() + "\n" for n in names)
