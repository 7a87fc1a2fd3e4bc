"""``jupyter_autograd.nn.functional``: activations and losses with torch's signatures."""

from __future__ import annotations

import math

import numpy as np

from ..ops import api as _api
from ..ops import linalg as LA
from ..ops import loss as LS
from ..ops import reduction as RD
from ..ops.dispatch import addmm_linear, apply, apply1, promote2
from ..autograd.engine import xp_of
from ..tensor import Tensor

relu = _api.relu
sigmoid = _api.sigmoid
tanh = _api.tanh


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim`` (SoftmaxBackward0)."""
    return _api.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along ``dim`` (LogSoftmaxBackward0), stable at large logits."""
    return _api.log_softmax(input, dim, dtype)


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is None and reduce is None:
        r = LS.REDUCTIONS.get(reduction)
        if r is not None:
            return r
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in LS.REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return LS.REDUCTIONS[reduction]


def _check_same_size(input, target, name):
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Target size ({_size(target)}) must be the same as input size ({_size(input)})"
        )


def _size(t):
    return "torch.Size([" + ", ".join(str(s) for s in t._data.shape) + "])"


def _opt(t):
    return None if t is None else (t._data if isinstance(t, Tensor) else np.asarray(t))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """BCE on logits, computed stably: max(x,0) - x*y + log1p(exp(-|x|)).

    Example:
        >>> import jupyter_autograd as torch
        >>> z = torch.tensor([40.0], requires_grad=True)
        >>> torch.nn.functional.binary_cross_entropy_with_logits(z, torch.tensor([0.0]))
        tensor(40., grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
    """
    r = _reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "bce_logits")
    input, target = promote2(input, target)
    p = {"reduction": r, "weight": _opt(weight), "pos_weight": _opt(pos_weight)}
    return apply(LS.BCE_LOGITS, (input, target), p)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """BCE on probabilities; each log is clamped at -100 as torch does."""
    r = _reduction(reduction, size_average, reduce)
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Using a target size ({_size(target)}) that is different to the input size "
            f"({_size(input)}) is deprecated. Please ensure they have the same size."
        )
    d = input._data
    if d.size and (np.any(d < 0) or np.any(d > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    input, target = promote2(input, target)
    return apply(LS.BCE, (input, target), {"reduction": r, "weight": _opt(weight)})


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (MseLossBackward0)."""
    r = _reduction(reduction, size_average, reduce)
    if input._data.shape != target._data.shape:
        import warnings  # noqa: PLC0415

        warnings.warn(
            f"Using a target size ({_size(target)}) that is different to the input size ({_size(input)}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            "the same size.",
            UserWarning,
            stacklevel=2,
        )
        input, target = _api.broadcast_tensors(input, target)
    input, target = promote2(input, target)
    return apply(LS.MSE, (input, target), {"reduction": r, "shape": input._data.shape})


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error, composed as torch does: (input - target).abs().mean()."""
    r = _reduction(reduction, size_average, reduce)
    d = (input - target).abs()
    return d.mean() if r == 1 else d.sum() if r == 2 else d


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices (NllLossBackward0)."""
    r = _reduction(reduction, size_average, reduce)
    x = input._data
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    if t.__class__ is not x.__class__:
        from ..autograd.engine import device_mismatch  # noqa: PLC0415

        raise device_mismatch([input, target if isinstance(target, Tensor) else Tensor._wrap(t)])
    if t.dtype.kind not in "iu":
        scalar = {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool"}
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {scalar.get(t.dtype.name, t.dtype.name)}"
        )
    if x.ndim < 1:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if x.ndim > 1 and x.shape[0] != t.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]})."
        )
    n_classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    w = _opt(weight)
    if (w is None and t.size and ignore_index < 0
            and (np.minimum.reduce(t, None) if t.__class__ is np.ndarray else t.min()) >= 0):
        # common case: no weights, nothing ignored: the coefficient is one number. A class index
        # past the end makes the forward's indexing fail; the general path below names it.
        n = t.size
        p = {
            "reduction": r, "ignore_index": ignore_index, "weight": None, "st": t,
            "coef": -1.0 / n if r == 1 else -1.0, "total_weight": float(n),
            "self_sym_sizes": x.shape,
        }
        try:
            return apply(LS.NLL, (input, target if isinstance(target, Tensor) else Tensor._wrap(t)), p)
        except IndexError:
            pass
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if np.any(bad):
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    st = np.where(valid, t, 0)

    ww = (w[st] if w is not None else xp_of(x).ones(t.shape, x.dtype)) * valid  # on x's device
    total = ww.sum()
    coef = -ww
    if r == 1:
        coef = coef / total
    p = {
        "reduction": r, "ignore_index": ignore_index, "weight": w, "st": st,
        "coef": coef.astype(x.dtype), "total_weight": float(total), "self_sym_sizes": x.shape,
    }
    return apply(LS.NLL, (input, target if isinstance(target, Tensor) else Tensor._wrap(t)), p)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax + nll_loss for class indices; -(p * log_softmax).sum(1) for probabilities.

    Example:
        >>> import jupyter_autograd as torch
        >>> logits = torch.tensor([[2.0, 0.0]], requires_grad=True)
        >>> torch.nn.functional.cross_entropy(logits, torch.tensor([0])).grad_fn
        <NllLossBackward0 object at 0x...>
    """
    cdim = 1 if input._data.ndim > 1 else 0
    if input._data.dtype.kind == "f":  # the common case: the row directly, once per step
        logp = apply1(RD.LOG_SOFTMAX, input, {"dim": cdim})
    else:
        logp = log_softmax(input, cdim)
    if isinstance(target, Tensor) and target._data.dtype.kind in "fc":
        if target._data.shape != input._data.shape:
            raise RuntimeError(
                f"Expected target size {list(input._data.shape)}, got {list(target._data.shape)}"
            )
        r = _reduction(reduction, size_average, reduce)
        if label_smoothing:
            n = input._data.shape[cdim]
            target = target * (1 - label_smoothing) + label_smoothing / n
        terms = logp * target
        if weight is not None:
            shape = [1] * input._data.ndim
            shape[cdim] = -1
            terms = terms * weight.reshape(shape)
        per = -terms.sum(cdim)
        if r == 1:
            from ..ops import elementwise as EW  # noqa: PLC0415

            n = input._data.shape[0] if input._data.ndim > 1 else 1
            return apply1(EW.DIV_SCALAR, per.sum(), {"other": n})
        return per.sum() if r == 2 else per
    if label_smoothing:
        n = input._data.shape[cdim]
        nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
        smooth = -logp.mean(cdim)
        r = _reduction(reduction, size_average, reduce)
        smooth = smooth.mean() if r == 1 else smooth.sum() if r == 2 else smooth
        return nll * (1 - label_smoothing) + smooth * label_smoothing
    return nll_loss(logp, target, weight, None, ignore_index, None, reduction)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: AddmmBackward0 for 2-D input with bias, as torch.

    Raises:
        RuntimeError: when the input's last dimension differs from ``weight.shape[1]``.
    """
    x, w = input._data, weight._data
    if bias is not None and x.ndim == 2:  # the common case (a batch through a layer), first
        b = bias._data
        if (x.dtype == w.dtype == b.dtype and w.ndim == 2 and x.shape[1] == w.shape[1]
                and b.shape == w.shape[:1]):
            return addmm_linear(bias, input, weight)
    if x.shape[-1] != w.shape[-1] if w.ndim else False:
        rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
            f"{w.shape[-1]}x{w.shape[0]})"
        )
    if (bias is None or w.ndim != 2 or x.ndim == 0
            or (x.ndim > 2 and not (x.flags.c_contiguous and bias._data.ndim
                                    and bias._data.size == bias._data.shape[-1]))):
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
        return addmm_linear(bias, input, weight)
    out = addmm_linear(bias, _api.view(input, (rows, x.shape[-1])), weight)
    return _api.view(out, x.shape[:-1] + w.shape[:1])


# ---------------------------------------------------------------- layers' functional forms
def gelu(input, approximate="none"):
    """Gaussian error linear unit, ``x * Phi(x)`` (GeluBackward0); ``approximate="tanh"`` as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.gelu(torch.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8413])
    """
    from ..ops import nn_ops as NN  # noqa: PLC0415

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
    from ..ops import nn_ops as NN  # noqa: PLC0415

    return apply(NN.LEAKY_RELU, (input,), {"negative_slope": float(negative_slope)})


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing ``normalized_shape`` dims (NativeLayerNormBackward0).

    Raises:
        RuntimeError: when the input's trailing dims do not match ``normalized_shape``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
        tensor([[-1.0000,  1.0000]])
    """
    from ..ops import nn_ops as NN  # noqa: PLC0415

    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    n = len(normalized_shape)
    shp = input._data.shape
    if n == 0 or len(shp) < n or tuple(shp[len(shp) - n:]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(shp)}"
        )
    p = {"normalized_shape": normalized_shape, "eps": eps}
    return apply(NN.NATIVE_LAYER_NORM, (input, weight, bias), p)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
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
    from ..ops import nn_ops as NN  # noqa: PLC0415

    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got torch.{'FloatTensor' if idx.dtype == np.float32 else 'DoubleTensor'} "
            "instead (while checking arguments for embedding)"
        )
    n = weight._data.shape[0]
    if idx.size and (idx.min() < -n or idx.max() >= n or idx.min() < 0):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    p = {"padding_idx": -1 if padding_idx is None else padding_idx, "weight_shape": weight._data.shape,
         "scale_grad_by_freq": scale_grad_by_freq, "sparse": sparse, "weight_sym_argsize_dim0": n}
    ind = input if isinstance(input, Tensor) else Tensor._wrap(idx)
    return apply(NN.EMBEDDING, (weight, ind), p)


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
    from .._sampling import bernoulli_  # noqa: PLC0415

    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    x = input._data
    if p == 1:
        noise = np.zeros((), x.dtype)
    else:
        noise = bernoulli_(Tensor._wrap(np.empty_like(x) if x.__class__ is np.ndarray
                                        else np.empty(x.shape, x.dtype)), 1 - p)._data
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
    from ..backend import device_of_array, move_array  # noqa: PLC0415

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
    from .._sampling import bernoulli_  # noqa: PLC0415
    from ..ops import nn_ops as NN  # noqa: PLC0415

    x = input._data
    if train is False or x.size == 0:
        mask = np.ones(x.shape, bool) if x.size else np.empty(x.shape, x.dtype)
        return (input.clone() if x.size else input), Tensor._wrap(_on_device_of(mask, x))
    keep = 1.0 - p
    mask = bernoulli_(Tensor._wrap(np.empty(x.shape, bool)), keep)._data
    scale = x.dtype.type(0.0 if keep == 0 else 1.0 / keep)
    params = {"result1": _on_device_of(mask.astype(x.dtype), x), "scale": scale, "p": p}
    return apply(NN.DROPOUT, (input,), params), Tensor._wrap(_on_device_of(mask, x))
