"""``torch.memory_format`` and ``torch.layout`` values. NumPy arrays are strided; the memory
formats are accepted wherever torch takes one (the data keeps its own layout)."""

from __future__ import annotations


class memory_format:
    """A memory format (``torch.contiguous_format``...), printed as torch prints it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (memory_format, (self.name,))


class layout:
    """A tensor layout; jupyter_autograd has ``strided`` tensors only."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
strided = layout("strided")
sparse_coo = layout("sparse_coo")
