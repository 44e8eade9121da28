"""Gluon's recurrent layers (mxnet.gluon.rnn) for nd and np arrays: RNN
(relu by default, as MXNet's, or tanh), LSTM and GRU, stacked
(num_layers), bidirectional, layout 'TNC' or 'NTC', with dropout between
layers while training. Parameters are MXNet's: l0_i2h_weight (gates x
hidden, input), l0_h2h_weight, l0_i2h_bias, l0_h2h_bias (r0_... for the
reverse direction), gates i, f, c, o for LSTM and r, z, n for GRU; the
input size comes from the first batch when input_size is 0.

    layer = rnn.RNN(num_hiddens); layer.initialize()
    state = layer.begin_state(batch_size=batch_size)
    Y, state_new = layer(X, state)      # X: (steps, batch, features)

forward(inputs) without states returns the output alone, as MXNet's does.
Each layer multiplies the whole sequence by its input weights in one
product, then runs the time steps, each a few ops on the timeline.

Threading: the frontend thread that runs the script.
"""

from .. import autograd as _autograd
from .. import ndarray as _nd
from . import nn as _gnn

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _flavour(x):
    """(F, stack, concat) of x's edition."""
    if _gnn._is_np(x):
        F = _gnn._np()
        return F, lambda arrays, axis: F.stack(arrays, axis=axis), lambda arrays, axis: F.concatenate(arrays, axis=axis)
    return _nd, lambda arrays, axis: _nd.stack(*arrays, axis=axis), lambda arrays, axis: _nd.concat(*arrays, dim=axis)


def _product(F, x, w):
    """x (..., in) times w (out, in) transposed: (..., out)."""
    lead = tuple(x.shape[:-1])
    n = 1
    for d in lead:
        n *= d
    return F.dot(x.reshape((n, x.shape[-1])), w.T).reshape(lead + (w.shape[0],))


def _gate(x, k, h):
    return x[..., k * h:(k + 1) * h]


def _step(mode, F, x_part, h, c, w_hh, b_hh, hidden):
    """One time step: the new (h, c) from the input's share x_part and the state."""
    act = _gnn._ACTIVATIONS
    hh = _product(F, h, w_hh) + b_hh
    if mode == "lstm":
        gates = x_part + hh
        i, f, g, o = (_gate(gates, k, hidden) for k in range(4))
        c = act["sigmoid"](f) * c + act["sigmoid"](i) * act["tanh"](g)
        return act["sigmoid"](o) * act["tanh"](c), c
    if mode == "gru":
        r = act["sigmoid"](_gate(x_part, 0, hidden) + _gate(hh, 0, hidden))
        z = act["sigmoid"](_gate(x_part, 1, hidden) + _gate(hh, 1, hidden))
        n = act["tanh"](_gate(x_part, 2, hidden) + r * _gate(hh, 2, hidden))
        return (1 - z) * n + z * h, None
    return act["relu" if mode == "rnn_relu" else "tanh"](x_part + hh), None


