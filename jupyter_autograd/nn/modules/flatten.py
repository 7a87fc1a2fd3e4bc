"""``Unflatten`` (``Flatten`` lives with ``Linear``)."""

from __future__ import annotations

from .module import Module

__all__ = ["Unflatten"]


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size``.

    Raises:
        TypeError: when ``unflattened_size`` is not a tuple or list of ints.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Unflatten(1, (2, 3))
        Unflatten(dim=1, unflattened_size=(2, 3))
        >>> torch.nn.Unflatten(1, (2, 3))(torch.zeros(4, 6)).shape
        torch.Size([4, 2, 3])
    """

    def __init__(self, dim, unflattened_size) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input):
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(
                        "unflattened_size must be tuple of ints, "
                        f"but found element of type {type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}"
        )

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
