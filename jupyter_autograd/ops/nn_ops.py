"""Rows that torch records as one node for ``nn`` layers: erf, gelu, leaky_relu,
native_layer_norm, embedding and native_dropout.

Values that torch computes in the forward and saves (layer norm's mean and rstd, dropout's
mask) are put into ``p`` so they show up as ``_saved_result1`` / ``_saved_result2``.
"""

from __future__ import annotations

import math

import numpy as np

from .backward_rows import (
    LEAKY_RELU_BACKWARD,
    LOG_SIGMOID_BACKWARD,
    NATIVE_LAYER_NORM_BACKWARD,
    SOFTPLUS_BACKWARD,
    log_sigmoid_grad,
    norm_mean,
    softplus_grad,
)
from .elementwise import _log_sigmoid
from .registry import (
    _CPP_NAMES,
    AUTO_ELEMENT_WISE,
    ELEMENTWISE,
    NO_GRAD,
    Refuse,
    defop,
    kernel_refuses,
    no_complex_autograd,
)

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_2_SQRTPI = 2.0 / math.sqrt(math.pi)
_erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def _np_erf(x):
    # NumPy has no erf; math.erf is correctly rounded, which the 1e-10 torch parity needs
    return np.asarray(_erf_ufunc(x), dtype=x.dtype) if x.ndim else np.asarray(math.erf(x), x.dtype)


def _erf(xp, x):
    """erf on raw arrays, or the recorded ERF row when the backward itself is recorded."""
    if xp.is_txp:
        from .dispatch import apply1

        return apply1(ERF, x)
    if xp.__name__ != "numpy":
        return xp.asarray(_np_erf(np.asarray(x.get())))  # CuPy: round-trip (cupyx is optional)
    return _np_erf(x)


# d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
ERF = defop(
    "erf",
    node="ErfBackward0",
    inputs=("self",),
    saved=("self",),
    batch=ELEMENTWISE,
    complex=kernel_refuses("erf_vml_cpu"),
    fwd=lambda xp, x, p: _erf(xp, x),
    # torch: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    vjp=lambda xp, g, x, out, p: xp.mul_scalar(xp.exp(-xp.pow_scalar(x, 2)), _2_SQRTPI) * g,
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (-3, 3)},
    torch=lambda torch, x: torch.erf(x),
)


# ---------------------------------------------------------------- gelu
def _gelu_fwd(xp, x, p):
    if p["approximate"] == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1 + xp.tanh(k * (x + 0.044715 * x * x * x)))
    return x * 0.5 * (1 + _erf(xp, x * _SQRT1_2))


# exact: d/dx x Phi(x) = Phi(x) + x phi(x); tanh form: differentiate 0.5 x (1 + tanh(u))
def _gelu_grad(xp, x, p):
    if p["approximate"] == "tanh":
        k = math.sqrt(2.0 / math.pi)
        x2 = x * x
        th = xp.tanh(k * (x + 0.044715 * x2 * x))
        return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * (k * (1 + 3 * 0.044715 * x2))
    cdf = 0.5 * (1 + _erf(xp, x * _SQRT1_2))
    return cdf + x * (_INV_SQRT_2PI * xp.exp(-0.5 * (x * x)))


# d2/dx2: exact (2 - x^2) phi(x); tanh form, with u = k (x + c x^3), th = tanh(u):
# (1 - th^2) (u' + x (u'' - 2 th u'^2) / 2)
def _gelu_grad2(xp, x, p):
    if p["approximate"] == "tanh":
        k, c = math.sqrt(2.0 / math.pi), 0.044715
        x2 = x * x
        th = xp.tanh(k * (x + c * x2 * x))
        du = k * (1 + 3 * c * x2)
        return (1 - th * th) * (du + 0.5 * x * (6 * k * c * x - 2 * th * du * du))
    return (2 - x * x) * (_INV_SQRT_2PI * xp.exp(-0.5 * (x * x)))


