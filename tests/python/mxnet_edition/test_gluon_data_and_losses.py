"""Gluon's data and losses in the MXNet edition, for nd arrays and for
MXNet's NumPy interface: ArrayDataset and DataLoader (batching, last_batch
keep/discard/rollover, a seeded shuffle), and L1Loss,
SoftmaxCrossEntropyLoss (sparse and dense labels, from logits or not) and
SigmoidBinaryCrossEntropyLoss (from logits or sigmoid) against NumPy
reference implementations: per-sample values and input gradients."""

import unittest

import numpy as onp

from asyncscope import autograd, gluon, nd
from asyncscope import np as anp

RNG = onp.random.default_rng(11)
PRED = RNG.standard_normal((5, 4)).astype(onp.float32)
LABELS = onp.array([0, 3, 1, 2, 3])


def softmax(z):
    e = onp.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def flavours():
    return [("nd", nd.array), ("np", anp.array)]


class Losses(unittest.TestCase):
    def check(self, loss, label, expected_value, expected_grad):
        for name, make in flavours():
            with self.subTest(name):
                x = make(PRED)
                x.attach_grad()
                with autograd.record():
                    value = loss(x, make(label))
                value.backward()
                self.assertEqual(value.shape, (5,))
                onp.testing.assert_allclose(value.asnumpy(), expected_value, rtol=1e-5, atol=1e-6)
                onp.testing.assert_allclose(x.grad.asnumpy(), expected_grad, rtol=1e-4, atol=1e-6)

    def test_l1(self):
        label = RNG.standard_normal((5, 4)).astype(onp.float32)
        self.check(gluon.loss.L1Loss(), label, onp.abs(label - PRED).mean(1), -onp.sign(label - PRED) / 4)

    def test_softmax_cross_entropy(self):
        p = softmax(PRED)
        onehot = onp.eye(4, dtype=onp.float32)[LABELS]
        value = -(onp.log(p) * onehot).sum(1)
        self.check(gluon.loss.SoftmaxCrossEntropyLoss(), LABELS.astype(onp.float32), value, p - onehot)
        dense = softmax(RNG.standard_normal((5, 4)).astype(onp.float32))
        self.check(gluon.loss.SoftmaxCELoss(sparse_label=False), dense, -(onp.log(p) * dense).sum(1), p - dense)
        logp = onp.log(p)
        x = nd.array(logp)
        got = gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True)(x, nd.array(LABELS.astype(onp.float32)))
        onp.testing.assert_allclose(got.asnumpy(), value, rtol=1e-5)

    def test_sigmoid_binary_cross_entropy(self):
        y = (RNG.random((5, 4)) > 0.5).astype(onp.float32)
        s = 1 / (1 + onp.exp(-PRED))
        value = -(y * onp.log(s) + (1 - y) * onp.log(1 - s))
        self.check(gluon.loss.SigmoidBCELoss(), y, value.mean(1), (s - y) / 4)
        got = gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True)(nd.array(s), nd.array(y))
        onp.testing.assert_allclose(got.asnumpy(), value.mean(1), rtol=1e-4)

    def test_weights(self):
        label = onp.zeros((5, 4), onp.float32)
        got = gluon.loss.L1Loss(weight=2.0)(nd.array(PRED), nd.array(label), nd.ones((5, 1)) * 3)
        onp.testing.assert_allclose(got.asnumpy(), 6 * onp.abs(PRED).mean(1), rtol=1e-5)


class Data(unittest.TestCase):
    def test_batches_in_order(self):
        for name, make in flavours():
            with self.subTest(name):
                x = make(onp.arange(20, dtype=onp.float32).reshape(10, 2))
                y = make(onp.arange(10, dtype=onp.float32))
                ds = gluon.data.ArrayDataset(x, y)
                self.assertEqual(len(ds), 10)
                batches = list(gluon.data.DataLoader(ds, batch_size=4))
                self.assertEqual([b[0].shape for b in batches], [(4, 2), (4, 2), (2, 2)])
                onp.testing.assert_array_equal(batches[1][1].asnumpy(), [4, 5, 6, 7])
                self.assertEqual(len(gluon.data.DataLoader(ds, batch_size=4, last_batch="discard")), 2)
                self.assertEqual(len(list(gluon.data.DataLoader(ds, batch_size=4, last_batch="discard"))), 2)

    def test_shuffle_is_a_seeded_permutation(self):
        for name, make in flavours():
            with self.subTest(name):
                x = make(onp.arange(10, dtype=onp.float32))
                ds = gluon.data.ArrayDataset(x, x * 2)
                nd.random.seed(4)
                first = [b[0].asnumpy().tolist() for b in gluon.data.DataLoader(ds, batch_size=3, shuffle=True)]
                flat = sum(first, [])
                self.assertEqual(sorted(flat), list(range(10)))
                self.assertNotEqual(flat, list(range(10)))
                nd.random.seed(4)
                again = [b[0].asnumpy().tolist() for b in gluon.data.DataLoader(ds, batch_size=3, shuffle=True)]
                self.assertEqual(again, first)
                for a, b in gluon.data.DataLoader(ds, batch_size=4, shuffle=True):
                    onp.testing.assert_array_equal(b.asnumpy(), 2 * a.asnumpy())

    def test_rollover_and_generic_datasets(self):
        ds = gluon.data.SimpleDataset([(nd.array([i]), nd.array([10 * i])) for i in range(5)])
        loader = gluon.data.DataLoader(ds, batch_size=2, last_batch="rollover")
        self.assertEqual([b[0].asnumpy().ravel().tolist() for b in loader], [[0, 1], [2, 3]])
        # The left-over sample leads the next epoch: 6 samples, 3 batches.
        self.assertEqual([b[0].asnumpy().ravel().tolist() for b in loader], [[4, 0], [1, 2], [3, 4]])
        doubled = gluon.data.ArrayDataset(nd.arange(4)).transform(lambda v: v * 2)
        self.assertEqual(doubled[3].asnumpy().tolist(), [6.0])
        with self.assertRaises(ValueError):
            gluon.data.DataLoader(ds, batch_size=0)
        with self.assertRaises(ValueError):
            gluon.data.ArrayDataset(nd.ones(3), nd.ones(4))


if __name__ == "__main__":
    unittest.main()
