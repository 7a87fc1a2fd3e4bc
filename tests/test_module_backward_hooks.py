"""Issue 14 (teaching code): module backward hooks (register_full_backward_hook,
register_full_backward_pre_hook, register_backward_hook), torch.nn.utils' gradient clipping
and parameter vectors, and the custom-Function details the hooks rely on (an input returned
marked non-differentiable; a node hook sees the gradient returned for an input without an
edge). Each scenario runs under torch and here; what they print must be equal."""

from __future__ import annotations

import warnings

import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch


def _both(fn):
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = fn(ja), fn(torch)
    assert ours == theirs


def _hooks_on_linear(t):
    t.manual_seed(0)
    m = t.nn.Linear(3, 2)
    log = []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", repr(go))))
    m.register_full_backward_hook(
        lambda mod, gi, go: log.append(("full", type(mod).__name__, repr(gi), repr(go)))
    )
    x = t.randn(4, 3, requires_grad=True)
    y = m(x)
    log.append(y.grad_fn.name())
    (y * t.arange(2.0)).sum().backward()
    log.append(repr(x.grad))
    return log


def _hook_replaces_grad_input(t):
    t.manual_seed(1)
    m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Tanh())
    m[0].register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
    m[1].register_full_backward_pre_hook(lambda mod, go: (go[0] + 1,))
    x = t.ones(1, 2, requires_grad=True)
    m(x).sum().backward()
    return [repr(x.grad), repr(m[0].weight.grad)]


def _no_input_requires_grad(t):
    t.manual_seed(2)
    m = t.nn.Linear(2, 1)
    log = []
    h = m.register_full_backward_hook(lambda mod, gi, go: log.append(repr((gi, go))))
    m(t.ones(3, 2)).sum().backward()
    h.remove()
    m(t.ones(3, 2)).sum().backward()
    with t.no_grad():
        log.append(m(t.ones(1, 2)).grad_fn)
    return log


def _tuple_output_module(t):
    class Two(t.nn.Module):
        def forward(self, a, k, b):
            return a * k, b.exp(), "tag"

    m = Two()
    log = []
    m.register_full_backward_hook(lambda mod, gi, go: log.append(repr((gi, go))))
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([0.5], requires_grad=True)
    u, v, tag = m(a, 3, b)
    (u.sum() + v.sum()).backward()
    return log + [tag, u.grad_fn.name()]


def _legacy_hook_and_mixing(t):
    m = t.nn.Linear(2, 2)
    log = []
    m.register_backward_hook(lambda mod, gi, go: log.append(len(gi)))
    m(t.ones(1, 2, requires_grad=True)).sum().backward()
    try:
        m.register_full_backward_hook(lambda *a: None)
    except RuntimeError as e:
        log.append(str(e))
    return log


@pytest.mark.parametrize(
    "fn",
    [
        _hooks_on_linear,
        _hook_replaces_grad_input,
        _no_input_requires_grad,
        _tuple_output_module,
        _legacy_hook_and_mixing,
    ],
)
def test_module_backward_hooks_as_torch(fn):
    _both(fn)


def _clipping(t):
    t.manual_seed(3)
    m = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 1))
    m(t.randn(5, 3)).pow(2).sum().backward()
    out = [repr(t.nn.utils.clip_grad_norm_(m.parameters(), max_norm=0.5))]
    out.append(repr(m[2].weight.grad))
    out.append(repr(t.nn.utils.clip_grad_norm_(m[0].weight, 0.1, norm_type="inf")))
    t.nn.utils.clip_grad_value_(m.parameters(), clip_value=0.05)
    out.append(repr(m[0].bias.grad))
    out.append(repr(t.nn.utils.get_total_norm([p.grad for p in m.parameters()], 1.0)))
    vec = t.nn.utils.parameters_to_vector(m.parameters())
    out.append(repr((vec.shape, vec.grad_fn.name())))
    t.nn.utils.vector_to_parameters(t.arange(float(vec.numel())), m.parameters())
    out.append(repr(m[2].weight))
    out.append(repr(t.nn.utils.clip_grad_norm_([], 1.0)))
    m[2].bias.grad.fill_(float("inf"))
    try:
        t.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
    except RuntimeError as e:
        out.append(str(e))
    try:
        t.nn.utils.vector_to_parameters([1.0], m.parameters())
    except TypeError as e:
        out.append(str(e))
    return out


def test_nn_utils_clipping_and_vectors_as_torch():
    _both(_clipping)


def _custom_function_identity(t):
    class Ident(t.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
            return args

        @staticmethod
        def backward(ctx, *grads):
            return grads

    class Keep(t.autograd.Function):
        @staticmethod
        def forward(ctx, u, v):
            ctx.mark_non_differentiable(u)
            return u, v * 2

        @staticmethod
        def backward(ctx, gu, gv):
            return gu, gv * 2

    a, b = t.ones(2, requires_grad=True), t.ones(2)
    x, y = Ident.apply(a, b)
    log = [repr((y.requires_grad, y.grad_fn, y._base is b, x._base is a))]
    x.grad_fn.register_hook(lambda gi, go: log.append(repr((gi, go))))
    (x * 3).sum().backward()
    u, _w = Keep.apply(a, a)
    log.append(repr((u.requires_grad, u.grad_fn, u._base is a, u.is_leaf)))
    return log


def test_custom_function_non_differentiable_input_and_hook_gradients_as_torch():
    _both(_custom_function_identity)


def _global_hooks(t):
    mm = t.nn.modules.module
    log = []
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__))),
        mm.register_module_forward_hook(lambda m, a, o: log.append(("gfwd", tuple(o.shape)))),
        mm.register_module_full_backward_pre_hook(
            lambda m, go: log.append(("gbpre", type(m).__name__))
        ),
        mm.register_module_full_backward_hook(
            lambda m, gi, go: log.append(("gbwd", type(m).__name__, gi[0] is None))
        ),
    ]
    net = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.Tanh())
    net[0].register_forward_hook(lambda m, a, o: log.append(("own", tuple(o.shape))))
    net(t.ones(1, 2, requires_grad=True)).sum().backward()
    for h in handles:
        h.remove()
    net(t.ones(1, 2))
    try:
        mm.register_module_backward_hook(lambda *a: None)
    except RuntimeError as e:
        log.append(str(e))
    mm._global_is_full_backward_hook = None
    return log


def test_global_module_hooks_as_torch():
    torch = require_torch()
    theirs = _global_hooks(torch)
    ours = _global_hooks(ja)
    ja.nn.modules._global_hooks._global_is_full_backward_hook[0] = None
    assert ours == theirs


def _skip_init(t):
    t.manual_seed(0)
    m = t.nn.utils.skip_init(t.nn.Linear, 3, 2)
    out = [repr((type(m).__name__, m.weight.shape, m.bias.shape, m.weight.requires_grad))]
    out.append(repr(t.rand(2)))
    try:
        t.nn.utils.skip_init(t.nn.ReLU)
    except RuntimeError as e:
        out.append(str(e))
    try:
        t.nn.utils.skip_init(int)
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_skip_init_draws_nothing_as_torch():
    torch = require_torch()
    assert _skip_init(ja) == _skip_init(torch)
