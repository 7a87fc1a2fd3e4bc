"""Issue 14 (teaching code): torch.utils.checkpoint (checkpoint, checkpoint_sequential; reentrant
and not) as torch's: grad_fn, values, gradients, the dropout mask recomputed from the saved
random state, the random state after, and the warnings."""

from __future__ import annotations

import warnings

import jupyter_autograd as ja

from ._torch import require as require_torch


def _checkpoint(torch):
    from_ck = torch.utils.checkpoint
    log = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = torch.ones(2, requires_grad=True)
        y = from_ck.checkpoint(lambda t: t.sin() * 2, x)
        log.append(
            repr(
                (
                    y.grad_fn.name(),
                    y,
                    len(y.grad_fn.next_functions),
                    type(y.grad_fn.next_functions[0][0]).__name__,
                )
            )
        )
        y.sum().backward()
        log.append(repr((x.grad,)))
        torch.manual_seed(0)
        d = torch.nn.Dropout(0.5)
        for re in (True, False):
            inp = torch.ones(6, requires_grad=True)
            y = from_ck.checkpoint(lambda t: d(t * 3), inp, use_reentrant=re)
            y.sum().backward()
            log.append(
                repr(
                    (
                        re,
                        y,
                        y.grad_fn.name(),
                        inp.grad,
                    )
                )
            )
        z = from_ck.checkpoint(lambda t: t * 3, torch.ones(2), use_reentrant=True)
        log.append(repr((z.requires_grad,)))
        torch.manual_seed(1)
        m = torch.nn.Sequential(
            torch.nn.Linear(2, 4),
            torch.nn.ReLU(),
            torch.nn.Linear(4, 4),
            torch.nn.Tanh(),
            torch.nn.Linear(4, 1),
        )
        for re in (True, False):
            inp = torch.ones(3, 2, requires_grad=True)
            o = from_ck.checkpoint_sequential(m, 2, inp, use_reentrant=re)
            o.sum().backward()
            log.append(
                repr(
                    (
                        re,
                        o.grad_fn.name(),
                        o.squeeze(1),
                        inp.grad[0],
                        m[0].weight.grad[0],
                    )
                )
            )
            m.zero_grad()
        a, b = torch.ones(2, requires_grad=True), torch.full((2,), 2.0, requires_grad=True)
        u, v = from_ck.checkpoint(lambda p, q, k: (p * q * k, p + 1), a, b, 3, use_reentrant=True)
        (u.sum() + v.sum()).backward()
        log.append(
            repr(
                (
                    u.grad_fn.name(),
                    a.grad,
                    b.grad,
                )
            )
        )
        log.append(repr((torch.rand(1),)))
    log.append(sorted({str(w.message) for w in caught}))
    return log


def test_checkpoint_as_torch():
    torch = require_torch()
    assert _checkpoint(ja) == _checkpoint(torch)
