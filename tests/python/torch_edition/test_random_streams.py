"""The random functions after torch.manual_seed give the real PyTorch's
numbers: one program run under both (the real one and, through
`python3 -m asyncscope`, the edition), every draw compared: exactly for
uniform, integer, permutation and Bernoulli draws and whatever is made of
them (multinomial, dropout, the layers' initial parameters, a shuffling
DataLoader's order), to a few float32 ulps for normal samples. Also a seeded training
run prints the same losses, and the refusals match."""

import json
import sys
import unittest

import numpy as np

sys.path.insert(0, "../support")
from against_pytorch import HAS_TORCH, assert_prints_the_same, outputs_of_both  # noqa: E402

DRAWS = r'''
import json
import torch

out = {}
def keep(name, t):
    out[name] = [str(t.dtype), list(t.shape), t.reshape(-1).tolist()]

torch.manual_seed(7)
keep("rand", torch.rand(5, 3))
keep("rand64", torch.rand(4, dtype=torch.float64))
keep("normal1000", torch.randn(1000))
keep("normal35", torch.randn(5, 7))
keep("normal5_small", torch.randn(5))
keep("normal3_cached", torch.randn(3))
keep("normal64", torch.randn(40, dtype=torch.float64))
keep("normal_fn", torch.normal(2.0, 3.0, size=(20,)))
keep("randint", torch.randint(0, 10, (12,)))
keep("randint_high", torch.randint(5, (3, 4)))
keep("randint_named", torch.randint(high=7, size=(32,), dtype=torch.int64))
keep("randint_wide", torch.randint(-2**40, 2**40, (6,)))
keep("randint_float", torch.randint(3, 9, (5,), dtype=torch.float32))
keep("randperm", torch.randperm(17))
keep("randperm_big", torch.randperm(5000))
keep("uniform_", torch.empty(9).uniform_(-2, 3))
keep("uniform_irrational", torch.empty(50).uniform_(-0.123456789, 0.987654321))
keep("normal_", torch.empty(33).normal_(1, 0.5))
keep("bernoulli_", torch.empty(20).bernoulli_(0.3))
keep("bernoulli", torch.bernoulli(torch.full((10,), 0.5)))
keep("bernoulli64", torch.bernoulli(torch.full((10,), 0.25, dtype=torch.float64)))
keep("random_", torch.empty(6, dtype=torch.int64).random_())
keep("random_float", torch.empty(6).random_())
keep("random_to", torch.empty(6, dtype=torch.int64).random_(10))
keep("random_from_to", torch.empty(6, dtype=torch.int32).random_(-5, 5))
keep("exponential_", torch.empty(8).exponential_(2.0))
keep("rand_like", torch.rand_like(torch.zeros(3, 3, dtype=torch.float64)))
keep("normal_like", torch.randn_like(torch.zeros(20)))
weights = torch.rand(3, 7)
keep("multinomial_one", torch.multinomial(weights, 1))
keep("multinomial", torch.multinomial(weights, 4))
keep("multinomial_replacement", torch.multinomial(weights.double(), 9, replacement=True))
keep("multinomial_method", torch.tensor([0.1, 0.0, 0.5, 0.4]).multinomial(20, True))
g = torch.Generator().manual_seed(123)
keep("generator_randperm", torch.randperm(10, generator=g))
keep("generator_rand", torch.rand(4, generator=g))
keep("generator_multinomial", torch.multinomial(weights, 2, generator=g))
keep("default_untouched_by_generator", torch.rand(3))
keep("seeds", torch.tensor([torch.Generator().initial_seed(), torch.initial_seed()]))
keep("linear_weight", torch.nn.Linear(4, 3).weight.detach())
conv = torch.nn.Conv2d(2, 3, 3)
keep("conv_weight", conv.weight.detach())
keep("conv_bias", conv.bias.detach())
keep("lstm_weight", torch.nn.LSTM(3, 4).weight_hh_l0.detach())
w = torch.empty(5, 6)
keep("xavier_uniform_", torch.nn.init.xavier_uniform_(w))
keep("kaiming_uniform_", torch.nn.init.kaiming_uniform_(w, nonlinearity="relu"))
keep("normal_init", torch.nn.init.normal_(w, 0, 0.01))
torch.manual_seed(1)
keep("dropout", torch.nn.functional.dropout(torch.ones(4, 5), 0.4))
keep("Dropout", torch.nn.Dropout(0.5)(torch.ones(10)))
state = torch.get_rng_state()
a = torch.rand(3)
torch.set_rng_state(state)
keep("state_restored", torch.rand(3) - a)
torch.manual_seed(3)
data = torch.utils.data.TensorDataset(torch.arange(10))
keep("loader_shuffled", torch.cat([b[0] for b in torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)]))
keep("loader_in_order", torch.cat([b[0] for b in torch.utils.data.DataLoader(data, batch_size=4)]))
keep("after_loaders", torch.rand(2))
split = torch.utils.data.random_split(range(10), [3, 7])
keep("random_split", torch.tensor([i for part in split for i in part.indices]))
split = torch.utils.data.random_split(range(11), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))
keep("random_split_fractions", torch.tensor([len(part) for part in split] + [i for part in split for i in part.indices]))
print(json.dumps(out))
'''

