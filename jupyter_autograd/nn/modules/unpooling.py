"""``nn.MaxUnpool1d/2d/3d``: the partial inverses of max pooling."""

from __future__ import annotations

from .._unpool import max_unpool1d, max_unpool2d, max_unpool3d
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxUnpoolNd(Module):
    _n = 2
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._n
        tup = lambda v: (v,) * n if isinstance(v, int) else tuple(v)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Puts ``MaxPool1d``'s maxima back at their indices, zeros elsewhere."""

    _n = 1
    _fn = staticmethod(max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Puts ``MaxPool2d``'s maxima back at their indices, zeros elsewhere.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.MaxUnpool2d(2, stride=1, padding=1)
        MaxUnpool2d(kernel_size=(2, 2), stride=(1, 1), padding=(1, 1))
    """

    _n = 2
    _fn = staticmethod(max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Puts a 3-D max pool's maxima back at their indices, zeros elsewhere."""

    _n = 3
    _fn = staticmethod(max_unpool3d)