def _gelu_double(xp, g, go, x, out, p):
    # torch's gelu_double_backward(grad, grad_output, self): grad * grad_output * gelu''(self)
    return g * go * _gelu_grad2(xp, x, p)


def _gelu_backward_case(rng):
    def ours(go, x, a):
        return apply_row(GELU_BACKWARD, (go, x), {"approximate": a})

    x, go = rng.uniform(-3, 3, (3, 4)), rng.uniform(-2, 2, (3, 4))
    return [
        (
            lambda g, t, a=a: ours(g, t, a),
            [go, x],
            lambda tt, g, t, a=a: tt.ops.aten.gelu_backward(g, t, approximate=a),
        )
        for a in ("none", "tanh")
    ]


def apply_row(row, inputs, p):
    from .dispatch import apply

    return apply(row, inputs, p)


# torch: gelu_backward(grad, self, approximate), an op with its own double backward
GELU_BACKWARD = defop(
    "gelu_backward",
    node="GeluBackwardBackward0",
    inputs=("grad_output", "self"),
    saved=("approximate", "grad_output", "self"),
    batch=ELEMENTWISE,
    complex=kernel_refuses("GeluBackwardKernelImpl"),
    fwd=lambda xp, go, x, p: go * _gelu_grad(xp, x, p),
    vjp=(lambda xp, g, go, x, out, p: xp.call(GELU_BACKWARD, g, x, p=p), _gelu_double),
    reads=({0, 1}, {0, 1}),  # torch keeps both inputs whenever the node exists
    jvp=lambda xp, t, x, out, p: (
        t[0] * _gelu_grad(xp, x[1], p) + _gelu_double(xp, t[1], x[0], x[1], out, p)
    ),
    sample={"cases": _gelu_backward_case},
)
GELU = defop(
    "gelu",
    node="GeluBackward0",
    inputs=("self",),
    saved=("approximate", "self"),
    batch=ELEMENTWISE,
    complex=kernel_refuses("GeluKernelImpl"),
    integral=kernel_refuses("GeluKernelImpl"),
    fwd=_gelu_fwd,
    vjp=lambda xp, g, x, out, p: xp.call(GELU_BACKWARD, g, x, p=p),
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (-3, 3), "params": {"approximate": "none"}},
    torch=lambda torch, x, approximate: torch.nn.functional.gelu(x, approximate=approximate),
)


# ---------------------------------------------------------------- leaky_relu
def _leaky_grad(xp, x, p):
    return xp.where(x > 0, 1.0, p["negative_slope"])


LEAKY_RELU = defop(
    "leaky_relu",
    node="LeakyReluBackward0",
    inputs=("self",),
    batch=ELEMENTWISE,
    complex=kernel_refuses("leaky_relu_cpu"),
    integral=kernel_refuses("leaky_relu_cpu"),
    saved=("negative_slope", "self"),
    fwd=lambda xp, x, p: xp.where(x > 0, x, x * p["negative_slope"]),
    vjp=lambda xp, g, x, out, p: xp.call(LEAKY_RELU_BACKWARD, g, x, p=p),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample={"domain": (-3, 3), "avoid": {0: (0.0,)}, "params": {"negative_slope": 0.01}},
    torch=lambda torch, x, negative_slope: torch.nn.functional.leaky_relu(x, negative_slope),
)


_NEGATIVE_SLOPE_LEAKY = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope"
)


def _leaky_result_vjp(xp, g, x, out, p):
    # torch's leaky_relu_backward(grad, result, slope, self_is_result=true): the sign of the
    # result is the input's only for a positive slope
    if p["negative_slope"] < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_LEAKY)
    return xp.call(LEAKY_RELU_BACKWARD, g, out, p=p)


LEAKY_RELU_ = defop(
    "leaky_relu_",
    node="LeakyReluBackward1",
    inputs=("self",),
    batch=ELEMENTWISE,
    complex=kernel_refuses("leaky_relu_cpu"),
    integral=kernel_refuses("leaky_relu_cpu"),
    saved=("negative_slope", "result"),
    fwd=LEAKY_RELU.fwd,
    vjp=_leaky_result_vjp,
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,
    sample={
        "cases": lambda rng: [
            (
                None,
                [rng.uniform(-3, 3, (3, 4)) + 0.01],
                lambda tt, t: tt.nn.functional.leaky_relu(t * 1, 0.2, inplace=True),
            )
        ]
    },
)


