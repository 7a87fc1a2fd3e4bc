"""``nn.functional`` activations and small layers beyond ``functional.py``: elu/celu/selu,
silu, mish, hardswish, hardsigmoid, softsign, tanhshrink, threshold, softshrink,
hardshrink, hardtanh, relu6, prelu, glu, normalize, one_hot, pdist,
channel_shuffle, bilinear, linear_cross_entropy.

``inplace=True`` writes into ``input`` and returns it, as torch."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._size import _wrap_dim
from ..ops import activation as AC
from ..ops import api as A
from ..ops.dispatch import apply, apply1
from ..tensor import Tensor

__all__ = [
    "bilinear",
    "celu",
    "celu_",
    "channel_shuffle",
    "elu",
    "elu_",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "linear_cross_entropy",
    "mish",
    "normalize",
    "one_hot",
    "pdist",
    "prelu",
    "relu6",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "silu",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float(x):
    return x if x._data.dtype.kind in "fc" else x.to(_dtype.get_default_dtype())


def _maybe_inplace(fn, into=None):
    """``fn(input, ..., inplace=False)``: with ``inplace=True`` the result is written into
    ``input`` (recorded as torch records the in-place op: ``into``, the in-place row's
    function, where torch's in-place op has its own node) and ``input`` is returned."""

    def wrapped(input, *args, inplace=False, **kwargs):
        if inplace:
            from .._tensor_inplace import _inplace

            return _inplace(into or fn)(input, *args, **kwargs)
        return fn(input, *args, **kwargs)

    wrapped.__name__ = wrapped.__qualname__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _elu_params(alpha, scale=1.0, input_scale=1.0):
    return {"alpha": alpha, "scale": scale, "input_scale": input_scale}


def _celu_params(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha}


_SELU_PARAMS = _elu_params(_SELU_ALPHA, _SELU_SCALE)


def _elu(input, alpha=1.0):
    """``x`` for x > 0, else ``alpha (exp(x) - 1)`` (EluBackward0)."""
    return apply1(AC.ELU, _float(input), _elu_params(alpha))


def _celu(input, alpha=1.0):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))`` (CeluBackward0)."""
    return apply1(AC.CELU, _float(input), _celu_params(alpha))


def _selu(input):
    """Scaled elu with the self-normalizing constants (EluBackward0, as torch)."""
    return apply1(AC.ELU, _float(input), _SELU_PARAMS)


def _threshold(input, threshold, value):
    """``x`` where ``x > threshold``, else ``value`` (ThresholdBackward0)."""
    return apply1(AC.THRESHOLD, input, {"threshold": threshold, "value": value})


elu = _maybe_inplace(
    _elu, lambda input, alpha=1.0: apply1(AC.ELU_, _float(input), _elu_params(alpha))
)
celu = _maybe_inplace(
    _celu, lambda input, alpha=1.0: apply1(AC.CELU_, _float(input), _celu_params(alpha))
)
selu = _maybe_inplace(_selu, lambda input: apply1(AC.ELU_, _float(input), _SELU_PARAMS))
threshold = _maybe_inplace(
    _threshold,
    lambda input, threshold, value: apply1(
        AC.THRESHOLD_, input, {"threshold": threshold, "value": value}
    ),
)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


@_maybe_inplace
def silu(input):
    """``x * sigmoid(x)`` (SiluBackward0)."""
    return apply1(AC.SILU, input)


@_maybe_inplace
def mish(input):
    """``x * tanh(softplus(x))`` (MishBackward0)."""
    return apply1(AC.MISH, input)


@_maybe_inplace
def hardswish(input):
    return apply1(AC.HARDSWISH, input)


@_maybe_inplace
def hardsigmoid(input):
    return apply1(AC.HARDSIGMOID, input)


def softsign(input):
    """``x / (1 + |x|)``, composed as torch."""
    return A.div(input, A.add(A.abs(input), 1))


def tanhshrink(input):
    return A.sub(input, A.tanh(input))


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return apply1(AC.SOFTSHRINK, input, {"lambd": lambd})


def hardshrink(input, lambd=0.5):
    return apply1(AC.HARDSHRINK, input, {"lambd": lambd})


@_maybe_inplace
def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``clamp(x, min_val, max_val)``, the gradient passing strictly inside (HardtanhBackward0)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return apply1(AC.HARDTANH, input, {"min_val": min_val, "max_val": max_val})


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``hardtanh(x, 0, 6)``, as torch records it."""
    return hardtanh(input, 0.0, 6.0, inplace=inplace)


def prelu(input, weight):
    """``max(0, x) + weight * min(0, x)``, one weight or one per channel (dim 1)."""
    if weight.numel() != 1 and (input.ndim < 2 or weight.numel() != input.shape[1]):
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {input.shape[1] if input.ndim >= 2 else 1}."
        )
    if input.ndim >= 2:
        # torch's prelu views the weight as (1, C, 1, ...) for its kernel: that view is what
        # the node saves (and a ViewBackward0 leads to the weight)
        weight = weight.view((1, weight.numel()) + (1,) * (input.ndim - 2))
    return apply(AC.PRELU, (input, weight))


