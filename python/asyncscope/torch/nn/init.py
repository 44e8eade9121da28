"""torch.nn.init of the PyTorch edition: fill a tensor in place (under
no_grad, as PyTorch does) from the run's seeded random stream."""

import math as _math

from ... import torch as _torch


def _fill(tensor, values):
    with _torch.no_grad():
        tensor.copy_(values)
    return tensor


def _fans(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for d in tensor.shape[2:]:
        receptive *= d
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def uniform_(tensor, a=0.0, b=1.0):
    """Values uniform in [a, b)."""
    return _fill(tensor, _torch.rand(tuple(tensor.shape)) * (b - a) + a)


def normal_(tensor, mean=0.0, std=1.0):
    """Values from N(mean, std^2)."""
    return _fill(tensor, _torch.randn(tuple(tensor.shape)) * std + mean)


def constant_(tensor, val):
    """Every value val."""
    with _torch.no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor):
    """Every value 0."""
    return constant_(tensor, 0.0)


def ones_(tensor):
    """Every value 1."""
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain=1.0):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = _fans(tensor)
    a = gain * _math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * _math.sqrt(2.0 / (fan_in + fan_out)))


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """U(-b, b) with b = gain * sqrt(3 / fan), gain for leaky_relu with slope a (He)."""
    fan_in, fan_out = _fans(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    gain = _math.sqrt(2.0 / (1 + a * a)) if nonlinearity == "leaky_relu" else _math.sqrt(2.0)
    bound = gain * _math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound)
