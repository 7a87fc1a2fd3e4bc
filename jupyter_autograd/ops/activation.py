"""Activation rows: elu (and celu/selu through it, as torch), silu, mish, hardswish,
hardsigmoid, threshold, softshrink, hardshrink, hardtanh (relu6), prelu,
glu. Each is declared by its forward and its derivative ``d(xp, x, out, p)``."""

from __future__ import annotations

import numpy as np

from .registry import AUTO_ELEMENT_WISE, Refuse, defop, kernel_refuses, no_complex_autograd


def _F(m):
    return m.nn.functional


def act(name, node, fwd, d, saved=("self",), call=None, domain=(-4, 4), smooth=True, complex=None):
    """An elementwise activation row: VJP ``g * d`` (the JVP derived from it); ``call(F, x)``
    samples it."""
    call = call or (lambda F, x, _n=name: getattr(F, _n)(x))

    def cases(rng):
        x = rng.uniform(*domain, (3, 4))
        x = np.where(np.abs(np.round(x) - x) < 0.02, x + 0.05, x)  # off the kinks at integers
        return [(None, [x], lambda tt, t: call(tt.nn.functional, t))]

    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=fwd,
        vjp=lambda xp, g, x, out, p: g * d(xp, x, out, p),
        jvp=AUTO_ELEMENT_WISE,
        smooth=smooth,
        sample={"cases": cases},
        complex=complex or kernel_refuses(f"{name}_cpu"),
    )


def _sig(xp, x):
    return 0.5 * xp.tanh(0.5 * x) + 0.5


def _p(p, k, default):
    return default if p is None else p.get(k, default)


# elu(x) = scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1)); celu and selu are elu
# with constants, as torch records them (EluBackward0)
def _elu_fwd(xp, x, p):
    a, s, i = _p(p, "alpha", 1.0), _p(p, "scale", 1.0), _p(p, "input_scale", 1.0)
    return xp.where(x > 0, x * s, xp.expm1(x * i) * (a * s)).astype(x.dtype)


def _elu_d(xp, x, out, p):
    a, s, i = _p(p, "alpha", 1.0), _p(p, "scale", 1.0), _p(p, "input_scale", 1.0)
    return xp.where(x > 0, s, xp.exp(x * i) * (a * s * i))


ELU = act(
    "elu",
    "EluBackward0",
    _elu_fwd,
    _elu_d,
    saved=("alpha", "input_scale", "scale", "self"),
    call=lambda F, x: F.elu(x, 0.7),
)
_NEGATIVE_SLOPE_ELU = (
    "In-place elu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)


def _elu_d_result(xp, x, out, p):
    """elu's derivative from its result, torch's elu_backward with is_result: the in-place
    forms keep only the result (the input is overwritten); it inverts only for alpha >= 0."""
    a, s, i = _p(p, "alpha", 1.0), _p(p, "scale", 1.0), _p(p, "input_scale", 1.0)
    if a < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_ELU)
    return xp.where(out <= 0, (out + a * s) * i, s)


def _inplace_case(call):
    """Samples of an in-place row: written into a non-leaf copy (a leaf that requires grad
    refuses in-place ops)."""

    def cases(rng):
        x = rng.uniform(-4, 4, (3, 4))
        x = np.where(np.abs(np.round(x) - x) < 0.02, x + 0.05, x)
        return [(None, [x], lambda tt, t: call(tt.nn.functional, t * 1))]

    return cases


def _act_inplace(name, node, fwd, d, saved, call, kernel=None):
    """An in-place activation's row: torch records its own node, which saves the result."""
    return defop(
        name,
        node=node,
        inputs=("self",),
        saved=saved,
        fwd=fwd,
        vjp=lambda xp, g, x, out, p: g * d(xp, x, out, p),
        jvp=AUTO_ELEMENT_WISE,
        smooth=False,
        sample={"cases": _inplace_case(call)},
        complex=kernel_refuses(f"{kernel or name[:-1]}_cpu"),
    )


ELU_ = _act_inplace(
    "elu_",
    "EluBackward1",
    _elu_fwd,
    _elu_d_result,
    ("alpha", "input_scale", "result", "scale"),
    lambda F, x: F.elu(x, 0.7, inplace=True),
)


# celu is its own row in torch (CeluBackward0/1), elu's formulas with input_scale 1 / alpha;
# its backward divides by alpha rounded to float (derivatives.yaml: 1.0 / alpha.toFloat())
def _celu_backward_params(p):
    return {**p, "input_scale": 1.0 / float(np.float32(p["alpha"]))}


