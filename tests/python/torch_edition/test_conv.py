"""The PyTorch edition's convolution, pooling and batch normalisation
(nn.functional conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d,
batch_norm; nn.Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d,
BatchNorm1d / 2d) against the real PyTorch: outputs and input gradients
for strides, padding (numbers, 'same'), dilation, groups and ceil_mode;
running statistics; a LeNet trained three steps from the same weights;
the same exception class where PyTorch refuses."""

import unittest

import numpy as onp

from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = onp.random.default_rng(4)
X = RNG.normal(size=(2, 3, 9, 8)).astype(onp.float32)
W = RNG.normal(size=(4, 3, 3, 2)).astype(onp.float32)
BIAS = RNG.normal(size=4).astype(onp.float32)
W_GROUPS = RNG.normal(size=(6, 1, 3, 3)).astype(onp.float32)

# name -> f(T, x): the same code on either module.
CASES = {
    "conv2d": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W), T.tensor(BIAS)),
    "conv2d stride 2": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W), T.tensor(BIAS), stride=2),
    "conv2d padding 1": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W), padding=1),
    "conv2d padding dilation": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W), T.tensor(BIAS), padding=(2, 1),
                                                                   dilation=2),
    "conv2d same": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W[:, :, :, :1].copy()), padding="same"),
    "conv2d uneven stride": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W), stride=(2, 3), padding=1),
    "conv2d groups": lambda T, x: T.nn.functional.conv2d(x, T.tensor(W_GROUPS), groups=3, padding=1),
    "conv2d unbatched": lambda T, x: T.nn.functional.conv2d(x[0], T.tensor(W), T.tensor(BIAS)),
    "max_pool2d": lambda T, x: T.nn.functional.max_pool2d(T.relu(x), 2),  # ties at 0: the first gets the gradient
    "max_pool2d padding": lambda T, x: T.nn.functional.max_pool2d(x, 3, stride=2, padding=1),
    "max_pool2d ceil_mode": lambda T, x: T.nn.functional.max_pool2d(x, 3, stride=2, ceil_mode=True),
    "max_pool2d dilation": lambda T, x: T.nn.functional.max_pool2d(x, (2, 3), stride=1, dilation=2),
    "avg_pool2d": lambda T, x: T.nn.functional.avg_pool2d(x, 2),
    "avg_pool2d padding": lambda T, x: T.nn.functional.avg_pool2d(x, 3, stride=2, padding=1),
    "avg_pool2d without the padding": lambda T, x: T.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg_pool2d ceil_mode": lambda T, x: T.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
    "avg_pool2d divisor": lambda T, x: T.nn.functional.avg_pool2d(x, 2, divisor_override=3),
    "adaptive_avg_pool2d 1": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 1),
    "adaptive_avg_pool2d uneven": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (4, 3)),
    "modules": lambda T, x: T.nn.Sequential(T.nn.MaxPool2d(3, 1), T.nn.AvgPool2d(2, padding=1),
                                            T.nn.AdaptiveAvgPool2d((2, 2)))(x),
    "batch_norm eval": lambda T, x: T.nn.functional.batch_norm(x, T.tensor([0.5, -1.0, 0.0]), T.tensor([2.0, 1.0, 0.5]),
                                                               T.tensor([1.5, 1.0, -1.0]), T.tensor([0.0, 1.0, 2.0])),
    "batch_norm training": lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True),
    # 1-D: a (N, C, L) view of the same values
    "conv1d": lambda T, x: T.nn.functional.conv1d(x.reshape(2, 3, 72), T.tensor(W[:, :, 0].copy()), T.tensor(BIAS),
                                                  stride=2, padding=1),
    "conv1d same dilation groups": lambda T, x: T.nn.functional.conv1d(x.reshape(2, 3, 72), T.tensor(W_GROUPS[:, :, 0]),
                                                                       padding="same", dilation=2, groups=3),
    "max_pool1d": lambda T, x: T.nn.functional.max_pool1d(x.reshape(2, 3, 72), 3, stride=2, padding=1),
    "avg_pool1d": lambda T, x: T.nn.functional.avg_pool1d(x.reshape(2, 3, 72), 4, ceil_mode=True),
    "adaptive pools 1d": lambda T, x: T.cat([T.nn.functional.adaptive_avg_pool1d(x.reshape(2, 3, 72), 5),
                                             T.nn.functional.adaptive_max_pool1d(x.reshape(2, 3, 72), 5)], dim=2),
    "1d modules": lambda T, x: T.nn.Sequential(T.nn.MaxPool1d(2), T.nn.AvgPool1d(3, 1, 1), T.nn.AdaptiveMaxPool1d(1))(
        x.reshape(6, 72)),
}


def as_numpy(x):
    return x.detach().numpy()


