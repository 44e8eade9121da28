"""The PyTorch edition's further layers, functions, optimizers and learning
rate schedulers against the real PyTorch: activations, layer_norm,
embedding, one_hot, normalize, pad and the losses on the same inputs; a few
optimizer steps from the same start on the same loss; the rates a scheduler
sets, epoch by epoch."""

import math
import unittest

import numpy as onp

from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

rng = onp.random.default_rng(9)
X = (rng.normal(size=(4, 6)) * 3).astype(onp.float32)
P = rng.uniform(0.01, 0.99, size=(4, 6)).astype(onp.float32)
Y = (rng.uniform(size=(4, 6)) > 0.5).astype(onp.float32)  # 0/1 targets
W = rng.normal(size=(10, 3)).astype(onp.float32)
IDX = onp.array([[1, 9, 0], [4, 4, 2]], dtype=onp.int64)
LABELS = onp.array([0, 3, 1, 3], dtype=onp.int64)

# name -> f(T, t, F): the same code on either torch; t makes a tensor from NumPy; F is nn.functional.
CASES = {
    "leaky_relu": lambda T, t, F: F.leaky_relu(t(X), 0.2),
    "elu": lambda T, t, F: F.elu(t(X), alpha=0.5),
    "silu": lambda T, t, F: F.silu(t(X)),
    "softplus": lambda T, t, F: F.softplus(t(X) * 10, beta=2.0, threshold=15.0),
    "gelu": lambda T, t, F: F.gelu(t(X)),
    "gelu tanh": lambda T, t, F: F.gelu(t(X), approximate="tanh"),
    "modules": lambda T, t, F: T.stack([T.nn.LeakyReLU()(t(X)), T.nn.ELU()(t(X)), T.nn.SiLU()(t(X)),
                                        T.nn.Softplus()(t(X)), T.nn.GELU()(t(X))]),
    "layer_norm": lambda T, t, F: F.layer_norm(t(X), (6,), t(P[0]), t(X[1])),
    "layer_norm two dims": lambda T, t, F: F.layer_norm(t(X).reshape(2, 2, 6), (2, 6), eps=1e-3),
    "LayerNorm": lambda T, t, F: T.nn.LayerNorm(6)(t(X)),
    "embedding": lambda T, t, F: F.embedding(t(IDX), t(W)),
    "one_hot": lambda T, t, F: F.one_hot(t(LABELS), 5),
    "one_hot inferred": lambda T, t, F: F.one_hot(t(LABELS)),
    "normalize": lambda T, t, F: F.normalize(t(X)),
    "normalize p1 dim0": lambda T, t, F: F.normalize(t(X), p=1.0, dim=0),
    "pad": lambda T, t, F: F.pad(t(X), (1, 2)),
    "pad two dims": lambda T, t, F: F.pad(t(X), (0, 1, 2, 0), value=-1.0),
    "binary_cross_entropy": lambda T, t, F: F.binary_cross_entropy(t(P), t(Y)),
    "binary_cross_entropy of 0 and 1": lambda T, t, F: F.binary_cross_entropy(t(Y), 1 - t(Y), reduction="sum"),
    "huber": lambda T, t, F: F.huber_loss(t(X), t(X) * 0.5, delta=0.7),
    "smooth_l1": lambda T, t, F: F.smooth_l1_loss(t(X), t(X) * 0.5, reduction="none", beta=0.5),
    "losses as modules": lambda T, t, F: T.stack([T.nn.BCELoss()(t(P), t(Y)), T.nn.HuberLoss()(t(X), t(P)),
                                                  T.nn.SmoothL1Loss()(t(X), t(P)),
                                                  T.nn.NLLLoss()(F.log_softmax(t(X), 1), t(LABELS))]),
    "Unflatten": lambda T, t, F: T.nn.Unflatten(1, (2, 3))(t(X)),
}


