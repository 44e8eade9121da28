"""torch.nn's first layers in the PyTorch edition: Identity, Linear,
Flatten, Unflatten, Dropout, LayerNorm, Embedding, and the activations as
modules (ReLU, Sigmoid, Tanh, Softmax, LogSoftmax, LeakyReLU, ELU, SiLU,
Softplus, GELU), each made of nn.functional and initialised as PyTorch
initialises it.

Threading: the frontend thread, as every op of the edition.
"""

from ... import torch as _torch  # partly imported when this module loads: used at call time only
from . import functional, init
from .module import Module, Parameter


class Identity(Module):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with W of shape (out_features, in_features) and b of
    (out_features,), both U(-1/sqrt(in_features), 1/sqrt(in_features)) at
    first, as PyTorch initializes them."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self._configure(in_features, out_features)
        self.weight = Parameter(_torch.zeros(out_features, in_features))
        if bias:
            self.bias = Parameter(_torch.zeros(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _configure(self, in_features, out_features, bias=True, device=None, dtype=None):
        """The settings that are not tensors (a LazyLinear sets them too, with in_features 0)."""
        self.in_features, self.out_features = in_features, out_features

    def reset_parameters(self):
        init._reset_layer(self.weight, self.bias)

    def forward(self, input):
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, bias=%s" % (self.in_features, self.out_features,
                                                            self.bias is not None)


class ReLU(Module):
    """max(x, 0) elementwise."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return functional.relu(input, self.inplace)


class Sigmoid(Module):
    """1 / (1 + exp(-x)) elementwise."""

    def forward(self, input):
        return functional.sigmoid(input)


class Tanh(Module):
    """tanh(x) elementwise."""

    def forward(self, input):
        return functional.tanh(input)


class Softmax(Module):
    """softmax along dim."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return functional.softmax(input, self.dim)

    def extra_repr(self):
        return "dim=%s" % self.dim


class LogSoftmax(Softmax):
    """log_softmax along dim."""

    def forward(self, input):
        return functional.log_softmax(input, self.dim)


class Flatten(Module):
    """Flattens dimensions start_dim..end_dim into one (by default all but the batch's)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim=%d, end_dim=%d" % (self.start_dim, self.end_dim)


class Dropout(Module):
    """In training mode, zeroes each element with probability p and scales
    the rest by 1 / (1 - p); the identity in evaluation mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return functional.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return "p=%s, inplace=%s" % (self.p, self.inplace)


class _Activation(Module):
    """An elementwise function of nn.functional as a module."""

    _function = None
    _settings = ()

    def __init__(self, **settings):
        super().__init__()
        for name, value in settings.items():
            setattr(self, name, value)

    def forward(self, input):
        return type(self)._function(input, **{name: getattr(self, name) for name in self._settings})

    def extra_repr(self):
        return ", ".join("%s=%s" % (name, getattr(self, name)) for name in self._settings)


class LeakyReLU(_Activation):
    """x where x > 0, negative_slope * x elsewhere."""

    _function = staticmethod(functional.leaky_relu)
    _settings = ("negative_slope", "inplace")

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class ELU(_Activation):
    """x where x > 0, alpha (exp(x) - 1) elsewhere."""

    _function = staticmethod(functional.elu)
    _settings = ("alpha", "inplace")

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha, inplace=inplace)


class SiLU(_Activation):
    """x sigmoid(x)."""

    _function = staticmethod(functional.silu)
    _settings = ("inplace",)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Softplus(_Activation):
    """log(1 + exp(beta x)) / beta."""

    _function = staticmethod(functional.softplus)
    _settings = ("beta", "threshold")

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__(beta=beta, threshold=threshold)


class GELU(_Activation):
    """x Phi(x) (approximate='tanh': PyTorch's tanh formula)."""

    _function = staticmethod(functional.gelu)
    _settings = ("approximate",)

    def __init__(self, approximate="none"):
        super().__init__(approximate=approximate)


class LayerNorm(Module):
    """Normalises over the last dims (normalized_shape), then a learnt scale
    (ones at first) and shift (zeros)."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_torch.ones(self.normalized_shape))
            if bias:
                self.bias = Parameter(_torch.zeros(self.normalized_shape))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s" % (self.normalized_shape, self.eps, self.elementwise_affine)


class Embedding(Module):
    """A table of num_embeddings rows of embedding_dim, N(0, 1) at first: the
    rows at the indices given."""

    def __init__(self, num_embeddings, embedding_dim, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.weight = Parameter(_torch.zeros(num_embeddings, embedding_dim))
        init.normal_(self.weight)

    def forward(self, input):
        return functional.embedding(input, self.weight)

    def extra_repr(self):
        return "%d, %d" % (self.num_embeddings, self.embedding_dim)


class Unflatten(Module):
    """Splits dimension dim into unflattened_size."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input):
        shape = list(input.shape)
        d = self.dim % input.ndim
        return input.reshape(tuple(shape[:d]) + self.unflattened_size + tuple(shape[d + 1:]))
