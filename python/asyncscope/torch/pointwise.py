"""PyTorch's elementwise functions made of the edition's ops: exp2, log2,
log10, reciprocal, trunc / fix, frac, fmod, rsub, true_divide, xlogy,
deg2rad / rad2deg, positive, logaddexp / logaddexp2, hypot, atan2 /
arctan2, copysign, signbit, sgn, angle, nan_to_num, sinc, float_power,
isposinf / isneginf / isreal, logit, fmax / fmin, erfc, isin and equal;
each a function and, where PyTorch has one, a Tensor method and an
in-place form (declared once, python/asyncscope/_surface.py).

Each is the ops it is made of on the timeline, asynchronous and
differentiable as they are. An integer or bool input of a function PyTorch
computes in floating point (exp2, log2, reciprocal, ...) is first cast to
float32, as PyTorch promotes it.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins
import math as _math

from .. import torch as _torch
from .composed import surface

_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def _floating(x):
    """x, or x cast to float32 when it is an integer or bool tensor."""
    return x if x.is_floating_point() else x.to(_torch.float32)


def _tensor_like(value, like):
    """value (a tensor or a Python number) as a tensor on like's device."""
    if isinstance(value, _torch.Tensor):
        return value
    dtype = like.dtype if like.is_floating_point() or not isinstance(value, float) else _torch.float32
    return _torch.full((), value, dtype=dtype, device=like.device)


@surface.op(method=True, in_place=True)
def exp2(input):
    """2 to the power input."""
    return 2.0 ** _floating(input)


@surface.op(method=True, in_place=True)
def log2(input):
    """The base-2 logarithm."""
    return _floating(input).log() * (1.0 / _math.log(2.0))


@surface.op(method=True, in_place=True)
def log10(input):
    """The base-10 logarithm."""
    return _floating(input).log() * (1.0 / _math.log(10.0))


@surface.op(method=True, in_place=True)
def reciprocal(input):
    """1 / input."""
    return 1.0 / _floating(input)


@surface.op("trunc", "fix", method=True, in_place=True)
def trunc(input):
    """input rounded toward zero (an integer tensor is itself)."""
    if not input.is_floating_point():
        return input.clone()
    return _torch.where(input < 0, input.ceil(), input.floor())


@surface.op(method=True, in_place=True)
def frac(input):
    """input minus its part rounded toward zero."""
    return input - trunc(input)


@surface.op(method=True, in_place=True)
def fmod(input, other):
    """The remainder of input / other rounded toward zero: the sign of
    input (remainder has the sign of other)."""
    r = _torch.remainder(input, other)
    b = _tensor_like(other, input)
    return _torch.where((r != 0) & ((r < 0) != (input < 0)), r - b, r)


@surface.op(method=True)
def rsub(input, other, alpha=1):
    """other - alpha * input."""
    return other - (input * alpha if alpha != 1 else input)


@surface.op(method=True, in_place=True)
def true_divide(input, other):
    """input / other in floating point (div)."""
    return _torch.div(input, other)


