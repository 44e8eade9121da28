"""The PyTorch edition's torch.nn, torch.optim and torch.utils.data beside
the real PyTorch: every layer's and loss's values and input gradients on
the same weights and data, SGD (momentum, dampening, Nesterov, weight
decay) and Adam over several steps, DataLoader batching and shuffling, the
Module API (names, state_dict, save/load, train/eval, apply, repr), and a
small regression and softmax classifier trained to the loss of a NumPy
reference on the same data, weights and steps."""

import os
import tempfile
import unittest

import numpy as np

from asyncscope import torch as atorch
from asyncscope.torch import nn as ann

try:
    import torch as real_torch
    from torch import nn as rnn
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = np.random.default_rng(5)
X = RNG.standard_normal((6, 4)).astype(np.float32)


def to_np(t):
    return t.detach().numpy()


def copy_weights(ours, theirs):
    """The real module's weights set to ours (by name)."""
    sd = {k: real_torch.tensor(v.numpy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(sd)


@unittest.skipIf(real_torch is None, NO_TORCH)
class Layers(unittest.TestCase):
    def check(self, make, x=X, tol=1e-5):
        ours, theirs = make(ann), make(rnn)
        copy_weights(ours, theirs)
        a = atorch.tensor(x, requires_grad=True)
        b = real_torch.tensor(x, requires_grad=True)
        ya, yb = ours(a), theirs(b)
        np.testing.assert_allclose(to_np(ya), to_np(yb), rtol=tol, atol=tol)
        (ya * ya).sum().backward()
        (yb * yb).sum().backward()
        np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-4, atol=1e-5)
        for (na, pa), (nb, pb) in zip(ours.named_parameters(), theirs.named_parameters()):
            self.assertEqual(na, nb)
            np.testing.assert_allclose(to_np(pa.grad), to_np(pb.grad), rtol=1e-4, atol=1e-5, err_msg=na)
        self.assertEqual(repr(ours), repr(theirs))

    def test_each_layer(self):
        for make in (lambda nn: nn.Linear(4, 3), lambda nn: nn.Linear(4, 2, bias=False), lambda nn: nn.ReLU(),
                     lambda nn: nn.Sigmoid(), lambda nn: nn.Tanh(), lambda nn: nn.Softmax(dim=1),
                     lambda nn: nn.LogSoftmax(dim=1), lambda nn: nn.Identity(), lambda nn: nn.Flatten(),
                     lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)),
                     lambda nn: nn.Sequential(nn.Flatten(), nn.Linear(4, 5), nn.Tanh(), nn.Dropout(0.0),
                                              nn.Linear(5, 2), nn.Softmax(dim=-1))):
            with self.subTest(repr(make(ann))):
                self.check(make)

    def test_lazy_linear_reads_its_input_size(self):
        net = ann.Sequential(ann.LazyLinear(3), ann.ReLU())
        self.assertEqual(net(atorch.tensor(X)).shape, (6, 3))
        self.assertEqual(net[0].weight.shape, (3, 4))
        self.assertEqual(len(list(net.parameters())), 2)

    def test_dropout_in_training_and_evaluation(self):
        drop = ann.Dropout(0.25)
        x = atorch.ones(200, 100)
        y = drop(x).numpy()
        self.assertAlmostEqual(float((y == 0).mean()), 0.25, delta=0.02)
        np.testing.assert_allclose(y[y != 0], 1 / 0.75, rtol=1e-6)
        drop.eval()
        self.assertFalse(drop.training)
        np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
        with self.assertRaises(ValueError):
            ann.Dropout(1.5)


