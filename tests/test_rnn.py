"""Recurrent layers against torch (from torch's weights, by state_dict): RNN/LSTM/GRU with
layers, directions, batch_first, projections, initial states and unbatched input; the cells;
torch's node chain (float64, where torch runs the same composite ops on the CPU); errors and
reprs; and backprop-through-time programs of the kind the classic examples run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_repr, copy_state
from ._torch import require as require_torch


def _chain(t):
    out = []

    def walk(n, d):
        if n is None or "Accumulate" in n.name() or d > 8:
            return
        out.append("  " * d + n.name())
        for f, _ in n.next_functions:
            walk(f, d + 1)

    walk(t.grad_fn, 0)
    return out


RNNS = [
    (lambda lib: lib.nn.RNN(4, 5), (3, 2, 4)),
    (
        lambda lib: lib.nn.RNN(4, 5, num_layers=2, nonlinearity="relu", bidirectional=True),
        (3, 2, 4),
    ),
    (lambda lib: lib.nn.RNN(4, 5, 2, batch_first=True, bias=False), (2, 3, 4)),
    (lambda lib: lib.nn.GRU(4, 5, batch_first=True), (2, 3, 4)),
    (lambda lib: lib.nn.GRU(4, 5, num_layers=2, bidirectional=True, bias=False), (3, 2, 4)),
    (lambda lib: lib.nn.LSTM(4, 5), (3, 2, 4)),
    (lambda lib: lib.nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True), (2, 3, 4)),
    (lambda lib: lib.nn.LSTM(4, 5, proj_size=3), (3, 2, 4)),
    (lambda lib: lib.nn.LSTM(4, 5), (3, 4)),
    (lambda lib: lib.nn.GRU(4, 5, 2), (5, 4)),
]


def _pick(out, k):
    o, h = out
    if k == 0:
        return o
    return h[0] if isinstance(h, tuple) else h


@pytest.mark.parametrize("i", range(len(RNNS)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_modules_match_torch(i, dtype):
    torch = require_torch()
    make, shape = RNNS[i]
    tm, om = make(torch), make(ja)
    if dtype == "float64":
        tm, om = tm.double(), om.double()
    copy_state(tm, om, ja)
    assert repr(om) == repr(tm)
    assert [n for n, _ in om.named_parameters()] == [n for n, _ in tm.named_parameters()]
    x = np.random.default_rng(i).standard_normal(shape)
    for k in (0, 1):
        o, t = compare(
            lambda lib, a, k=k: _pick((om if lib is ja else tm)(a), k),
            [x],
            torch,
            dtype,
            names=dtype == "float64",
        )
        if dtype == "float64":
            assert _chain(o) == _chain(t)
    if isinstance(tm, torch.nn.LSTM):
        compare(lambda lib, a: (om if lib is ja else tm)(a)[1][1], [x], torch, dtype, names=False)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_rnn_initial_state_gradients(kind):
    torch = require_torch()
    tm = getattr(torch.nn, kind)(3, 4, num_layers=2, bidirectional=True).double()
    om = getattr(ja.nn, kind)(3, 4, num_layers=2, bidirectional=True).double()
    copy_state(tm, om, ja)
    rng = np.random.default_rng(0)
    x, h0, c0 = (
        rng.standard_normal((5, 2, 3)),
        rng.standard_normal((4, 2, 4)),
        rng.standard_normal((4, 2, 4)),
    )

    def run(lib, a, h, c):
        m = om if lib is ja else tm
        out, hn = m(a, (h, c)) if kind == "LSTM" else m(a, h)
        hn = hn[0] + hn[1] if kind == "LSTM" else hn
        return out.sum(-1).mean() + (hn**2).sum()

    compare(run, [x, h0, c0], torch)


CELLS = [
    lambda lib: lib.nn.RNNCell(4, 5),
    lambda lib: lib.nn.RNNCell(4, 5, nonlinearity="relu"),
    lambda lib: lib.nn.LSTMCell(4, 5),
    lambda lib: lib.nn.GRUCell(4, 5, bias=False),
]


@pytest.mark.parametrize("i", range(len(CELLS)))
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(i, batched):
    torch = require_torch()
    tm, om = CELLS[i](torch).double(), CELLS[i](ja).double()
    copy_state(tm, om, ja)
    compare_repr(CELLS[i], torch)
    rng = np.random.default_rng(i)
    x, h = (
        rng.standard_normal((2, 4) if batched else (4,)),
        rng.standard_normal((2, 5) if batched else (5,)),
    )
    lstm = isinstance(tm, torch.nn.LSTMCell)
    for k in (0, 1) if lstm else (0,):

        def run(lib, a, b, k=k):
            m = om if lib is ja else tm
            return m(a, (b, b * 0.5))[k] if lstm else m(a, b)

        o, t = compare(run, [x, h], torch)
        assert _chain(o) == _chain(t)
    compare(
        lambda lib, a: (om if lib is ja else tm)(a)[0] if lstm else (om if lib is ja else tm)(a),
        [x],
        torch,
    )


RNN_ERRORS = {
    "input-dims": lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 3, 4, 1)),
    "lstm-dims": lambda lib: lib.nn.LSTM(4, 5)(lib.ones(4)),
    "input-size": lambda lib: lib.nn.GRU(4, 5)(lib.ones(2, 3, 3)),
    "hidden-size": lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 3, 4), lib.zeros(1, 2, 5)),
    "hidden-dims": lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 3, 4), lib.zeros(3, 5)),
    "unbatched-hidden": lambda lib: lib.nn.GRU(4, 5)(lib.ones(3, 4), lib.zeros(1, 1, 5)),
    "lstm-hidden": lambda lib: lib.nn.LSTM(4, 5)(
        lib.ones(2, 3, 4), (lib.zeros(1, 3, 5), lib.zeros(1, 3, 4))
    ),
    "lstm-hidden-dims": lambda lib: lib.nn.LSTM(4, 5)(
        lib.ones(2, 3, 4), (lib.zeros(1, 3, 5), lib.zeros(3, 5))
    ),
    "nonlinearity": lambda lib: lib.nn.RNN(4, 5, nonlinearity="sigmoid"),
    "proj": lambda lib: lib.nn.GRU(4, 5, proj_size=2),
    "proj-size": lambda lib: lib.nn.LSTM(4, 5, proj_size=5),
    "dropout": lambda lib: lib.nn.LSTM(4, 5, dropout=2.0),
    "hidden0": lambda lib: lib.nn.LSTM(4, 0),
    "cell-dims": lambda lib: lib.nn.RNNCell(4, 5)(lib.ones(2, 3, 4)),
    "cell-input": lambda lib: lib.nn.GRUCell(4, 5)(lib.ones(2, 3)),
    "cell-hidden": lambda lib: lib.nn.RNNCell(4, 5)(lib.ones(2, 4), lib.zeros(2, 4)),
    "cell-batch": lambda lib: lib.nn.LSTMCell(4, 5)(
        lib.ones(2, 4), (lib.zeros(3, 5), lib.zeros(3, 5))
    ),
    "cell-hx-dims": lambda lib: lib.nn.LSTMCell(4, 5)(
        lib.ones(2, 4), (lib.zeros(1, 3, 5), lib.zeros(3, 5))
    ),
}


@pytest.mark.parametrize("case", sorted(RNN_ERRORS))
def test_rnn_errors_match_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_errors(RNN_ERRORS[case], require_torch())


def test_rnn_reprs_match_torch():
    torch = require_torch()
    for make in (
        lambda lib: lib.nn.RNN(4, 5, nonlinearity="relu"),
        lambda lib: lib.nn.LSTM(
            4, 5, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True
        ),
        lambda lib: lib.nn.GRU(4, 5, bias=False),
        lambda lib: lib.nn.LSTM(4, 5, proj_size=3),
        lambda lib: lib.nn.LSTMCell(4, 5, bias=False),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compare_repr(make, torch)


# ---------------------------------------------------------------- programs (our own code)
def _char_rnn(lib, kind):
    """A character-level next-token model: embedding, a recurrent layer, a linear head."""

    class CharModel(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib.nn.Embedding(12, 6)
            self.rnn = getattr(lib.nn, kind)(6, 8, num_layers=2, batch_first=True)
            self.head = lib.nn.Linear(8, 12)

        def forward(self, tokens, state=None):
            out, state = self.rnn(self.emb(tokens), state)
            return self.head(out), state

    return CharModel()


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_char_model_training_matches_torch(kind):
    """Five Adam steps of truncated backprop through time, with the state carried (detached)
    from one chunk to the next: losses and final weights as torch's."""
    torch = require_torch()
    torch.manual_seed(0)
    tm = _char_rnn(torch, kind).double()
    om = _char_rnn(ja, kind).double()
    copy_state(tm, om, ja)
    text = np.random.default_rng(0).integers(0, 12, (3, 21))
    results = []
    for lib, m in ((ja, om), (torch, tm)):
        opt = lib.optim.Adam(m.parameters(), lr=0.01)
        state, losses = None, []
        for step in range(5):
            chunk = lib.tensor(text[:, step * 4 : step * 4 + 5])
            logits, state = m(chunk[:, :-1], state)
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, 12), chunk[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0) if hasattr(
                lib.nn, "utils"
            ) and hasattr(lib.nn.utils, "clip_grad_norm_") else None
            opt.step()
            state = tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()
            losses.append(loss.item())
        results.append((losses, {k: v.detach().numpy() for k, v in m.state_dict().items()}))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9)
    for k in results[1][1]:
        np.testing.assert_allclose(
            results[0][1][k], results[1][1][k], rtol=1e-7, atol=1e-9, err_msg=k
        )


def test_sequence_classifier_with_cells_matches_torch():
    """A hand-unrolled LSTMCell classifier (the loop a course writes) and its BPTT gradients."""
    torch = require_torch()
    torch.manual_seed(1)
    tc, th = torch.nn.LSTMCell(3, 6).double(), torch.nn.Linear(6, 2).double()
    oc, oh = ja.nn.LSTMCell(3, 6).double(), ja.nn.Linear(6, 2).double()
    copy_state(tc, oc, ja)
    copy_state(th, oh, ja)
    xs = np.random.default_rng(2).standard_normal((7, 4, 3))
    ys = np.array([0, 1, 1, 0])
    grads = []
    for lib, cell, head in ((ja, oc, oh), (torch, tc, th)):
        h = c = lib.zeros(4, 6, dtype=lib.float64)
        for t in range(7):
            h, c = cell(lib.tensor(xs[t]), (h, c))
        loss = lib.nn.functional.cross_entropy(head(h), lib.tensor(ys))
        loss.backward()
        grads.append(
            [float(loss)]
            + [p.grad.numpy() for p in list(cell.parameters()) + list(head.parameters())]
        )
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    for a, b in zip(grads[0][1:], grads[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
