"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their cells, composed of recorded ops in the
order torch's CPU implementation runs them (so backprop through time shows torch's graph):
the input projection of a whole sequence as one ``linear`` (ViewBackward0 over AddmmBackward0),
``unbind`` into steps, one cell per step (``linear_hh(h) + x_t``, gates by ``unsafe_chunk``),
``stack`` of the outputs, ``cat`` of the two directions, ``stack`` of the final states."""

from __future__ import annotations

import math
import numbers
import warnings

from ... import factories
from ...ops import api as _api
from ...ops import shape as SH
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._rnn_packed import forward_packed
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_UNSAFE_SPLIT = type("UnsafeSplitBackward0", (SH.SPLIT.node_cls,), {})
_UNSAFE_SPLIT.__module__ = "builtins"
# torch's RNN and GRU (not LSTM) turn a batch-first output back with the in-place transpose_
# (TransposeBackward1)
_TRANSPOSE_INPLACE = type("TransposeBackward1", (SH.TRANSPOSE.node_cls,), {})
_TRANSPOSE_INPLACE.__module__ = "builtins"


def _unsafe_chunk(x, n):
    """``x.unsafe_chunk(n, 1)`` (UnsafeSplitBackward0)."""
    f = getattr(x, "unsafe_chunk", None)
    if f is not None:
        return f(n, 1)
    parts = _api.chunk(x, n, 1)
    if parts and parts[0].grad_fn is not None:
        _api._rename_node(parts[0].grad_fn, _UNSAFE_SPLIT)
    return parts


# ---------------------------------------------------------------- cells (torch's formulas)
def _rnn_cell(x_proj, h, w_hh, b_hh, relu):
    """``act(linear_hh(h) + x_proj)``; ``x_proj`` is the input's projection."""
    pre = F.linear(h, w_hh, b_hh) + x_proj
    return F.relu(pre) if relu else _api.tanh(pre)


def _lstm_cell(x_proj, state, w_hh, b_hh, w_hr=None):
    h, c = state
    gates = F.linear(h, w_hh, b_hh) + x_proj
    i, f, g, o = _unsafe_chunk(gates, 4)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * c + i * g
    hy = o * cy.tanh()
    if w_hr is not None:
        hy = _api.matmul(hy, w_hr.t())
    return hy, cy


def _gru_cell(x_proj, h, w_hh, b_hh):
    ir, iz, in_ = _unsafe_chunk(x_proj, 3)
    hr, hz, hn = _unsafe_chunk(F.linear(h, w_hh, b_hh), 3)
    r = (hr + ir).sigmoid()
    z = (hz + iz).sigmoid()
    n = (in_ + hn * r).tanh()
    return (h - n) * z + n


# ---------------------------------------------------------------- the sequence
def _layer(mode, steps, state, params, reverse):
    """Run one direction of one layer over the projected steps; (outputs in time order, final)."""
    w_hh, b_hh, w_hr = params["w_hh"], params["b_hh"], params.get("w_hr")
    order = steps[::-1] if reverse else steps
    outs = []
    for x_t in order:
        if mode == "LSTM":
            state = _lstm_cell(x_t, state, w_hh, b_hh, w_hr)
            outs.append(state[0])
        elif mode == "GRU":
            state = _gru_cell(x_t, state, w_hh, b_hh)
            outs.append(state)
        else:
            state = _rnn_cell(x_t, state, w_hh, b_hh, mode == "RNN_RELU")
            outs.append(state)
    if reverse:
        outs.reverse()
    return outs, state


