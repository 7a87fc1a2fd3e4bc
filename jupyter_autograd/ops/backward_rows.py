"""torch's backward kernels as rows of their own: ``tanh_backward``, ``sigmoid_backward``,
``threshold_backward`` (relu), ``leaky_relu_backward``, ``softplus_backward``,
``log_sigmoid_backward``, ``_softmax_backward_data``, ``_log_softmax_backward_data``,
``mse_loss_backward`` and ``native_layer_norm_backward``.

derivatives.yaml writes the gradient of tanh as ``tanh_backward(grad, result)``, an op with a
formula of its own, so a gradient taken with ``create_graph=True`` records
``TanhBackwardBackward0`` over the incoming gradient and the result. The parent rows' VJPs call
these rows with ``xp.call``: on arrays (the first-order backward) that is the row's forward,
the plain array formula; under create_graph the row is applied and records its node, whose
own VJPs are torch's double-backward formulas.

The rows take the incoming gradient first (``grad_output``), as torch's kernels; their
``sample`` cases compare them with ``torch.ops.aten.<name>``.
"""

from __future__ import annotations

import numpy as np

from .registry import (
    AS_WRITTEN,
    ELEMENTWISE,
    OPS,
    UNDEFINED_GRAD,
    Refuse,
    ShiftDims,
    defop,
    kernel_refuses,
)


def _dispatch():
    from . import dispatch

    return dispatch


def _zero(xp, g, *_):
    """torch's ``zeros_like(grad)``: no history, and 0 even where the gradient is inf or nan."""
    return g.new_zeros(g.shape) if xp.is_txp else xp.zeros_like(g)


def _cases(name, n_in, params=None, theirs=None, domain=(-2, 2), shape=(3, 4), first_shape=None):
    """Sample cases: row ``name`` applied to ``n_in`` random inputs, and torch's aten op."""

    def build(rng):
        row = OPS[name]
        shapes = [first_shape or shape] + [shape] * (n_in - 1)
        arrays = [rng.uniform(*domain, s) for s in shapes]
        arrays = [np.where(np.abs(a) < 0.05, a + 0.1, a) for a in arrays]  # off the kinks at 0

        def ours(*ts):
            return _dispatch().apply(row, ts, dict(params) if params else None)

        return [(ours, arrays, theirs)]

    return {"cases": build}


def _conj(xp, x):
    """conj of a complex array or tensor; a real one as it is (no copy, no node)."""
    if xp.is_txp:
        return xp.conj(x)
    return xp.conj(x) if x.dtype.kind == "c" else x


def on_result(row, p=None):
    """The VJP ``row(grad, result, p)`` of a row whose gradient is one of torch's backward
    kernels (tanh's ``tanh_backward(grad, result)``): the kernel's forward on arrays, in one
    call (``xp.call`` is one more frame per node), and the kernel row applied under
    create_graph, which records its node (its own double backward)."""

    def vjp(xp, g, x, out, _):
        if xp.is_txp:
            return xp.call(row, g, out, p=p)
        return row.fwd(xp, g, out, p)  # read per call: the profiler swaps a row's fwd

    return vjp