# ---------------------------------------------------------------- softplus, logsigmoid
# softplus = log1p(exp(beta x)) / beta, and x itself where beta x > threshold; the gradient
# is exp(beta x) / (exp(beta x) + 1) there (torch's kernel: exact far into the negative tail)
def _softplus_fwd(xp, x, p):
    xb = x * p["beta"]
    with np.errstate(over="ignore"):  # exp of the branch the threshold replaces
        return xp.where(xb > p["threshold"], x, xp.log1p(xp.exp(xb)) / p["beta"])


_softplus_grad = softplus_grad


SOFTPLUS = defop(
    "softplus",
    node="SoftplusBackward0",
    inputs=("self",),
    saved=("beta", "self", "threshold"),
    batch=ELEMENTWISE,
    complex=kernel_refuses("softplus_cpu"),
    integral=kernel_refuses("softplus_cpu"),
    fwd=_softplus_fwd,
    vjp=lambda xp, g, x, out, p: xp.call(SOFTPLUS_BACKWARD, g, x, p=p),
    jvp=AUTO_ELEMENT_WISE,
    smooth=False,  # the threshold is a kink
    sample={"domain": (-3, 3), "params": {"beta": 2.0, "threshold": 4.0}, "avoid": {0: (2.0,)}},
    torch=lambda torch, x, beta, threshold: torch.nn.functional.softplus(x, beta, threshold),
)


def log_sigmoid_buffer(x):
    """exp(-|x|), which torch's log_sigmoid_forward returns as its buffer (``_saved_buffer``)."""
    from ..autograd.engine import xp_of
    from ..tensor import Tensor

    xp = xp_of(x._data)
    return Tensor._wrap(xp.exp(-xp.abs(x._data)))


_log_sigmoid_grad = log_sigmoid_grad


LOG_SIGMOID = defop(
    "log_sigmoid_forward",
    node="LogSigmoidBackward0",
    inputs=("self",),
    saved=("buffer", "self"),
    saved_outputs=("buffer",),  # the kernel's second result: saved after self
    complex=kernel_refuses("log_sigmoid_cpu"),
    integral=kernel_refuses("log_sigmoid_cpu"),
    fwd=lambda xp, x, p: _log_sigmoid(xp, x),
    vjp=lambda xp, g, x, out, p: xp.call(LOG_SIGMOID_BACKWARD, g, x, p=p),
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "domain": (-3, 3),
        "avoid": {0: (0.0,)},
        "kind": "logsigmoid",
        "cases": lambda rng: [
            (None, [rng.uniform(-3, 3, (3, 4))], lambda tt, t: tt.nn.functional.logsigmoid(t))
        ],
    },
    torch=lambda torch, x: torch.nn.functional.logsigmoid(x),
)


# ---------------------------------------------------------------- layer norm
_mean = norm_mean


def _ln_stats(xp, x, p):
    """Mean and 1/sqrt(var + eps) over the normalized (trailing) dims, kept for broadcasting."""
    axes = tuple(range(x.ndim - len(p["normalized_shape"]), x.ndim))
    if not xp.is_txp and "result1" in p:
        return axes, p["result1"], p["result2"]
    mu = _mean(xp, x, axes)
    d = x - mu
    var = _mean(xp, d * d, axes, float("nan"))
    return axes, mu, 1 / xp.sqrt(var + p["eps"])


def _ln_params_same_dtype(args, p):
    x, w, b = args
    first = w if w is not None else b
    return first is None or first.dtype == x.dtype


