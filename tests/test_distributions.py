"""Issue 14 (teaching code): torch.distributions' Normal, Categorical and Bernoulli as torch's:
the same samples after manual_seed, rsample's gradient, log_prob, entropy, moments, shapes,
expand, reprs, and argument/sample validation errors (a policy-gradient loop uses
Categorical(logits=...).sample() and log_prob)."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch


def _dists(t):
    D = t.distributions
    out = []
    t.manual_seed(0)
    n = D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0]))
    out.append(repr((n, n.batch_shape, n.event_shape, n.mean, n.stddev, n.variance)))
    out.append(repr((n.sample(), n.sample((3,)).shape, n.log_prob(t.tensor([0.5, 0.5])))))
    out.append(repr((n.entropy(), n.cdf(t.tensor([0.0, 1.0])), n.icdf(t.tensor([0.5, 0.9])))))
    loc = t.tensor(0.5, requires_grad=True)
    r = D.Normal(loc, 1.0).rsample((4,))
    r.sum().backward()
    out.append(repr((r, loc.grad, D.Normal(0.0, 1.0), D.Normal(0.0, 1.0).batch_shape)))
    out.append(repr(D.Normal(t.zeros(3), 1.0)))
    e = n.expand((4, 2))
    out.append(repr((type(e).__name__, e.batch_shape, e.sample().shape)))

    logits = t.tensor([[0.1, 0.5, 0.2], [1.0, -1.0, 0.0]], requires_grad=True)
    c = D.Categorical(logits=logits)
    a = c.sample()
    lp = c.log_prob(a)
    (-lp.sum()).backward()
    out.append(repr((c, c.batch_shape, a, lp, c.probs, c.logits, logits.grad)))
    out.append(repr((c.entropy(), c.mode, c.sample((2,)).shape, c.enumerate_support())))
    cp = D.Categorical(probs=t.tensor([2.0, 1.0, 1.0]))
    out.append(repr((cp, cp.probs, cp.logits, cp.sample((5,)), cp.support, cp.mean)))

    b = D.Bernoulli(probs=t.tensor([0.2, 0.9]))
    out.append(repr((b, b.sample((3,)), b.log_prob(t.tensor([1.0, 0.0])), b.entropy())))
    bl = D.Bernoulli(logits=0.3)
    out.append(repr((bl, bl.probs, bl.mean, bl.variance, bl.sample(), bl.enumerate_support())))
    out.append(repr((D.Bernoulli(0.5).mode, D.Normal(0.0, 1.0).has_rsample, D.constraints.simplex)))
    out.append(repr(t.rand(1)))

    for bad in (
        lambda: D.Normal(0.0, -1.0),
        lambda: D.Categorical(probs=t.tensor([0.5, -0.5])),
        lambda: D.Categorical(),
        lambda: D.Bernoulli(probs=1.5),
        lambda: D.Normal(0.0, 1.0).log_prob(1.0),
        lambda: D.Bernoulli(0.5).log_prob(t.tensor(0.5)),
        lambda: D.Categorical(logits=t.zeros(3)).log_prob(t.tensor(5)),
    ):
        try:
            bad()
        except ValueError as err:
            out.append(str(err))
    out.append(repr(D.Normal(0.0, -1.0, validate_args=False)))
    return out


def test_distributions_as_torch():
    torch = require_torch()
    assert _dists(ja) == _dists(torch)
