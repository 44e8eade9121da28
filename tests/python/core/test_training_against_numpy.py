"""A small softmax classifier and a small linear regression trained in both
editions (PyTorch: nn.Linear, CrossEntropyLoss / MSELoss, optim.SGD; MXNet:
gluon Dense, SoftmaxCrossEntropyLoss / L2Loss, Trainer sgd) end within 1% of
the loss of a NumPy implementation trained on the same data from the same
initial weights with the same full-batch steps: from python3, and the same
tests again inside `asyncscope script` (the embedded interpreter)."""

import os
import subprocess
import tempfile
import textwrap
import unittest

import numpy as np

from asyncscope import autograd, gluon, nd, torch
from asyncscope.gluon import nn as gnn

STEPS, LR = 60, 0.5


def data(seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]], np.float32)
    labels = rng.integers(0, 3, size=240)
    X = (centers[labels] + rng.normal(scale=0.8, size=(240, 2))).astype(np.float32)
    W0 = rng.normal(scale=0.1, size=(3, 2)).astype(np.float32)
    return X, labels, W0


def numpy_softmax_losses(X, labels, W0):
    """The loss before each of STEPS full-batch steps and after the last."""
    W, b = W0.astype(np.float64), np.zeros(3)
    Y = np.eye(3)[labels]
    losses = []
    for step in range(STEPS + 1):
        z = X @ W.T + b
        z -= z.max(axis=1, keepdims=True)
        P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        losses.append(-np.log(P[np.arange(len(X)), labels]).mean())
        if step == STEPS:
            break
        G = (P - Y) / len(X)
        W -= LR * G.T @ X
        b -= LR * G.sum(axis=0)
    return losses


def numpy_regression_losses(X, y, w0, half):
    w, b = w0.astype(np.float64), 0.0
    losses = []
    for _ in range(STEPS):
        r = X @ w + b - y
        losses.append((r ** 2).mean() * (0.5 if half else 1.0))
        g = r * (1.0 if half else 2.0) / len(X)
        w -= 0.1 * X.T @ g
        b -= 0.1 * g.sum()
    return losses


class TrainingAgainstNumpy(unittest.TestCase):
    def test_softmax_classifier_pytorch_edition(self):
        X, labels, W0 = data()
        net = torch.nn.Linear(2, 3)
        with torch.no_grad():
            net.weight.copy_(torch.tensor(W0))
            net.bias.zero_()
        opt = torch.optim.SGD(net.parameters(), lr=LR)
        loss_fn = torch.nn.CrossEntropyLoss()
        Xt, yt = torch.tensor(X), torch.tensor(labels)
        for _ in range(STEPS):
            opt.zero_grad()
            l = loss_fn(net(Xt), yt)
            l.backward()
            opt.step()
        final = loss_fn(net(Xt), yt).item()
        want = numpy_softmax_losses(X, labels, W0)
        self.assertLess(want[-1], 0.5 * want[0])  # it learned
        self.assertAlmostEqual(final, want[-1], delta=0.01 * want[-1])

    def test_softmax_classifier_mxnet_edition(self):
        X, labels, W0 = data()
        net = gnn.Dense(3, in_units=2)
        net.initialize()
        net.weight.set_data(nd.array(W0))
        net.bias.set_data(nd.zeros((3,)))
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        Xn, yn = nd.array(X), nd.array(labels.astype(np.float32))
        for _ in range(STEPS):
            with autograd.record():
                l = loss_fn(net(Xn), yn)
            l.backward()
            trainer.step(len(X))
        final = float(loss_fn(net(Xn), yn).mean().asscalar())
        want = numpy_softmax_losses(X, labels, W0)
        self.assertAlmostEqual(final, want[-1], delta=0.01 * want[-1])

    def test_linear_regression_both_editions(self):
        rng = np.random.default_rng(5)
        X = rng.normal(size=(200, 3)).astype(np.float32)
        y = (X @ np.array([1.5, -2.0, 0.5]) + 0.3 + rng.normal(scale=0.1, size=200)).astype(np.float32)
        w0 = rng.normal(scale=0.1, size=3).astype(np.float32)
        # PyTorch: MSELoss, the mean of squares.
        lin = torch.nn.Linear(3, 1)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(w0.reshape(1, 3)))
            lin.bias.zero_()
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)
        Xt, yt = torch.tensor(X), torch.tensor(y.reshape(-1, 1))
        for _ in range(STEPS):
            opt.zero_grad()
            l = torch.nn.functional.mse_loss(lin(Xt), yt)
            l.backward()
            opt.step()
        want = numpy_regression_losses(X, y, w0, half=False)
        self.assertAlmostEqual(l.item(), want[-1], delta=0.01 * want[-1])
        # MXNet: L2Loss, half the squares, gradient of the batch's sum over step(batch).
        dense = gnn.Dense(1, in_units=3)
        dense.initialize()
        dense.weight.set_data(nd.array(w0.reshape(1, 3)))
        dense.bias.set_data(nd.zeros((1,)))
        trainer = gluon.Trainer(dense.collect_params(), "sgd", {"learning_rate": 0.1})
        loss_fn = gluon.loss.L2Loss()
        Xn, yn = nd.array(X), nd.array(y.reshape(-1, 1))
        for _ in range(STEPS):
            with autograd.record():
                l = loss_fn(dense(Xn), yn)
            l.backward()
            trainer.step(len(X))
        want = numpy_regression_losses(X, y, w0, half=True)
        got = float(l.mean().asscalar())
        self.assertAlmostEqual(got, want[-1], delta=0.01 * want[-1])

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))


@unittest.skipUnless(os.path.exists(EXE), "no asyncscope executable at " + EXE)
class FromAsyncscopeScript(unittest.TestCase):
    def test_the_same_training_inside_asyncscope_script(self):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "train.py")
            with open(script, "w") as f:
                f.write(textwrap.dedent(f"""\
                    import sys, unittest
                    sys.path.insert(0, {HERE!r})
                    import test_training_against_numpy as t
                    suite = unittest.defaultTestLoader.loadTestsFromTestCase(t.TrainingAgainstNumpy)
                    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
                    print("RESULT", result.testsRun, len(result.failures) + len(result.errors))
                    """))
            done = subprocess.run([EXE, "script", script], capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("RESULT 3 0", done.stdout, done.stdout + done.stderr)


if __name__ == "__main__":
    unittest.main()
