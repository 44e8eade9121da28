"""torch.distributions in the PyTorch edition: Distribution, Categorical,
Multinomial, Normal and Bernoulli, with PyTorch's parameters, shapes and
samples (drawn from PyTorch's random stream by the edition's multinomial,
normal and bernoulli, so a seeded program draws PyTorch's numbers), and
log_prob / entropy / mean / variance made of the edition's ops.

Not here: the other families (Binomial, Poisson, Gamma, ...), transforms,
constraints and kl_divergence; their import fails by name.

Threading: the frontend thread, as every op of the edition.
"""

from .distribution import Distribution
from .categorical import Categorical
from .multinomial import Multinomial
from .normal import Normal
from .bernoulli import Bernoulli

__all__ = ["Distribution", "Categorical", "Multinomial", "Normal", "Bernoulli"]
