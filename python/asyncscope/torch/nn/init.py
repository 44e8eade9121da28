"""torch.nn.init of the PyTorch edition: fill a tensor in place (under
no_grad, as PyTorch does) from PyTorch's random stream (torch/random.py)."""

import math as _math

from ... import torch as _torch


def _fans(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for d in tensor.shape[2:]:
        receptive *= d
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def uniform_(tensor, a=0.0, b=1.0):
    """Values uniform in [a, b)."""
    with _torch.no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    """Values from N(mean, std^2)."""
    with _torch.no_grad():
        return tensor.normal_(mean, std)


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
    a = _math.sqrt(3.0) * (gain * _math.sqrt(2.0 / float(fan_in + fan_out)))  # PyTorch's rounding
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * _math.sqrt(2.0 / (fan_in + fan_out)))


def calculate_gain(nonlinearity, param=None):
    """The gain PyTorch recommends for a nonlinearity (leaky_relu's slope: param, 0.01 by default)."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return _math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError("negative_slope {} not a valid number".format(param))
        return _math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError("Unsupported nonlinearity {}".format(nonlinearity))


def _kaiming_std(tensor, a, mode, nonlinearity):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError("Mode {} not supported, please use one of fan_in, fan_out".format(mode))
    fan_in, fan_out = _fans(tensor)
    return calculate_gain(nonlinearity, a) / _math.sqrt(fan_in if mode == "fan_in" else fan_out)


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """U(-b, b) with b = gain * sqrt(3 / fan), gain for leaky_relu with slope a (He)."""
    bound = _math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """N(0, std^2) with std = gain / sqrt(fan), gain for leaky_relu with slope a (He)."""
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity))


def _reset_layer(weight, bias):
    """A Linear's or a convolution's first values, as PyTorch's
    reset_parameters makes them: the weight He-uniform with slope sqrt(5)
    (bound 1 / sqrt(fan_in)), the bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    with fan_in read from the weight (bound 0 when it is 0)."""
    kaiming_uniform_(weight, a=_math.sqrt(5))
    if bias is not None:
        fan_in = _fans(weight)[0]
        uniform_(bias, *((-1 / _math.sqrt(fan_in), 1 / _math.sqrt(fan_in)) if fan_in > 0 else (0, 0)))