@unittest.skipIf(real_torch is None, NO_TORCH)
class Losses(unittest.TestCase):
    def compare(self, make, inputs, target_of, tol=1e-5):
        for reduction in ("mean", "sum", "none"):
            a = atorch.tensor(inputs, requires_grad=True)
            b = real_torch.tensor(inputs, requires_grad=True)
            la = make(ann, reduction)(a, target_of(atorch))
            lb = make(rnn, reduction)(b, target_of(real_torch))
            np.testing.assert_allclose(to_np(la), to_np(lb), rtol=tol, atol=tol, err_msg=reduction)
            la.sum().backward()
            lb.sum().backward()
            np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-4, atol=1e-6, err_msg=reduction)

    def test_each_loss(self):
        y = RNG.standard_normal((6, 4)).astype(np.float32)
        labels = np.array([0, 3, 1, 1, 2, 0])
        probs = np.abs(y) / np.abs(y).sum(1, keepdims=True)
        bits = (y > 0).astype(np.float32)
        self.compare(lambda nn, r: nn.MSELoss(reduction=r), X, lambda t: t.tensor(y))
        self.compare(lambda nn, r: nn.L1Loss(reduction=r), X, lambda t: t.tensor(y))
        self.compare(lambda nn, r: nn.CrossEntropyLoss(reduction=r), X, lambda t: t.tensor(labels))
        self.compare(lambda nn, r: nn.CrossEntropyLoss(reduction=r), X, lambda t: t.tensor(probs))
        self.compare(lambda nn, r: nn.CrossEntropyLoss(reduction=r, label_smoothing=0.1), X,
                     lambda t: t.tensor(labels))
        weight = np.array([1.0, 2.0, 0.5, 1.5], dtype=np.float32)
        self.compare(lambda nn, r: nn.CrossEntropyLoss(weight=nn_tensor(nn, weight), reduction=r), X,
                     lambda t: t.tensor(labels))
        self.compare(lambda nn, r: nn.BCEWithLogitsLoss(reduction=r), X * 10, lambda t: t.tensor(bits))
        self.compare(lambda nn, r: nn.BCEWithLogitsLoss(reduction=r, pos_weight=nn_tensor(nn, weight)), X,
                     lambda t: t.tensor(bits))
        for f in ("relu", "sigmoid", "tanh"):
            np.testing.assert_allclose(to_np(getattr(ann.functional, f)(atorch.tensor(X))),
                                       to_np(getattr(real_torch, f)(real_torch.tensor(X))), rtol=1e-6)

    def test_bad_reductions_and_shapes(self):
        with self.assertRaises(ValueError):
            ann.MSELoss(reduction="avg")
        with self.assertRaises(RuntimeError):
            ann.MSELoss()(atorch.tensor(X), atorch.zeros(6, 1))


def nn_tensor(nn, values):
    return (atorch if nn is ann else real_torch).tensor(values)


@unittest.skipIf(real_torch is None, NO_TORCH)
class Optimizers(unittest.TestCase):
    def compare(self, make_opt, steps=6):
        ours = ann.Sequential(ann.Linear(4, 3), ann.Tanh(), ann.Linear(3, 1))
        theirs = rnn.Sequential(rnn.Linear(4, 3), rnn.Tanh(), rnn.Linear(3, 1))
        copy_weights(ours, theirs)
        y = np.arange(6, dtype=np.float32).reshape(6, 1) / 6
        for lib, net in ((atorch, ours), (real_torch, theirs)):
            opt = make_opt(lib, net.parameters())
            for _ in range(steps):
                opt.zero_grad()
                loss = ((net(lib.tensor(X)) - lib.tensor(y)) ** 2).mean()
                loss.backward()
                opt.step()
        for (name, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-4, atol=1e-5, err_msg=name)

    def test_sgd_variants(self):
        for kw in (dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.8, dampening=0.3),
                   dict(lr=0.05, momentum=0.9, nesterov=True), dict(lr=0.1, weight_decay=0.01, momentum=0.5)):
            with self.subTest(kw):
                self.compare(lambda lib, params, kw=kw: lib.optim.SGD(params, **kw))

    def test_adam(self):
        for kw in (dict(lr=0.01), dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1)):
            with self.subTest(kw):
                self.compare(lambda lib, params, kw=kw: lib.optim.Adam(params, **kw))

    def test_param_groups_and_errors(self):
        net = ann.Linear(4, 2)
        opt = atorch.optim.SGD([{"params": [net.weight]}, {"params": [net.bias], "lr": 0.5}], lr=0.1)
        self.assertEqual([g["lr"] for g in opt.param_groups], [0.1, 0.5])
        with self.assertRaises(ValueError):
            atorch.optim.SGD([], lr=0.1)
        with self.assertRaises(ValueError):
            atorch.optim.SGD(net.parameters(), lr=0.1, nesterov=True)


