"""``F.batch_norm``, ``F.instance_norm`` and ``F.group_norm`` with torch's checks and running
statistics (``F.layer_norm`` is in ``functional.py``)."""

from __future__ import annotations

import numpy as np

from .._errors import list_str
from ..grad_mode import no_grad
from ..ops import api as _api
from ..ops import arithmetic as ARITH
from ..ops import norm as NM
from ..ops.dispatch import apply
from ..tensor import Size, Tensor

__all__ = ["batch_norm", "group_norm", "instance_norm", "rms_norm"]


def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {Size(size)}"
        )


def _check_features(name, n, numel):
    if numel != n:
        raise RuntimeError(f"{name} should contain {n} elements not {numel}")


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    """Normalize each channel (dim 1) over the batch and spatial dims (NativeBatchNormBackward0).

    Training uses the batch's statistics and, when running statistics are given, updates them
    in place: ``running = (1 - momentum) * running + momentum * batch`` with the unbiased
    variance. Evaluation normalizes with the running statistics.

    Raises:
        ValueError: one value per channel in training, or a non-positive ``eps``.
        RuntimeError: statistics, weight or bias of the wrong size, or no running statistics in
            evaluation.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> torch.nn.functional.batch_norm(x, None, None, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
    """
    shape = input._data.shape
    if training:
        _verify_batch_size(shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    c = shape[1] if len(shape) > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            _check_features(name, c, t._data.size)
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            _check_features(name, c, t._data.size)
    if len(shape) < 2 and input._data.size:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if not input._data.size:
        # torch's kernel is skipped for an empty input: a clone (kept in the graph), scaled and
        # shifted by the first weight and bias
        out = input.clone()
        out = out * weight[0] if weight is not None else out
        return out + bias[0] if bias is not None else out
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """The NativeBatchNormBackward0 row and the running statistics' update: (out, save_mean,
    save_invstd) as ``torch.native_batch_norm`` returns them."""
    c = input._data.shape[1]
    p = {
        "eps": float(eps),
        "training": bool(training),
        "running_mean": running_mean,
        "running_var": running_var,
    }
    if not training:
        dt = input._data.dtype
        p["_running"] = (
            running_mean._data.astype(dt, copy=False),
            running_var._data.astype(dt, copy=False),
        )
    out = apply(NM.BATCH_NORM, (input, weight, bias), p)
    if training:
        n = input._data.size // max(c, 1)
        if running_mean is not None:
            with no_grad():
                m = float(momentum)
                rm, rv = running_mean._data, running_var._data
                new_mean = (1 - m) * rm + m * p["_mean"].astype(rm.dtype, copy=False)
                unbiased = p["_var"] * (n / max(n - 1, 1))
                new_var = (1 - m) * rv + m * unbiased.astype(rv.dtype, copy=False)
                running_mean.copy_(Tensor._wrap(new_mean.astype(rm.dtype, copy=False)))
                running_var.copy_(Tensor._wrap(new_var.astype(rv.dtype, copy=False)))
        p["result1"], p["result2"] = Tensor._wrap(p["_mean"]), Tensor._wrap(p["_invstd"])
    else:
        empty = input._data[:0].reshape(0) if input._data.size else input._data.reshape(-1)[:0]
        p["result1"] = p["result2"] = Tensor._wrap(empty)
    return out, p["result1"], p["result2"]


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalize each (sample, channel) over its spatial dims: batch norm of the input viewed as
    one sample of ``N * C`` channels, as torch computes it.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.instance_norm(torch.tensor([[[1.0, 3.0]]])).shape
        torch.Size([1, 1, 2])
    """
    shape = input._data.shape
    if use_input_stats:
        prod = 1
        for s in shape[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {Size(shape)}"
            )
    b, c = shape[0], shape[1]
    x = _api.view(input, (1, b * c) + tuple(shape[2:]))
    w = _api.repeat(weight, b) if weight is not None else None
    bb = _api.repeat(bias, b) if bias is not None else None
    rm = _api.repeat(running_mean, b) if running_mean is not None else None
    rv = _api.repeat(running_var, b) if running_var is not None else None
    out = batch_norm(x, rm, rv, w, bb, use_input_stats, momentum, eps)
    if running_mean is not None and use_input_stats:
        with no_grad():
            running_mean.copy_(rm.view(b, c).mean(0))
            running_var.copy_(rv.view(b, c).mean(0))
    return _api.view(out, shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize each sample's channels in ``num_groups`` groups (NativeGroupNormBackward0).

    Raises:
        RuntimeError: channels not divisible by ``num_groups``, or a weight/bias of the wrong
            size.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.group_norm(torch.tensor([[1.0, 3.0, 0.0, 2.0]]), 2)
        tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {len(shape)}"
        )
    n, c = shape[0], shape[1]
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of "
            f"shape {list_str(shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, "
                f"but got {name} of shape {list_str(t._data.shape)} and input of shape {list_str(shape)}"
            )
    hxw = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    p = {"eps": float(eps), "group": int(num_groups), "N": n, "C": c, "HxW": hxw}
    out = apply(NM.GROUP_NORM, (input, weight, bias), p)
    p["result1"], p["result2"] = Tensor._wrap(p["_mean"]), Tensor._wrap(p["_rstd"])
    return out


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x * rsqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims, as
    torch composes it (``eps`` defaults to the dtype's machine epsilon).

    Raises:
        RuntimeError: trailing dims that are not ``normalized_shape``, or a weight of another
            shape.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.rms_norm(torch.tensor([[3.0, 4.0]]), (2,), eps=0.0)
        tensor([[0.8485, 1.1314]])
    """
    if isinstance(normalized_shape, int):
        raise TypeError(
            "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"
        )
    ns = [int(s) for s in normalized_shape]
    shape = list(input._data.shape)
    if not ns or len(shape) < len(ns) or shape[len(shape) - len(ns) :] != ns:
        raise RuntimeError(
            f"Given normalized_shape={ns}, expected input with shape [*{', '.join(map(str, ns))}], "
            f"but got input of size{shape}"
        )
    if weight is not None and list(weight._data.shape) != ns:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight._data.shape)} and normalized_shape = {ns}"
        )
    if eps is None:
        eps = (
            float(np.finfo(input._data.dtype).eps)
            if input._data.dtype.kind == "f"
            else 1.1920928955078125e-07
        )
    dims = list(range(len(shape) - len(ns), len(shape)))
    rms = apply(ARITH.ADD_SCALAR, (input.pow(2).mean(dims, keepdim=True),), {"other": eps}).rsqrt()
    out = input * rms
    return out * weight if weight is not None else out