# ---------------------------------------------------------------- tanh, sigmoid
# torch's kernels conjugate the derivative for complex tensors (go * conj(1 - o^2)): the rows
# are written in torch's convention, as derivatives.yaml's formulas (complex=AS_WRITTEN)
TANH_BACKWARD = defop(
    "tanh_backward",
    node="TanhBackwardBackward0",
    inputs=("grad_output", "output"),
    saved=("grad_output", "output"),
    complex=AS_WRITTEN,
    batch=ELEMENTWISE,
    # _conj's test inline: the first-order backward of every tanh node runs this
    fwd=lambda xp, go, o, p: (
        go * (1 - o * o if not xp.is_txp and o.dtype.kind != "c" else _conj(xp, 1 - o * o))
    ),
    # torch: tanh_backward(grad, output.conj()), grad.conj() * (-2 * output.conj() * grad_output)
    vjp=(
        lambda xp, g, go, o, out, p: xp.call(TANH_BACKWARD, g, _conj(xp, o)),
        lambda xp, g, go, o, out, p: _conj(xp, g) * (xp.mul_scalar(_conj(xp, o), -2) * go),
    ),
    reads=({0, 1}, {0, 1}),  # torch keeps both inputs whenever the node exists
    jvp=lambda xp, t, x, out, p: (
        t[0] * _conj(xp, 1 - x[1] * x[1]) + _conj(xp, t[1]) * (-2 * _conj(xp, x[1]) * x[0])
    ),
    sample=_cases("tanh_backward", 2, theirs=lambda tt, go, o: tt.ops.aten.tanh_backward(go, o)),
)
SIGMOID_BACKWARD = defop(
    "sigmoid_backward",
    node="SigmoidBackwardBackward0",
    inputs=("grad_output", "output"),
    saved=("grad_output", "output"),
    complex=AS_WRITTEN,
    batch=ELEMENTWISE,
    fwd=lambda xp, go, o, p: (
        go * (o * (1 - o) if not xp.is_txp and o.dtype.kind != "c" else _conj(xp, o * (1 - o)))
    ),
    # torch: sigmoid_backward(grad, output.conj()), grad.conj() * grad_output *
    # (-2 * output.conj() + 1)
    vjp=(
        lambda xp, g, go, o, out, p: xp.call(SIGMOID_BACKWARD, g, _conj(xp, o)),
        lambda xp, g, go, o, out, p: (
            _conj(xp, g) * go * xp.add_scalar(xp.mul_scalar(_conj(xp, o), -2), 1)
        ),
    ),
    reads=({0, 1}, {0, 1}),  # torch keeps both inputs whenever the node exists
    jvp=lambda xp, t, x, out, p: (
        t[0] * _conj(xp, x[1] * (1 - x[1])) + _conj(xp, t[1]) * x[0] * (1 - 2 * _conj(xp, x[1]))
    ),
    sample=_cases(
        "sigmoid_backward", 2, theirs=lambda tt, go, o: tt.ops.aten.sigmoid_backward(go, o)
    ),
)


# ---------------------------------------------------------------- piecewise-linear activations
def _threshold_backward(xp, go, x, p):
    """The gradient where ``self > threshold``, 0 elsewhere (NaN in self passes it, as torch's
    ``self <= threshold ? 0 : grad``); cut by a mask, so an inf/nan gradient gives 0 there."""
    return xp.zero_where(x <= p["threshold"], go)


THRESHOLD_BACKWARD = defop(
    "threshold_backward",
    node="ThresholdBackwardBackward0",
    inputs=("grad_output", "self"),
    saved=("self", "threshold"),
    complex=kernel_refuses("threshold_cpu"),
    batch=ELEMENTWISE,
    fwd=_threshold_backward,
    vjp=(lambda xp, g, go, x, out, p: xp.call(THRESHOLD_BACKWARD, g, x, p=p), _zero),
    jvp=lambda xp, t, x, out, p: _threshold_backward(xp, t[0], x[1], p),
    smooth=False,
    sample=_cases(
        "threshold_backward",
        2,
        {"threshold": 0.0},
        lambda tt, go, x: tt.ops.aten.threshold_backward(go, x, 0.0),
    ),
)


def _leaky_backward(xp, go, x, p):
    return go * xp.where(x > 0, 1.0, p["negative_slope"])


LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward",
    node="LeakyReluBackwardBackward0",
    inputs=("grad_output", "self"),
    saved=("negative_slope", "self"),
    complex=kernel_refuses("leaky_relu_backward_cpu"),
    batch=ELEMENTWISE,
    fwd=_leaky_backward,
    vjp=(lambda xp, g, go, x, out, p: xp.call(LEAKY_RELU_BACKWARD, g, x, p=p), _zero),
    jvp=lambda xp, t, x, out, p: _leaky_backward(xp, t[0], x[1], p),
    smooth=False,
    sample=_cases(
        "leaky_relu_backward",
        2,
        {"negative_slope": 0.1},
        lambda tt, go, x: tt.ops.aten.leaky_relu_backward(go, x, 0.1, False),
    ),
)


