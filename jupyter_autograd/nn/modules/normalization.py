"""Normalization layers: ``BatchNorm1d/2d/3d``, ``InstanceNorm1d/2d/3d`` and ``GroupNorm``
(``LayerNorm`` lives with ``Linear``), with torch's buffers, checks and ``repr``."""

from __future__ import annotations

import warnings

from ... import factories
from ..._dtype import int64
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "RMSNorm",
]


class _NormBase(Module):
    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        kw = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(factories.empty(num_features, **kw))
            if bias:
                self.bias = Parameter(factories.empty(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", factories.zeros(num_features, **kw))
            self.register_buffer("running_var", factories.ones(num_features, **kw))
            self.register_buffer(
                "num_batches_tracked", factories.tensor(0, dtype=int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    _dims = ()

    def _check_input_dim(self, input) -> None:
        if input.dim() not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None: a cumulative average over the batches seen so far
            factor = (
                1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
            )
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_buffers else None,
            self.running_var if use_buffers else None,
            self.weight,
            self.bias,
            bn_training,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization over ``(N, C)`` or ``(N, C, L)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.BatchNorm1d(3)
        BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over ``(N, C, H, W)`` (NativeBatchNormBackward0), with running
    statistics updated in training and used in ``eval()``.

    Raises:
        ValueError: ``expected 4D input (got 3D input)`` and torch's other checks.

    Example:
        >>> import jupyter_autograd as torch
        >>> bn = torch.nn.BatchNorm2d(2)
        >>> y = bn(torch.arange(16.0).reshape(2, 2, 2, 2))
        >>> bn.running_mean
        tensor([0.5500, 0.9500])
    """

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization over ``(N, C, D, H, W)``."""

    _dims = (5,)


class _InstanceNorm(_NormBase):
    _no_batch = 2

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
        *,
        bias=True,
    ) -> None:
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            device,
            dtype,
            bias=bias if affine else True,
        )

    def _check_input_dim(self, input) -> None:
        dims = (self._no_batch, self._no_batch + 1)
        if input.dim() not in dims:
            raise ValueError(f"expected {dims[0]}D or {dims[1]}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence "
                "this warning by not passing in num_features, which is not used because affine=False",
                UserWarning,
                stacklevel=2,
            )
        if input.dim() == self._no_batch:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization over ``(N, C, L)`` or ``(C, L)``."""

    _no_batch = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over ``(N, C, H, W)`` or ``(C, H, W)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.InstanceNorm2d(3)
        InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _no_batch = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _no_batch = 4


class GroupNorm(Module):
    """Group normalization: each sample's channels normalized in ``num_groups`` groups.

    Raises:
        ValueError: ``num_channels`` not divisible by ``num_groups``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.GroupNorm(2, 4)
        GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(
        self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        kw = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(factories.empty(num_channels, **kw))
            if bias:
                self.bias = Parameter(factories.empty(num_channels, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims, scaled by a
    ``weight`` of ones (``elementwise_affine``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.RMSNorm(2, eps=0.0)(torch.tensor([[3.0, 4.0]]))
        tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(
        self, normalized_shape, eps=None, elementwise_affine: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                factories.empty(self.normalized_shape, device=device, dtype=dtype)
            )
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )
