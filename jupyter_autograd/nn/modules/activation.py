"""Activation modules: thin wrappers over ``nn.functional``."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class Identity(Module):
    """Returns its input unchanged (extra constructor arguments are ignored, as torch).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Identity()(torch.ones(2))
        tensor([1., 1.])
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class ReLU(Module):
    """``max(0, x)`` elementwise (ReluBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.ReLU()(torch.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        if self.inplace:
            return F.relu(input, inplace=True)
        if input.__class__ is Tensor:
            return input.relu()  # the method runs the registry row inline (the hot path)
        return F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` for positive ``x``, ``negative_slope * x`` otherwise.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.LeakyReLU(0.1)
        LeakyReLU(negative_slope=0.1)
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Tanh(Module):
    """Hyperbolic tangent elementwise.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Tanh()(torch.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """Logistic sigmoid elementwise.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Sigmoid()(torch.tensor([0.0]))
        tensor([0.5000])
    """

    def forward(self, input):
        return F.sigmoid(input)


class GELU(Module):
    """Gaussian error linear unit (``approximate="none"`` or ``"tanh"``).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.GELU(approximate="tanh")
        GELU(approximate='tanh')
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    """Softmax along ``dim``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Softmax(dim=1)
        Softmax(dim=1)
    """

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.LogSoftmax(dim=1)
        LogSoftmax(dim=1)
    """

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """Softmin along ``dim``: ``softmax(-x)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Softmin(dim=1)
        Softmin(dim=1)
    """

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold`` (SoftplusBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Softplus()
        Softplus(beta=1.0, threshold=20.0)
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class LogSigmoid(Module):
    """``log(sigmoid(x))`` elementwise (LogSigmoidBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.LogSigmoid()(torch.tensor([0.0]))
        tensor([-0.6931])
    """

    def forward(self, input):
        return F.logsigmoid(input)
