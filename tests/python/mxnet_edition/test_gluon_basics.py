"""gluon in the chapter's shape: Sequential.add(*blocks) in a name scope,
Dense with deferred input size, initialize()'s default, collect_params(),
Trainer('sgd', ...), and L2Loss called as loss(y, net(X))."""

import unittest

import numpy as np

from asyncscope import autograd, gluon, init, nd
from asyncscope.gluon import loss as gloss, nn


class Gluon(unittest.TestCase):
    def test_names_deferred_shapes_and_the_default_initializer(self):
        net = nn.Sequential()
        with net.name_scope():
            net.add(nn.Dense(16, activation="relu"), nn.Dense(1))
        net.initialize()
        params = net.collect_params()
        names = list(params.keys())
        self.assertEqual(len(names), 4)
        self.assertTrue(all(n.startswith(net.prefix) for n in names), names)
        self.assertEqual(params[names[0]].shape, (16, 0))  # the input size comes with the first batch
        out = net(nd.ones((5, 7)))
        self.assertEqual(out.shape, (5, 1))
        self.assertEqual(params[names[0]].shape, (16, 7))
        w = params[names[0]].data().asnumpy()
        self.assertLessEqual(float(np.abs(w).max()), 0.07)
        np.testing.assert_array_equal(params[names[1]].data().asnumpy(), np.zeros(16, np.float32))
        with self.assertRaises(KeyError):
            params["nope"]
        with self.assertRaises(ValueError):
            nn.Dense(4, activation="swish")

    def test_l2_loss_with_the_label_first_as_the_chapter_calls_it(self):
        loss = gloss.L2Loss()
        y = nd.ones((3,))
        pred = nd.array(np.array([[1], [3], [-1]], np.float32))
        np.testing.assert_array_equal(loss(y, pred).asnumpy(), [0, 2, 2])

    def test_trainer_step_and_a_training_loop_that_fits(self):
        rng = np.random.default_rng(1)
        true_w = rng.normal(size=(8, 1)).astype(np.float32)
        net = nn.Sequential()
        net.add(nn.Dense(1))
        net.initialize(init.Xavier())
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        loss = gloss.L2Loss()
        first = last = None
        for i in range(150):
            a = rng.normal(size=(64, 8)).astype(np.float32)
            X, y = nd.array(a), nd.array((a @ true_w)[:, 0])
            with autograd.record():
                l = loss(y, net(X))
            l.backward()
            trainer.step(64)
            if i == 0:
                first = l.mean().asscalar()
            last = l.mean().asscalar()
        self.assertLess(last, 1e-3 * first)
        self.assertEqual(gluon.Trainer(net.collect_params(), "sgd", {}).learning_rate, np.float32(0.01))
        with self.assertRaisesRegex(ValueError, "supported: sgd, adam"):
            gluon.Trainer(net.collect_params(), "rmsprop")
        self.assertEqual(gluon.Trainer(net.collect_params(), "adam").learning_rate, np.float32(0.001))

    def test_the_trainer_keeps_its_parameters_alive(self):
        def make():
            net = nn.Sequential()
            net.add(nn.Dense(2, in_units=3))
            net.initialize()
            return gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}), net.collect_params()
        trainer, params = make()  # the net itself is gone
        import gc
        gc.collect()
        trainer.step(1)  # the parameters' gradients are zeros: a step that changes nothing
        self.assertEqual(len(params), 2)
        nd.waitall()


if __name__ == "__main__":
    unittest.main()
