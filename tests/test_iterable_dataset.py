"""Issue 14 (teaching code): torch.utils.data.IterableDataset and ChainDataset through a
DataLoader as torch's (batches in stream order, drop_last, batch_size=None, collate_fn, len,
the random draw each epoch makes, argument errors)."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch


def _stream(t):
    data = t.utils.data

    class Count(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            for i in range(self.n):
                yield t.tensor([float(i)]), i % 2

        def __len__(self):
            return self.n

    out = []
    t.manual_seed(0)
    dl = data.DataLoader(Count(5), batch_size=2)
    out.append(repr([b for b in dl]))
    out.append(repr((len(dl), len(data.DataLoader(Count(5), batch_size=2, drop_last=True)))))
    out.append(repr(list(data.DataLoader(Count(5), batch_size=2, drop_last=True))))
    out.append(repr(list(data.DataLoader(Count(2), batch_size=None))))
    out.append(repr(list(data.DataLoader(Count(3), batch_size=2, collate_fn=len))))
    chain = Count(2) + Count(3)
    out.append(repr((type(chain).__name__, len(chain), [x[1] for x in chain])))
    out.append(repr(t.rand(1)))  # each epoch's iterator drew a seed, as torch's
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        try:
            data.DataLoader(Count(2), **kw)
        except ValueError as e:
            out.append(str(e))
    return out


def test_iterable_dataset_as_torch():
    torch = require_torch()
    assert _stream(ja) == _stream(torch)


def _unbatched(t):
    data = t.utils.data
    import numpy as np

    class Items(data.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return [(i, np.float32(i) / 2), {"x": np.arange(2) + i}, (np.array(["a"]),)][i]

    return repr(list(data.DataLoader(Items(), batch_size=None)))


def test_unbatched_loader_converts_as_torch():
    torch = require_torch()
    assert _unbatched(ja) == _unbatched(torch)
