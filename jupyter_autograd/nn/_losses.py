"""The loss functions of ``nn.functional``, composed as torch 2.13 composes them (the same
nodes in the same order), with torch's checks and messages."""

from __future__ import annotations

import numpy as np

from ..autograd.engine import device_mismatch, same_device, xp_of
from ..ops import api as _api
from ..ops import arithmetic as ARITH
from ..ops import loss as LS
from ..ops import reduction as RD
from ..ops.dispatch import apply, apply1, promote2
from ..tensor import Tensor


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


def _check_same_size(input, target):
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Target size ({_size(target)}) must be the same as input size ({_size(input)})"
        )


def _size(t):
    return "torch.Size([" + ", ".join(str(s) for s in t._data.shape) + "])"


def _opt(t):
    return None if t is None else (t._data if isinstance(t, Tensor) else np.asarray(t))


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """BCE on logits, stable at any logit: ``(1 - y) x - log sigmoid(x)`` (pos_weight scales
    the log term); the gradient is ``sigmoid(x) - y``, exact far into the tails.

    Example:
        >>> import jupyter_autograd as torch
        >>> z = torch.tensor([-40.0], requires_grad=True)
        >>> torch.nn.functional.binary_cross_entropy_with_logits(z, torch.tensor([0.0])).backward()
        >>> z.grad
        tensor([4.2484e-18])
    """
    r = _reduction(reduction, size_average, reduce)
    _check_same_size(input, target)
    # the row takes the dtypes as they are (its result has the target's)
    p = {"reduction": r, "weight": _opt(weight), "pos_weight": _opt(pos_weight)}
    return apply(LS.BCE_LOGITS, (input, target), p)


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """BCE on probabilities; each log is clamped at -100 as torch does."""
    r = _reduction(reduction, size_average, reduce)
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Using a target size ({_size(target)}) that is different to the input size "
            f"({_size(input)}) is deprecated. Please ensure they have the same size."
        )
    # torch: the dtypes first (target as input's, then the kernel's floating types), then the
    # kernel checks input, then target; nan is outside [0, 1]
    if input._data.dtype != target._data.dtype:
        raise RuntimeError(
            f"Found dtype {_api.scalar_type(target)} but expected {_api.scalar_type(input)}"
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{_api.scalar_type(input)}'"
        )
    for name, d in (("input", input._data), ("target", target._data)):
        if d.size and not np.all((d >= 0) & (d <= 1)):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    input, target = promote2(input, target)
    return apply(LS.BCE, (input, target), {"reduction": r, "weight": _opt(weight)})


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (MseLossBackward0)."""
    r = _reduction(reduction, size_average, reduce)
    if input._data.shape != target._data.shape:
        import warnings

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


# ---------------------------------------------------------------- nll_loss and cross_entropy
_LONG_OR_BYTE = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bool": "Bool",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    """Negative log-likelihood of class indices (NllLossBackward0; NllLoss2DBackward0 for
    inputs of more than two dimensions, viewed to 4-D as torch does).

    Ignored targets contribute an exact zero; the mean over zero total weight (every target
    ignored) is nan with zero gradients, as torch's.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.zeros(2, 3, requires_grad=True)
        >>> loss = torch.nn.functional.nll_loss(x, torch.tensor([-100, -100]))
        >>> loss.backward()
        >>> loss, x.grad.abs().sum()
        (tensor(nan, grad_fn=<NllLossBackward0>), tensor(0.))
    """
    r = _reduction(reduction, size_average, reduce)
    return _nll_loss_nd(input, target, weight, r, ignore_index)


def _nll_loss_nd(input, target, weight, r, ignore_index):
    x = input._data
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if not isinstance(target, Tensor):
        target = Tensor._wrap(np.asarray(target))
    t = target._data
    if x.ndim != 1 and x.shape[0] != (t.shape[0] if t.ndim else 1):
        raise ValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0] if t.ndim else 1})."
        )
    if x.ndim <= 2:
        return _nll(LS.NLL, input, target, weight, r, ignore_index)
    if x.ndim == 4:
        return _nll(LS.NLL2D, input, target, weight, r, ignore_index)
    # 3-D or > 4-D: (N, C, d1, ...) viewed as (N, C, 1, d) around nll_loss2d
    n, out_size = x.shape[0], (x.shape[0],) + x.shape[2:]
    if t.shape[1:] != x.shape[2:]:
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(t.shape)}")
    inp = _api.view(input.contiguous(), (n, x.shape[1], 1, -1) if x.size else (n, x.shape[1], 0, 0))
    tgt = Tensor._wrap(t.reshape((n, 1, -1) if t.size else (n, 0, 0)))
    out = _nll(LS.NLL2D, inp, tgt, weight, r, ignore_index)
    return out if r else _api.view(out, out_size)


def _nll(op, input, target, weight, r, ignore_index):
    x = input._data
    t = target._data
    if not same_device(t, x):
        raise device_mismatch([input, target])
    if x.dtype.kind == "c":  # torch's kernel refuses complex input before checking the rest
        raise op.cx.error(None, x)
    if t.dtype.kind not in "iu" or t.dtype.kind == "i" and t.dtype.itemsize != 8:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_LONG_OR_BYTE.get(t.dtype.name, t.dtype.name)}"
        )
    n_classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    if x.ndim <= 2 and t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim == 4:
        if t.ndim != 3:
            raise RuntimeError(
                f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {t.ndim}"
            )
        if t.shape != (x.shape[0],) + x.shape[2:]:
            raise RuntimeError(
                f"size mismatch (got input: {list(x.shape)} , target: {list(t.shape)}"
            )
    w = _opt(weight)
    if w is not None:
        if w.ndim != 1 or w.shape[0] != n_classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no classes "
                f"but got weight tensor of shape: {list(w.shape)}"
            )
        if w.dtype != x.dtype:
            raise RuntimeError(
                f"expected scalar type {_api.scalar_type(input)} but found {_api.scalar_type(weight)}"
            )
    shown_ignore = ignore_index % (1 << 64)  # torch keeps it as an unsigned 64-bit integer
    if (
        w is None
        and t.size
        and ignore_index < 0
        and (np.minimum.reduce(t, None) if t.__class__ is np.ndarray else t.min()) >= 0
    ):
        # common case: no weights, nothing ignored: the coefficient is one number. A class index
        # past the end makes the forward's indexing fail; the general path below names it.
        count = t.size
        p = {
            "reduction": r,
            "ignore_index": shown_ignore,
            "weight": None,
            "st": t,
            "valid": None,
            "coef": -1.0 / count if r == 1 else -1.0,
            "nan_out": False,
            "total_weight": Tensor._wrap(np.array(float(count), x.dtype)),
            "self_sym_sizes": x.shape,
        }
        try:
            return apply(op, (input, target), p)
        except IndexError:
            pass
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    xp = xp_of(x)
    st = xp.where(valid, t, 0)
    ww = (w[st] if w is not None else xp.ones(t.shape, x.dtype)) * valid  # on x's device
    total = ww.sum()
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 where every weight is 0: nan
        coef = xp.where(valid, -ww / total if r == 1 else -ww, 0.0).astype(x.dtype)
    p = {
        "reduction": r,
        "ignore_index": shown_ignore,
        "weight": w,
        "st": st,
        "valid": valid,
        "coef": coef,
        "nan_out": bool(r == 1 and float(total) == 0.0),
        "total_weight": Tensor._wrap(xp.asarray(total, dtype=x.dtype)),
        "self_sym_sizes": x.shape,
    }
    return apply(op, (input, target), p)


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """log_softmax + nll_loss for class indices; ``-(log_softmax * p).sum()`` for class
    probabilities; with ``label_smoothing``, torch's blend of the two. The same nodes as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> logits = torch.tensor([[2.0, 0.0]], requires_grad=True)
        >>> torch.nn.functional.cross_entropy(logits, torch.tensor([0])).grad_fn
        <NllLossBackward0 object at 0x...>
    """
    if getattr(input, "_bt", False) or getattr(target, "_bt", False):  # inside vmap
        return (input if getattr(input, "_bt", False) else target)._vmap_fn(
            "cross_entropy",
            input,
            target,
            weight,
            size_average,
            ignore_index,
            reduce,
            reduction,
            label_smoothing,
        )
    r = _reduction(reduction, size_average, reduce)
    d = input._data
    cdim = 1 if d.ndim > 1 else 0
    if isinstance(target, Tensor) and target._data.shape == d.shape:
        return _cross_entropy_probs(input, target, weight, r, ignore_index, label_smoothing, cdim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 when every target is ignored
            return _cross_entropy_smoothed(
                input, target, weight, r, ignore_index, label_smoothing, cdim
            )
    return _nll_loss_nd(_log_softmax(input, cdim), target, weight, r, ignore_index)


def _log_softmax(input, cdim):
    if input._data.dtype.kind == "f":  # the common case: the row directly, once per step
        return apply1(RD.LOG_SOFTMAX, input, {"dim": cdim})
    return _api.log_softmax(input, cdim)


def _check_smoothing(ls):
    if ls > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {ls}")


def _class_view(weight, ndim, cdim):
    """The class weights shaped to broadcast along the class dimension."""
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[cdim] = -1
    return _api.view(weight, tuple(shape))


def _cross_entropy_probs(input, target, weight, r, ignore_index, ls, cdim):
    if target._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {_api.scalar_type(target)}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    n = input._data.shape[cdim]
    if weight is not None and (weight._data.ndim != 1 or weight._data.shape[0] != n):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n} classes or no "
            f"classes but got weight tensor of shape: {list(weight._data.shape)}"
        )
    logp = _log_softmax(input, cdim)
    if ls > 0.0:
        _check_smoothing(ls)
        target = target * (1 - ls) + ls / n
    terms = logp * target
    if weight is not None:
        terms = terms * _class_view(weight, logp._data.ndim, cdim)
    if r == 0:
        return -terms.sum(cdim)
    total = terms.sum()
    if r == 2:
        return -total
    numel = logp._data.size
    if numel == 0:  # torch fills the empty sum with nan
        return -apply1(ARITH.FILL, total, {"value": float("nan")})
    return apply1(ARITH.DIV_SCALAR, -total, {"other": numel // n})


def _cross_entropy_smoothed(input, target, weight, r, ignore_index, ls, cdim):
    logp = _log_softmax(input, cdim)
    nll = _nll_loss_nd(logp, target, weight, r, ignore_index)
    n = logp._data.shape[cdim]
    if weight is not None:
        smooth = -(logp * _class_view(weight, logp._data.ndim, cdim)).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    ignored = t == ignore_index
    smooth = _api.masked_fill(smooth, Tensor._wrap(ignored), 0.0)
    if r == 1:
        kept = ~ignored
        if weight is not None:
            denom = Tensor._wrap(xp_of(t).asarray(weight._data[t[kept]].sum()))
        else:
            denom = Tensor._wrap(xp_of(t).asarray(kept.sum()))
        ret = smooth.sum() / denom
    elif r == 2:
        ret = smooth.sum()
    else:
        ret = smooth
    return apply1(ARITH.MUL_SCALAR, nll, {"other": 1 - ls}) + apply1(
        ARITH.MUL_SCALAR, ret, {"other": ls / n}
    )