# ---------------------------------------------------------------- softplus, log_sigmoid
def softplus_grad(xp, x, p):
    """d/dx softplus: exp(beta x) / (exp(beta x) + 1), 1 where beta x > threshold."""
    xb = x * p["beta"]
    with np.errstate(over="ignore", invalid="ignore"):
        z = xp.exp(xb)
        return xp.where(xb > p["threshold"], 1.0, z / (z + 1))


def _softplus_double(xp, g, go, x, out, p):
    # torch's softplus_double_backward(grad * grad_output, self, beta, threshold):
    # sigmoid_backward(gg, sigmoid(x beta)) * (x beta < threshold) * beta
    xb = xp.mul_scalar(x, p["beta"])
    sb = xp.call(SIGMOID_BACKWARD, g * go, xp.sigmoid(xb))
    return xp.mul_scalar(sb * (xb < p["threshold"]), p["beta"])


SOFTPLUS_BACKWARD = defop(
    "softplus_backward",
    node="SoftplusBackwardBackward0",
    inputs=("grad_output", "self"),
    saved=("beta", "grad_output", "self", "threshold"),
    complex=kernel_refuses("softplus_backward_cpu"),
    batch=ELEMENTWISE,
    fwd=lambda xp, go, x, p: go * softplus_grad(xp, x, p),
    vjp=(lambda xp, g, go, x, out, p: xp.call(SOFTPLUS_BACKWARD, g, x, p=p), _softplus_double),
    reads=({0, 1}, {0, 1}),  # torch keeps both inputs whenever the node exists
    jvp=lambda xp, t, x, out, p: (
        t[0] * softplus_grad(xp, x[1], p) + _softplus_double(xp, t[1], x[0], x[1], out, p)
    ),
    smooth=False,
    sample=_cases(
        "softplus_backward",
        2,
        {"beta": 2.0, "threshold": 4.0},
        lambda tt, go, x: tt.ops.aten.softplus_backward(go, x, 2.0, 4.0),
    ),
)


def log_sigmoid_grad(xp, x):
    """d/dx log sigmoid(x) = 1 - sigmoid(x) = z / (1 + z) for x >= 0, 1 - z / (1 + z) below
    (z = exp(-|x|)), as torch's kernel."""
    z = xp.exp(-xp.abs(x))
    q = z / (1 + z)
    return xp.where(x < 0, 1 - q, q)


def _log_sigmoid_double(xp, g, go, x, out, p):
    # torch's log_sigmoid_double_backward(grad * grad_output, self): gg * (z - 1) * z, z = sigmoid
    z = xp.sigmoid(x)
    return (g * go) * xp.sub_scalar(z, 1) * z


def _log_sigmoid_case(rng):
    from ..tensor import Tensor

    x = rng.uniform(-3, 3, (3, 4))
    go = rng.uniform(-2, 2, (3, 4))

    def ours(g, t):
        buf = Tensor._wrap(np.exp(-np.abs(t._data)))
        return _dispatch().apply(LOG_SIGMOID_BACKWARD, (g, t), {"buffer": buf._data})

    return [
        (
            ours,
            [go, x],
            lambda tt, g, t: tt.ops.aten.log_sigmoid_backward(
                g, t, tt.exp(-t.detach().abs()).to(t.dtype)
            ),
        )
    ]


LOG_SIGMOID_BACKWARD = defop(
    "log_sigmoid_backward",
    node="LogSigmoidBackwardBackward0",
    inputs=("grad_output", "self"),
    saved=("buffer", "grad_output", "self"),
    complex=kernel_refuses("log_sigmoid_backward_cpu"),
    batch=ELEMENTWISE,
    fwd=lambda xp, go, x, p: go * log_sigmoid_grad(xp, x),
    vjp=(
        lambda xp, g, go, x, out, p: xp.call(LOG_SIGMOID_BACKWARD, g, x, p=p),
        _log_sigmoid_double,
    ),
    # torch's formulas read grad_output, self and buffer whichever gradient is computed
    reads=((0, 1), (0, 1)),
    jvp=lambda xp, t, x, out, p: (
        t[0] * log_sigmoid_grad(xp, x[1]) + _log_sigmoid_double(xp, t[1], x[0], x[1], out, p)
    ),
    sample={"cases": _log_sigmoid_case},
)


