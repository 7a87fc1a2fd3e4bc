"""Issue 14 (teaching code): torch.nn.utils.parametrize (register_parametrization with
right_inverse, caching, stacking, removal) and parametrizations.weight_norm/spectral_norm, as
torch's: reprs, injected class names, parameter and state_dict names, values, gradients,
errors."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch


def _parametrize(torch):
    log = []
    nn = torch.nn
    P = nn.utils.parametrize
    torch.manual_seed(0)

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    layer = nn.Linear(3, 3)
    P.register_parametrization(layer, "weight", Symmetric())
    log.append(repr((layer,)))
    log.append(
        repr(
            (
                layer.weight,
                torch.equal(layer.weight, layer.weight.T),
            )
        )
    )
    log.append(
        repr(
            (
                type(layer).__name__,
                P.is_parametrized(layer),
                P.is_parametrized(layer, "bias"),
                P.type_before_parametrizations(layer).__name__,
            )
        )
    )
    log.append(
        repr(
            (
                [n for n, _ in layer.named_parameters()],
                list(layer.state_dict()),
            )
        )
    )
    log.append(repr((layer.parametrizations.weight.original,)))
    out = layer(torch.ones(2, 3)).sum()
    out.backward()
    log.append(
        repr(
            (
                layer.parametrizations.weight.original.grad,
                layer.weight.grad_fn.name(),
            )
        )
    )
    layer.weight = torch.eye(3) * 2
    log.append(repr((layer.parametrizations.weight.original,)))
    with P.cached():
        a = layer.weight
        b = layer.weight
        log.append(
            repr(
                (
                    "cached",
                    a is b,
                )
            )
        )
    log.append(
        repr(
            (
                "uncached",
                layer.weight is layer.weight,
            )
        )
    )

    class Scale(nn.Module):
        def forward(self, X):
            return X * 2

    P.register_parametrization(layer, "weight", Scale())
    log.append(
        repr(
            (
                layer.parametrizations.weight,
                layer.weight,
            )
        )
    )
    try:
        layer.weight = torch.ones(3, 3)
    except RuntimeError as e:
        log.append(repr((e,)))
    P.remove_parametrizations(layer, "weight", leave_parametrized=True)
    log.append(
        repr(
            (
                layer,
                type(layer).__name__,
                layer.weight,
            )
        )
    )
    try:
        P.register_parametrization(layer, "nope", Scale())
    except ValueError as e:
        log.append(repr((str(e)[:60],)))
    try:
        P.remove_parametrizations(layer, "weight")
    except ValueError as e:
        log.append(repr((str(e)[:40],)))

    m = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))
    log.append(repr((m,)))
    log.append(
        repr(
            (
                m.weight.grad_fn.name(),
                [n for n, _ in m.named_parameters()],
            )
        )
    )
    log.append(
        repr(
            (
                m.parametrizations.weight.original0,
                m.parametrizations.weight.original1.shape,
            )
        )
    )
    loss = m(torch.randn(2, 4)).pow(2).sum()
    loss.backward()
    log.append(repr((m.parametrizations.weight.original0.grad,)))
    conv = nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 2), dim=None)
    log.append(
        repr(
            (
                conv.parametrizations.weight.original0,
                conv.weight.grad_fn.name(),
            )
        )
    )

    torch.manual_seed(1)
    sn = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4))
    log.append(repr((sn,)))
    log.append(
        repr(
            (
                sn.parametrizations.weight[0]._u,
                sn.parametrizations.weight[0]._v,
            )
        )
    )
    log.append(
        repr(
            (
                round(torch.linalg.matrix_norm(sn.weight, ord=2).item(), 4),
                sn.weight.grad_fn.name(),
            )
        )
    )
    sn.eval()
    w1 = sn.weight
    log.append(
        repr(
            (
                torch.equal(w1, sn.weight),
                list(sn.state_dict()),
            )
        )
    )
    sd = sn.state_dict()
    sn2 = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4))
    sn2.load_state_dict(sd)
    sn2.eval()
    log.append(repr((torch.allclose(sn2.weight, sn.weight),)))
    return log


def test_parametrizations_as_torch():
    torch = require_torch()
    assert _parametrize(ja) == _parametrize(torch)
