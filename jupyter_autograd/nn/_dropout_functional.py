"""Channel-wise and alpha dropout (``dropout1d/2d/3d``, ``alpha_dropout``,
``feature_alpha_dropout``), composed as torch's ``_dropout_impl``: a noise tensor drawn with
``bernoulli_(1 - p)`` from the package's generator, then ``input * noise`` (MulBackward0), plus
an offset for alpha dropout (AddBackward0). ``F.dropout`` itself is a registry row (functional.py).
"""

from __future__ import annotations

import math
import warnings

from .. import factories
from ..grad_mode import no_grad
from ..ops import api as _api

__all__ = ["alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766  # SELU's alpha * scale: the value alpha dropout drops to


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _bernoulli(shape, q, like):
    """A noise tensor of 0/1 with P(1) = q, drawn as torch draws it: ``empty(shape)
    .bernoulli_(q)`` from the package's generator."""
    from .._sampling_inplace import bernoulli_

    return bernoulli_(factories.empty(shape, dtype=like.dtype, device=like.device), q)


def _dropout_impl(input, p, train, feature, alpha, inplace):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = factories.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (len(shape) - 2)
    with no_grad():
        noise = _bernoulli(shape, 1 - p, input)
        if alpha:
            a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
            b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
            noise = noise * a
        else:
            noise = noise / (1 - p)
    if not alpha:
        return input.mul_(noise) if inplace else input * noise
    out = input.mul_(noise) if inplace else input * noise
    return out.add_(b)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` input with probability ``p``, scaling
    the rest by ``1/(1-p)``.

    Raises:
        ValueError: ``p`` outside [0, 1].
        RuntimeError: input that is not 2-D or 3-D.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.dropout1d(torch.ones(2, 3), 0.5, training=False)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    _check_p(p)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d "
            "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
            "dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    batched = nd == 3
    return _unbatched_or_not(input, p, training, inplace, batched)


def _unbatched_or_not(input, p, training, inplace, batched):
    """Channel dropout of a batched input, or of an unbatched one seen with a batch dim of 1."""
    if batched:
        return _dropout_impl(input, p, training, True, False, inplace)
    if inplace and not hasattr(input, "unsqueeze_"):
        # torch runs unsqueeze_(0), the in-place dropout and squeeze_(0); without the in-place
        # view ops the result is written into the input through the in-place machinery
        from .._tensor_inplace import _inplace

        def run(t):
            return _api.squeeze(
                _dropout_impl(_api.unsqueeze(t, 0), p, training, True, False, False), 0
            )

        run.__name__ = "feature_dropout"
        return _inplace(run)(input)
    if inplace:
        return _dropout_impl(input.unsqueeze_(0), p, training, True, False, True).squeeze_(0)
    return _api.squeeze(_dropout_impl(_api.unsqueeze(input, 0), p, training, True, False, False), 0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` input (a 3-D input is taken as ``(N, C, L)``,
    with torch's warning).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.dropout2d(torch.ones(1, 2, 1, 1), 0.0)
        tensor([[[[1.]],
        <BLANKLINE>
                 [[1.]]]])
    """
    _check_p(p)
    nd = input.dim()
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will result in "
            "an error in a future release. To retain the behavior and silence this warning, please use "
            "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with "
            "2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
            "inputs).",
            stacklevel=2,
        )
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
            "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
            "dim. This behavior will change in a future release to interpret the input as one without "
            "a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
            "behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _dropout_impl(input, p, training, True, False, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input."""
    _check_p(p)
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will result in "
            "an error in a future release. To retain the behavior and silence this warning, please use "
            "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with "
            "3 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
            "inputs).",
            stacklevel=2,
        )
    batched = nd == 5
    return _unbatched_or_not(input, p, training, inplace, batched)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped values become SELU's negative saturation and an affine
    map keeps the mean and variance (``input * a_noise + b``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.functional.alpha_dropout(torch.ones(2), 0.5)
        tensor([1., 1.])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _dropout_impl(input, p, training, True, True, inplace)
