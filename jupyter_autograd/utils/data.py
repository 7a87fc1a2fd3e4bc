"""``Dataset``, ``IterableDataset``, ``TensorDataset``, ``Subset``, ``random_split`` and
``DataLoader``, as
``torch.utils.data`` (single process: ``num_workers`` is accepted and ignored)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..tensor import Tensor
from ._samplers import (  # noqa: F401 - torch.utils.data's names
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
    _seed_from,
)


class Dataset:
    """Map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``).

    Example:
        >>> import jupyter_autograd as torch
        >>> class Squares(torch.utils.data.Dataset):
        ...     def __len__(self):
        ...         return 3
        ...     def __getitem__(self, i):
        ...         return i * i
        >>> list(torch.utils.data.DataLoader(Squares(), batch_size=2))
        [tensor([0, 1]), tensor([4])]
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is an iterable of samples (a stream): subclasses define ``__iter__``; a
    DataLoader batches what it yields, in order."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other."""

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")  # noqa: TRY004
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")  # noqa: TRY004
            total += len(d)
        return total


class TensorDataset(Dataset):
    """Samples are the rows of the given tensors (all with the same first dimension).

    Example:
        >>> import jupyter_autograd as torch
        >>> ds = torch.utils.data.TensorDataset(torch.arange(4.0), torch.tensor([0, 1, 0, 1]))
        >>> ds[1]
        (tensor(1.), tensor(1))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """Datasets one after the other."""

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = 0 if d == 0 else int(self.cumulative_sizes[d - 1])
        return self.datasets[d][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset: Dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths, generator=None) -> list:
    """Split into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    Example:
        >>> import jupyter_autograd as torch
        >>> train, test = torch.utils.data.random_split(range(10), [0.8, 0.2],
        ...                                             generator=torch.Generator().manual_seed(0))
        >>> len(train), len(test)
        (8, 2)
    """
    from .._sampling import randperm

    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(n * frac))
        remainder = n - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(sum(lengths), generator=generator).tolist()
    out = []
    offset = 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset : offset + length]))
        offset += length
    return out


def default_convert(data):
    """One sample as a DataLoader without batching returns it: NumPy arrays and numbers become
    tensors, tuples become lists (as torch's, for backward compatibility), containers
    converted element by element."""
    import copy
    from collections import abc

    from ..factories import as_tensor

    if isinstance(data, Tensor):
        return data
    cls = type(data)
    if cls.__module__ == "numpy" and cls.__name__ not in ("str_", "string_"):
        if cls.__name__ == "ndarray" and data.dtype.kind in "SaUO":
            return data
        return as_tensor(data)
    if isinstance(data, abc.Mapping):
        try:
            if isinstance(data, abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: default_convert(data[k]) for k in data})
                return clone
            return cls({k: default_convert(data[k]) for k in data})
        except TypeError:
            return {k: default_convert(data[k]) for k in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return cls(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return cls([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Stack a list of samples into a batch: tensors stack, numbers become a tensor, tuples and
    dicts are collated field by field."""
    from ..factories import tensor
    from ..ops.api import stack

    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return Tensor._wrap(np.stack(batch))
    if isinstance(elem, float):
        from .. import _dtype

        return tensor(batch, dtype=_dtype.float64)  # torch collates Python floats as float64
    if isinstance(elem, (bool, int, np.number)):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, dict):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        it = iter(batch)
        size = len(elem)
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem)}"
    )


class DataLoader:
    """Batches of a dataset: ``batch_size``, ``shuffle`` (with an optional ``generator``),
    ``drop_last``, ``collate_fn``. A TensorDataset is sliced with one index array per batch
    (no per-sample Python loop).

    Example:
        >>> import jupyter_autograd as torch
        >>> ds = torch.utils.data.TensorDataset(torch.arange(5.0))
        >>> [len(xb) for (xb,) in torch.utils.data.DataLoader(ds, batch_size=2, drop_last=True)]
        [2, 2]
    """

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        *,
        generator=None,
        **kwargs,
    ) -> None:
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:  # torch's checks, in its order
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    f"got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but "
                    f"got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (
            batch_size != 1 or shuffle or sampler is not None or drop_last
        ):
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                "and drop_last"
            )
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if self._iterable:
            sampler = None
        elif sampler is None:  # torch's default samplers (their draws give torch's order)
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.generator = generator
        self.pin_memory = pin_memory

    def _indices(self):
        if type(self.sampler) is SequentialSampler:
            return np.arange(len(self.dataset))
        if type(self.sampler) is RandomSampler:
            return self.sampler._indices()
        return list(iter(self.sampler))

    def _batches(self):
        if self._iterable:  # lists of samples, taken from the stream
            it = iter(self.dataset)
            if self.batch_size is None:
                yield from it
                return
            while True:
                batch = [x for _, x in zip(range(self.batch_size), it)]
                if not batch or (self.drop_last and len(batch) < self.batch_size):
                    return
                yield batch
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        idx = self._indices()
        bs = self.batch_size
        if bs is None:  # the dataset gets Python ints, as from torch's samplers
            yield from (int(i) for i in idx)
            return
        n = len(idx)
        stop = n - n % bs if self.drop_last else n
        for s in range(0, stop, bs):
            yield idx[s : s + bs]

    def __iter__(self):
        # torch's iterator draws a base seed for workers from the loader's generator (or the
        # default one) when it is created, even with no workers: the same draw keeps later
        # random numbers (dropout, the next shuffle) in step with torch
        self._base_seed = _seed_from(self.generator)
        return _SingleProcessDataLoaderIter(self)

    def _fetch(self, b):
        """One batch (or one sample, without batching) for the indices ``b``."""
        ds = self.dataset
        if self._iterable:
            if self.batch_size is None:
                return (self.collate_fn or default_convert)(b)
            return (self.collate_fn or default_collate)(b)
        if (
            self.collate_fn is None
            and isinstance(ds, TensorDataset)
            and self.batch_size is not None
        ):
            key = Tensor._wrap(np.asarray(b, dtype=np.int64))
            return [t[key] for t in ds.tensors]
        if self.batch_size is None and self.batch_sampler is None:
            return (self.collate_fn or default_convert)(ds[b])
        samples = [ds[int(i)] for i in b]
        return (self.collate_fn or default_collate)(samples)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


class _SingleProcessDataLoaderIter:
    """torch's single-process iterator: each ``next()`` takes the next batch of indices, then
    fetches it. An error raised by the dataset (or collate_fn) propagates from that ``next()``
    and the following one continues with the next batch, as torch's (a generator would end for
    good at the first error, silently losing the rest of the epoch)."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._indices = loader._batches()

    def __iter__(self):
        return self

    def __next__(self):
        return self._loader._fetch(next(self._indices))

    def __len__(self) -> int:
        return len(self._loader)