# ---------------------------------------------------------------- softmax, log_softmax


def softmax_kernel(name):
    """torch's kernel error for a complex softmax: the last-dim kernel names itself apart."""

    def message(p, x):
        last = x.ndim <= 1 or p["dim"] % x.ndim == x.ndim - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        return f"\"{kernel}\" not implemented for '{{dtype}}'"

    return message


def _softmax_double(xp, g, go, o, out, p):
    # torch's softmax_double_backward(grad, grad_output, dim, output)
    d = p["dim"]
    return go * g - xp.keep_reduce(o * go, d, "sum") * g - go * xp.keep_reduce(o * g, d, "sum")


def _softmax_cases(row, aten):
    def build(rng):
        go, o = rng.uniform(-2, 2, (3, 4)), rng.uniform(0.1, 1, (3, 4))
        return [
            (
                lambda g, y: _dispatch().apply(row(), (g, y), {"dim": 1}),
                [go, o],
                lambda tt, g, y: getattr(tt.ops.aten, aten)(g, y, 1, y.dtype),
            )
        ]

    return {"cases": build}


SOFTMAX_BACKWARD_DATA = defop(
    "_softmax_backward_data",
    node="SoftmaxBackwardDataBackward0",
    inputs=("grad_output", "output"),
    saved=("dim", "grad_output", "output"),
    complex=Refuse(NotImplementedError, softmax_kernel("softmax_backward")),
    batch=ShiftDims("dim"),
    fwd=lambda xp, go, o, p: o * (go - xp.keep_reduce(go * o, p["dim"], "sum")),
    vjp=(lambda xp, g, go, o, out, p: xp.call(SOFTMAX_BACKWARD_DATA, g, o, p=p), _softmax_double),
    reads=({0, 1}, {0, 1}),  # torch keeps both whenever the node exists (as log_softmax's)
    # d(o (go - sum(go o))) = o (t_go - sum(t_go o)) + t_o (go - sum(go o)) - o sum(go t_o)
    jvp=lambda xp, t, x, out, p: (
        SOFTMAX_BACKWARD_DATA.fwd(xp, t[0], x[1], p)
        + t[1] * (x[0] - xp.keep_reduce(x[0] * x[1], p["dim"], "sum"))
        - x[1] * xp.keep_reduce(x[0] * t[1], p["dim"], "sum")
    ),
    sample=_softmax_cases(lambda: SOFTMAX_BACKWARD_DATA, "_softmax_backward_data"),
)
LOG_SOFTMAX_BACKWARD_DATA = defop(
    "_log_softmax_backward_data",
    node="LogSoftmaxBackwardDataBackward0",
    inputs=("grad_output", "output"),
    saved=("dim", "grad_output", "output"),
    complex=Refuse(NotImplementedError, softmax_kernel("log_softmax_backward")),
    batch=ShiftDims("dim"),
    fwd=lambda xp, go, o, p: go - xp.exp(o) * xp.keep_reduce(go, p["dim"], "sum"),
    # torch: grad - (grad * output.exp()).sum(dim, true), -grad_output.sum(dim, true) *
    # output.exp() * grad
    vjp=(
        lambda xp, g, go, o, out, p: g - xp.keep_reduce(g * xp.exp(o), p["dim"], "sum"),
        lambda xp, g, go, o, out, p: -xp.keep_reduce(go, p["dim"], "sum") * xp.exp(o) * g,
    ),
    # torch keeps grad_output whenever the node exists (its saved-tensor hooks see both packs
    # with grad_output alone requiring grad), as if both formulas read it
    reads=({0, 1}, {0, 1}),
    jvp=lambda xp, t, x, out, p: (
        t[0]
        - xp.exp(x[1]) * xp.keep_reduce(t[0], p["dim"], "sum")
        - xp.keep_reduce(x[0], p["dim"], "sum") * xp.exp(x[1]) * t[1]
    ),
    sample=_softmax_cases(lambda: LOG_SOFTMAX_BACKWARD_DATA, "_log_softmax_backward_data"),
)


