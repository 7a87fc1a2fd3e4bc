"""Issue 14 (teaching code): torch.optim.LBFGS with and without the strong-Wolfe line search,
as torch's (losses, closure calls, parameters, state, repr, errors); and float() of a tensor
that requires grad warns only with grad mode on, as torch (LBFGS converts its losses under
no_grad)."""

from __future__ import annotations

import warnings

import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch


def _lbfgs(torch):
    log = []

    def run(ls, hist=100):
        torch.manual_seed(0)
        x = torch.randn(6, 2)
        y = x @ torch.tensor([[1.5], [-2.0]]) + 0.3
        m = torch.nn.Linear(2, 1)
        opt = torch.optim.LBFGS(
            m.parameters(), lr=0.5, max_iter=7, history_size=hist, line_search_fn=ls
        )
        calls = [0]

        def closure():
            opt.zero_grad()
            loss = ((m(x) - y) ** 2).mean()
            loss.backward()
            calls[0] += 1
            return loss

        for i in range(2):
            l = opt.step(closure)
            log.append(
                repr(
                    (
                        ls,
                        i,
                        l,
                        calls[0],
                        m.weight.data,
                        m.bias.data,
                    )
                )
            )
        st = opt.state[m.weight]
        log.append(
            repr(
                (
                    sorted(st),
                    st["func_evals"],
                    st["n_iter"],
                    round(float(st["t"]), 5),
                    len(st["old_dirs"]),
                )
            )
        )

    run(None)
    run("strong_wolfe")
    run(None, hist=2)
    # Rosenbrock, as the optimization tutorials do
    p = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = torch.optim.LBFGS([p], lr=1, max_iter=12, line_search_fn="strong_wolfe")

    def rosen():
        opt.zero_grad()
        f = (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2
        f.backward()
        return f

    for _ in range(1):
        opt.step(rosen)
    log.append(
        repr(
            (
                p,
                opt.state[p]["func_evals"],
            )
        )
    )
    log.append(repr((opt,)))
    try:
        torch.optim.LBFGS([{"params": [p]}, {"params": [torch.zeros(1, requires_grad=True)]}])
    except ValueError as e:
        log.append(repr((e,)))
    return log


def test_lbfgs_as_torch():
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither warns: the losses are converted under no_grad
        assert _lbfgs(ja) == _lbfgs(torch)


@pytest.mark.parametrize("convert", [float, complex])
def test_scalar_conversion_warns_only_with_grad_mode_on(convert):
    from jupyter_autograd import _tensor_convert

    warned = list(_tensor_convert._SCALAR_WARNED)
    _tensor_convert._SCALAR_WARNED.clear()  # it warns once per process: make this the first
    a = ja.ones(1, requires_grad=True).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ja.no_grad():
            assert convert(a) == 1
    _tensor_convert._SCALAR_WARNED[:] = warned
    assert not a.is_sparse and not a.is_quantized
