"""torch.nn.functional's further activations, made of the edition's ops:
glu, hardtanh, relu6, hardsigmoid, hardswish, hardshrink, softshrink,
tanhshrink, softsign, logsigmoid, mish, celu, selu, threshold, softmin and
prelu (re-exported by torch.nn.functional). Each is the ops it is made of
on the timeline, differentiable as they are; `inplace=True` writes the
result back into the input (copy_).

Threading: the frontend thread, as every op of the edition.
"""

import math as _math

from ... import torch as _torch

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _done(input, out, inplace):
    return input.copy_(out) if inplace else out


def glu(input, dim=-1):
    """a * sigmoid(b), a and b the two halves of input along dim."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError("Halving dimension must be even, but dimension %d is size %d" % (dim % input.ndim, n))
    a, b = input.narrow(dim, 0, n // 2), input.narrow(dim, n // 2, n // 2)
    return a * b.sigmoid()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val]."""
    return _done(input, input.clamp(min_val, max_val), inplace)


def relu6(input, inplace=False):
    """input clamped to [0, 6]."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    """(x + 3) / 6 clamped to [0, 1]."""
    return _done(input, (input / 6.0 + 0.5).clamp(0.0, 1.0), inplace)


def hardswish(input, inplace=False):
    """x * hardsigmoid(x)."""
    return _done(input, input * (input / 6.0 + 0.5).clamp(0.0, 1.0), inplace)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return _torch.where(input.abs() > lambd, input, _torch.zeros_like(input))


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    zero = _torch.zeros_like(input)
    return _torch.where(input > lambd, input - lambd, _torch.where(input < -lambd, input + lambd, zero))


def tanhshrink(input):
    """x - tanh(x)."""
    return input - input.tanh()


def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1.0)


def logsigmoid(input):
    """log(sigmoid(x)), stably: min(x, 0) - log1p(exp(-|x|))."""
    return -_torch.relu(-input) - (-input.abs()).exp().log1p()


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    soft = _torch.relu(input) + (-input.abs()).exp().log1p()
    return _done(input, input * soft.tanh(), inplace)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""
    negative = ((input.clamp(max=0.0) / alpha).exp() - 1.0) * alpha
    return _done(input, _torch.where(input > 0, input, negative), inplace)


def selu(input, inplace=False):
    """scale (max(0, x) + min(0, alpha (exp(x) - 1))), with SELU's constants."""
    negative = (input.clamp(max=0.0).exp() - 1.0) * _SELU_ALPHA
    return _done(input, _torch.where(input > 0, input, negative) * _SELU_SCALE, inplace)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value."""
    return _done(input, _torch.where(input > threshold, input, _torch.full_like(input, value)), inplace)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim."""
    x = input.to(dtype) if dtype is not None else input
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return _torch.softmax(-x, dim)


def prelu(input, weight):
    """x where x > 0, weight * x elsewhere; weight is one number or one per channel (dim 1)."""
    if weight.numel() != 1:
        if input.ndim < 2:
            raise RuntimeError("prelu: a weight per channel needs an input with a channel dim (dim 1)")
        shape = [1] * input.ndim
        shape[1] = weight.numel()
        weight = weight.reshape(shape)
    else:
        weight = weight.reshape(())
    return _torch.where(input > 0, input, input * weight)


__all__ = ["glu", "hardtanh", "relu6", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "tanhshrink",
           "softsign", "logsigmoid", "mish", "celu", "selu", "threshold", "softmin", "prelu"]
del _math