@unittest.skipIf(real_torch is None, NO_TORCH)
class AgainstPyTorch(unittest.TestCase):
    def close(self, ours, theirs, what):
        self.assertEqual(tuple(ours.shape), tuple(theirs.shape), what)
        onp.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=1e-4, atol=1e-5, err_msg=what)

    def test_outputs_and_input_gradients(self):
        head = {}
        for name, f in CASES.items():
            with self.subTest(name):
                results = []
                for T in (atorch, real_torch):
                    x = T.tensor(X, requires_grad=True)
                    y = f(T, x)
                    if name not in head:
                        head[name] = RNG.normal(size=tuple(y.shape)).astype(onp.float32)
                    (y * T.tensor(head[name])).sum().backward()
                    results.append((y, x.grad))
                (yo, go), (yt, gt) = results
                self.close(yo, yt, name)
                self.close(go, gt, name + " (gradient)")

    def test_conv2d_module_initialisation_and_repr(self):
        conv = atorch.nn.Conv2d(3, 8, 5, stride=2, padding=2, bias=True)
        self.assertEqual(tuple(conv.weight.shape), (8, 3, 5, 5))
        bound = 1 / onp.sqrt(3 * 25)
        self.assertLessEqual(float(conv.weight.abs().max()), bound)
        self.assertGreater(float(conv.weight.abs().max()), bound * 0.9)
        self.assertEqual(repr(conv), repr(real_torch.nn.Conv2d(3, 8, 5, stride=2, padding=2)))
        self.assertEqual(repr(atorch.nn.BatchNorm2d(4)), repr(real_torch.nn.BatchNorm2d(4)))
        self.assertEqual(tuple(conv(atorch.ones(1, 3, 16, 16)).shape), (1, 8, 8, 8))
        for make in (lambda nn: nn.Conv1d(3, 6, 3, stride=2, padding=1), lambda nn: nn.Conv1d(4, 8, 5, groups=2,
                                                                                               padding="same"),
                     lambda nn: nn.MaxPool1d(3, 2), lambda nn: nn.AvgPool1d(2), lambda nn: nn.AdaptiveAvgPool1d(4)):
            self.assertEqual(repr(make(atorch.nn)), repr(make(real_torch.nn)))
        one = atorch.nn.Conv1d(4, 8, 5, groups=2)
        self.assertEqual(tuple(one.weight.shape), (8, 2, 5))
        self.assertEqual(sorted(one.state_dict()), sorted(real_torch.nn.Conv1d(4, 8, 5, groups=2).state_dict()))

    def test_batch_norm_running_statistics_and_modes(self):
        for ours, theirs, shape in ((atorch.nn.BatchNorm2d(3), real_torch.nn.BatchNorm2d(3), X.shape),
                                    (atorch.nn.BatchNorm1d(3), real_torch.nn.BatchNorm1d(3), (5, 3)),
                                    (atorch.nn.BatchNorm1d(3, momentum=0.3), real_torch.nn.BatchNorm1d(3, momentum=0.3),
                                     (4, 3, 6))):
            data = RNG.normal(size=shape).astype(onp.float32) * 3 + 1
            for step in range(3):
                self.close(ours(atorch.tensor(data + step)), theirs(real_torch.tensor(data + step)), "train %s" % (shape,))
            self.close(ours.running_mean, theirs.running_mean, "running_mean")
            self.close(ours.running_var, theirs.running_var, "running_var")
            self.assertEqual(int(ours.num_batches_tracked), 3)
            self.assertEqual(sorted(ours.state_dict()), sorted(theirs.state_dict()))
            ours.eval()
            theirs.eval()
            self.close(ours(atorch.tensor(data)), theirs(real_torch.tensor(data)), "eval %s" % (shape,))

    def test_a_lenet_trains_as_pytorchs(self):
        def lenet(nn):
            return nn.Sequential(nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, stride=2),
                                 nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2, 2),
                                 nn.Flatten(), nn.Linear(16 * 5 * 5, 10))
        theirs = lenet(real_torch.nn)
        ours = lenet(atorch.nn)
        ours.load_state_dict({k: atorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
        images = RNG.normal(size=(8, 1, 28, 28)).astype(onp.float32)
        labels = RNG.integers(0, 10, size=8)
        losses = []
        for T, net in ((atorch, ours), (real_torch, theirs)):
            opt = T.optim.SGD(net.parameters(), lr=0.1)
            run = []
            for _ in range(3):
                opt.zero_grad()
                loss = T.nn.functional.cross_entropy(net(T.tensor(images)), T.tensor(labels))
                loss.backward()
                opt.step()
                run.append(float(loss))
            losses.append(run)
        onp.testing.assert_allclose(losses[0], losses[1], rtol=1e-4)
        self.close(ours[0].weight, theirs[0].weight, "first conv after 3 steps")

    def test_refusals_are_pytorchs(self):
        calls = [
            lambda T: T.nn.functional.conv2d(T.tensor(X), T.tensor(W[:, :2].copy())),
            lambda T: T.nn.functional.conv2d(T.tensor(X[:, :, :2, :2].copy()), T.tensor(W)),
            lambda T: T.nn.functional.conv2d(T.tensor(X[0, 0]), T.tensor(W)),
            lambda T: T.nn.functional.max_pool2d(T.tensor(X), 3, padding=2),
            lambda T: T.nn.BatchNorm2d(3)(T.tensor(X[0])),
            lambda T: T.nn.BatchNorm1d(3)(T.ones(1, 3)),
        ]
        for i, call in enumerate(calls):
            with self.assertRaises(Exception) as theirs:
                call(real_torch)
            with self.assertRaises(type(theirs.exception), msg="call %d" % i):
                call(atorch)


if __name__ == "__main__":
    unittest.main()