def _ln_check_mixed(x, w, b):
    """torch's layer_norm_cpu: parameters of another dtype than the input are allowed only as
    float32 parameters of a float16 input (a mixed type); otherwise each must be the input's."""
    if _ln_params_same_dtype((x, w, b), None):
        for t in (w, b):
            if t is not None and t.dtype != x.dtype:
                raise RuntimeError(
                    f"expected scalar type {_CPP_NAMES.get(x.dtype.name)} but found "
                    f"{_CPP_NAMES.get(t.dtype.name)}"
                )
        return
    if any(t is not None and t.dtype != np.float32 for t in (w, b)):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x.dtype != np.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _ln_fwd(xp, x, w, b, p):
    if not xp.is_txp:
        _ln_check_mixed(x, w, b)
    axes = tuple(range(x.ndim - len(p["normalized_shape"]), x.ndim))
    mu = _mean(xp, x, axes)
    d = x - mu
    rstd = 1 / xp.sqrt(_mean(xp, d * d, axes, float("nan")) + p["eps"])
    p["result1"], p["result2"] = mu, rstd  # torch saves them as _saved_result1/2
    y = d * rstd
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def _ln_twice(xp, g, x, w, b, p, i):
    """Under create_graph: output ``i`` of torch's native_layer_norm_backward, one node
    (NativeLayerNormBackwardBackward0) for the three gradients: the rules of one backward call
    share it (kept in ``p`` until the last gradient asked for takes it)."""
    memo = p.get("_backward")
    if memo is None or memo[0] is not g:
        mean, rstd = xp.const(p["result1"], x), xp.const(p["result2"], x)
        grads = xp.call(
            NATIVE_LAYER_NORM_BACKWARD,
            g,
            x,
            mean,
            rstd,
            w,
            b,
            p={"normalized_shape": p["normalized_shape"]},
        )
        memo = p["_backward"] = (g, grads)
    if not any(t is not None and t.requires_grad for t in (x, w, b)[i + 1 :]):
        p.pop("_backward", None)
    return memo[1][i]


# xhat = (x - mean) r; dL/dx = r (gh - mean(gh) - xhat mean(gh xhat)) with gh = g w
def _ln_vjp_x(xp, g, x, w, b, out, p):
    if xp.is_txp:
        return _ln_twice(xp, g, x, w, b, p, 0)
    axes, mu, r = _ln_stats(xp, x, p)
    xhat = (x - mu) * r
    gh = g * w if w is not None else g
    return r * (gh - _mean(xp, gh, axes) - xhat * _mean(xp, gh * xhat, axes))


def _ln_vjp_w(xp, g, x, w, b, out, p):
    if xp.is_txp:
        return _ln_twice(xp, g, x, w, b, p, 1)
    _axes, mu, r = _ln_stats(xp, x, p)
    return g * ((x - mu) * r)  # the engine sums over the leading (batch) dims


def _ln_jvp(xp, t, x, out, p):
    xx, w, b = x
    axes, mu, r = _ln_stats(xp, xx, p)
    xhat = (xx - mu) * r
    tx = t[0]
    dxhat = r * (tx - _mean(xp, tx, axes) - xhat * _mean(xp, xhat * tx, axes))
    res = dxhat * w if w is not None else dxhat
    if w is not None:
        res = res + xhat * t[1]
    if b is not None:
        res = res + t[2]
    return res


NATIVE_LAYER_NORM = defop(
    "native_layer_norm",
    node="NativeLayerNormBackward0",
    inputs=("input", "weight", "bias"),
    complex=kernel_refuses("LayerNormKernelImpl"),
    # the kernel's dtype dispatch is on the input, after the mixed-dtype check (_ln_fwd)
    integral=kernel_refuses("LayerNormKernelImpl", on=(0,), when=_ln_params_same_dtype),
    saved=("bias", "input", "normalized_shape", "result1", "result2", "weight"),
    fwd=_ln_fwd,
    vjp=(
        _ln_vjp_x,
        _ln_vjp_w,
        lambda xp, g, x, w, b, out, p: _ln_twice(xp, g, x, w, b, p, 2) if xp.is_txp else g,
    ),
    jvp=_ln_jvp,
    # torch's one backward formula takes input, weight and bias for any of the three gradients,
    # so all are saved (and version-checked), though the bias's value is never read here
    reads=((0, 1, 2), (0, 1, 2), (0, 1, 2)),
    sample={
        "domain": (-2, 2),
        "kind": "layer_norm",
        "params": {"normalized_shape": (3,), "eps": 1e-5},
    },
    torch=lambda torch, x, w, b, normalized_shape, eps: torch.nn.functional.layer_norm(
        x, normalized_shape, w, b, eps
    ),
)


