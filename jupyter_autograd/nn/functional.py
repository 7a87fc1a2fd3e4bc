"""``jupyter_autograd.nn.functional``: activations and losses with torch's signatures."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..ops import api as _api
from ..ops.dispatch import apply, apply1
from ..ops.linalg import ADDMM as _ADDMM
from ..ops.shape import T as _T
from ..tensor import Tensor
from ._losses import (  # noqa: F401 - the losses are part of this namespace
    _reduction,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)

relu = _api.relu
sigmoid = _api.sigmoid
tanh = _api.tanh


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's implicit dim (0 for 0-, 1- and 3-D input, else 1), with its deprecation warning."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim`` (SoftmaxBackward0); without ``dim``, torch's implicit choice and
    its deprecation warning.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.softmax(torch.tensor([[0., 0.]]), dim=1)
        tensor([[0.5000, 0.5000]])
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input._data.ndim, _stacklevel)
    return _api.softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim`` (SoftmaxBackward0 over NegBackward0), as torch."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input._data.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _api.softmax(-input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along ``dim`` (LogSoftmaxBackward0), stable at large logits."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input._data.ndim, _stacklevel)
    return _api.log_softmax(input, dim, dtype)


def softplus(input, beta=1, threshold=20):
    """``log(1 + exp(beta x)) / beta``, and ``x`` where ``beta x > threshold``
    (SoftplusBackward0); exact in the negative tail.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.softplus(torch.tensor([-40.0, 0.0, 30.0]))
        tensor([4.2484e-18, 6.9315e-01, 3.0000e+01])
    """
    from ..ops import nn_ops as NN

    _float_kernel(input, "softplus")
    return apply(NN.SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


def logsigmoid(input):
    """``log(sigmoid(x))``, finite for every x (LogSigmoidBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.logsigmoid(torch.tensor([-100.0, 0.0]))
        tensor([-100.0000,   -0.6931])
    """
    from ..ops import nn_ops as NN

    _float_kernel(input, "log_sigmoid")
    return apply(NN.LOG_SIGMOID, (input,), {"buffer": NN.log_sigmoid_buffer(input)})


def _float_kernel(input, name):
    if input._data.dtype.kind not in "fc":
        dev = "cpu" if input._data.__class__ is np.ndarray else "cuda"
        raise NotImplementedError(
            f"\"{name}_{dev}\" not implemented for '{_api.scalar_type(input)}'"
        )


def _addmm_t(bias, x, weight):
    """torch's F.linear of a 2-D input with a bias: ``addmm(bias, x, weight.t())``
    (AddmmBackward0 over TBackward0), the caller having checked dtypes and shapes."""
    return apply(_ADDMM, (bias, x, apply1(_T, weight)), None)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: AddmmBackward0 for 2-D input with bias, as torch.

    Raises:
        RuntimeError: when the input's last dimension differs from ``weight.shape[1]``.
    """
    if (
        input.__class__ is not Tensor
        and getattr(input, "_bt", False)
        or getattr(weight, "_bt", False)
    ):
        return (input if getattr(input, "_bt", False) else weight)._vmap_fn(
            "linear", input, weight, bias
        )
    x, w = input._data, weight._data
    if bias is not None and x.ndim == 2:  # the common case (a batch through a layer), first
        b = bias._data
        if (
            x.dtype == w.dtype == b.dtype
            and w.ndim == 2
            and x.shape[1] == w.shape[1]
            and b.shape == w.shape[:1]
        ):
            return _addmm_t(bias, input, weight)
    if x.shape[-1] != w.shape[-1] if w.ndim else False:
        rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
            f"{w.shape[-1]}x{w.shape[0]})"
        )
    if (
        bias is None
        or w.ndim != 2
        or x.ndim == 0
        or (
            x.ndim > 2
            and not (
                x.flags.c_contiguous and bias._data.ndim and bias._data.size == bias._data.shape[-1]
            )
        )
    ):
        out = _api.matmul(input, weight.t())
        return out + bias if bias is not None else out
    # torch: addmm(bias, input, weight.t()); a 1-D input, or a contiguous one of higher rank with
    # a bias that is one row, is viewed as 2-D around it (ViewBackward0 on both sides)
    if x.dtype != w.dtype:
        raise RuntimeError(_api._MM_DTYPE_ERRORS["addmm"](input, weight))
    b = bias._data
    if b.dtype != w.dtype:
        raise RuntimeError(_api._MM_DTYPE_ERRORS["addmm_self"](bias, weight))
    rows = math.prod(x.shape[:-1])
    if b.shape != w.shape[:1]:
        if x.ndim == 1 and b.ndim and b.size != b.shape[-1]:
            # torch adds a bias of several rows to a 1-D input's product in place
            try:
                shape = np.broadcast_shapes(b.shape, w.shape[:1])
            except ValueError:
                return _api.matmul(input, weight.t()) + bias  # torch's broadcast error
            raise RuntimeError(
                f"output with shape [{w.shape[0]}] doesn't match the broadcast shape {list(shape)}"
            )
        _api._expanded_shape(bias, (rows, w.shape[0]))
    if x.ndim == 2:
        return _addmm_t(bias, input, weight)
    out = _addmm_t(bias, _api.view(input, (rows, x.shape[-1])), weight)
    return _api.view(out, x.shape[:-1] + w.shape[:1])


