"""utils.data and the shipped datasets."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split


def _ds(n=10):
    return TensorDataset(ja.arange(float(n)).reshape(n, 1), ja.arange(n))


def test_tensor_dataset_items_and_errors():
    ds = _ds()
    x, y = ds[3]
    assert x.tolist() == [3.0] and y.item() == 3 and len(ds) == 10
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(ja.zeros(3), ja.zeros(4))


def test_dataloader_batches_and_drop_last():
    ds = _ds(10)
    dl = DataLoader(ds, batch_size=4)
    batches = list(dl)
    assert [b[0].shape[0] for b in batches] == [4, 4, 2] and len(dl) == 3
    assert isinstance(batches[0], list)
    assert batches[1][1].tolist() == [4, 5, 6, 7]
    dl = DataLoader(ds, batch_size=4, drop_last=True)
    assert [b[1].shape[0] for b in dl] == [4, 4] and len(dl) == 2


def test_dataloader_shuffle_generator_is_reproducible_and_a_permutation():
    ds = _ds(50)
    a = [
        b[1].tolist()
        for b in DataLoader(ds, batch_size=8, shuffle=True, generator=ja.Generator().manual_seed(3))
    ]
    b = [
        b[1].tolist()
        for b in DataLoader(ds, batch_size=8, shuffle=True, generator=ja.Generator().manual_seed(3))
    ]
    c = [
        b[1].tolist()
        for b in DataLoader(ds, batch_size=8, shuffle=True, generator=ja.Generator().manual_seed(4))
    ]
    assert a == b and a != c
    flat = [v for batch in a for v in batch]
    assert sorted(flat) == list(range(50)) and flat != list(range(50))
    g = ja.Generator().manual_seed(0)
    dl = DataLoader(ds, batch_size=50, shuffle=True, generator=g)
    assert next(iter(dl))[1].tolist() != next(iter(dl))[1].tolist()  # a new order each epoch


def test_default_collate_for_a_custom_dataset():
    class Pairs(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return ja.tensor([float(i), 2.0 * i]), i, {"w": 0.5 * i}

    xb, yb, d = next(iter(DataLoader(Pairs(), batch_size=3)))
    assert xb.shape == ja.Size([3, 2]) and yb.dtype == ja.int64 and yb.tolist() == [0, 1, 2]
    assert d["w"].dtype == ja.float64 and d["w"].tolist() == [0.0, 0.5, 1.0]
    assert len(list(DataLoader(Pairs(), batch_size=2))) == 3


def test_dataloader_argument_errors():
    with pytest.raises(
        ValueError, match="batch_size should be a positive integer value, but got batch_size=0"
    ):
        DataLoader(_ds(), batch_size=0)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(_ds(), sampler=[0, 1], shuffle=True)


def test_random_split_lengths_fractions_and_disjoint():
    g = ja.Generator().manual_seed(0)
    a, b = random_split(range(10), [7, 3], generator=g)
    assert isinstance(a, Subset) and len(a) == 7 and len(b) == 3
    assert sorted(list(a) + list(b)) == list(range(10))
    a, b, c = random_split(_ds(10), [0.5, 0.3, 0.2], generator=ja.Generator().manual_seed(1))
    assert (len(a), len(b), len(c)) == (5, 3, 2)
    a2, _, _ = random_split(_ds(10), [0.5, 0.3, 0.2], generator=ja.Generator().manual_seed(1))
    assert a.indices == a2.indices
    with pytest.raises(
        ValueError, match="Sum of input lengths does not equal the length of the input dataset!"
    ):
        random_split(range(10), [3, 3])


@pytest.mark.parametrize("make", ["spiral", "moons"])
def test_shipped_datasets_are_deterministic(make):
    x1, y1 = getattr(ja.datasets, make)()
    x2, y2 = getattr(ja.datasets, make)()
    assert ja.equal(x1, x2) and ja.equal(y1, y2)
    assert x1.dtype == ja.float32 and y1.dtype == ja.int64 and x1.shape[1] == 2
    counts = np.bincount(y1.numpy())
    assert counts.max() - counts.min() <= 1
    assert np.abs(x1.numpy()).max() < 2.5
    x3, _ = ja.datasets.make_spiral(seed=1) if make == "spiral" else ja.datasets.make_moons(seed=1)
    assert not ja.equal(x1, x3)
    xd, _ = getattr(ja.datasets, make)(dtype=ja.float64)
    assert xd.dtype == ja.float64