# ---------------------------------------------------------------- mse_loss
def _unreduce(xp, g, r, shape):
    """Gradient of the reduction: the per-element factor, broadcast to ``shape``."""
    if r == 1:
        n = 1
        for s in shape:
            n *= s
        return xp.broadcast_to(g / n, shape)
    if r == 2:
        return xp.broadcast_to(g, shape)
    return g


def _mse_double(sign):
    # torch's mse_loss_double_backward(grad * grad_output, self, reduction): 2 * gg, divided
    # by numel for the mean (negated for the target)
    def rule(xp, g, go, x, y, out, p):
        r = xp.mul_scalar(g * go, 2)
        if p["reduction"] == 1:
            n = 1
            for s in p["shape"]:
                n *= s
            r = xp.div_scalar(r, n)
        return -r if sign < 0 else r

    return rule


MSE_LOSS_BACKWARD = defop(
    "mse_loss_backward",
    node="MseLossBackwardBackward0",
    inputs=("grad_output", "self", "target"),
    saved=("grad_output", "reduction", "self", "target"),
    complex=kernel_refuses("mse_backward_cpu_out"),
    fwd=lambda xp, go, x, y, p: _unreduce(xp, go, p["reduction"], p["shape"]) * (2 * (x - y)),
    vjp=(
        lambda xp, g, go, x, y, out, p: xp.call(MSE_LOSS_BACKWARD, g, x, y, p=p),
        _mse_double(1),
        _mse_double(-1),
    ),
    reads=((0, 1, 2),) * 3,  # torch keeps grad_output, self and target for each gradient
    jvp=lambda xp, t, x, out, p: (
        MSE_LOSS_BACKWARD.fwd(xp, t[0], x[1], x[2], p)
        + _mse_double(1)(xp, t[1], x[0], x[1], x[2], out, p)
        + _mse_double(-1)(xp, t[2], x[0], x[1], x[2], out, p)
    ),
    sample=_cases(
        "mse_loss_backward",
        3,
        {"reduction": 1, "shape": (3, 4)},
        lambda tt, go, x, y: tt.ops.aten.mse_loss_backward(go, x, y, 1),
        first_shape=(),
    ),
)


# ---------------------------------------------------------------- native_layer_norm
def norm_mean(xp, x, axes, empty=0.0):
    """``mean(x, axes)`` kept for broadcasting; over no elements it is ``empty`` (torch's layer
    norm of an empty normalized shape: mean 0, variance nan), without NumPy's warning."""
    n = 1
    for a in axes:
        n *= x.shape[a]
    s = xp.sum(x, axis=axes, keepdims=True)
    return s / n if n else s + empty


def _ln_parts(xp, x, mean, rstd, p):
    """(normalized axes, leading axes, xhat) of a layer norm's input."""
    k = len(p["normalized_shape"])
    axes = tuple(range(x.ndim - k, x.ndim))
    return axes, tuple(range(x.ndim - k)), (x - mean) * rstd


def _ln_proj(xp, v, xhat, r, axes):
    """rstd (v - mean(v) - xhat mean(xhat v)): the input gradient's linear map (self-adjoint)."""
    return r * (v - norm_mean(xp, v, axes) - xhat * norm_mean(xp, xhat * v, axes))


def _lead_sum(xp, v, lead):
    return xp.sum(v, axis=lead) if lead else v


def _ln_backward(xp, go, x, mean, rstd, w, b, p):
    # torch's native_layer_norm_backward: (grad_input, grad_weight, grad_bias)
    axes, lead, xhat = _ln_parts(xp, x, mean, rstd, p)
    gx = _ln_proj(xp, go * w if w is not None else go, xhat, rstd, axes)
    if w is None:  # no weight or bias gradient is asked for (torch's output_mask)
        return gx, xp.zeros_like(gx), xp.zeros_like(gx)
    return gx, _lead_sum(xp, go * xhat, lead), _lead_sum(xp, go, lead)