# ---------------------------------------------------------------- torch.* forms
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm``: ``(output, save_mean, save_invstd)``; the statistics are the
    batch's in training (empty tensors in evaluation) and do not require grad.

    Example:
        >>> import jupyter_autograd as torch
        >>> out, mean, invstd = torch.native_batch_norm(torch.tensor([[1.0], [3.0]]), None, None,
        ...                                             None, None, True, 0.1, 1e-5)
        >>> mean
        tensor([2.])
    """
    shape = input._data.shape
    c = shape[1] if len(shape) > 1 else 0
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None:
            _check_features(name, c, t._data.size)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            "running_mean must be defined in evaluation mode"
            if running_mean is None
            else "running_var must be defined in evaluation mode"
        )
    if len(shape) < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm``: ``(output, mean, rstd)``, the statistics shaped as the input
    with the normalized dims kept as 1 (they do not require grad).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.native_layer_norm(torch.tensor([[1.0, 3.0]]), (2,), None, None, 1e-5)[1]
        tensor([[2.]])
    """
    from . import functional as F

    out, p = F._layer_norm(input, normalized_shape, weight, bias, eps)
    return out, Tensor._wrap(p["result1"]), Tensor._wrap(p["result2"])


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.layer_norm``: ``F.layer_norm`` (``cudnn_enable`` has no effect on the CPU).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
        tensor([[-1.0000,  1.0000]])
    """
    from . import functional as F

    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def torch_batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """``torch.batch_norm``: ``F.batch_norm`` with torch's argument order."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def torch_instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """``torch.instance_norm``: ``F.instance_norm`` with torch's argument order."""
    return instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm``: ``F.group_norm``."""
    return group_norm(input, num_groups, weight, bias, eps)


def torch_rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: ``F.rms_norm``."""
    return rms_norm(input, normalized_shape, weight, eps)