def steps(T, make, n=5):
    """The parameters after n steps of make(params) on sum((w - 1)^2 * scale)."""
    w = T.tensor(X.copy(), requires_grad=True)
    opt = make([w])
    for _ in range(n):
        opt.zero_grad()
        loss = (((w - 1) ** 2) * T.tensor(P)).sum()
        loss.backward()
        opt.step()
    return w.detach().numpy()


OPTIMIZERS = {
    "AdamW": lambda T: lambda ps: T.optim.AdamW(ps, lr=0.1, weight_decay=0.1),
    "RMSprop": lambda T: lambda ps: T.optim.RMSprop(ps, lr=0.01),
    "RMSprop momentum centered": lambda T: lambda ps: T.optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True,
                                                                     weight_decay=0.01),
    "Adagrad": lambda T: lambda ps: T.optim.Adagrad(ps, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1),
}

SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[2, 5], gamma=0.1),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=6, eta_min=0.01),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda epoch: 1 / (epoch + 1)),
}


@unittest.skipIf(real_torch is None, NO_TORCH)
class AgainstPyTorch(unittest.TestCase):
    def test_functions_and_modules(self):
        for name, f in CASES.items():
            with self.subTest(name):
                ours = f(atorch, atorch.tensor, atorch.nn.functional)
                theirs = f(real_torch, real_torch.tensor, real_torch.nn.functional)
                self.assertEqual(tuple(ours.shape), tuple(theirs.shape))
                self.assertEqual(repr(ours.dtype), repr(theirs.dtype))
                onp.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=2e-5, atol=2e-6)

    def test_optimizers_take_the_same_steps(self):
        for name, make in OPTIMIZERS.items():
            with self.subTest(name):
                onp.testing.assert_allclose(steps(atorch, make(atorch)), steps(real_torch, make(real_torch)),
                                            rtol=1e-5, atol=1e-6)

    def test_schedulers_set_the_same_rates(self):
        for name, make in SCHEDULERS.items():
            with self.subTest(name):
                rates = []
                for T in (atorch, real_torch):
                    opt = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=0.5)
                    sched = make(T.optim.lr_scheduler, opt)
                    seen = []
                    for _ in range(8):
                        opt.step()
                        sched.step()
                        seen.append(sched.get_last_lr()[0])
                    rates.append(seen)
                onp.testing.assert_allclose(rates[0], rates[1], rtol=1e-9)

    def test_embedding_learns_the_rows_it_looked_up(self):
        grads = []
        for T in (atorch, real_torch):
            table = T.nn.Embedding(10, 3)
            with T.no_grad():
                table.weight.copy_(T.tensor(W))
            table(T.tensor(IDX)).sum().backward()
            grads.append(table.weight.grad.numpy())
        onp.testing.assert_array_equal(grads[0], grads[1])


class OnTheirOwn(unittest.TestCase):
    def test_gelu_is_within_float32_of_the_erf_formula(self):
        x = onp.linspace(-6, 6, 241).astype(onp.float32)
        ours = atorch.nn.functional.gelu(atorch.tensor(x)).numpy()
        exact = onp.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(onp.float64)])
        self.assertLess(onp.abs(ours - exact).max(), 2e-6)

    def test_refusals_say_why(self):
        F = atorch.nn.functional
        with self.assertRaisesRegex(RuntimeError, "expected input with shape"):
            F.layer_norm(atorch.ones(2, 5), (6,))
        with self.assertRaisesRegex(RuntimeError, "index tensor"):
            F.one_hot(atorch.ones(3))
        with self.assertRaisesRegex(RuntimeError, "approximate"):
            F.gelu(atorch.ones(2), approximate="erf")
        with self.assertRaises(TypeError):
            atorch.optim.lr_scheduler.StepLR(object(), 2)

    def test_a_module_dict_registers_its_modules(self):
        nn = atorch.nn
        d = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.ReLU()})
        d["c"] = nn.Linear(3, 1)
        self.assertEqual(list(d.keys()), ["a", "b", "c"])
        self.assertEqual(len(list(d.parameters())), 4)
        self.assertIn("b", d)


if __name__ == "__main__":
    unittest.main()
