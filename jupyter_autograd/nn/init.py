"""``nn.init``: in-place initialisers with torch's bounds, gains and sampling order (run under
``no_grad``), so after the same ``manual_seed`` they write torch's values.

Example:
    >>> import jupyter_autograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.kaiming_uniform_(torch.empty(2, 3), nonlinearity="relu")
    tensor([[-0.0106,  0.7586, -1.1640],
            [-1.0408, -0.5447,  0.3792]])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for ``nonlinearity`` (relu: sqrt(2), tanh: 5/3, ...), as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> round(torch.nn.init.calculate_gain("relu"), 4)
        1.4142
    """
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor):
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from U(a, b).

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.nn.init.uniform_(torch.empty(100), -0.1, 0.1)
        >>> bool((w.abs() <= 0.1).all())
        True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill with N(mean, std²) samples restricted to [a, b], by torch's rejection sampling
    (redrawing out-of-range normals when the interval holds > 30% of the mass, else uniform
    proposals accepted under the density).

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.nn.init.trunc_normal_(torch.empty(1000), std=0.02, a=-0.04, b=0.04)
        >>> bool((w.abs() <= 0.04).all())
        True
    """

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    from .. import _distributions as D
    from ..random import _get

    dt = tensor._data.dtype
    one = dt.type
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo, hi = float(one(a)), float(one(b))
            result = tensor.normal_(mean, std, generator=generator)._data.copy()
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                fresh = D.normal(_get(generator), result.size, dt, mean, std)
                result = np.where(mask, fresh.reshape(result.shape), result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2

            def log_density(c):  # the in-place float ops torch chains, in the tensor's dtype
                c = (c - one(mean)) / one(std)
                return (c * c) * one(-0.5) - one(log_peak)

            def log_uniform():  # accept_buf.uniform_().log_()
                u = D.uniform(_get(generator), tensor.numel(), dt, 0.0, 1.0)
                with np.errstate(divide="ignore"):
                    return np.log(u.astype(np.float64)).astype(dt).reshape(tuple(tensor.shape))

            result = tensor.uniform_(a, b, generator=generator)._data.copy()
            pending = log_uniform() > log_density(result)
            while pending.any():
                cand = D.uniform(_get(generator), tensor.numel(), dt, a, b).reshape(result.shape)
                result = np.where(pending, cand, result)
                pending = np.where(pending, log_uniform() > log_density(cand), pending)
        tensor._data[...] = result
        tensor._bump_version()
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.init.zeros_(torch.empty(2))
        tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    with no_grad():
        return tensor.fill_(1.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor._data[...] = np.eye(*tensor.shape, dtype=tensor._data.dtype)
        tensor._bump_version()
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta (identity convolution),
    keeping as many input channels as possible in each of ``groups`` groups."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    with no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor._data[(g * per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std²) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """U(-bound, bound) with ``bound = sqrt(3) * gain / sqrt(fan)`` (He et al., 2015).

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.nn.init.kaiming_uniform_(torch.empty(3, 12), nonlinearity="relu")
        >>> bool((w.abs() <= 2 ** 0.5 * (3 / 12) ** 0.5).all())
        True
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std  # torch's order of operations, for the same rounding
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """N(0, std²) with ``std = gain / sqrt(fan)``."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal sample (Saxe et al.):
    the sample is torch's; the factorisation is LAPACK's, so values agree to rounding."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = Tensor._wrap(np.empty((rows, cols), tensor._data.dtype)).normal_(
        0, 1, generator=generator
    )
    a = flat._data.T if rows < cols else flat._data
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diagonal(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor._data[...] = (q * tensor._data.dtype.type(gain)).reshape(tensor._data.shape)
        tensor._bump_version()
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std²) with a ``sparsity`` fraction of each column set to zero (Martens, 2010); the
    rows to zero come from the default generator, as in torch."""
    from .._sampling import randperm

    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor._data[randperm(rows)._data[:num_zeros], col] = 0
        tensor._bump_version()
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of :func:`{new_name}`."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
