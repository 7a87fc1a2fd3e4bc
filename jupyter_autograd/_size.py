"""Shape facts shared by the Tensor and the ops: ``torch.Size``, torch's strides of an array,
and dimension wrapping with torch's message."""

from __future__ import annotations


class Size(tuple):
    """``torch.Size``: a tuple that prints as ``torch.Size([5, 3])``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.zeros(5, 3).shape
        torch.Size([5, 3])
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


def torch_strides(d) -> tuple:
    """``d``'s strides in elements, as torch gives them. NumPy makes every stride of a fresh
    empty array 0; torch's empty tensors keep contiguous strides unless expanded (an expanded
    one is a read-only broadcast here, and keeps NumPy's 0 strides)."""
    st = d.strides
    if d.size == 0 and d.flags.writeable and not any(st):
        out, acc = [], 1
        for n in reversed(d.shape):
            out.append(acc)
            acc *= max(n, 1)
        return tuple(reversed(out))
    return tuple(s // d.itemsize for s in st)


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n