# ---------------------------------------------------------------- layers' functional forms
def gelu(input, approximate="none"):
    """Gaussian error linear unit, ``x * Phi(x)`` (GeluBackward0); ``approximate="tanh"`` as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.gelu(torch.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8413])
    """
    from ..ops import nn_ops as NN

    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(NN.GELU, (input,), {"approximate": approximate})


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``max(0, x) + negative_slope * min(0, x)`` (LeakyReluBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.leaky_relu(torch.tensor([-1.0, 2.0]), 0.1)
        tensor([-0.1000,  2.0000])
    """
    from ..ops import nn_ops as NN

    if inplace:
        return leaky_relu_(input, negative_slope)
    return apply(NN.LEAKY_RELU, (input,), {"negative_slope": float(negative_slope)})


def _layer_norm(input, normalized_shape, weight, bias, eps):
    """The NativeLayerNormBackward0 row: (output, its parameters with the saved statistics)."""
    from ..ops import nn_ops as NN

    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    n = len(normalized_shape)
    shp = input._data.shape
    if n == 0 or len(shp) < n or tuple(shp[len(shp) - n :]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(shp)}"
        )
    p = {"normalized_shape": normalized_shape, "eps": eps}
    return apply(NN.NATIVE_LAYER_NORM, (input, weight, bias), p), p


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing ``normalized_shape`` dims (NativeLayerNormBackward0).

    Raises:
        RuntimeError: when the input's trailing dims do not match ``normalized_shape``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
        tensor([[-1.0000,  1.0000]])
    """
    return _layer_norm(input, normalized_shape, weight, bias, eps)[0]


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """Rows of ``weight`` picked by the integer ``input`` (EmbeddingBackward0).

    Raises:
        IndexError: ``index out of range in self`` for an index outside the table.

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
        >>> torch.nn.functional.embedding(torch.tensor([1, 1]), w)
        tensor([[2., 3.],
                [2., 3.]])
    """
    from ..ops import nn_ops as NN

    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got torch.{'FloatTensor' if idx.dtype == np.float32 else 'DoubleTensor'} "
            "instead (while checking arguments for embedding)"
        )
    n = weight._data.shape[0]
    if padding_idx is not None:
        if padding_idx >= n or padding_idx < -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += n
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm(weight, idx, max_norm, norm_type)
    p = {
        "padding_idx": -1 if padding_idx is None else padding_idx,
        "weight_shape": weight._data.shape,
        "scale_grad_by_freq": scale_grad_by_freq,
        "sparse": sparse,
        "weight_sym_argsize_dim0": n,
    }
    ind = input if isinstance(input, Tensor) else Tensor._wrap(idx)
    return apply(NN.EMBEDDING, (weight, ind), p)


