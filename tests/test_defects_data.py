"""A dataset (or collate_fn) that raises inside a DataLoader loop: the error propagates from
that ``next()`` and the following ``next()`` continues with the next batch, as torch's iterator
(issue 13: our generator ended for good, silently losing the rest of the epoch)."""

from __future__ import annotations

import pytest

from ._oracle import assert_as_torch
from ._torch import require as require_torch


def _program(batch_size, bad=(2,), collate_bad=False, n=7):
    def program(t):
        data = t.utils.data

        class Flaky(data.Dataset):
            def __len__(self):
                return n

            def __getitem__(self, i):
                if i in bad:
                    raise ValueError(f"bad sample {i}")
                return i

        def collate(batch):
            if collate_bad and 4 in batch:
                raise KeyError("collate")
            return data.default_collate(batch)

        kw = {"collate_fn": collate} if collate_bad else {}
        it = iter(data.DataLoader(Flaky(), batch_size=batch_size, **kw))
        seen = [type(it).__name__, len(it)]
        for _ in range(n + 2):
            try:
                seen.append(next(it))
            except StopIteration:
                seen.append("stop")
                break
            except Exception as e:  # noqa: BLE001 - what the loop sees is compared
                seen.append(f"{type(e).__name__}: {e}")
        return seen

    return program


@pytest.mark.parametrize(
    "batch_size,bad,collate_bad",
    [
        (2, (2,), False),
        (2, (0,), False),
        (2, (6,), False),
        (2, (2, 3, 4), False),
        (3, (), True),
        (None, (2,), False),
        (1, (2, 5), False),
    ],
)
def test_dataloader_continues_after_an_error(batch_size, bad, collate_bad):
    torch = require_torch()
    assert_as_torch(torch, _program(batch_size, bad, collate_bad))


def test_a_for_loop_still_stops_at_the_error():
    import jupyter_autograd as ja

    class Bad(ja.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 1:
                raise ValueError("bad")
            return i

    got = []
    with pytest.raises(ValueError, match="bad"):
        for b in ja.utils.data.DataLoader(Bad(), batch_size=1):
            got += [b]
    assert len(got) == 1
