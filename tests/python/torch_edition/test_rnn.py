"""The PyTorch edition's recurrent layers (nn/rnn.py) against the real
PyTorch from the same state_dict: RNN (tanh, relu), LSTM and GRU, stacked,
bidirectional, batch_first, unbatched, with and without bias or an initial
state, and their cells: outputs, final states, input and parameter
gradients, parameter names and printed forms; a d2l-style character model
trains a few steps as PyTorch's does; refusals of the same class."""

import unittest

import numpy as onp

from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = onp.random.default_rng(6)
X = RNG.normal(size=(5, 3, 4)).astype(onp.float32)  # (steps, batch, features)
H = RNG.normal(size=(1, 3, 6)).astype(onp.float32)

CASES = {
    "RNN with h0": (lambda nn: nn.RNN(4, 6), X, H),
    "RNN relu, 2 layers": (lambda nn: nn.RNN(4, 6, num_layers=2, nonlinearity="relu"), X, None),
    "LSTM with (h0, c0)": (lambda nn: nn.LSTM(4, 6), X, (H, H * 0.5)),
    "LSTM 2 layers, bidirectional, batch_first": (
        lambda nn: nn.LSTM(4, 6, num_layers=2, batch_first=True, bidirectional=True), X, None),
    "GRU without bias": (lambda nn: nn.GRU(4, 6, bias=False), X, H),
    "GRU bidirectional": (lambda nn: nn.GRU(4, 6, bidirectional=True), X, None),
    "GRU unbatched": (lambda nn: nn.GRU(4, 6), X[:, 0], None),
    "RNNCell relu": (lambda nn: nn.RNNCell(4, 6, nonlinearity="relu"), X[0], H[0]),
    "LSTMCell": (lambda nn: nn.LSTMCell(4, 6), X[0], (H[0], H[0])),
    "GRUCell unbatched": (lambda nn: nn.GRUCell(4, 6), X[0, 0], None),
}


def flat(result):
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in flat(r)]
    return [result]


def twins(make):
    theirs = make(real_torch.nn)
    ours = make(atorch.nn)
    ours.load_state_dict({k: atorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@unittest.skipIf(real_torch is None, NO_TORCH)
class AgainstPyTorch(unittest.TestCase):
    def test_outputs_states_and_gradients(self):
        for name, (make, x, hx) in CASES.items():
            with self.subTest(name):
                ours, theirs = twins(make)
                self.assertEqual(list(dict(ours.named_parameters())), list(dict(theirs.named_parameters())))
                self.assertEqual(repr(ours), repr(theirs))
                results = []
                for lib, net in ((atorch, ours), (real_torch, theirs)):
                    xt = lib.tensor(x, requires_grad=True)
                    state = None if hx is None else (tuple(lib.tensor(h) for h in hx) if isinstance(hx, tuple)
                                                     else lib.tensor(hx))
                    out = flat(net(xt) if state is None else net(xt, state))
                    weights = [lib.tensor(RNG.normal(size=tuple(o.shape)).astype(onp.float32) if lib is atorch
                                          else w) for o, w in zip(out, results[0][2] if results else [None] * 9)]
                    total = sum((o * w).sum() for o, w in zip(out, weights))
                    total.backward()
                    results.append((out, xt.grad, [w.numpy() for w in weights], [p.grad for p in net.parameters()]))
                (out_o, gx_o, _, gp_o), (out_t, gx_t, _, gp_t) = results
                self.assertEqual(len(out_o), len(out_t))
                for o, t in zip(out_o, out_t):
                    self.assertEqual(tuple(o.shape), tuple(t.shape))
                    onp.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)
                onp.testing.assert_allclose(gx_o.numpy(), gx_t.numpy(), rtol=1e-4, atol=1e-5)
                for o, t in zip(gp_o, gp_t):
                    onp.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-4, atol=1e-4)

    def test_a_character_model_trains_as_pytorchs(self):
        vocab, hidden, steps, batch = 12, 16, 7, 4

        class Model:
            def __init__(self, nn):
                self.rnn = nn.GRU(vocab, hidden)
                self.out = nn.Linear(hidden, vocab)

        tokens = RNG.integers(0, vocab, size=(steps + 1, batch))
        theirs, ours = Model(real_torch.nn), Model(atorch.nn)
        for mine, model in ((ours.rnn, theirs.rnn), (ours.out, theirs.out)):  # the same weights before any step
            mine.load_state_dict({k: atorch.tensor(v.detach().numpy()) for k, v in model.state_dict().items()})
        losses = []
        for lib, m in ((real_torch, theirs), (atorch, ours)):
            opt = lib.optim.SGD(list(m.rnn.parameters()) + list(m.out.parameters()), lr=0.5)
            run = []
            for _ in range(4):
                x = lib.nn.functional.one_hot(lib.tensor(tokens[:-1]), vocab).float()
                y, _ = m.rnn(x)
                loss = lib.nn.functional.cross_entropy(m.out(y).reshape(-1, vocab), lib.tensor(tokens[1:]).reshape(-1))
                opt.zero_grad()
                loss.backward()
                opt.step()
                run.append(float(loss))
            losses.append(run)
        onp.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
        self.assertLess(losses[1][-1], losses[1][0])

    def test_refusals_are_pytorchs(self):
        calls = [
            lambda nn, T: nn.RNN(4, 6)(T.tensor(X[..., :3].copy())),
            lambda nn, T: nn.GRU(4, 6)(T.tensor(X), T.tensor(H[:, :2].copy())),
            lambda nn, T: nn.RNN(4, 6, nonlinearity="gelu"),
            lambda nn, T: nn.LSTM(4, 6, dropout=1.5),
            lambda nn, T: nn.LSTM(4, 6)(T.tensor(X[0, 0])),
        ]
        for i, call in enumerate(calls):
            with self.assertRaises(Exception) as theirs:
                call(real_torch.nn, real_torch)
            with self.assertRaises(type(theirs.exception), msg="call %d" % i):
                call(atorch.nn, atorch)


if __name__ == "__main__":
    unittest.main()