class _RNNLayer(_gnn.Block):
    def __init__(self, mode, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 **kwargs):
        if layout not in ("TNC", "NTC"):
            raise ValueError("Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout)
        if not 0 <= dropout < 1:
            raise ValueError("dropout must be in [0, 1), got %r" % (dropout,))
        super().__init__(**kwargs)
        object.__setattr__(self, "_mode", mode)
        object.__setattr__(self, "_hidden", hidden_size)
        object.__setattr__(self, "_layers", num_layers)
        object.__setattr__(self, "_layout", layout)
        object.__setattr__(self, "_dropout", float(dropout))
        object.__setattr__(self, "_dirs", 2 if bidirectional else 1)
        gates = _GATES[mode] * hidden_size
        init = {name: _gnn._initializer(v) for name, v in (
            ("i2h_weight", i2h_weight_initializer), ("h2h_weight", h2h_weight_initializer),
            ("i2h_bias", i2h_bias_initializer), ("h2h_bias", h2h_bias_initializer))}
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * self._dirs
            for side in "lr"[:self._dirs]:
                shapes = {"i2h_weight": (gates, width), "h2h_weight": (gates, hidden_size), "i2h_bias": (gates,),
                          "h2h_bias": (gates,)}
                for name, shape in shapes.items():
                    key = "%s%d_%s" % (side, layer, name)
                    setattr(self, key, self.params.get(key, shape=shape, init=init[name]))

    def state_info(self, batch_size=0):
        shape = (self._layers * self._dirs, batch_size, self._hidden)
        return [{"shape": shape}] * (2 if self._mode == "lstm" else 1)

    def begin_state(self, batch_size=0, func=None, ctx=None, **kwargs):
        """The initial states: zeros (or func(shape=...)) of (layers x
        directions, batch, hidden), a list of one (two for LSTM)."""
        states = []
        for info in self.state_info(batch_size):
            if func is not None:
                states.append(func(shape=info["shape"], **kwargs))
            elif _gnn._npx().is_np_array():
                states.append(_gnn._np().zeros(info["shape"], ctx=ctx))
            else:
                states.append(_nd.zeros(info["shape"], ctx=ctx))
        return states

    def __call__(self, inputs, states=None):
        return super().__call__(inputs, states)

    def forward(self, inputs, states=None):
        F, stack, concat = _flavour(inputs)
        if inputs.ndim != 3:
            raise ValueError("%s: needs input of 3 dimensions (%s), got shape %s"
                             % (type(self).__name__, self._layout, inputs.shape))
        x = inputs if self._layout == "TNC" else F.swapaxes(inputs, 0, 1)
        steps, batch, features = x.shape
        first = getattr(self, "l0_i2h_weight")
        if first.shape[1] == 0:
            for side in "lr"[:self._dirs]:
                w = getattr(self, side + "0_i2h_weight")
                w._set_shape((w.shape[0], features))
        elif first.shape[1] != features:
            raise ValueError("%s: the input has %d features, the layer was built for %d"
                             % (type(self).__name__, features, first.shape[1]))
        given = states is not None
        if not given:
            states = self.begin_state(batch, ctx=x.ctx if _gnn._is_np(x) else x.context)
        if not isinstance(states, (list, tuple)):
            states = [states]
        lstm = self._mode == "lstm"
        expected = (self._layers * self._dirs, batch, self._hidden)
        for s in states:
            if tuple(s.shape) != expected:
                raise ValueError("%s: a state of shape %s, expected %s" % (type(self).__name__, s.shape, expected))
        h0, c0 = states[0], (states[1] if lstm else None)
        last_h, last_c = [], []
        for layer in range(self._layers):
            outputs = []
            for d, side in enumerate("lr"[:self._dirs]):
                p = {name: getattr(self, "%s%d_%s" % (side, layer, name)).data()
                     for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias")}
                xs = _product(F, x, p["i2h_weight"]) + p["i2h_bias"]
                k = layer * self._dirs + d
                h, c = h0[k], (c0[k] if lstm else None)
                hs = [None] * steps
                for t in (range(steps - 1, -1, -1) if d else range(steps)):
                    h, c = _step(self._mode, F, xs[t], h, c, p["h2h_weight"], p["h2h_bias"], self._hidden)
                    hs[t] = h
                outputs.append(stack(hs, 0))
                last_h.append(h)
                last_c.append(c)
            x = outputs[0] if self._dirs == 1 else concat(outputs, 2)
            if self._dropout and layer < self._layers - 1 and _autograd.is_training():
                x = _gnn.Dropout(self._dropout)(x)
        out = x if self._layout == "TNC" else F.swapaxes(x, 0, 1)
        if not given:
            return out
        new = [stack(last_h, 0)] + ([stack(last_c, 0)] if lstm else [])
        return out, new

    def __repr__(self):
        shape = getattr(self, "l0_i2h_weight").shape
        text = "%s(%s -> %d, %s" % (type(self).__name__, shape[1] or None, self._hidden, self._layout)
        if self._layers != 1:
            text += ", num_layers=%d" % self._layers
        if self._dirs == 2:
            text += ", bidirectional"
        return text + ")"


def _layer(mode):
    def init(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
             i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
             h2h_bias_initializer="zeros", **kwargs):
        _RNNLayer.__init__(self, mode, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                           i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                           **kwargs)
    return init


class RNN(_RNNLayer):
    """h_t = activation(x_t W_i2h^T + b_i2h + h_(t-1) W_h2h^T + b_h2h),
    activation 'relu' (MXNet's default) or 'tanh'."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, **kwargs):
        if activation not in ("relu", "tanh"):
            raise ValueError("RNN: activation must be 'relu' or 'tanh', got %r" % (activation,))
        super().__init__("rnn_" + activation, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         **kwargs)


class LSTM(_RNNLayer):
    """Long short-term memory; its states are [h, c]."""

    __init__ = _layer("lstm")


class GRU(_RNNLayer):
    """Gated recurrent units."""

    __init__ = _layer("gru")


__all__ = ["RNN", "LSTM", "GRU"]