@surface.op(method=True, in_place=True)
def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is NaN)."""
    if not isinstance(input, _torch.Tensor):
        input = _torch.full((), float(input), device=other.device)
    if not isinstance(other, _torch.Tensor):
        other = _torch.full((), float(other), device=input.device)
    x, y = _floating(input), _floating(other)
    product = x * y.log()
    return _torch.where((x == 0) & (y == y), _torch.zeros_like(product), product)


@surface.op(method=True, in_place=True)
def deg2rad(input):
    """Degrees to radians."""
    return _floating(input) * (_math.pi / 180.0)


@surface.op(method=True, in_place=True)
def rad2deg(input):
    """Radians to degrees."""
    return _floating(input) * (180.0 / _math.pi)


@surface.op(method=True)
def positive(input):
    """input itself."""
    return input


@surface.op(method=True)
def logaddexp(input, other):
    """log(exp(input) + exp(other)), without overflow."""
    a, b = _floating(input), _floating(other)
    top = _torch.maximum(a, b)
    result = top + (-(a - b).abs()).exp().log1p()
    return _torch.where(a == b, a + _math.log(2.0), result)


@surface.op(method=True)
def logaddexp2(input, other):
    """log2(2**input + 2**other), without overflow."""
    ln2 = _math.log(2.0)
    return logaddexp(_floating(input) * ln2, _floating(other) * ln2) * (1.0 / ln2)


@surface.op(method=True, in_place=True)
def hypot(input, other):
    """sqrt(input**2 + other**2)."""
    return (input * input + other * other).sqrt()


@surface.op("atan2", "arctan2", method=True, in_place=True)
def atan2(input, other):
    """The angle of the point (other, input) in (-pi, pi]."""
    y, x = _floating(input), _floating(other)
    safe_x = _torch.where(x == 0, _torch.ones_like(x), x)
    base = (y / safe_x).atan()
    half = _math.pi / 2
    on_axis = _torch.where(y > 0, _torch.full_like(base, half),
                           _torch.where(y < 0, _torch.full_like(base, -half), _torch.zeros_like(base)))
    left = _torch.where(y < 0, base - _math.pi, base + _math.pi)
    return _torch.where(x > 0, base, _torch.where(x < 0, left, on_axis))


@surface.op(method=True)
def signbit(input):
    """Where the sign bit is set (negative, or -0.0)."""
    if not input.is_floating_point():
        return input < 0
    return (input < 0) | ((input == 0) & ((1.0 / input) < 0))


@surface.op(method=True, in_place=True)
def copysign(input, other):
    """The magnitude of input with the sign of other."""
    a = _floating(input)
    b = _tensor_like(other, a)
    return _torch.where(signbit(b), -a.abs(), a.abs())


@surface.op(method=True, in_place=True)
def sgn(input):
    """The sign (of a real tensor: sign)."""
    return input.sign()


@surface.op(method=True)
def angle(input):
    """The argument of a real number: pi for a negative one, else 0 (NaN stays NaN)."""
    x = _floating(input)
    return _torch.where(x < 0, _torch.full_like(x, _math.pi), x * 0)


@surface.op(method=True, in_place=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced (by default by 0 and the type's largest and lowest values)."""
    if not input.is_floating_point():
        return input.clone()
    top = _FLOAT_MAX[input.dtype._asyncscope_dtype]
    posinf = top if posinf is None else posinf
    neginf = -top if neginf is None else neginf
    out = _torch.where(input != input, _torch.full_like(input, nan), input)
    out = _torch.where(input == float("inf"), _torch.full_like(input, posinf), out)
    return _torch.where(input == float("-inf"), _torch.full_like(input, neginf), out)


@surface.op(method=True, in_place=True)
def sinc(input):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _floating(input) * _math.pi
    safe = _torch.where(x == 0, _torch.ones_like(x), x)
    return _torch.where(x == 0, _torch.ones_like(x), safe.sin() / safe)


@surface.op(method=True, in_place=True)
def float_power(input, exponent):
    """input ** exponent in float64."""
    base = input.to(_torch.float64) if isinstance(input, _torch.Tensor) else input
    power = exponent.to(_torch.float64) if isinstance(exponent, _torch.Tensor) else exponent
    if not isinstance(base, _torch.Tensor):
        return _torch.full((), float(base), dtype=_torch.float64) ** power
    return base ** power


@surface.op(method=True)
def isposinf(input):
    """Where input is +inf."""
    if not input.is_floating_point():
        return _torch.zeros_like(input, dtype=_torch.bool)
    return input == float("inf")


@surface.op(method=True)
def isneginf(input):
    """Where input is -inf."""
    if not input.is_floating_point():
        return _torch.zeros_like(input, dtype=_torch.bool)
    return input == float("-inf")


@surface.op(method=True)
def isreal(input):
    """Everywhere true: the edition's tensors are real."""
    return _torch.ones_like(input, dtype=_torch.bool)


@surface.op(method=True, in_place=True)
def logit(input, eps=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    p = _floating(input)
    if eps is not None:
        p = p.clamp(eps, 1.0 - eps)
    return (p / (1.0 - p)).log()


@surface.op(method=True)
def fmax(input, other):
    """The larger, a NaN losing to a number."""
    return _torch.where(input != input, other, _torch.where(other != other, input, _torch.maximum(input, other)))


@surface.op(method=True)
def fmin(input, other):
    """The smaller, a NaN losing to a number."""
    return _torch.where(input != input, other, _torch.where(other != other, input, _torch.minimum(input, other)))


@surface.op(method=True, in_place=True)
def erfc(input):
    """1 - erf(input)."""
    return 1.0 - _floating(input).erf()


@surface.op()
def isin(elements, test_elements, assume_unique=False, invert=False):
    """Where each element of `elements` is among test_elements."""
    if not isinstance(elements, _torch.Tensor):
        elements = _torch.tensor(elements)
    tests = test_elements.reshape(-1) if isinstance(test_elements, _torch.Tensor) else _torch.tensor([test_elements])
    if tests.shape[0] == 0:
        found = _torch.zeros_like(elements, dtype=_torch.bool)
    else:
        found = (elements.unsqueeze(-1) == tests).any(-1)
    return ~found if invert else found


@surface.op(method=True)
def equal(input, other):
    """Whether both have one shape and equal elements: a Python bool, so a sync point."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return _builtins.bool((input == other).all())