def _run(mode, input, hx, layers, num_layers, dropout, train, bidirectional, batch_first):
    """torch's ``_rnn_impl``: layers of (bi)directional full layers with dropout between."""
    if batch_first:
        input = input.transpose(0, 1)
    dirs = 2 if bidirectional else 1
    if mode == "LSTM":
        hs, cs = hx[0].unbind(0), hx[1].unbind(0)
        states = list(zip(hs, cs))
    else:
        states = list(hx.unbind(0))
    finals = []
    x = input
    for layer in range(num_layers):
        outputs = []
        for d in range(dirs):
            p = layers[layer * dirs + d]
            steps = F.linear(x, p["w_ih"], p["b_ih"]).unbind(0)
            if not steps:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
            outs, final = _layer(mode, steps, states[layer * dirs + d], p, d == 1)
            outputs.append(_api.stack(outs, 0))
            finals.append(final)
        x = outputs[0] if dirs == 1 else _api.cat(outputs, outputs[0].dim() - 1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    if batch_first:
        x = x.transpose(0, 1)
        if (
            mode != "LSTM"
            and x.grad_fn is not None
            and type(x.grad_fn).__name__ == "TransposeBackward0"
        ):
            _api._rename_node(x.grad_fn, _TRANSPOSE_INPLACE)
    if mode == "LSTM":
        return x, (_api.stack([f[0] for f in finals], 0), _api.stack([f[1] for f in finals], 0))
    return x, _api.stack(finals, 0)


class RNNBase(Module):
    """Parameters, checks and ``repr`` shared by RNN, LSTM and GRU (as torch's RNNBase)."""

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        dirs = 2 if bidirectional else 1
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability "
                "of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                f"expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}"
            )
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size
        kw = {"device": device, "dtype": dtype}
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(dirs):
                layer_input = input_size if layer == 0 else real_hidden * dirs
                suffix = "_reverse" if direction == 1 else ""
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                params = [
                    Parameter(factories.empty((gate_size, layer_input), **kw)),
                    Parameter(factories.empty((gate_size, real_hidden), **kw)),
                ]
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    params += [
                        Parameter(factories.empty(gate_size, **kw)),
                        Parameter(factories.empty(gate_size, **kw)),
                    ]
                if proj_size > 0:
                    names.append(f"weight_hr_l{layer}{suffix}")
                    params.append(Parameter(factories.empty((proj_size, hidden_size), **kw)))
                for n, p in zip(names, params):
                    setattr(self, n, p)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op (torch compacts cuDNN weights here)."""

    def _layers(self):
        out = []
        for names in self._all_weights:
            d = {
                "w_ih": getattr(self, names[0]),
                "w_hh": getattr(self, names[1]),
                "b_ih": None,
                "b_hh": None,
            }
            if self.bias:
                d["b_ih"], d["b_hh"] = getattr(self, names[2]), getattr(self, names[3])
            if self.proj_size > 0:
                d["w_hr"] = getattr(self, names[-1])
            out.append(d)
        return out

    def check_input(self, input, batch_sizes=None) -> None:
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input, batch_sizes=None):
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        dirs = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * dirs, mini_batch, size)

    def check_hidden_size(self, hx, expected, msg="Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _prepare(self, input, hx, name, lstm=False):
        """Unbatched inputs, zero initial states and torch's checks; returns (input, hx, batched)."""
        if input.dim() not in (2, 3):
            tail = " tensor instead" if name == "RNN" else " instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tail}")
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        hs = list(hx) if lstm and hx is not None else ([hx] if hx is not None else None)
        want = 3 if batched else 2
        if hs is not None and any(h.dim() != want for h in hs):
            kind = "batched 3-D" if batched else "unbatched 2-D"
            if lstm:
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got "
                    f"({hs[0].dim()}-D, {hs[1].dim()}-D) tensors"
                )
            raise RuntimeError(
                f"For {kind} input, hx should also be {want}-D but got {hs[0].dim()}-D tensor"
            )
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hs is not None:
                hs = [h.unsqueeze(1) for h in hs]
        batch = input.size(0) if self.batch_first else input.size(1)
        dirs = 2 if self.bidirectional else 1
        if hs is None:
            real = self.proj_size if self.proj_size > 0 else self.hidden_size
            h0 = factories.zeros(
                (self.num_layers * dirs, batch, real), dtype=input.dtype, device=input.device
            )
            hs = [h0]
            if lstm:
                hs.append(
                    factories.zeros(
                        (self.num_layers * dirs, batch, self.hidden_size),
                        dtype=input.dtype,
                        device=input.device,
                    )
                )
        self.check_input(input)
        expected = self.get_expected_hidden_size(input)
        if lstm:
            self.check_hidden_size(hs[0], expected, "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(
                hs[1],
                (expected[0], expected[1], self.hidden_size),
                "Expected hidden[1] size {}, got {}",
            )
            return input, tuple(hs), batched
        self.check_hidden_size(hs[0], expected)
        return input, hs[0], batched

    def _forward(self, input, hx, name):
        lstm = self.mode == "LSTM"
        if isinstance(input, PackedSequence):
            return forward_packed(self, input, hx, lstm, (_lstm_cell, _gru_cell, _rnn_cell))
        input, hx, batched = self._prepare(input, hx, name, lstm)
        out, h = _run(
            self.mode,
            input,
            hx,
            self._layers(),
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
        )
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h = (h[0].squeeze(1), h[1].squeeze(1)) if lstm else h.squeeze(1)
        return out, h


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU), over
    ``num_layers`` layers, optionally bidirectional, ``batch_first``, with dropout between
    layers. Returns ``(output, h_n)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> rnn = torch.nn.RNN(4, 5, num_layers=2)
        >>> out, h = rnn(torch.zeros(3, 2, 4))
        >>> out.shape, h.shape, out.grad_fn
        (torch.Size([3, 2, 5]), torch.Size([2, 2, 5]), <StackBackward0 object at 0x...>)
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN")


class LSTM(RNNBase):
    """Long short-term memory, returning ``(output, (h_n, c_n))``; ``proj_size`` projects the
    hidden state as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.LSTM(4, 5, num_layers=2, batch_first=True, bidirectional=True)
        LSTM(4, 5, num_layers=2, batch_first=True, bidirectional=True)
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM")


class GRU(RNNBase):
    """Gated recurrent unit, returning ``(output, h_n)``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU")


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(factories.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(factories.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(factories.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(factories.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check(self, input, hx, label="0"):
        if input.size(1) != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}"
            )
        if input.size(0) != hx.size(0):
            raise RuntimeError(
                f"Input batch size {input.size(0)} doesn't match hidden{label} batch "
                f"size {hx.size(0)}"
            )
        if hx.size(1) != self.hidden_size:
            raise RuntimeError(
                f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected "
                f"{self.hidden_size}"
            )

    def _batch(self, input, name):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        return (input if batched else input.unsqueeze(0)), batched

    def _zeros(self, input):
        return factories.zeros(
            (input.size(0), self.hidden_size), dtype=input.dtype, device=input.device
        )


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (TanhBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.RNNCell(4, 5, nonlinearity="relu")
        RNNCell(4, 5, nonlinearity=relu)
    """

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        input, batched = self._batch(input, "RNNCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check(input, hx)
        ret = _rnn_cell(
            F.linear(input, self.weight_ih, self.bias_ih),
            hx,
            self.weight_hh,
            self.bias_hh,
            self.nonlinearity == "relu",
        )
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step, returning ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        input, batched = self._batch(input, "LSTMCell")
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check(input, hx[0], "0")
        self._check(input, hx[1], "1")
        x_proj = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = _lstm_cell(x_proj, hx, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        input, batched = self._batch(input, "GRUCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        self._check(input, hx)
        ret = _gru_cell(
            F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh
        )
        return ret if batched else ret.squeeze(0)
