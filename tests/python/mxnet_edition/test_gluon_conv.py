"""Gluon's convolution, pooling and batch normalisation (gluon/nn.py:
Conv2D, MaxPool2D, AvgPool2D, GlobalAvgPool2D, GlobalMaxPool2D, BatchNorm)
on nd and np arrays: values against a NumPy loop of the definition,
gradients against the real PyTorch, deferred shapes, MXNet's running
statistics, the current edition's LeNet, training, saving and refusals."""

import os
import tempfile
import unittest

import numpy as onp

from asyncscope import autograd, gluon, init, nd, np, npx
from asyncscope.gluon import nn

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = onp.random.default_rng(8)
X = RNG.normal(size=(2, 4, 9, 8)).astype(onp.float32)


def conv_reference(x, w, b, stride, pad, dilation, groups):
    """The convolution by its definition, in float64."""
    x = onp.pad(x.astype(onp.float64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = onp.zeros((n, o, ho, wo))
    per = o // groups
    for f in range(o):
        g = f // per
        for i in range(ho):
            for j in range(wo):
                r, s = i * stride[0], j * stride[1]
                patch = x[:, g * cg:(g + 1) * cg, r:r + dilation[0] * (kh - 1) + 1:dilation[0],
                          s:s + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, f, i, j] = (patch * w[f]).sum(axis=(1, 2, 3)) + (b[f] if b is not None else 0)
    return out


class Conv(unittest.TestCase):
    def test_values_against_the_definition_on_nd_and_np(self):
        configs = [dict(), dict(strides=2), dict(padding=1), dict(strides=(2, 1), padding=(2, 1), dilation=(1, 2)),
                   dict(groups=2, padding=1), dict(use_bias=False)]
        for config in configs:
            for flavour in (nd, np):
                with self.subTest(config=config, flavour=flavour.__name__), _edition(flavour):
                    conv = nn.Conv2D(6, kernel_size=(3, 2), **config)
                    conv.initialize(init.Normal(0.5))
                    y = conv(flavour.array(X))
                    self.assertIsInstance(y, type(flavour.array(X)))
                    w = conv.weight.data().asnumpy()
                    b = conv.bias.data().asnumpy() if config.get("use_bias", True) else None
                    want = conv_reference(X, w, b, _pair(config.get("strides", 1)), _pair(config.get("padding", 0)),
                                          _pair(config.get("dilation", 1)), config.get("groups", 1))
                    onp.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)

    def test_one_dimensional_layers(self):
        seq = X.reshape(2, 4, 72)
        for flavour in (nd, np):
            with self.subTest(flavour=flavour.__name__), _edition(flavour):
                conv = nn.Conv1D(6, kernel_size=3, strides=2, padding=1, groups=2)
                conv.initialize(init.Normal(0.5))
                y = conv(flavour.array(seq))
                self.assertEqual(conv.weight.shape, (6, 2, 3))  # MXNet's (channels, in / groups, k)
                w = conv.weight.data().asnumpy()[:, :, None, :]
                want = conv_reference(seq[:, :, None, :], w, conv.bias.data().asnumpy(), (1, 2), (0, 1), (1, 1), 2)
                onp.testing.assert_allclose(y.asnumpy(), want[:, :, 0], rtol=1e-4, atol=1e-4)
                self.assertEqual(repr(conv), "Conv1D(4 -> 6, kernel_size=(3,), stride=(2,), padding=(1,))")
                pooled = nn.MaxPool1D(3, 2, 1)(flavour.array(seq)).asnumpy()
                padded = onp.pad(seq, ((0, 0), (0, 0), (1, 1)), constant_values=-onp.inf)
                onp.testing.assert_array_equal(pooled, onp.stack([padded[..., i:i + 3].max(axis=2)
                                                                  for i in range(0, 72, 2)], axis=2))
                onp.testing.assert_allclose(nn.AvgPool1D(4)(flavour.array(seq)).asnumpy(),
                                            seq.reshape(2, 4, 18, 4).mean(axis=3), rtol=1e-5, atol=1e-7)
                onp.testing.assert_array_equal(nn.GlobalMaxPool1D()(flavour.array(seq)).asnumpy(),
                                               seq.max(axis=2, keepdims=True))
                onp.testing.assert_allclose(nn.GlobalAvgPool1D()(flavour.array(seq)).asnumpy(),
                                            seq.mean(axis=2, keepdims=True), rtol=1e-5, atol=1e-7)

    def test_the_weight_shape_comes_from_the_first_batch_and_biases_start_at_zero(self):
        conv = nn.Conv2D(5, 3, in_channels=0, activation="relu")
        conv.initialize()
        self.assertEqual(conv.weight.shape, (5, 0, 3, 3))
        conv(nd.array(X))
        self.assertEqual(conv.weight.shape, (5, 4, 3, 3))
        self.assertLessEqual(float(onp.abs(conv.weight.data().asnumpy()).max()), 0.07)
        onp.testing.assert_array_equal(conv.bias.data().asnumpy(), onp.zeros(5))
        self.assertIn("4 -> 5", repr(conv))
        # Xavier over a convolution's fans: in * kh * kw and out * kh * kw, as MXNet's
        wide = nn.Conv2D(64, 5, in_channels=32)
        wide.initialize(init.Xavier())
        bound = onp.sqrt(3.0 / ((32 * 25 + 64 * 25) / 2))
        top = float(onp.abs(wide.weight.data().asnumpy()).max())
        self.assertTrue(0.9 * bound < top <= bound, (top, bound))

    @unittest.skipIf(real_torch is None, NO_TORCH)
    def test_gradients_match_pytorch(self):
        conv = nn.Conv2D(6, kernel_size=3, strides=2, padding=1, groups=2, in_channels=4)
        conv.initialize(init.Normal(0.5))
        head = RNG.normal(size=(2, 6, 5, 4)).astype(onp.float32)
        x = nd.array(X)
        x.attach_grad()
        with autograd.record():
            y = conv(x)
        y.backward(nd.array(head))
        tx = real_torch.tensor(X, requires_grad=True)
        tw = real_torch.tensor(conv.weight.data().asnumpy(), requires_grad=True)
        tb = real_torch.tensor(conv.bias.data().asnumpy(), requires_grad=True)
        ty = real_torch.nn.functional.conv2d(tx, tw, tb, stride=2, padding=1, groups=2)
        ty.backward(real_torch.tensor(head))
        onp.testing.assert_allclose(y.asnumpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
        for ours, theirs in ((x.grad, tx.grad), (conv.weight.grad(), tw.grad), (conv.bias.grad(), tb.grad)):
            onp.testing.assert_allclose(ours.asnumpy(), theirs.numpy(), rtol=1e-4, atol=1e-4)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


class _edition:
    """npx.set_np() for the np flavour (its parameters are then np arrays, as
    the current edition runs them), undone after."""

    def __init__(self, flavour):
        self.np = flavour is np

    def __enter__(self):
        if self.np:
            npx.set_np()

    def __exit__(self, *exc):
        if self.np:
            npx.reset_np()


@unittest.skipIf(real_torch is None, NO_TORCH)
class Pooling(unittest.TestCase):
    def test_values_and_gradients_match_pytorchs_pooling(self):
        F = real_torch.nn.functional
        cases = [
            (nn.MaxPool2D(), lambda x: F.max_pool2d(x, 2)),
            (nn.MaxPool2D(3, 2, 1), lambda x: F.max_pool2d(x, 3, 2, 1)),
            (nn.MaxPool2D(3, 2, ceil_mode=True), lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True)),
            (nn.AvgPool2D(pool_size=2, strides=2), lambda x: F.avg_pool2d(x, 2, 2)),
            (nn.AvgPool2D(3, 2, 1), lambda x: F.avg_pool2d(x, 3, 2, 1)),
            (nn.AvgPool2D(3, 2, 1, count_include_pad=False), lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
            (nn.AvgPool2D(3, 2, 1, ceil_mode=True), lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)),
            (nn.GlobalAvgPool2D(), lambda x: F.adaptive_avg_pool2d(x, 1)),
        ]
        for block, theirs in cases:
            for flavour in (nd, np):
                with self.subTest(block=repr(block), flavour=flavour.__name__), _edition(flavour):
                    x = flavour.array(X)
                    x.attach_grad()
                    with autograd.record():
                        y = block(x * (x > 0))  # relu's zeros: ties, the first one gets the gradient
                    y.backward()
                    tx = real_torch.tensor(X, requires_grad=True)
                    ty = theirs(real_torch.relu(tx))
                    ty.sum().backward()
                    onp.testing.assert_allclose(y.asnumpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
                    onp.testing.assert_allclose(x.grad.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
        onp.testing.assert_array_equal(nn.GlobalMaxPool2D()(nd.array(X)).asnumpy(), X.max(axis=(2, 3), keepdims=True))


class BatchNormalisation(unittest.TestCase):
    def test_training_normalises_and_moves_the_running_statistics_as_mxnet(self):
        bn = nn.BatchNorm(momentum=0.8)
        bn.initialize()
        data = X * 3 + 1
        with autograd.record():
            y = bn(nd.array(data))
        mean = data.mean(axis=(0, 2, 3))
        var = data.var(axis=(0, 2, 3))
        want = (data - mean.reshape(1, -1, 1, 1)) / onp.sqrt(var.reshape(1, -1, 1, 1) + 1e-5)
        onp.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)
        onp.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0.2 * mean, rtol=1e-5, atol=1e-6)
        onp.testing.assert_allclose(bn.running_var.data().asnumpy(), 0.8 + 0.2 * var, rtol=1e-5)
        # outside training: the running statistics
        y = bn(nd.array(data))
        rm, rv = bn.running_mean.data().asnumpy(), bn.running_var.data().asnumpy()
        onp.testing.assert_allclose(y.asnumpy(), (data - rm.reshape(1, -1, 1, 1)) / onp.sqrt(rv.reshape(1, -1, 1, 1) + 1e-5),
                                    rtol=1e-4, atol=1e-4)
        self.assertEqual(bn.gamma.shape, (4,))
        self.assertNotIn("running", " ".join(k for k, p in bn.collect_params().items() if p.grad is None))

    def test_gradients_flow_through_the_batch_statistics(self):
        bn = nn.BatchNorm(in_channels=4)
        bn.initialize()
        x = nd.array(X)
        x.attach_grad()
        with autograd.record():
            y = (bn(x) * nd.array(onp.arange(8, dtype=onp.float32))).sum()
        y.backward()
        # d/dx of a normalised batch: zero mean over each channel's elements
        onp.testing.assert_allclose(x.grad.asnumpy().sum(axis=(0, 2, 3)), onp.zeros(4), atol=1e-3)
        self.assertGreater(float(onp.abs(bn.gamma.grad().asnumpy()).sum()), 0)


def lenet():
    """The LeNet of the current edition's CNN chapter, as it writes it."""
    net = nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, padding=2, activation="sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=5, activation="sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="sigmoid"), nn.Dense(84, activation="sigmoid"), nn.Dense(10))
    return net