# torch's layer_norm_double_backward: g = (ggI, ggW, ggB), the gradients of the three outputs
def _ln_double_go(xp, g, go, x, mean, rstd, w, b, out, p):
    ggi, ggw, ggb = g
    axes, _lead, xhat = _ln_parts(xp, x, mean, rstd, p)
    r = _ln_proj(xp, ggi, xhat, rstd, axes)
    return r * w + (xhat * ggw + ggb) if w is not None else r


def _ln_double_x(xp, g, go, x, mean, rstd, w, b, out, p):
    # gx = r (A - xhat m), A = gh - mean(gh), m = mean(gh xhat), gh = go w; d xhat = L(dx),
    # d rstd = -rstd^2 mean(xhat dx); gw = sum(go xhat) adds L(go ggW)
    ggi, ggw, _ggb = g
    axes, _lead, xhat = _ln_parts(xp, x, mean, rstd, p)
    gh = go * w if w is not None else go
    m = norm_mean(xp, gh * xhat, axes)
    s1 = norm_mean(xp, ggi * xhat, axes)
    a = gh - norm_mean(xp, gh, axes)
    v = rstd * (m * ggi + s1 * gh)
    if w is not None:
        v = go * ggw - v
    else:
        v = -v
    coef = rstd * rstd * (norm_mean(xp, ggi * a, axes) - m * s1)
    return _ln_proj(xp, v, xhat, rstd, axes) - coef * xhat


def _ln_double_w(xp, g, go, x, mean, rstd, w, b, out, p):
    axes, _lead, xhat = _ln_parts(xp, x, mean, rstd, p)
    return go * _ln_proj(xp, g[0], xhat, rstd, axes)  # the engine sums over the leading dims


def _ln_backward_case(rng):
    x, go = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    w, b = rng.uniform(0.5, 2, (4,)), rng.uniform(-1, 1, (4,))

    def stats(t):  # the forward's mean and rstd, by the same operations under both libraries
        c = t.detach()
        mu = c.mean(1, keepdim=True)
        return mu, 1 / (((c - mu) * (c - mu)).mean(1, keepdim=True) + 1e-5).sqrt()

    def ours(g, t, wt, bt):
        gi, gw, gb = _dispatch().apply(
            NATIVE_LAYER_NORM_BACKWARD, (g, t, *stats(t), wt, bt), {"normalized_shape": (4,)}
        )
        return gi + gw + gb

    def theirs(tt, g, t, wt, bt):
        gi, gw, gb = tt.ops.aten.native_layer_norm_backward(
            g, t, (4,), *stats(t), wt, bt, [True, True, True]
        )
        return gi + gw + gb

    return [(ours, [go, x, w, b], theirs)]


NATIVE_LAYER_NORM_BACKWARD = defop(
    "native_layer_norm_backward",
    node="NativeLayerNormBackwardBackward0",
    inputs=("grad_out", "input", "mean", "rstd", "weight", "bias"),
    n_out=3,
    saved=("grad_out", "input", "mean", "normalized_shape", "rstd", "weight"),
    complex=kernel_refuses("LayerNormBackwardKernelImpl"),
    fwd=_ln_backward,
    # mean and rstd are not differentiable (torch lists their edges, empty); the bias's
    # gradient is undefined (its edge is kept)
    vjp=(_ln_double_go, _ln_double_x, UNDEFINED_GRAD, UNDEFINED_GRAD, _ln_double_w, UNDEFINED_GRAD),
    reads=((0, 1, 2, 3, 4),) * 6,
    # as torch's, the VJPs hold mean and rstd constant (non_differentiable): their own
    # derivative (layer norm's third order) leaves out how mean and rstd move with the input,
    # so gradgradcheck's finite differences (which move them) do not apply
    smooth=False,
    sample={"kind": "native_layer_norm_backward", "cases": _ln_backward_case},
)