# Normal samples: PyTorch's AVX2 kernel has its own log, sin and cos.
NORMAL = {"normal1000", "normal35", "normal_fn", "normal_", "normal_like", "normal_init"}

TRAINING = r'''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(96, 5)
y = x @ torch.randn(5, 1) + 0.1 * torch.randn(96, 1)
net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1))
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        loss = nn.functional.mse_loss(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print("epoch %d loss %.3f" % (epoch, total / len(loader)))
net.eval()
print("eval %.3f" % nn.functional.mse_loss(net(x), y).item())
'''

REFUSALS = r'''
import torch
for name, call in [
        ("rand of int64", lambda: torch.rand(3, dtype=torch.int64)),
        ("uniform_ reversed", lambda: torch.empty(3).uniform_(2, 1)),
        ("negative std", lambda: torch.empty(3).normal_(0, -1)),
        ("empty randint range", lambda: torch.randint(5, 5, (3,))),
        ("bernoulli_ p", lambda: torch.empty(3).bernoulli_(1.5)),
        ("generator of another kind", lambda: torch.rand(3, generator=object())),
        ("negative weight", lambda: torch.multinomial(torch.tensor([-1.0, 2.0]), 1).tolist()),
        ("zero weights", lambda: torch.multinomial(torch.zeros(3), 1).tolist()),
        ("more samples than categories", lambda: torch.multinomial(torch.ones(3), 4)),
]:
    try:
        call()
        print(name, "accepted")
    except (RuntimeError, TypeError, ValueError) as e:
        print(name, "refused")
'''


@unittest.skipUnless(HAS_TORCH, "needs the real PyTorch (Debian's python3-torch) to compare with")
class RandomStreams(unittest.TestCase):
    def test_every_draw_is_pytorchs(self):
        real, ours = (json.loads(text) for text in outputs_of_both(self, DRAWS))
        self.assertEqual(sorted(ours), sorted(real))
        for name, (dtype, shape, values) in real.items():
            with self.subTest(name):
                self.assertEqual(ours[name][:2], [dtype, shape])
                if name in NORMAL:
                    np.testing.assert_allclose(ours[name][2], values, rtol=1e-5, atol=1e-6)
                else:
                    self.assertEqual(ours[name][2], values)

    def test_a_seeded_training_run_prints_pytorchs_losses(self):
        assert_prints_the_same(self, TRAINING)

    def test_bad_arguments_are_refused_as_pytorch_refuses_them(self):
        assert_prints_the_same(self, REFUSALS)


if __name__ == "__main__":
    unittest.main()
