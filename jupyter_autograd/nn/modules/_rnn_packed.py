"""Recurrent layers over a ``PackedSequence``, as torch's CPU ``PackedLayer`` and
``ReversedPackedLayer``: the packed data projected once, then each time step narrowed out of it
with its own batch size; the rows of the hidden state whose sequences have ended are sliced off
(forward) or joined in (reverse) as the batch size changes."""

from __future__ import annotations

from ... import factories
from ...ops import api as _api
from .. import functional as F
from ..utils.rnn import PackedSequence


def _cell(mode, cells, x_t, state, p):
    lstm_cell, gru_cell, rnn_cell = cells
    if mode == "LSTM":
        state = lstm_cell(x_t, state, p["w_hh"], p["b_hh"], p.get("w_hr"))
        return state, state[0]
    if mode == "GRU":
        state = gru_cell(x_t, state, p["w_hh"], p["b_hh"])
    else:
        state = rnn_cell(x_t, state, p["w_hh"], p["b_hh"], mode == "RNN_RELU")
    return state, state


def _slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(_api.cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return _api.cat(hiddens, 0)


def _forward_layer(mode, cells, proj, batch_sizes, hidden, p):
    outputs, hiddens = [], []
    offset = 0
    last = batch_sizes[0]
    for bs in batch_sizes:
        step = proj.narrow(0, offset, bs)
        offset += bs
        dec = last - bs
        if dec > 0:
            hiddens.append(_slice(hidden, last - dec, last))
            hidden = _slice(hidden, 0, last - dec)
        last = bs
        hidden, out = _cell(mode, cells, step, hidden, p)
        outputs.append(out)
    hiddens.append(hidden)
    hiddens.reverse()
    return _api.cat(outputs, 0), _concat(hiddens)


def _reverse_layer(mode, cells, proj, batch_sizes, input_hidden, p):
    outputs = []
    offset = proj.size(0)
    last = batch_sizes[-1]
    hidden = _slice(input_hidden, 0, last)
    for bs in reversed(batch_sizes):
        if bs - last > 0:
            hidden = _concat([hidden, _slice(input_hidden, last, bs)])
        step = proj.narrow(0, offset - bs, bs)
        offset -= bs
        last = bs
        hidden, out = _cell(mode, cells, step, hidden, p)
        outputs.append(out)
    outputs.reverse()
    return _api.cat(outputs, 0), hidden


def run_packed(mode, cells, data, batch_sizes, hx, layers, num_layers, dropout, train, bidir):
    """torch's ``_rnn_impl`` over packed data: (output data, final states stacked)."""
    dirs = 2 if bidir else 1
    if mode == "LSTM":
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    else:
        states = list(hx.unbind(0))
    finals = []
    x = data
    for layer in range(num_layers):
        outputs = []
        for d in range(dirs):
            p = layers[layer * dirs + d]
            proj = F.linear(x, p["w_ih"], p["b_ih"])
            run = _reverse_layer if d == 1 else _forward_layer
            out, final = run(mode, cells, proj, batch_sizes, states[layer * dirs + d], p)
            outputs.append(out)
            finals.append(final)
        x = outputs[0] if dirs == 1 else _api.cat(outputs, outputs[0].dim() - 1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    if mode == "LSTM":
        return x, (_api.stack([f[0] for f in finals], 0), _api.stack([f[1] for f in finals], 0))
    return x, _api.stack(finals, 0)


def forward_packed(self, packed, hx, lstm, cells):
    """An RNN module's forward over a PackedSequence, as torch's: the hidden state permuted
    into the sorted order and back."""
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    sizes = [int(b) for b in batch_sizes.tolist()]
    dirs = 2 if self.bidirectional else 1
    real = self.proj_size if self.proj_size > 0 else self.hidden_size
    if hx is None:
        hs = [
            factories.zeros(
                (self.num_layers * dirs, sizes[0], size), dtype=data.dtype, device=data.device
            )
            for size in ((real, self.hidden_size) if lstm else (real,))
        ]
    else:
        hs = list(hx) if lstm else [hx]
        if sorted_indices is not None:  # torch's permute_hidden
            hs = [h.index_select(1, sorted_indices) for h in hs]
    self.check_input(data, batch_sizes)
    expected = (self.num_layers * dirs, sizes[0], real)
    if lstm:
        self.check_hidden_size(hs[0], expected, "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(
            hs[1],
            (expected[0], expected[1], self.hidden_size),
            "Expected hidden[1] size {}, got {}",
        )
    else:
        self.check_hidden_size(hs[0], expected)
    out, h = run_packed(
        self.mode,
        cells,
        data,
        sizes,
        tuple(hs) if lstm else hs[0],
        self._layers(),
        self.num_layers,
        self.dropout,
        self.training,
        self.bidirectional,
    )
    if unsorted_indices is not None:
        h = (
            tuple(t.index_select(1, unsorted_indices) for t in h)
            if lstm
            else (h.index_select(1, unsorted_indices))
        )
    return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices), h
