"""Gluon's recurrent layers (gluon/rnn.py) on nd and np arrays: RNN (relu,
MXNet's default, and tanh), LSTM and GRU, stacked, bidirectional, layouts
TNC and NTC, with and without states, against the real PyTorch given the
same weights (the same equations; MXNet's gate order is PyTorch's): outputs,
final states and input gradients; MXNet's parameter names and deferred
input size; the current edition's use of a layer; refusals."""

import unittest

import numpy as onp

from asyncscope import autograd, init, nd, np, npx
from asyncscope.gluon import rnn

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = onp.random.default_rng(9)
X = RNG.normal(size=(5, 3, 4)).astype(onp.float32)  # (steps, batch, features)

CASES = [
    ("RNN tanh", lambda: rnn.RNN(6, activation="tanh", input_size=4), "RNN", {"nonlinearity": "tanh"}, "TNC", True),
    ("RNN relu, 2 layers", lambda: rnn.RNN(6, num_layers=2, input_size=4), "RNN", {"num_layers": 2,
                                                                                    "nonlinearity": "relu"}, "TNC", True),
    ("LSTM", lambda: rnn.LSTM(6, input_size=4), "LSTM", {}, "TNC", True),
    ("LSTM 2 layers bidirectional", lambda: rnn.LSTM(6, num_layers=2, bidirectional=True, input_size=4), "LSTM",
     {"num_layers": 2, "bidirectional": True}, "TNC", True),
    ("GRU", lambda: rnn.GRU(6, input_size=4), "GRU", {}, "TNC", True),
    ("GRU without states", lambda: rnn.GRU(6, input_size=4), "GRU", {}, "TNC", False),
    ("GRU NTC", lambda: rnn.GRU(6, layout="NTC", input_size=4), "GRU", {}, "NTC", True),
]


def copy_into_torch(ours, theirs, layers, dirs):
    with real_torch.no_grad():
        for layer in range(layers):
            for d, side in enumerate("lr"[:dirs]):
                for mine, torch_name in (("i2h_weight", "weight_ih"), ("h2h_weight", "weight_hh"),
                                         ("i2h_bias", "bias_ih"), ("h2h_bias", "bias_hh")):
                    value = getattr(ours, "%s%d_%s" % (side, layer, mine)).data().asnumpy()
                    getattr(theirs, "%s_l%d%s" % (torch_name, layer, "_reverse" if d else "")).copy_(
                        real_torch.tensor(value))


@unittest.skipIf(real_torch is None, NO_TORCH)
class AgainstTheSameEquations(unittest.TestCase):
    def test_outputs_states_and_gradients_on_nd_and_np(self):
        for name, make, kind, kw, layout, with_states in CASES:
            for flavour in (nd, np):
                with self.subTest(name, flavour=flavour.__name__):
                    if flavour is np:
                        npx.set_np()
                    try:
                        ours = make()
                        ours.initialize(init.Normal(0.3))
                        theirs = getattr(real_torch.nn, kind)(4, 6, **kw)
                        copy_into_torch(ours, theirs, kw.get("num_layers", 1), 2 if kw.get("bidirectional") else 1)
                        x = flavour.array(X if layout == "TNC" else X.transpose(1, 0, 2).copy())
                        x.attach_grad()
                        with autograd.record():
                            if with_states:
                                out, states = ours(x, ours.begin_state(batch_size=3))
                            else:
                                out, states = ours(x), []
                            total = out.sum()
                            for s in states:
                                total = total + s.sum()
                        total.backward()
                        self.assertIsInstance(out, type(x))
                        xt = real_torch.tensor(X, requires_grad=True)
                        ot, st = theirs(xt)
                        st = list(st) if isinstance(st, tuple) else [st]
                        (ot.sum() + (sum(s.sum() for s in st) if with_states else 0)).backward()
                        want = ot.detach().numpy()
                        got = out.asnumpy() if layout == "TNC" else out.asnumpy().transpose(1, 0, 2)
                        onp.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
                        self.assertEqual(len(states), len(st) if with_states else 0)
                        for a, b in zip(states, st):
                            onp.testing.assert_allclose(a.asnumpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5)
                        grad = x.grad.asnumpy() if layout == "TNC" else x.grad.asnumpy().transpose(1, 0, 2)
                        onp.testing.assert_allclose(grad, xt.grad.numpy(), rtol=1e-4, atol=1e-5)
                    finally:
                        npx.reset_np()


class AsMXNetHasThem(unittest.TestCase):
    def test_the_current_editions_rnn_layer(self):
        npx.set_np()
        try:
            num_hiddens, batch_size, num_steps, vocab = 16, 2, 35, 28
            rnn_layer = rnn.RNN(num_hiddens)
            rnn_layer.initialize()
            state = rnn_layer.begin_state(batch_size=batch_size)
            self.assertEqual(len(state), 1)
            self.assertEqual(state[0].shape, (1, batch_size, num_hiddens))
            X = np.random.uniform(size=(num_steps, batch_size, vocab))
            Y, state_new = rnn_layer(X, state)
            self.assertEqual(Y.shape, (num_steps, batch_size, num_hiddens))
            self.assertEqual(state_new[0].shape, (1, batch_size, num_hiddens))
            self.assertGreaterEqual(float(Y.min()), 0.0)  # relu, MXNet's default activation
            names = sorted(rnn_layer.collect_params().keys())
            prefix = rnn_layer.prefix
            self.assertEqual(names, sorted(prefix + n for n in ("l0_i2h_weight", "l0_h2h_weight", "l0_i2h_bias",
                                                                "l0_h2h_bias")))
            self.assertEqual(rnn_layer.l0_i2h_weight.shape, (num_hiddens, vocab))  # from the first batch
            lstm = rnn.LSTM(8, num_layers=2, bidirectional=True)
            lstm.initialize()
            h, c = lstm.begin_state(batch_size=3)
            self.assertEqual((h.shape, c.shape), ((4, 3, 8), (4, 3, 8)))
            out = lstm(np.ones((5, 3, 2)))
            self.assertEqual(out.shape, (5, 3, 16))
            self.assertEqual(lstm.r1_i2h_weight.shape, (32, 16))
        finally:
            npx.reset_np()

    def test_refusals(self):
        layer = rnn.GRU(6, input_size=4)
        layer.initialize()
        with self.assertRaisesRegex(ValueError, "3 features, the layer was built for 4"):
            layer(nd.array(X[..., :3].copy()))
        with self.assertRaisesRegex(ValueError, "3 dimensions"):
            layer(nd.array(X[0]))
        with self.assertRaisesRegex(ValueError, "a state of shape"):
            layer(nd.array(X), [nd.zeros((1, 2, 6))])
        with self.assertRaisesRegex(ValueError, "layout"):
            rnn.LSTM(4, layout="CTN")
        with self.assertRaisesRegex(ValueError, "activation"):
            rnn.RNN(4, activation="sigmoid")


if __name__ == "__main__":
    unittest.main()
