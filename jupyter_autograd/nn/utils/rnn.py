"""``torch.nn.utils.rnn``: packing padded batches of sequences for the recurrent layers and
padding them back, as torch's (``PackedSequence``'s fields, sort and unsort permutations,
the ops the results are recorded through)."""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

from ... import _dtype as D
from ... import factories
from ...ops import api_layout as _layout
from ...ops.api_reduce import sort
from ...tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]

_UNSORTED = (
    "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
    "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
    "requirement if you do not need ONNX exportability."
)


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The data of a batch of sequences packed time step by time step, with the batch size of
    each step (``batch_sizes``) and the permutation that sorted the batch by length."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = (
            None if self.sorted_indices is None else self.sorted_indices.to(data.device)
        )
        unsorted = None if self.unsorted_indices is None else self.unsorted_indices.to(data.device)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation):
    """The inverse permutation (None for None)."""
    if permutation is None:
        return None
    output = factories.empty_like(permutation)
    output.scatter_(0, permutation, factories.arange(0, permutation.numel()))
    return output


def _pack(input, lengths: list, batch_first: bool):
    """torch's ``_pack_padded_sequence``: (data, batch_sizes)."""
    if lengths and lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if any(a < b for a, b in pairwise(lengths)):
        raise RuntimeError(_UNSORTED)
    if batch_first:
        input = input.transpose(0, 1)
    steps = lengths[0] if lengths else 0
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(steps)]
    width = input.size(1)
    index = [t * width + b for t in range(steps) for b in range(batch_sizes[t])]
    flat = input.reshape(-1, *input.shape[2:])
    data = flat[factories.tensor(index, dtype=D.int64)]
    if data.grad_fn is not None:
        _layout._rename_node(data.grad_fn, _pack_node(type(data.grad_fn)))
    return data, factories.tensor(batch_sizes, dtype=D.int64)


_PACK_NODES: dict = {}


def _pack_node(base):
    # torch records the packing as one op, PackPaddedSequenceBackward0: the gather's node
    # renamed (its backward is the same scatter of the gradient)
    cls = _PACK_NODES.get(base)
    if cls is None:
        cls = _PACK_NODES[base] = type("PackPaddedSequenceBackward0", (base,), {})
        cls.__module__ = "builtins"
    return cls


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch of sequences of the given lengths."""
    if not isinstance(lengths, Tensor):
        lengths = factories.as_tensor(lengths, dtype=D.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=D.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, [int(n) for n in lengths.tolist()], batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch and the lengths back from a ``PackedSequence``."""
    batch_sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}"
            )
        max_seq_length = total_length
    data = sequence.data
    max_batch = batch_sizes[0]
    output = factories.full(
        (max_seq_length, max_batch, *data.shape[1:]),
        padding_value,
        dtype=data.dtype,
        device=data.device,
    )
    lengths = [0] * max_batch
    offset, prev_bs, prev_i = 0, max_batch, 0
    for i in range(len(batch_sizes) + 1):
        bs = batch_sizes[i] if i != len(batch_sizes) else 0
        if bs != prev_bs:
            n = prev_bs * (i - prev_i)
            tmp = data.narrow(0, offset, n).view(i - prev_i, prev_bs, *data.shape[1:])
            output.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_bs).copy_(tmp)
            offset += n
            prev_i = i
        for j in range(bs, prev_bs):
            lengths[j] = i
        prev_bs = bs
    if batch_first:
        output = output.transpose(0, 1)
    lengths_t = factories.tensor(lengths, dtype=D.int64)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        return output.index_select(0 if batch_first else 1, unsorted), lengths_t[unsorted.cpu()]
    return output, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths, padded to the longest."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        ) from None
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    n = len(sequences)
    dims = (n, max_len, *trailing) if batch_first else (max_len, n, *trailing)
    first = sequences[0]
    out = factories.full(dims, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = 0 if padding_side == "right" else max_len - length
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences back from a padded batch and their lengths."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = factories.arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences of different lengths."""
    lengths = factories.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences back from a ``PackedSequence``."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