def glu(input, dim=-1):
    """``a * sigmoid(b)`` for the two halves of ``input`` along ``dim`` (GluBackward0)."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    return apply1(AC.GLU, input, {"dim": d})


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim``, composed as torch."""
    from .. import linalg

    norm = linalg.vector_norm(input, p, dim, keepdim=True)
    return A.div(input, A.expand_as(A.clamp_min(norm, eps), input))


def one_hot(tensor, num_classes=-1):
    """Integer class indices as one-hot rows (int64)."""
    t = tensor._data
    if t.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if t.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(t.max()) + 1
    if t.size and t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if t.size and t.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (t[..., None] == np.arange(num_classes)).astype(np.int64)
    return Tensor._wrap(out)


def pdist(input, p=2.0):
    """The ``p``-distances between every pair of rows (i < j), flattened (PdistBackward0)."""
    from ..ops import distance as DI

    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return apply1(DI.PDIST, input.contiguous(), {"p": float(p)})


def channel_shuffle(input, groups):
    """Channels (dim 1) regrouped: (N, g, C/g, ...) transposed to (N, C/g, g, ...)."""
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    x = A.reshape(input, (n, groups, c // groups, *rest))
    return A.reshape(A.transpose(x, 1, 2).contiguous(), (n, c, *rest))


def bilinear(input1, input2, weight, bias=None):
    """``x1^T W_k x2 + b_k`` for each output feature k."""
    w = weight  # (out, in1, in2)
    lead = tuple(input1.shape[:-1])
    a = A.reshape(input1, (-1, input1.shape[-1]))
    b = A.reshape(input2, (-1, input2.shape[-1]))
    # (N, in1) @ (in1, out * in2) -> (N, out, in2), times x2, summed over in2
    aw = A.reshape(
        A.matmul(a, A.reshape(A.permute(w, (1, 0, 2)), (w.shape[1], -1))),
        (-1, w.shape[0], w.shape[2]),
    )
    out = A.sum(A.mul(aw, A.unsqueeze(b, 1)), -1)
    if bias is not None:
        out = A.add(out, bias)
    return A.reshape(out, lead + (w.shape[0],))


def linear_cross_entropy(
    input,
    linear_weight,
    target,
    *,
    linear_bias=None,
    weight=None,
    reduction="mean",
    ignore_index=None,
    label_smoothing=0.0,
    options=None,
):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)`` (``options`` choose
    how torch's fused kernel chunks the work, not what it computes)."""
    from .functional import cross_entropy, linear

    out_features = tuple(linear_weight.shape[:-1])  # (C, d_1, ..., d_K) for a K-dim loss
    w = (
        A.reshape(linear_weight, (-1, linear_weight.shape[-1]))
        if len(out_features) > 1
        else linear_weight
    )
    b = (
        A.reshape(linear_bias, (-1,))
        if linear_bias is not None and linear_bias.ndim > 1
        else linear_bias
    )
    logits = linear(input, w, b)
    if len(out_features) > 1:
        logits = A.reshape(logits, tuple(input.shape[:-1]) + out_features)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing,
    )


def _rrelu_params(input, lower, upper, training, generator):
    """The row's parameters: in training the noise torch's kernel draws, one double from
    [lower, upper) per element <= 0 in order (uniform_real_distribution of random64's low 53
    bits), 1 elsewhere; out of training an unused buffer."""
    from .. import random as R

    x = input._data
    if x.dtype.kind not in "fc":
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_name(input)}'")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    noise = np.zeros_like(x)
    if training:
        neg = x <= 0
        words = R._get(generator)._words64(int(np.count_nonzero(neg)))
        u = (words & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53
        noise = np.ones_like(x)
        noise[neg] = (u * (upper - lower) + lower).astype(x.dtype)
    return {
        "lower": float(lower),
        "upper": float(upper),
        "training": bool(training),
        "noise": Tensor._wrap(noise),
    }


def _dtype_name(t):
    from .._tensor_inplace import _scalar_type

    return _scalar_type(t)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, generator=None):
    """Randomized leaky relu: the negative part scaled by a slope drawn from [lower, upper] in
    training, by their mean otherwise (RreluWithNoiseBackward0, 1 in place)."""
    p = _rrelu_params(input, lower, upper, training, generator)
    if inplace:
        from .._tensor_inplace import _inplace

        return _inplace(lambda x: apply1(AC.RRELU_, x, p))(input)
    return apply1(AC.RRELU, input, p)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return rrelu(input, lower, upper, training, True, generator)


def _leaky_relu_into(input, negative_slope=0.01):
    """leaky_relu's in-place row (LeakyReluBackward1, which saves the result)."""
    from ..ops import nn_ops as NN

    return apply1(NN.LEAKY_RELU_, input, {"negative_slope": float(negative_slope)})


def _load_leaky_relu():
    from . import functional

    base = functional.leaky_relu

    def leaky_relu(input, negative_slope=0.01, inplace=False):
        """``max(0, x) + negative_slope * min(0, x)`` (LeakyReluBackward0); ``inplace=True``
        writes into ``input`` and returns it (LeakyReluBackward1)."""
        if inplace:
            from .._tensor_inplace import _inplace

            return _inplace(_leaky_relu_into)(input, negative_slope)
        return base(input, negative_slope)

    leaky_relu.__doc__ = base.__doc__
    return leaky_relu


leaky_relu = _load_leaky_relu()
__all__ += ["leaky_relu"]