CELU = act(
    "celu",
    "CeluBackward0",
    _elu_fwd,
    lambda xp, x, out, p: _elu_d(xp, x, out, _celu_backward_params(p)),
    saved=("alpha", "self"),
    call=lambda F, x: F.celu(x, 0.7),
    complex=kernel_refuses("elu_cpu"),
)
CELU_ = _act_inplace(
    "celu_",
    "CeluBackward1",
    _elu_fwd,
    lambda xp, x, out, p: _elu_d_result(xp, x, out, _celu_backward_params(p)),
    ("alpha", "result"),
    lambda F, x: F.celu(x, 0.7, inplace=True),
    kernel="elu",
)
# silu = x sigmoid(x): d = s (1 + x (1 - s))
SILU = act(
    "silu",
    "SiluBackward0",
    lambda xp, x, p: x * _sig(xp, x),
    lambda xp, x, out, p: _sig(xp, x) * (1 + x * (1 - _sig(xp, x))),
    complex=no_complex_autograd("silu"),
)


# mish = x tanh(softplus(x)): d = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)
def _softplus1(xp, x):
    return (
        xp.logaddexp(x, 0.0) if not xp.is_txp else xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0.0)
    )


def _mish_d(xp, x, out, p):
    t = xp.tanh(_softplus1(xp, x))
    return t + x * _sig(xp, x) * (1 - t * t)


MISH = act("mish", "MishBackward0", lambda xp, x, p: x * xp.tanh(_softplus1(xp, x)), _mish_d)
# hardswish = x relu6(x + 3) / 6: torch's backward is 0 below -3, x/3 + 1/2 up to 3 (inclusive)
HARDSWISH = act(
    "hardswish",
    "HardswishBackward0",
    lambda xp, x, p: x * xp.minimum(xp.maximum(x + 3, 0.0), 6.0) / 6,
    lambda xp, x, out, p: xp.where(x < -3, 0.0, xp.where(x <= 3, x / 3 + 0.5, 1.0)),
    smooth=False,
)
HARDSIGMOID = act(
    "hardsigmoid",
    "HardsigmoidBackward0",
    lambda xp, x, p: xp.minimum(xp.maximum(x + 3, 0.0), 6.0) / 6,
    # torch's kernel multiplies by the float constant 1.0f / 6 in every dtype
    lambda xp, x, out, p: ((x > -3) & (x < 3)) * float(np.float32(1.0 / 6)),
    smooth=False,
)
THRESHOLD = act(
    "threshold",
    "ThresholdBackward0",
    lambda xp, x, p: (
        xp.where(x > p["threshold"], x, xp.asarray(p["value"], dtype=x.dtype))
        if not xp.is_txp
        else xp.where(x > p["threshold"], x, p["value"])
    ),
    lambda xp, x, out, p: x > p["threshold"],
    saved=("self", "threshold"),
    smooth=False,
    call=lambda F, x: F.threshold(x, 0.5, -2.0),
)
# threshold_ saves the input before it is overwritten (torch clones it), not its result
THRESHOLD_ = _act_inplace(
    "threshold_",
    "ThresholdBackward1",
    THRESHOLD.fwd,
    lambda xp, x, out, p: x > p["threshold"],
    ("self", "threshold"),
    lambda F, x: F.threshold(x, 0.5, -2.0, inplace=True),
)
SOFTSHRINK = act(
    "softshrink",
    "SoftshrinkBackward0",
    lambda xp, x, p: (
        xp.where(
            x > p["lambd"], x - p["lambd"], xp.where(x < -p["lambd"], x + p["lambd"], 0.0)
        ).astype(x.dtype)
        if not xp.is_txp
        else xp.where(
            x > p["lambd"], x - p["lambd"], xp.where(x < -p["lambd"], x + p["lambd"], 0.0)
        )
    ),
    lambda xp, x, out, p: (x > p["lambd"]) | (x < -p["lambd"]),
    saved=("lambd", "self"),
    smooth=False,
    call=lambda F, x: F.softshrink(x, 0.7),
    complex=kernel_refuses("softshrink_check"),
)
HARDSHRINK = act(
    "hardshrink",
    "HardshrinkBackward0",
    lambda xp, x, p: (
        xp.where((x >= -p["lambd"]) & (x <= p["lambd"]), 0.0, x).astype(x.dtype)
        if not xp.is_txp
        else xp.where((x >= -p["lambd"]) & (x <= p["lambd"]), 0.0, x)
    ),
    lambda xp, x, out, p: (x < -p["lambd"]) | (x > p["lambd"]),
    saved=("lambd", "self"),
    smooth=False,
    call=lambda F, x: F.hardshrink(x, 0.7),
)
# hardtanh: the gradient passes strictly inside (min_val, max_val), as torch's hardtanh_backward
HARDTANH = act(
    "hardtanh",
    "HardtanhBackward0",
    lambda xp, x, p: xp.minimum(xp.maximum(x, p["min_val"]), p["max_val"]),
    lambda xp, x, out, p: (x > p["min_val"]) & (x < p["max_val"]),
    saved=("max_val", "min_val", "self"),
    smooth=False,
    call=lambda F, x: F.hardtanh(x, -0.5, 1.5),
    complex=Refuse(NotImplementedError, "clamp is not supported for complex types"),
)


