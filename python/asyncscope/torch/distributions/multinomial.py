"""Multinomial: counts of total_count draws from a Categorical.

Threading: the frontend thread.
"""

import math as _math

from ... import torch as _torch
from .categorical import Categorical
from .distribution import Distribution


class Multinomial(Distribution):
    """Counts per class (as the probabilities' type) of total_count draws;
    sample() draws total_count categorical samples, as PyTorch's does, so a
    seeded program gets PyTorch's counts."""

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        shape = tuple(self._categorical.probs.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        samples = self._categorical.sample((self.total_count,) + tuple(sample_shape))
        # (total_count, sample_shape, batch_shape) -> (sample_shape, batch_shape, total_count)
        order = list(range(samples.dim()))
        order.append(order.pop(0))
        samples = samples.permute(*order)
        counts = _torch.zeros(tuple(self._extended_shape(sample_shape)), dtype=_torch.int64)
        counts.scatter_add_(-1, samples, _torch.ones_like(samples))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        logits = self.logits.clamp(min=_torch.finfo(self.logits.dtype).min)
        log_factorial_n = _math.lgamma(self.total_count + 1)
        log_factorial_xs = _torch.tensor([_math.lgamma(float(v) + 1) for v in value.reshape(-1).tolist()],
                                         dtype=value.dtype).reshape(tuple(value.shape)).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def __repr__(self):
        return "Multinomial(probs: %s)" % (tuple(self.probs.shape),)
