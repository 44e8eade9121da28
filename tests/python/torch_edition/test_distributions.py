"""torch.distributions beside the real PyTorch: Multinomial (the book's
coin tosses), Categorical, Normal and Bernoulli draw PyTorch's samples after
torch.manual_seed and give its log_prob, entropy, mean, variance and
shapes; torch.finfo / iinfo print as PyTorch's."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from against_pytorch import HAS_TORCH, assert_prints_the_same  # noqa: E402

PROGRAM = """
import torch
from torch.distributions.multinomial import Multinomial
from torch.distributions import Categorical, Normal, Bernoulli
torch.manual_seed(0)
fair_probs = torch.tensor([0.5, 0.5])
print(Multinomial(100, fair_probs).sample())
print(Multinomial(100, fair_probs).sample() / 100)
counts = Multinomial(1, fair_probs).sample((10000,))
cum = counts.cumsum(dim=0)
print(counts.shape, (cum / cum.sum(dim=1, keepdims=True))[-1])
m = Multinomial(10, torch.tensor([0.2, 0.3, 0.5]))
x = m.sample((2,))
print(x, m.log_prob(x), m.mean, m.variance, m.batch_shape, m.event_shape)
c = Categorical(torch.tensor([[0.1, 0.9], [0.5, 0.5]]))
s = c.sample((3,))
print(s, c.log_prob(s), c.entropy(), c.batch_shape)
c2 = Categorical(logits=torch.tensor([1.0, 2.0, 3.0]))
print(c2.probs, c2.sample((4,)))
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n.sample((2,)), n.log_prob(torch.tensor([0.5, 0.5])), n.entropy(), n.cdf(torch.tensor([0.0, 1.0])), n.mean, n.stddev)
b = Bernoulli(torch.tensor([0.3, 0.9]))
print(b.sample((3,)), b.log_prob(torch.tensor([1.0, 0.0])), b.entropy(), b.mean)
print(Normal(0.0, 1.0).sample(), Bernoulli(0.5).sample())
print(torch.finfo(torch.float32), torch.finfo(), torch.finfo(torch.float64).eps, torch.iinfo(torch.int64))
print(torch.iinfo(torch.uint8).max, torch.finfo(torch.float32).tiny, torch.finfo(torch.float32).bits)
big = Normal(torch.zeros(40), torch.ones(40)).sample()
print(big.shape, float(big.abs().max()) < 6)
"""


@unittest.skipUnless(HAS_TORCH, "the real PyTorch is not installed (apt-get install python3-torch)")
class Distributions(unittest.TestCase):
    def test_samples_and_densities_as_the_real_pytorch(self):
        assert_prints_the_same(self, PROGRAM)


if __name__ == "__main__":
    unittest.main()