def _embedding_renorm(weight, idx, max_norm, norm_type):
    """torch's ``embedding_renorm_`` under no_grad: each looked-up row whose ``norm_type``-norm
    exceeds ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``, in place (one version)."""
    from ..grad_mode import no_grad

    w = weight._data
    rows = np.unique(idx.reshape(-1))
    r = np.abs(w[rows])
    p = float(norm_type)
    if p == math.inf:
        norms = r.max(axis=1) if r.shape[1] else np.zeros(len(rows), w.dtype)
    elif p == 0:
        norms = (r != 0).sum(axis=1).astype(w.dtype)
    else:
        norms = (r**p).sum(axis=1) ** (1.0 / p)
    big = norms > max_norm
    if big.any():
        new = w.copy()
        scale = float(max_norm) / (norms[big].astype(np.float64) + 1e-7)
        new[rows[big]] = w[rows[big]] * scale.astype(w.dtype)[:, None]
        with no_grad():
            weight.copy_(Tensor._wrap(new))


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``; the identity
    when not training. As torch on the CPU: the mask is ``empty_like(input).bernoulli_(1 - p)``
    divided by ``1 - p`` and multiplied in (``MulBackward0``), so a seed gives torch's zeros.

    Raises:
        ValueError: when ``p`` is outside [0, 1].

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(0)
        >>> torch.nn.functional.dropout(torch.ones(6), 0.5)
        tensor([0., 0., 2., 0., 0., 0.])
    """
    from .._sampling_inplace import bernoulli_

    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    x = input._data
    if p == 1:
        noise = np.zeros((), x.dtype)
    else:
        noise = bernoulli_(
            Tensor._wrap(
                np.empty_like(x) if x.__class__ is np.ndarray else np.empty(x.shape, x.dtype)
            ),
            1 - p,
        )._data
        if x.dtype.kind in "iub":
            # torch's mask is empty_like(input).bernoulli_(1 - p).div_(1 - p): an integer
            # mask cannot hold the float quotient
            from .._dtype import get_default_dtype
            from ..ops.api_matmul import scalar_type

            raise RuntimeError(
                f"result type {get_default_dtype()._legacy[:-6]} can't be cast "
                f"to the desired output type {scalar_type(input)}"
            )
        keep = x.dtype.type(1 - p)
        if x.dtype == np.float16:  # torch multiplies reduced floats by the float reciprocal
            noise = np.asarray(noise * (np.float32(1) / np.float32(1 - p))).astype(x.dtype)
        else:
            noise = np.asarray(noise / keep)
    noise = Tensor._wrap(_on_device_of(noise, x))
    return input.mul_(noise) if inplace else input * noise


def _on_device_of(host, like):
    """``host`` (a NumPy array) on the device holding array ``like``."""
    if like.__class__ is np.ndarray:
        return host
    from ..backend import device_of_array, move_array

    return move_array(host, device_of_array(like))


def native_dropout(input, p: float, train):
    """``torch.native_dropout``: ``(output, mask)`` with a boolean mask and
    ``NativeDropoutBackward0`` (the fused kernel torch uses for dropout on GPUs).

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(0)
        >>> torch.native_dropout(torch.ones(4), 0.5, True)
        (tensor([0., 0., 2., 0.]), tensor([False, False,  True, False]))
    """
    from .._sampling_inplace import bernoulli_
    from ..autograd.engine import record
    from ..grad_mode import STATE
    from ..ops import nn_ops as NN

    x = input._data
    if x.size == 0:
        # torch's kernel returns its input itself (and an empty mask of the input's dtype);
        # autograd then records NativeDropoutBackward0 on that very tensor (a leaf stops being
        # one) and only then refuses a complex output, before saving the mask: that node's
        # mask stays undefined (its backward fails on it)
        mask = Tensor._wrap(_on_device_of(np.empty(x.shape, x.dtype), x))
        if STATE.grad_enabled and input._requires_grad:
            m = None if x.dtype.kind == "c" else x
            params = {"result1": m, "scale": x.dtype.type(1), "p": p}
            res = Tensor._wrap(x, True)
            record(NN.DROPOUT, (input,), x, params, (res,))
            input.grad_fn, input._output_nr = res.grad_fn, res._output_nr
            if x.dtype.kind == "c":
                raise NN.DROPOUT.cx.error(params, x)
        return input, mask
    if train is False:  # a clone recorded as the row with a mask of ones and scale 1
        mask = np.ones(x.shape, bool)
        params = {
            "result1": _on_device_of(mask.astype(x.dtype), x),
            "scale": x.dtype.type(1),
            "p": p,
            "train": False,
        }
        return apply(NN.DROPOUT, (input,), params), Tensor._wrap(_on_device_of(mask, x))
    keep = 1.0 - p
    # the mask is drawn in the input's memory order (empty_like keeps a transposed layout)
    mask = bernoulli_(
        Tensor._wrap(
            np.empty_like(x, dtype=bool) if x.__class__ is np.ndarray else np.empty(x.shape, bool)
        ),
        keep,
    )._data
    scale = x.dtype.type(0.0 if keep == 0 else 1.0 / keep)
    params = {"result1": _on_device_of(mask.astype(x.dtype), x), "scale": scale, "p": p}
    return apply(NN.DROPOUT, (input,), params), Tensor._wrap(_on_device_of(mask, x))


from ._activations import *
from ._functional_layers import *
from ._grid_sample import affine_grid, grid_sample  # noqa: F401
