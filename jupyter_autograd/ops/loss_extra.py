"""Loss rows torch records as one node: ``smooth_l1_loss`` (SmoothL1LossBackward0),
``huber_loss`` (HuberLossBackward0) and ``soft_margin_loss`` (SoftMarginLossBackward0).
``reduction`` is torch's enum: 0 none, 1 mean, 2 sum."""

from __future__ import annotations

import numpy as np

from .loss import _reduce, _unreduce
from .registry import defop, kernel_refuses, no_complex_autograd


def _smooth_elem(xp, d, beta):
    ad = xp.abs(d)
    return xp.where(ad < beta, (0.5 / beta) * d * d, ad - 0.5 * beta)


def _smooth_slope(xp, d, beta):
    """d/dd of the elementwise loss: d / beta inside (-beta, beta), sign(d) outside."""
    return xp.where(xp.abs(d) < beta, d * (1.0 / beta), xp.sign(d))


def _smooth_vjp(sign):
    def rule(xp, g, x, t, out, p):
        gx = _unreduce(xp, g, p["reduction"], _bshape(x, t)) * _smooth_slope(xp, x - t, p["beta"])
        return gx if sign > 0 else -gx

    return rule


def _bshape(x, t):
    """The broadcast shape of input and target (a target of another size warns and broadcasts)."""
    return (
        x.shape
        if x.shape == t.shape
        else tuple(
            max(a, b)
            for a, b in zip(
                (1,) * (len(t.shape) - len(x.shape)) + tuple(x.shape),
                (1,) * (len(x.shape) - len(t.shape)) + tuple(t.shape),
            )
        )
    )


def _loss_jvp(slope):
    def jvp(xp, t, x, out, p):
        d = x[0] - x[1]
        v = slope(xp, d, p) * (t[0] - t[1])
        return _reduce(xp, v, p["reduction"])

    return jvp


def _cases(fn, kw_list):
    def cases(rng):
        out = []
        for kw in kw_list:
            a = rng.uniform(-2, 2, (3, 4))
            b = a + rng.uniform(-3, 3, (3, 4))  # differences on both sides of beta/delta
            out.append(
                (None, [a, b], lambda tt, x, y, k=kw: getattr(tt.nn.functional, fn)(x, y, **k))
            )
        return out

    return cases


SMOOTH_L1 = defop(
    "smooth_l1_loss",
    node="SmoothL1LossBackward0",
    inputs=("self", "target"),
    saved=("beta", "reduction", "self", "target"),
    fwd=lambda xp, x, t, p: _reduce(xp, _smooth_elem(xp, x - t, p["beta"]), p["reduction"]),
    vjp=(_smooth_vjp(1), _smooth_vjp(-1)),
    jvp=_loss_jvp(lambda xp, d, p: _smooth_slope(xp, d, p["beta"])),
    smooth=False,
    complex=kernel_refuses("smooth_l1_cpu"),
    sample={
        "kind": "cases",
        "cases": _cases(
            "smooth_l1_loss",
            [{}, {"beta": 0.5, "reduction": "sum"}, {"beta": 2.0, "reduction": "none"}],
        ),
    },
)


def _huber_elem(xp, d, delta):
    ad = xp.abs(d)
    return xp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))


def _huber_slope(xp, d, delta):
    """d inside (-delta, delta), delta * sign(d) outside."""
    return xp.where(xp.abs(d) < delta, d, delta * xp.sign(d))


def _huber_vjp(sign):
    def rule(xp, g, x, t, out, p):
        gx = _unreduce(xp, g, p["reduction"], _bshape(x, t)) * _huber_slope(xp, x - t, p["delta"])
        return gx if sign > 0 else -gx

    return rule


HUBER = defop(
    "huber_loss",
    node="HuberLossBackward0",
    inputs=("self", "target"),
    saved=("delta", "reduction", "self", "target"),
    fwd=lambda xp, x, t, p: _reduce(xp, _huber_elem(xp, x - t, p["delta"]), p["reduction"]),
    vjp=(_huber_vjp(1), _huber_vjp(-1)),
    jvp=_loss_jvp(lambda xp, d, p: _huber_slope(xp, d, p["delta"])),
    smooth=False,
    complex=kernel_refuses("huber_cpu"),
    sample={
        "kind": "cases",
        "cases": _cases(
            "huber_loss",
            [{}, {"delta": 0.5, "reduction": "sum"}, {"delta": 2.0, "reduction": "none"}],
        ),
    },
)


# soft margin: log(1 + exp(-y x)); the target is not differentiable (torch refuses one that
# requires grad), so it is a parameter and the node has one edge, as torch's
def _soft_margin_vjp(xp, g, x, out, p):
    t = p["_target"]
    z = xp.exp(-t * x)
    shape = np.broadcast_shapes(x.shape, t.shape)
    return _unreduce(xp, g, p["reduction"], shape) * (-t * z / (1 + z))


def _soft_margin_cases(rng):
    out = []
    for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}):
        t = np.sign(rng.uniform(-1, 1, (3, 4)))
        out.append(
            (
                None,
                [rng.uniform(-2, 2, (3, 4))],
                lambda tt, x, k=kw, t=t: tt.nn.functional.soft_margin_loss(x, tt.tensor(t), **k),
            )
        )
    return out


SOFT_MARGIN = defop(
    "soft_margin_loss",
    node="SoftMarginLossBackward0",
    inputs=("self",),
    complex=no_complex_autograd("soft_margin_loss"),
    saved=("reduction", "self", "target"),
    fwd=lambda xp, x, p: _reduce(xp, xp.log1p(xp.exp(-p["_target"] * x)), p["reduction"]),
    vjp=_soft_margin_vjp,
    jvp=lambda xp, t, x, out, p: _reduce(
        xp, -p["_target"] * t[0] / (1 + xp.exp(p["_target"] * x[0])), p["reduction"]
    ),
    sample={"kind": "cases", "cases": _soft_margin_cases},
)
