"""Issue 14 (teaching code): torch.nn.utils.rnn (pack_padded_sequence, pad_packed_sequence,
pad_sequence, pack_sequence and their inverses) and RNN/GRU/LSTM over a PackedSequence, as
torch's: values, batch sizes, permutations, grad_fn names, gradients, errors."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch


def _packed(torch):
    R = torch.nn.utils.rnn
    log = []
    torch.manual_seed(0)
    x = torch.randn(3, 4, 2, requires_grad=True)
    p = R.pack_padded_sequence(x, [4, 2, 1], batch_first=True)
    log.append(repr((p,)))
    log.append(
        repr(
            (
                p.data.grad_fn.name(),
                p.batch_sizes,
                p.sorted_indices,
            )
        )
    )
    p2 = R.pack_padded_sequence(x, torch.tensor([2, 4, 1]), batch_first=True, enforce_sorted=False)
    log.append(
        repr(
            (
                p2.sorted_indices,
                p2.unsorted_indices,
                p2.data.grad_fn.name(),
            )
        )
    )
    o, l = R.pad_packed_sequence(p2, batch_first=True)
    log.append(
        repr(
            (
                o,
                o.grad_fn.name(),
                l,
                o.shape,
            )
        )
    )
    o, l = R.pad_packed_sequence(p, total_length=6)
    log.append(
        repr(
            (
                o.grad_fn.name(),
                l,
                o.shape,
                o[:, 1],
            )
        )
    )
    log.append(
        repr(
            (
                R.pad_sequence([x[0], x[1, :2]]).grad_fn.name(),
                R.pad_sequence(
                    [x[0, :1], x[1, :2]], batch_first=True, padding_value=-1, padding_side="left"
                ),
            )
        )
    )
    for cls in (torch.nn.GRU, torch.nn.RNN):
        torch.manual_seed(1)
        g = cls(2, 3, batch_first=True, num_layers=2, bidirectional=True)
        out, h = g(
            R.pack_padded_sequence(
                x, torch.tensor([2, 4, 1]), batch_first=True, enforce_sorted=False
            )
        )
        log.append(
            repr(
                (
                    type(out).__name__,
                    out.data.grad_fn.name(),
                    h.grad_fn.name(),
                    out.data.shape,
                    out.batch_sizes,
                    out.unsorted_indices,
                )
            )
        )
        log.append(
            repr(
                (
                    out.data,
                    h,
                )
            )
        )
        (out.data.sum() + h.sum()).backward()
        log.append(repr((x.grad[:, :2],)))
        x.grad = None
    torch.manual_seed(2)
    l = torch.nn.LSTM(2, 3, bidirectional=True, num_layers=2)
    out, (h, c) = l(R.pack_padded_sequence(x.transpose(0, 1), [4, 2, 1]))
    log.append(
        repr(
            (
                out.data.grad_fn.name(),
                h.grad_fn.name(),
                c.grad_fn.name(),
                h,
                c,
            )
        )
    )
    h0 = torch.randn(4, 3, 3)
    out, (h, c) = l(p2, (h0, h0 * 2))
    log.append(
        repr(
            (
                out.data.grad_fn.name(),
                h.grad_fn.name(),
                c.grad_fn.name(),
                out.sorted_indices,
                h[1],
                c[3],
            )
        )
    )
    padded, lens = R.pad_packed_sequence(out, batch_first=True)
    log.append(
        repr(
            (
                padded[:, -1],
                lens,
            )
        )
    )
    lp = torch.nn.LSTM(2, 4, proj_size=2)
    log.append(repr((lp(p2)[0].data.shape,)))
    seqs = [torch.arange(3.0), torch.arange(5.0), torch.arange(1.0)]
    ps = R.pack_sequence(seqs, enforce_sorted=False)
    log.append(
        repr(
            (
                ps,
                R.unpack_sequence(ps),
            )
        )
    )
    log.append(repr((R.unpad_sequence(R.pad_sequence(seqs), torch.tensor([3, 5, 1])),)))
    for bad in ([2, 4, 1], [4, 0, 1]):
        try:
            R.pack_padded_sequence(x, bad, batch_first=True)
        except (RuntimeError, ValueError) as e:
            log.append(
                repr(
                    (
                        type(e).__name__,
                        e,
                    )
                )
            )
    try:
        R.pack_padded_sequence(x, [4, 1, 0], batch_first=True)
    except (RuntimeError, ValueError) as e:
        log.append(
            repr(
                (
                    type(e).__name__,
                    e,
                )
            )
        )
    try:
        R.pad_packed_sequence(p, total_length=2)
    except (RuntimeError, ValueError) as e:
        log.append(
            repr(
                (
                    type(e).__name__,
                    e,
                )
            )
        )
    try:
        R.pad_sequence([])
    except (RuntimeError, ValueError) as e:
        log.append(
            repr(
                (
                    type(e).__name__,
                    e,
                )
            )
        )
    try:
        torch.nn.GRU(2, 3)(p, torch.zeros(1, 2, 3))
    except (RuntimeError, ValueError) as e:
        log.append(
            repr(
                (
                    type(e).__name__,
                    e,
                )
            )
        )
    log.append(
        repr(
            (
                R.invert_permutation(torch.tensor([2, 0, 1])),
                p.to(torch.float64).data.dtype,
            )
        )
    )
    return log


def test_packed_sequences_as_torch():
    torch = require_torch()
    assert _packed(ja) == _packed(torch)