# ---------------------------------------------------------------- embedding
def _embedding_vjp(xp, g, w, idx, out, p):
    idx = idx._data if hasattr(idx, "_data") else idx  # indices stay raw under create_graph
    pad = p["padding_idx"]
    gdt = getattr(g, "_data", g).dtype  # (a Tensor's under create_graph: its array's dtype)
    if pad is not None and pad >= 0:
        g = g * np.expand_dims(idx != pad, -1).astype(gdt)
    if p["scale_grad_by_freq"]:  # each row's gradient divided by how often it was looked up
        counts = np.bincount(idx.reshape(-1), minlength=p["weight_shape"][0])
        g = g * np.expand_dims(1.0 / counts[idx], -1).astype(gdt)
    flat = (idx.reshape(-1),)
    return xp.scatter_add_zeros(xp.reshape(g, (-1, g.shape[-1])), flat, p["weight_shape"])


EMBEDDING = defop(
    "embedding",
    node="EmbeddingBackward0",
    inputs=("weight", "indices"),
    complex=no_complex_autograd("embedding"),
    saved=("indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_dim0"),
    fwd=lambda xp, w, idx, p: w[idx],
    vjp=(_embedding_vjp, NO_GRAD),
    jvp=lambda xp, t, x, out, p: t[0][x[1]._data if hasattr(x[1], "_data") else x[1]],
    sample={
        "domain": (-2, 2),
        "kind": "embedding",
        "params": {"padding_idx": None, "weight_shape": (5, 3)},
    },
    torch=lambda torch, w, idx, padding_idx=None, **_: torch.nn.functional.embedding(
        idx, w, padding_idx
    ),
)


# ---------------------------------------------------------------- dropout
def _default_cpp():
    from .._dtype import get_default_dtype

    return _CPP_NAMES[np.dtype(get_default_dtype().np).name]


def _dropout_mask(p):
    m = p["result1"]
    if m is None:
        # undefined: autograd refused a complex output after recording the node and before
        # saving the mask (nn.functional.native_dropout of an empty input); torch's backward
        # kernel checks its arguments (under create_graph, the product's first operand)
        from ..grad_mode import STATE

        arg = "#0 'self'" if STATE.grad_enabled else "#1 'mask'"
        raise RuntimeError(
            f"Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument {arg}"
        )
    return m


# out = x * mask * scale, scale = 1 / (1 - p); the mask (drawn by the caller) is result1
DROPOUT = defop(
    "native_dropout",
    node="NativeDropoutBackward0",
    inputs=("input",),
    complex=no_complex_autograd("native_dropout"),  # F.dropout refuses earlier, in bernoulli_
    # in training torch's kernel multiplies by the float scale in place (an empty input returns
    # before, in native_dropout)
    integral=Refuse(
        RuntimeError,
        lambda p, out: (
            f"result type {_default_cpp()} can't be cast to the desired output type {{dtype}}"
        ),
        when=lambda args, p: p.get("train", True),
    ),
    saved=("p", "result1"),
    fwd=lambda xp, x, p: x * (p["result1"] * p["scale"]),
    vjp=lambda xp, g, x, out, p: g * (_dropout_mask(p) * p["scale"]),
    jvp=lambda xp, t, x, out, p: t[0] * (p["result1"] * p["scale"]),
    sample={"domain": (-2, 2), "kind": "dropout", "params": {"p": 0.5}},
    torch=lambda torch, x, p=0.5, **_: torch.native_dropout(x, p, True)[0],
)
