"""The recurrent layers of the PyTorch edition: RNN (tanh or relu), LSTM and
GRU, stacked (num_layers), bidirectional, batch_first, with dropout between
layers, and their cells (RNNCell, LSTMCell, GRUCell). Parameters are named,
shaped, ordered and initialised as PyTorch's (weight_ih_l0,
weight_hh_l0_reverse, ...; gates i, f, g, o for LSTM and r, z, n for GRU;
U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))), so a state_dict moves
between the two.

Each layer multiplies the whole sequence by its input weights in one
product, then runs the time steps: a few small ops per step, each pushed
and shown on the timeline, as a recurrent network's steps are in PyTorch.

Threading: the frontend thread, as every op of the edition.
"""

import math as _math

from ... import torch as _torch
from . import Module, Parameter, functional, init

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode, x_part, h, c, w_hh, b_hh):
    """One time step: the new (h, c) from the input's share x_part (x W_ih^T
    + b_ih), the state and the hidden weights."""
    hidden = _torch.matmul(h, w_hh.t())
    if b_hh is not None:
        hidden = hidden + b_hh
    if mode == "LSTM":
        i, f, g, o = (x_part + hidden).chunk(4, dim=-1)
        c = _torch.sigmoid(f) * c + _torch.sigmoid(i) * _torch.tanh(g)
        return _torch.sigmoid(o) * _torch.tanh(c), c
    if mode == "GRU":
        xr, xz, xn = x_part.chunk(3, dim=-1)
        hr, hz, hn = hidden.chunk(3, dim=-1)
        r = _torch.sigmoid(xr + hr)
        z = _torch.sigmoid(xz + hz)
        n = _torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h, None
    pre = x_part + hidden
    return (_torch.tanh(pre) if mode == "RNN_TANH" else _torch.relu(pre)), None


class _RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__()
        if not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError("hidden_size and num_layers must be greater than zero")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout, self.bidirectional = bias, batch_first, float(dropout), bidirectional
        gates = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._names = []
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                names = ["weight_ih_l%d%s" % (layer, suffix), "weight_hh_l%d%s" % (layer, suffix)]
                setattr(self, names[0], Parameter(_torch.zeros(gates, width)))
                setattr(self, names[1], Parameter(_torch.zeros(gates, hidden_size)))
                if bias:
                    names += ["bias_ih_l%d%s" % (layer, suffix), "bias_hh_l%d%s" % (layer, suffix)]
                    setattr(self, names[2], Parameter(_torch.zeros(gates)))
                    setattr(self, names[3], Parameter(_torch.zeros(gates)))
                self._names.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / _math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _weights(self, layer, direction):
        names = self._names[layer * (2 if self.bidirectional else 1) + direction]
        w = [getattr(self, n) for n in names]
        return w if self.bias else w + [None, None]

    def forward(self, input, hx=None):
        lstm = self.mode == "LSTM"
        batched = input.ndim == 3
        if input.ndim not in (2, 3):
            raise RuntimeError("%s: expected input of 2 (unbatched) or 3 dimensions, got %d"
                               % (type(self).__name__, input.ndim))
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        if x.shape[-1] != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected %d, got %d"
                               % (self.input_size, x.shape[-1]))
        steps, batch = x.shape[0], x.shape[1]
        directions = 2 if self.bidirectional else 1
        state_shape = (self.num_layers * directions, batch, self.hidden_size)
        if hx is None:
            zeros = _torch.zeros(state_shape, dtype=x.dtype, device=x.device)
            h0, c0 = zeros, zeros
        else:
            h0, c0 = hx if lstm else (hx, None)
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            if tuple(h0.shape) != state_shape:
                raise RuntimeError("Expected hidden size %s, got %s" % (state_shape, tuple(h0.shape)))
        last_h, last_c = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
                # The whole sequence times the input weights: one product.
                xs = _torch.matmul(x, w_ih.t())
                if b_ih is not None:
                    xs = xs + b_ih
                k = layer * directions + direction
                h, c = h0[k], (c0[k] if lstm else None)
                order = range(steps - 1, -1, -1) if direction else range(steps)
                hs = [None] * steps
                for t in order:
                    h, c = _step(self.mode, xs[t], h, c, w_hh, b_hh)
                    hs[t] = h
                outputs.append(_torch.stack(hs))
                last_h.append(h)
                last_c.append(c)
            x = outputs[0] if directions == 1 else _torch.cat(outputs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = functional.dropout(x, self.dropout, True)
        output = x
        if batched and self.batch_first:
            output = output.transpose(0, 1)
        h_n = _torch.stack(last_h)
        c_n = _torch.stack(last_c) if lstm else None
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        return output, ((h_n, c_n) if lstm else h_n)

    def flatten_parameters(self):
        """Nothing to do: PyTorch packs the weights into one block for cuDNN;
        here each layer's weights are used as they are, on any device."""

    def extra_repr(self):
        text = "%d, %d" % (self.input_size, self.hidden_size)
        if self.num_layers != 1:
            text += ", num_layers=%d" % self.num_layers
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout:
            text += ", dropout=%s" % self.dropout
        if self.bidirectional:
            text += ", bidirectional=True"
        return text


class RNN(_RNNBase):
    """h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh) (relu with
    nonlinearity='relu'). forward(input, h_0) gives (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("Unknown nonlinearity '%s'. Select from 'tanh' or 'relu'." % nonlinearity)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional)


class LSTM(_RNNBase):
    """Long short-term memory: forward(input, (h_0, c_0)) gives (output, (h_n, c_n))."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        if proj_size:
            raise NotImplementedError("LSTM: proj_size is not supported")
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional)


class GRU(_RNNBase):
    """Gated recurrent units: forward(input, h_0) gives (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional)


class _CellBase(Module):
    def __init__(self, mode, input_size, hidden_size, bias=True):
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.bias = mode, input_size, hidden_size, bias
        gates = _GATES[mode] * hidden_size
        self.weight_ih = Parameter(_torch.zeros(gates, input_size))
        self.weight_hh = Parameter(_torch.zeros(gates, hidden_size))
        if bias:
            self.bias_ih = Parameter(_torch.zeros(gates))
            self.bias_hh = Parameter(_torch.zeros(gates))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        bound = 1.0 / _math.sqrt(hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def forward(self, input, hx=None):
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        lstm = self.mode == "LSTM"
        if hx is None:
            h = _torch.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
            c = h if lstm else None
        else:
            h, c = hx if lstm else (hx, None)
            if not batched:
                h = h.unsqueeze(0)
                c = c.unsqueeze(0) if lstm else None
        x_part = _torch.matmul(x, self.weight_ih.t())
        if self.bias_ih is not None:
            x_part = x_part + self.bias_ih
        h, c = _step(self.mode, x_part, h, c, self.weight_hh, self.bias_hh)
        if not batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if lstm else None
        return (h, c) if lstm else h

    def extra_repr(self):
        text = "%d, %d" % (self.input_size, self.hidden_size)
        if not self.bias:
            text += ", bias=False"
        if self.mode == "RNN_RELU":
            text += ", nonlinearity=relu"
        return text


class RNNCell(_CellBase):
    """One step of RNN: forward(input, h) gives the next h."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("Unknown nonlinearity: %s" % nonlinearity)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, bias)


class LSTMCell(_CellBase):
    """One step of LSTM: forward(input, (h, c)) gives the next (h, c)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, bias)


class GRUCell(_CellBase):
    """One step of GRU: forward(input, h) gives the next h."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, bias)


__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]
