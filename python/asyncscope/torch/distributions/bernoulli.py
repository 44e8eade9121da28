"""Bernoulli: 1 with probability probs (or sigmoid(logits)), else 0.

Threading: the frontend thread.
"""

import numbers as _numbers

from ... import torch as _torch
from .distribution import Distribution


class Bernoulli(Distribution):
    """Samples 0. or 1. (the probabilities' type), drawn as torch.bernoulli draws them."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        # The form given is kept; the other is made when first read (as PyTorch's lazy_property).
        if probs is not None:
            self.probs = _torch.tensor(float(probs)) if isinstance(probs, _numbers.Number) else probs
        else:
            self.logits = _torch.tensor(float(logits)) if isinstance(logits, _numbers.Number) else logits
        super().__init__(tuple((self.probs if probs is not None else self.logits).shape), (), validate_args)

    def __getattr__(self, name):  # only for what __init__ did not set
        if name == "logits" and "probs" in self.__dict__:
            eps = _torch.finfo(self.probs.dtype).eps
            clamped = self.probs.clamp(min=eps, max=1 - eps)
            self.logits = _torch.log(clamped) - _torch.log1p(-clamped)
            return self.logits
        if name == "probs" and "logits" in self.__dict__:
            self.probs = _torch.sigmoid(self.logits)
            return self.probs
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with _torch.no_grad():
            return _torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        logits, value = _torch.broadcast_tensors(self.logits, value)
        return -_torch.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return _torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def __repr__(self):
        return "Bernoulli(probs: %s)" % (self.probs.shape if self.probs.dim() else self.probs,)
