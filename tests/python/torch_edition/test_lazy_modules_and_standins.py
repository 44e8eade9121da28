"""The PyTorch edition's lazy modules and the submodules programs import
without computing with them, beside the real PyTorch: LazyLinear,
LazyConv1d/2d and LazyBatchNorm1d/2d read their size from the first input
and become their concrete class (so `type(m) == nn.Linear` initializes
them, as d2l's init functions do), keep initializations made before, load
a state into themselves; torch.jit.script/trace give the model back to run
eagerly, warning once; torch.onnx, torch.hub and torch.backends import and
say what is not here."""

import unittest
import warnings

import numpy as np

from asyncscope import torch as atorch
from asyncscope.torch import nn as ann

try:
    import torch as real_torch
    from torch import nn as rnn
except ImportError:
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"


@unittest.skipIf(real_torch is None, NO_TORCH)
class LazyModules(unittest.TestCase):
    CASES = [("LazyLinear", (3,), (2, 5), "Linear"),
             ("LazyConv2d", (4, 3), (2, 3, 6, 6), "Conv2d"),
             ("LazyConv1d", (4, 3), (2, 3, 7), "Conv1d"),
             ("LazyBatchNorm1d", (), (4, 3), "BatchNorm1d"),
             ("LazyBatchNorm2d", (), (2, 3, 4, 4), "BatchNorm2d")]

    def test_each_becomes_its_concrete_class_with_the_real_ones_shapes(self):
        for lazy, args, shape, concrete in self.CASES:
            with self.subTest(lazy):
                ours, theirs = getattr(ann, lazy)(*args), getattr(rnn, lazy)(*args)
                x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
                y_ours, y_theirs = ours(atorch.tensor(x)), theirs(real_torch.tensor(x))
                self.assertEqual(tuple(y_ours.shape), tuple(y_theirs.shape))
                self.assertIs(type(ours), getattr(ann, concrete))
                self.assertIs(type(theirs), getattr(rnn, concrete))  # what the real one does
                self.assertEqual({k: tuple(v.shape) for k, v in ours.state_dict().items()},
                                 {k: tuple(v.shape) for k, v in theirs.state_dict().items()})

    def test_an_init_by_type_after_the_first_call_initializes_them(self):
        net = ann.Sequential(ann.LazyLinear(8), ann.ReLU(), ann.LazyLinear(1))
        net(atorch.ones(2, 4))
        touched = []

        def init(m):
            if type(m) == ann.Linear:
                ann.init.zeros_(m.weight)
                touched.append(m)
        net.apply(init)
        self.assertEqual(len(touched), 2)
        self.assertEqual(float(net[0].weight.abs().sum()), 0.0)

    def test_a_state_loads_into_a_lazy_model_and_it_stays_lazy_until_its_first_call(self):
        # As PyTorch 1.13's: the state gives the tensors at once, the module
        # prints as lazy (size 0) until its first call, which draws nothing
        # and becomes the concrete class with the size setting still 0.
        cases = self.CASES + [("LazyConv2d", (4, 3, 1, 1, 1, 2), (2, 6, 5, 5), "Conv2d"),
                              ("LazyBatchNorm1d", (1e-5, 0.1, False), (4, 3), "BatchNorm1d")]
        for lazy, args, shape, concrete in cases:
            with self.subTest(lazy=lazy, args=args):
                source = getattr(rnn, lazy)(*args)
                x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
                source(real_torch.tensor(x))
                state = source.state_dict()
                seen = []
                for nn_, torch_ in ((ann, atorch), (rnn, real_torch)):
                    m = getattr(nn_, lazy)(*args)
                    before = repr(m)
                    m.load_state_dict({k: torch_.tensor(v.numpy()) for k, v in state.items()})
                    loaded = (repr(m), type(m).__name__, sorted(m.state_dict()))
                    torch_.manual_seed(5)
                    y = m.eval()(torch_.tensor(x)).detach().numpy()
                    seen.append((before, loaded, type(m).__name__, repr(m), torch_.rand(3).numpy(), y))
                ours, theirs = seen
                self.assertEqual(ours[:4], theirs[:4])
                self.assertEqual(ours[2], concrete)
                np.testing.assert_array_equal(ours[4], theirs[4], "the first call drew nothing")
                np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-5, atol=1e-6)

    def test_a_lazy_linear_without_bias_has_none(self):
        m = ann.LazyLinear(3, bias=False)
        m(atorch.ones(1, 5))
        self.assertIsNone(m.bias)
        self.assertEqual(tuple(m.weight.shape), (3, 5))


class StandIns(unittest.TestCase):
    def test_jit_gives_the_model_back_and_warns_once(self):
        model = ann.Linear(2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertIs(atorch.jit.script(model), model)
            self.assertIs(atorch.jit.trace(model, atorch.ones(1, 2)), model)
            atorch.jit.script(model)
        eager = [w for w in caught if "eagerly" in str(w.message)]
        self.assertLessEqual(len(eager), 2, "once per function")
        self.assertIs(atorch.jit.ignore(len), len)
        with self.assertRaisesRegex(NotImplementedError, "state_dict"):
            atorch.jit.save(model, "m.pt")

    def test_what_downloads_or_exports_says_it_is_not_here(self):
        for call in (lambda: atorch.onnx.export(ann.Linear(1, 1), atorch.ones(1, 1), "m.onnx"),
                     lambda: atorch.hub.load("pytorch/vision", "resnet18"),
                     lambda: atorch.hub.load_state_dict_from_url("https://example.invalid/w.pth")):
            with self.assertRaisesRegex(NotImplementedError, "not in asyncscope's PyTorch edition"):
                call()

    def test_backend_switches_are_kept(self):
        atorch.backends.cudnn.benchmark = True
        self.assertTrue(atorch.backends.cudnn.benchmark)
        atorch.backends.cudnn.benchmark = False
        self.assertFalse(atorch.backends.mps.is_available())
        atorch.backends.cuda.matmul.allow_tf32 = True
        self.assertTrue(atorch.backends.cuda.matmul.allow_tf32)


if __name__ == "__main__":
    unittest.main()
