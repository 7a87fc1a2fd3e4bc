"""Rows for random ops on tensors that require grad: torch records a node whose gradient is zero
(``BernoulliBackward0``, ``NormalBackward0-3``, ``UniformBackward0``, ...), so a sample drawn
from a parameter cuts the graph there. The samples themselves are drawn by ``_sampling`` (with
torch's values) and reach the row as ``p["sample"]``.

Example:
    >>> import jupyter_autograd as torch
    >>> x = torch.full((3,), 0.5, requires_grad=True)
    >>> y = torch.bernoulli(x)
    >>> y.grad_fn.name()
    'BernoulliBackward0'
    >>> y.sum().backward(); x.grad
    tensor([0., 0., 0.])
"""

from __future__ import annotations

from .registry import AS_WRITTEN, AUTO_ELEMENT_WISE, defop, no_complex_autograd


def _zero(xp, g, *rest):
    """d(sample)/d(parameter) = 0 in torch's formulas (``zeros_like(grad)``: an inf or nan
    incoming gradient gives 0 too, not g * 0)."""
    return g.new_zeros(g.shape) if xp.is_txp else xp.zeros_like(g)


def _zero_jvp(xp, t, x, out, p):
    return t[0] * 0 if t[0] is not None else None


def _sample(xp, *args):
    return args[-1]["sample"]


def _seeded(draw):
    """Registry cases: the draw after ``manual_seed(0)``, ours and torch's (same values)."""

    def cases(rng):
        p = rng.uniform(0.1, 0.9, (3, 4))

        def theirs(torch, *xs):
            torch.manual_seed(0)
            return draw(torch, *xs)

        return [(None, [p] * (draw.__code__.co_argcount - 1), theirs)]

    return {"cases": cases, "domain": (0.1, 0.9)}


def _row(name: str, node: str, draw, inputs=("self",), complex=AS_WRITTEN):
    rule = _zero if len(inputs) == 1 else tuple(_zero for _ in inputs)
    return defop(
        name,
        node=node,
        inputs=inputs,
        saved=(),
        fwd=_sample,
        vjp=rule,
        jvp=AUTO_ELEMENT_WISE if len(inputs) == 1 else _zero_jvp,
        smooth=False,
        sample=_seeded(draw),
        complex=complex,
    )


BERNOULLI = _row("bernoulli", "BernoulliBackward0", lambda T, x: T.bernoulli(x))
# a sample moves with its mean and std, but torch's gradient is zero by definition: the cases
# feed constant means/stds (m * 0, s * 0 + 1) so finite differences agree with that convention
NORMAL_TF = _row(
    "normal.Tensor_float",
    "NormalBackward1",
    lambda T, m: T.normal(m * 0, 0.5),
    inputs=("mean",),
    complex=no_complex_autograd("normal"),
)
NORMAL_FT = _row(
    "normal.float_Tensor", "NormalBackward2", lambda T, s: T.normal(0.5, s * 0 + 1), inputs=("std",)
)
NORMAL_TT = _row(
    "normal.Tensor_Tensor",
    "NormalBackward3",
    lambda T, m, s: T.normal(m * 0, s * 0 + 1),
    inputs=("mean", "std"),
)
# the in-place samplers on a tensor in a graph (x * 1 below: a non-leaf that requires grad)
NORMAL_ = _row("normal_", "NormalBackward0", lambda T, x: (x * 1).normal_(0.2, 2.0))
UNIFORM_ = _row("uniform_", "UniformBackward0", lambda T, x: (x * 1).uniform_(-1, 2))
BERNOULLI_F = _row("bernoulli_.float", "BernoulliBackward2", lambda T, x: (x * 1).bernoulli_(0.3))
BERNOULLI_T = _row(
    "bernoulli_.Tensor",
    "BernoulliBackward1",
    lambda T, x, q: (x * 1).bernoulli_(q),
    inputs=("self", "p"),
)
EXPONENTIAL_ = _row("exponential_", "ExponentialBackward0", lambda T, x: (x * 1).exponential_(2.0))
CAUCHY_ = _row("cauchy_", "CauchyBackward0", lambda T, x: (x * 1).cauchy_(0.5, 2.0))
LOG_NORMAL_ = _row("log_normal_", "LogNormalBackward0", lambda T, x: (x * 1).log_normal_(0.1, 0.5))
GEOMETRIC_ = _row("geometric_", "GeometricBackward0", lambda T, x: (x * 1).geometric_(0.4))
RANDOM_FROM = _row("random_.from", "RandomBackward0", lambda T, x: (x * 1).random_(-3, 7))
RANDOM_TO = _row("random_.to", "RandomBackward1", lambda T, x: (x * 1).random_(9))
RANDOM_ = _row("random_", "RandomBackward2", lambda T, x: (x * 1).random_())

#: in-place sampler name -> its row, with or without a tensor argument
INPLACE = {
    "normal_": NORMAL_,
    "uniform_": UNIFORM_,
    "exponential_": EXPONENTIAL_,
    "cauchy_": CAUCHY_,
    "log_normal_": LOG_NORMAL_,
    "geometric_": GEOMETRIC_,
    "random_.from": RANDOM_FROM,
    "random_.to": RANDOM_TO,
    "random_": RANDOM_,
    "bernoulli_.float": BERNOULLI_F,
    "bernoulli_.Tensor": BERNOULLI_T,
}
