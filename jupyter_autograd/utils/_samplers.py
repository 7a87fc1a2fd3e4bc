"""Samplers of ``torch.utils.data``: the index orders a ``DataLoader`` walks, drawing from the
generators exactly as torch's do (so ``shuffle=True`` visits torch's order for the same seed).

Example:
    >>> import jupyter_autograd as torch
    >>> from jupyter_autograd.utils.data import RandomSampler, BatchSampler
    >>> s = RandomSampler(range(6), generator=torch.Generator().manual_seed(0))
    >>> list(s)
    [2, 5, 3, 0, 1, 4]
    >>> list(BatchSampler(s, 4, drop_last=False))
    [[5, 2, 1, 3], [4, 0]]
"""

from __future__ import annotations

import itertools

import numpy as np


def _seed_from(generator) -> int:
    """``int(torch.empty((), dtype=torch.int64).random_(generator=generator).item())``."""
    from .. import _distributions as D
    from ..random import _get

    return int(D.random_default(_get(generator), 1, np.int64)[0])


class Sampler:
    """Base class: subclasses define ``__iter__`` over dataset indices (and usually ``__len__``)."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A shuffled order (``randperm``), or ``num_samples`` draws with replacement; without a
    ``generator`` each pass seeds a fresh one from the default generator, as torch does.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.utils.data import RandomSampler
        >>> g = torch.Generator().manual_seed(1)
        >>> list(RandomSampler(range(10), replacement=True, num_samples=4, generator=g))
        [5, 9, 4, 8]
    """

    def __init__(
        self, data_source, replacement: bool = False, num_samples=None, generator=None
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _generator(self):
        if self.generator is not None:
            return self.generator
        from ..random import Generator

        return Generator().manual_seed(_seed_from(None))

    def _indices(self) -> np.ndarray:
        """One pass as an int64 array: ``__iter__``'s draws, made at once (DataLoader's fast path)."""
        from .._sampling import randint, randperm

        n, m = len(self.data_source), self.num_samples
        g = self._generator()
        if self.replacement:
            parts = [randint(0, n, (32,), generator=g)._data for _ in range(m // 32)]
            parts.append(randint(0, n, (m % 32,), generator=g)._data)
        else:
            parts = [randperm(n, generator=g)._data for _ in range(m // n)]
            parts.append(randperm(n, generator=g)._data[: m % n])
        return np.concatenate(parts).astype(np.int64, copy=False)

    def __iter__(self):
        from .._sampling import randint, randperm

        n, m = len(self.data_source), self.num_samples
        g = self._generator()
        if self.replacement:
            for _ in range(m // 32):
                yield from randint(0, n, (32,), generator=g).tolist()
            yield from randint(0, n, (m % 32,), generator=g).tolist()
        else:
            for _ in range(m // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[: m % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        from .._sampling import randperm

        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``
    (``multinomial``)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None) -> None:
        from .. import _dtype
        from ..factories import as_tensor

        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(  # noqa: TRY004 - torch's exception type
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = as_tensor(weights, dtype=_dtype.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from .._sampling import multinomial

        yield from multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        ).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(  # noqa: TRY004 - torch's exception type
                f"drop_last should be a boolean value, but got drop_last={drop_last}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*[it] * self.batch_size):
                yield [*batch]
            return
        batch = [*itertools.islice(it, self.batch_size)]
        while batch:
            yield batch
            batch = [*itertools.islice(it, self.batch_size)]

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