class LeNet(unittest.TestCase):
    def test_the_current_editions_lenet_walks_its_shapes_and_learns(self):
        npx.set_np()
        try:
            net = lenet()
            net.initialize(init=init.Xavier())
            x = np.random.uniform(size=(1, 1, 28, 28))
            shapes = []
            for layer in net:
                x = layer(x)
                shapes.append(x.shape)
            self.assertEqual(shapes, [(1, 6, 28, 28), (1, 6, 14, 14), (1, 16, 10, 10), (1, 16, 5, 5), (1, 120),
                                      (1, 84), (1, 10)])
            images = np.array(RNG.normal(size=(16, 1, 28, 28)).astype(onp.float32))
            labels = np.array(RNG.integers(0, 10, 16).astype(onp.float32))
            loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
            trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
            losses = []
            for _ in range(15):
                with autograd.record():
                    loss = loss_fn(net(images), labels)
                loss.backward()
                trainer.step(16)
                losses.append(float(loss.mean()))
            self.assertLess(losses[-1], 0.85 * losses[0], losses)
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "lenet.params")
                net.save_parameters(path)
                again = lenet()
                again.load_parameters(path)
            onp.testing.assert_allclose(again(images).asnumpy(), net(images).asnumpy(), rtol=1e-5, atol=1e-6)
        finally:
            npx.reset_np()


class Refusals(unittest.TestCase):
    def test_clear_errors(self):
        conv = nn.Conv2D(4, 3, in_channels=3)
        conv.initialize()
        with self.assertRaisesRegex(ValueError, "4 channels, the layer was built for 3"):
            conv(nd.array(X))
        with self.assertRaisesRegex(ValueError, "batch, channels, height, width"):
            conv(nd.array(X[0]))
        with self.assertRaisesRegex(ValueError, "NHWC"):
            nn.Conv2D(4, 3, layout="NHWC")
        with self.assertRaisesRegex(ValueError, "unknown activation 'gelu'"):
            nn.Conv2D(4, 3, activation="gelu")
        with self.assertRaisesRegex(RuntimeError, "Output size is too small"):
            nn.MaxPool2D(10)(nd.array(X))
        with self.assertRaisesRegex(ValueError, "do not split into 3 groups"):
            bad = nn.Conv2D(3, 3, groups=3)
            bad.initialize()
            bad(nd.array(X))


if __name__ == "__main__":
    unittest.main()