@unittest.skipIf(real_torch is None, NO_TORCH)
class ModulesAndData(unittest.TestCase):
    def test_subclassing_names_state_and_modes(self):
        class Net(ann.Module):
            def __init__(self):
                super().__init__()
                self.hidden = ann.Linear(4, 5)
                self.out = ann.Linear(5, 2)
                self.scale = ann.Parameter(atorch.ones(1))

            def forward(self, x):
                return self.out(atorch.relu(self.hidden(x))) * self.scale

        net = Net()
        self.assertEqual([n for n, _ in net.named_parameters()],
                         ["scale", "hidden.weight", "hidden.bias", "out.weight", "out.bias"])
        self.assertEqual([type(m).__name__ for m in net.children()], ["Linear", "Linear"])
        net.apply(lambda m: ann.init.constant_(m.weight, 0.5) if isinstance(m, ann.Linear) else None)
        np.testing.assert_array_equal(net.hidden.weight.numpy(), np.full((5, 4), 0.5, np.float32))
        net.eval()
        self.assertFalse(net.hidden.training)
        net.train()
        self.assertTrue(net.out.training)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "net.params")
            atorch.save(net.state_dict(), path)
            other = Net()
            other.load_state_dict(atorch.load(path))
        np.testing.assert_array_equal(other(atorch.tensor(X)).numpy(), net(atorch.tensor(X)).numpy())
        with self.assertRaises(RuntimeError):
            other.load_state_dict({"scale": atorch.ones(1)})
        net.zero_grad()
        (net(atorch.tensor(X)).sum()).backward()
        self.assertIsNotNone(net.scale.grad)
        net.zero_grad()
        self.assertIsNone(net.scale.grad)

    def test_init_functions(self):
        w = ann.Parameter(atorch.zeros(300, 200))
        ann.init.xavier_uniform_(w)
        bound = (6 / 500) ** 0.5
        v = w.numpy()
        self.assertLessEqual(float(np.abs(v).max()), bound)
        self.assertAlmostEqual(float(v.std()), bound / 3 ** 0.5, delta=0.01)
        ann.init.normal_(w, 1.0, 0.1)
        self.assertAlmostEqual(float(w.numpy().mean()), 1.0, delta=0.01)
        ann.init.zeros_(w)
        self.assertEqual(float(w.numpy().sum()), 0.0)
        w.data.normal_(0, 0.01)  # d2l's spelling: through .data, in place
        self.assertAlmostEqual(float(w.numpy().std()), 0.01, delta=0.001)

    def test_dataloader_batches_and_shuffles(self):
        x = atorch.arange(10).float().reshape(10, 1)
        y = atorch.arange(10)
        ds = atorch.utils.data.TensorDataset(x, y)
        self.assertEqual(len(ds), 10)
        plain = list(atorch.utils.data.DataLoader(ds, batch_size=4))
        self.assertEqual([tuple(b[0].shape) for b in plain], [(4, 1), (4, 1), (2, 1)])
        self.assertEqual(plain[1][1].tolist(), [4, 5, 6, 7])
        self.assertEqual(len(atorch.utils.data.DataLoader(ds, batch_size=4, drop_last=True)), 2)
        atorch.manual_seed(3)
        first = [b[1].tolist() for b in atorch.utils.data.DataLoader(ds, batch_size=3, shuffle=True)]
        self.assertEqual(sorted(sum(first, [])), list(range(10)))
        self.assertNotEqual(sum(first, []), list(range(10)))
        atorch.manual_seed(3)
        again = [b[1].tolist() for b in atorch.utils.data.DataLoader(ds, batch_size=3, shuffle=True)]
        self.assertEqual(again, first)
        for xb, yb in atorch.utils.data.DataLoader(ds, batch_size=3, shuffle=True):
            np.testing.assert_array_equal(xb.numpy().ravel(), yb.numpy())


class Training(unittest.TestCase):
    """Full-batch gradient descent, the same data, initial weights and steps
    as a NumPy reference: the final losses agree within 1%."""

    def test_regression_and_softmax_classifier(self):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((64, 3)).astype(np.float32)
        y = (x @ np.array([[2.0], [-3.4], [1.0]], np.float32) + 4.2).astype(np.float32)
        net = ann.Linear(3, 1)
        w, b = net.weight.numpy().copy(), net.bias.numpy().copy()
        opt = atorch.optim.SGD(net.parameters(), lr=0.05)
        for _ in range(40):
            opt.zero_grad()
            loss = ann.MSELoss()(net(atorch.tensor(x)), atorch.tensor(y))
            loss.backward()
            opt.step()
        for _ in range(40):
            r = x @ w.T + b - y
            w = w - 0.05 * (2 * r.T @ x / r.size)
            b = b - 0.05 * (2 * r.sum(0) / r.size)
        ref = float(((x @ w.T + b - y) ** 2).mean())
        ours = float(ann.MSELoss()(net(atorch.tensor(x)), atorch.tensor(y)).item())
        self.assertLess(abs(ours - ref), 0.01 * ref)

        labels = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0).astype(np.int64)
        clf = ann.Linear(3, 3)
        w, b = clf.weight.numpy().copy(), clf.bias.numpy().copy()
        opt = atorch.optim.SGD(clf.parameters(), lr=0.5)
        loss_fn = ann.CrossEntropyLoss()
        for _ in range(30):
            opt.zero_grad()
            loss = loss_fn(clf(atorch.tensor(x)), atorch.tensor(labels))
            loss.backward()
            opt.step()
        onehot = np.eye(3, dtype=np.float32)[labels]

        def probs(w, b):
            z = x @ w.T + b
            e = np.exp(z - z.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)
        for _ in range(30):
            g = (probs(w, b) - onehot) / len(x)
            w = w - 0.5 * g.T @ x
            b = b - 0.5 * g.sum(0)
        ref = float(-(np.log(probs(w, b)) * onehot).sum(1).mean())
        ours = float(loss_fn(clf(atorch.tensor(x)), atorch.tensor(labels)).item())
        self.assertLess(abs(ours - ref), 0.01 * ref)
