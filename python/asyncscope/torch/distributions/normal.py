"""Normal(loc, scale), with a reparameterized sample.

Threading: the frontend thread.
"""

import math as _math
import numbers as _numbers

from ... import torch as _torch
from .distribution import Distribution


def _as_tensor(v):
    return _torch.tensor(float(v)) if isinstance(v, _numbers.Number) else v


class Normal(Distribution):
    """loc + scale * N(0, 1), loc and scale broadcast to one batch shape."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _torch.broadcast_tensors(_as_tensor(loc), _as_tensor(scale))
        super().__init__(tuple(self.loc.shape), (), validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale ** 2

    @property
    def stddev(self):
        return self.scale

    def rsample(self, sample_shape=()):
        # PyTorch's draw: standard normal samples of the whole shape, scaled, then shifted.
        eps = _torch.randn(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _math.log(_math.sqrt(2 * _math.pi))

    def cdf(self, value):
        return 0.5 * (1 + _torch.erf((value - self.loc) / (self.scale * _math.sqrt(2))))

    def entropy(self):
        return 0.5 + 0.5 * _math.log(2 * _math.pi) + self.scale.log()

    def __repr__(self):
        return "Normal(loc: %s, scale: %s)" % (self.loc.shape if self.loc.dim() else self.loc,
                                               self.scale.shape if self.scale.dim() else self.scale)
