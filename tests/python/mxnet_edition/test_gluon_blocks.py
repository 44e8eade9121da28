"""Gluon blocks defined in Python, as the MXNet edition's readers write them:
Block and HybridBlock subclasses with children and parameters of their own,
Sequential of any blocks, collect_params(select), hybridize(), Dense with
flatten=False and any activation, Activation, Dropout, Flatten,
Parameter.set_data, and save_parameters/load_parameters."""

import os
import tempfile
import unittest

import numpy as np

from asyncscope import autograd, gluon, init, nd
from asyncscope.gluon import nn


class MLP(nn.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = nn.Dense(16, activation="relu")
        self.output = nn.Dense(3)

    def forward(self, x):
        return self.output(self.hidden(x))


class Scale(nn.HybridBlock):
    """y = x * w, w a parameter of its own."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.weight = self.params.get("weight", shape=(units,), init=init.Constant(2.0))

    def hybrid_forward(self, F, x, weight):
        return x * weight


class GluonBlocks(unittest.TestCase):
    def test_a_subclass_has_its_children_named_and_trains(self):
        net = MLP()
        self.assertTrue(net.prefix.startswith("mlp"))
        params = net.collect_params()
        self.assertEqual(len(params), 4)
        self.assertEqual([n.split("_")[-1] for n in params.keys()], ["weight", "bias", "weight", "bias"])

        class Named(nn.Block):  # children made in its name scope are named below it
            def __init__(self):
                super().__init__()
                with self.name_scope():
                    self.hidden = nn.Dense(4)

        named = Named()
        self.assertEqual(list(named.collect_params().keys()),
                         [named.prefix + "dense0_weight", named.prefix + "dense0_bias"])
        net.initialize(init.Xavier())
        x = nd.array(np.random.default_rng(0).normal(size=(8, 5)).astype(np.float32))
        self.assertEqual(net(x).shape, (8, 3))
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        before = net.output.weight.data().asnumpy().copy()
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(8)
        self.assertFalse(np.array_equal(before, net.output.weight.data().asnumpy()))

    def test_hybrid_forward_gets_the_blocks_own_parameters(self):
        s = Scale(4)
        self.assertEqual(list(s.collect_params().keys()), [s.prefix + "weight"])
        s.initialize()
        np.testing.assert_array_equal(s(nd.ones((2, 4))).asnumpy(), np.full((2, 4), 2, np.float32))
        s.weight.set_data(nd.array(np.arange(4, dtype=np.float32)))
        np.testing.assert_array_equal(s(nd.ones((1, 4))).asnumpy(), [[0, 1, 2, 3]])
        with self.assertRaises(ValueError):
            s.weight.set_data(nd.ones((3,)))

    def test_sequential_mixes_python_and_cpp_blocks_and_selects_parameters(self):
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(MLP(), nn.Dense(2), Scale(2))
        self.assertEqual(len(net), 3)
        self.assertIsInstance(net[0], MLP)
        net.initialize()
        self.assertEqual(net(nd.ones((4, 6))).shape, (4, 2))
        weights = net.collect_params(".*weight")
        self.assertEqual(len(weights), 4)
        self.assertTrue(all(name.endswith("weight") for name in weights.keys()))
        before = net(nd.ones((4, 6))).asnumpy()
        net.hybridize()
        np.testing.assert_array_equal(net(nd.ones((4, 6))).asnumpy(), before)
        self.assertIn("MLP(", repr(net))

    def test_dense_flatten_false_and_activations(self):
        d = nn.Dense(4, flatten=False, in_units=5)
        d.initialize()
        x = np.random.default_rng(1).normal(size=(2, 3, 5)).astype(np.float32)
        y = d(nd.array(x)).asnumpy()
        self.assertEqual(y.shape, (2, 3, 4))
        w, b = d.weight.data().asnumpy(), d.bias.data().asnumpy()
        np.testing.assert_allclose(y, x @ w.T + b, rtol=1e-5, atol=1e-6)
        t = nn.Dense(3, activation="tanh", in_units=2)
        t.initialize(init.Constant(1.0))
        np.testing.assert_allclose(t(nd.ones((1, 2))).asnumpy(), np.tanh(np.full((1, 3), 2.0)), rtol=1e-6)
        v = np.array([[-2.0, 0.0, 3.0]], np.float32)
        expected = {"relu": np.maximum(v, 0), "sigmoid": 1 / (1 + np.exp(-v)), "tanh": np.tanh(v),
                    "softrelu": np.log1p(np.exp(v)), "softsign": v / (1 + np.abs(v))}
        for name, want in expected.items():
            np.testing.assert_allclose(nn.Activation(name)(nd.array(v)).asnumpy(), want, rtol=1e-6, err_msg=name)
        with self.assertRaises(ValueError):
            nn.Activation("swish")
        self.assertEqual(nn.Flatten()(nd.ones((2, 3, 4))).shape, (2, 12))

    def test_dropout_only_while_training(self):
        drop = nn.Dropout(0.5)
        x = nd.ones((200, 50))
        np.testing.assert_array_equal(drop(x).asnumpy(), np.ones((200, 50), np.float32))
        with autograd.record():
            y = drop(x).asnumpy()
        self.assertTrue(set(np.unique(y)) <= {0.0, 2.0})
        self.assertAlmostEqual(float((y == 0).mean()), 0.5, delta=0.05)
        with self.assertRaises(ValueError):
            nn.Dropout(1.0)

    def test_parameters_saved_and_loaded_into_another_net(self):
        net = MLP()
        net.initialize()
        x = nd.ones((2, 7))
        want = net(x).asnumpy()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "mlp.params")
            net.save_parameters(path)
            other = MLP()  # other names (mlp1_...), the same structure
            other.load_parameters(path)
            np.testing.assert_array_equal(other(x).asnumpy(), want)
            with self.assertRaises(ValueError):
                Scale(3).load_parameters(path)

    def test_the_numpy_interface_as_the_current_edition_writes_it(self):
        from asyncscope import np as mnp
        from asyncscope import npx
        npx.set_np()
        try:
            net = nn.Sequential()
            net.add(nn.Dense(8, activation="relu"), nn.Dropout(0.2), nn.Dense(1))
            net.initialize(init.Normal(sigma=0.01))
            X = mnp.random.normal(0, 1, size=(16, 4))
            y = mnp.dot(X, mnp.array([[1.0], [-2.0], [0.5], [3.0]]))
            loss = gluon.loss.L2Loss()
            trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05})
            first = None
            for _ in range(60):
                with autograd.record():
                    l = loss(net(X), y)
                l.backward()
                trainer.step(16)
                first = first if first is not None else float(l.mean())
            self.assertIsInstance(net(X), mnp.ndarray)
            self.assertIsInstance(net[0].weight.data(), mnp.ndarray)
            self.assertLess(float(l.mean()), 0.2 * first)
            self.assertIsInstance(nn.Activation("tanh")(X), mnp.ndarray)
            net[2].bias.set_data(mnp.zeros((1,)))
        finally:
            npx.reset_np()
        self.assertIsInstance(net[0].weight.data(), nd.NDArray)

    def test_a_subclass_must_call_the_base_init(self):
        class Broken(nn.Block):
            def __init__(self):
                self.dense = nn.Dense(1)

        with self.assertRaisesRegex(RuntimeError, "super"):
            Broken()
        with self.assertRaisesRegex(ValueError, "grad_req"):
            gluon.Parameter("w", shape=(2,), grad_req="sometimes")


if __name__ == "__main__":
    unittest.main()