# prelu(x, w): w (one value, or one per channel: dim 1) scales the negative part
def _prelu_w(xp, w, x):
    if x.ndim >= 2 and w.shape and w.shape[0] > 1:
        return xp.reshape(w, (1, -1) + (1,) * (x.ndim - 2))
    return xp.reshape(w, ()) if w.ndim and w.size == 1 and x.ndim < 2 else w


def _prelu_w_vjp(xp, g, x, w, out, p):
    # the weight's gradient summed over everything but its channel (dim 1)
    gx = xp.where(x > 0, 0.0, g * x)
    if w.size == 1:
        return xp.reshape(xp.sum(gx), w.shape)
    return xp.sum(gx, axis=tuple(i for i in range(x.ndim) if i != 1))


PRELU = defop(
    "_prelu_kernel",
    node="PreluKernelBackward0",
    inputs=("self", "weight"),
    saved=("self", "weight"),
    complex=kernel_refuses("prelu_cpu"),
    fwd=lambda xp, x, w, p: xp.where(x > 0, x, x * _prelu_w(xp, w, x)),
    vjp=(lambda xp, g, x, w, out, p: xp.where(x > 0, g, g * _prelu_w(xp, w, x)), _prelu_w_vjp),
    jvp=lambda xp, t, x, out, p: xp.where(
        x[0] > 0, t[0], t[0] * _prelu_w(xp, x[1], x[0]) + x[0] * _prelu_w(xp, t[1], x[0])
    ),
    smooth=False,
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-3, 3, (2, 3, 4)) + 0.01, rng.uniform(0.1, 0.5, (3,))],
                lambda tt, x, w: tt.nn.functional.prelu(x, w),
            )
        ]
    },
)


# glu(x, dim): a sigmoid(b) for the two halves a, b along dim
def _halves(xp, x, d):
    n = x.shape[d] // 2
    lead = (slice(None),) * (d % x.ndim)
    return x[lead + (slice(0, n),)], x[lead + (slice(n, 2 * n),)]


def _glu_vjp(xp, g, x, out, p):
    a, b = _halves(xp, x, p["dim"])
    s = _sig(xp, b)
    return xp.concatenate([g * s, g * a * s * (1 - s)], axis=p["dim"])


def _glu_jvp(xp, t, x, out, p):
    a, b = _halves(xp, x[0], p["dim"])
    ta, tb = _halves(xp, t[0], p["dim"])
    s = _sig(xp, b)
    return ta * s + a * s * (1 - s) * tb


GLU = defop(
    "glu",
    node="GluBackward0",
    inputs=("self",),
    saved=("dim", "self"),
    complex=kernel_refuses("glu_cpu"),
    fwd=lambda xp, x, p: _halves(xp, x, p["dim"])[0] * _sig(xp, _halves(xp, x, p["dim"])[1]),
    vjp=_glu_vjp,
    jvp=_glu_jvp,
    sample={
        "cases": lambda rng: [
            (None, [rng.uniform(-3, 3, (3, 4))], lambda tt, x: tt.nn.functional.glu(x, 1))
        ]
    },
)


# rrelu_with_noise: the negative part scaled by the noise drawn for it in training, by the mean
# slope (lower + upper) / 2 otherwise; torch's backward uses the noise only where the bounds
# differ by more than 1e-6
def _rrelu_noisy(p):
    return p["training"] and p["upper"] - p["lower"] > 1e-6


def _rrelu_fwd(xp, x, p):
    if p["training"]:
        return x * p["noise"]._data
    return xp.where(x > 0, x, x * ((p["lower"] + p["upper"]) / 2))


def _rrelu_d(xp, x, out, p):
    if _rrelu_noisy(p):
        return p["noise"]._data
    return xp.where(x > 0, 1.0, (p["lower"] + p["upper"]) / 2)


def _rrelu_case(inplace):
    def cases(rng):
        x = rng.uniform(-3, 3, (3, 4)) + 0.01
        return [
            (
                None,
                [x],
                lambda tt, t: tt.nn.functional.rrelu(t * 1, 0.1, 0.3, False, inplace=inplace),
            )
        ]

    return cases


RRELU = defop(
    "rrelu_with_noise",
    node="RreluWithNoiseBackward0",
    inputs=("self",),
    saved=("lower", "noise", "self", "training", "upper"),
    fwd=_rrelu_fwd,
    vjp=lambda xp, g, x, out, p: g * _rrelu_d(xp, x, out, p),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample={"cases": _rrelu_case(False)},
    complex=kernel_refuses("leaky_relu_cpu"),
)
RRELU_ = defop(
    "rrelu_with_noise_",
    node="RreluWithNoiseBackward1",
    inputs=("self",),
    saved=("lower", "noise", "result", "training", "upper"),
    fwd=_rrelu_fwd,
    # the result's sign is the input's (the slopes are positive)
    vjp=lambda xp, g, x, out, p: g * _rrelu_d(xp, out, out, p),  # no forward AD in torch
    smooth=False,
    sample={"kind": "cases", "cases": _rrelu_case(True)},
    complex=kernel_refuses("leaky_relu_cpu"),
)
