"""The base of the edition's distributions: batch and event shapes, sample
shapes and the sample/rsample split, as torch.distributions.Distribution.

Threading: the frontend thread.
"""

from ... import torch as _torch


class Distribution:
    """A batch of distributions over events: batch_shape, event_shape;
    sample(sample_shape) has shape sample_shape + batch_shape + event_shape."""

    has_rsample = False

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _torch.Size(tuple(batch_shape))
        self._event_shape = _torch.Size(tuple(event_shape))

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return _torch.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=()):
        """Draws without recording for autograd (rsample's draw where there is one)."""
        with _torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError("%s has no reparameterized sample (rsample)" % type(self).__name__)

    def sample_n(self, n):
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def __repr__(self):
        return type(self).__name__ + "()"
