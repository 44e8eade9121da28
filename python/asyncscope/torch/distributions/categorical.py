"""Categorical: one of K classes by probabilities (normalised) or logits.

Threading: the frontend thread.
"""

import math as _math

from ... import torch as _torch
from .distribution import Distribution


def _probs_or_logits(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    param = probs if probs is not None else logits
    if param.dim() < 1:
        raise ValueError("`%s` parameter must be at least one-dimensional." % ("probs" if probs is not None else "logits"))
    return param


class Categorical(Distribution):
    """Samples are class indices (int64) in [0, K); probs are normalised
    along the last dim, logits made log-probabilities."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = _probs_or_logits(probs, logits)
        # The form given is normalised now; the other is made when first read (as PyTorch's lazy_property).
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._num_events = param.shape[-1]
        super().__init__(tuple(param.shape[:-1]), (), validate_args)

    def __getattr__(self, name):  # only for what __init__ did not set
        if name == "logits" and "probs" in self.__dict__:
            self.logits = _torch.log(self.probs.clamp(min=_torch.finfo(self.probs.dtype).tiny))
            return self.logits
        if name == "probs" and "logits" in self.__dict__:
            self.probs = self.logits.exp()
            return self.probs
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    @property
    def param_shape(self):
        return self.probs.shape

    @property
    def mean(self):
        return _torch.full(tuple(self._extended_shape()), _math.nan, dtype=self.probs.dtype)

    variance = mean

    def sample(self, sample_shape=()):
        count = 1
        for d in sample_shape:
            count *= d
        probs_2d = self.probs.reshape(-1, self._num_events)
        with _torch.no_grad():
            samples = _torch.multinomial(probs_2d, count, True).T  # PyTorch's draws, in its order
        return samples.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        value = value.long().unsqueeze(-1)
        value, log_pmf = _torch.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=_torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def __repr__(self):
        return "Categorical(probs: %s)" % (tuple(self.probs.shape),)
