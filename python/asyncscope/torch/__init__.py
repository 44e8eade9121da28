"""The PyTorch edition: tensors in PyTorch's spelling on asyncscope's engine.

    from asyncscope import torch
    from asyncscope.torch import nn
    from asyncscope.d2l import torch as d2l

What is here: torch.ones / zeros / randn / rand (size as ints, a tuple or a
list, or size=...; device=...), torch.tensor, torch.mm / matmul, torch.sum /
mean, torch.device, torch.Size, torch.float32, torch.cuda.is_available /
device_count / synchronize, torch.no_grad; a Tensor has the arithmetic
operators with tensors and Python numbers on either side (+ - * / @, unary
minus), .to(device), .cpu(), .cuda(), .numpy(), .item(), .shape, .size(),
.device, .dtype, .sum() / .mean() (0-d, as in PyTorch), .T, .reshape(), and
PyTorch's printed form (tensor([[3., 3.]], device='cuda:0')).

How it differs from PyTorch, on purpose: every operation is asynchronous,
on the CPU too. PyTorch runs CPU operations synchronously on the calling
thread and only queues GPU work; here an op on a CPU tensor is pushed to the
engine's CPU workers and returns at once, like an op on the GPU's stream, so
the frontend/backend split the chapter describes can be seen on any machine.
item(), numpy(), printing and torch.cuda.synchronize() are the sync points:
they wait for the work they need. torch.cuda.synchronize(device) waits for
all the work pushed so far (that device's and any other's) and, unlike
PyTorch, also accepts the CPU. Tensors are float32 (the default), float64,
int32, int64, uint8 or bool, with PyTorch's defaults (torch.arange(3) and
torch.tensor([1, 2]) are int64, comparisons give bool) and its promotion;
ops other than creation, casts, arithmetic, comparisons, reductions,
matrix products (float32, float64 and the integer types, on the CPU) and
indexing take float32 tensors. Basic indexing gives a view (x[1:3] += 1
writes x), as in PyTorch. numpy() returns a copy (PyTorch shares the
memory). The random functions give PyTorch's numbers for its seed
(torch/random.py). More functions, made of these ops,
are in torch/composed.py (torch.gather, tril, logsumexp, meshgrid, ...),
torch/pointwise.py (exp2, fmod, atan2, ...) and torch/structural.py
(movedim, diagonal, tensordot, cummax, ...), each declared once with its
function, method and in-place forms (asyncscope/_surface.py).

A GPU is used when CUDA works here: device='cuda' ops run on the CUDA
backend's stream (cuBLAS for mm); without one, naming 'cuda' is a
RuntimeError saying why, and d2l.try_gpu() gives the CPU.
"""

import builtins as _builtins
import sys as _sys

from .. import _core
from . import autograd, cuda

_t = _core.torch

Tensor = _t.Tensor
ones = _t.ones
zeros = _t.zeros
randn = _t.randn
rand = _t.rand
tensor = _t.tensor
mm = _t.mm
matmul = _t.matmul
sum = _t.sum
mean = _t.mean
norm = _t.norm
cat = _t.cat
concat = _t.concat
stack = _t.stack
dot = _t.dot
mv = _t.mv
zeros_like = _t.zeros_like
ones_like = _t.ones_like
full_like = _t.full_like
full = _t.full
rand_like = _t.rand_like
randn_like = _t.randn_like
is_grad_enabled = _t.is_grad_enabled
arange = _t.arange
cumsum = _t.cumsum
max = _t.max
min = _t.min
argmax = _t.argmax
argmin = _t.argmin
prod = _t.prod
all = _t.all
any = _t.any
amax = _t.amax
amin = _t.amin
where = _t.where
sort = _t.sort
argsort = _t.argsort
msort = _t.msort
topk = _t.topk
take_along_dim = _t.take_along_dim
clamp = _t.clamp
clip = _t.clip
from_numpy = _t.from_numpy
as_tensor = _t.as_tensor
for _name in ("unsqueeze", "squeeze", "flatten", "permute", "transpose", "swapaxes", "flip", "std", "var", "softmax",
              "log_softmax", "split", "chunk", "outer", "linspace", "eye", "randint", "normal", "randperm", "tile",
              "repeat_interleave", "bmm", "multinomial"):
    globals()[_name] = getattr(_t, _name)


class dtype:
    """A tensor's element type: torch.float32 (torch.float, the default),
    float64 (double), int32 (int), int64 (long), uint8 and bool."""

    def __init__(self, name):
        self._asyncscope_dtype = name
        self.is_floating_point = name.startswith("float")

    def __repr__(self):
        return "torch." + self._asyncscope_dtype

    def __reduce__(self):
        return (dtype, (self._asyncscope_dtype,))

    def __eq__(self, other):
        return isinstance(other, dtype) and other._asyncscope_dtype == self._asyncscope_dtype

    def __hash__(self):
        return hash(self._asyncscope_dtype)


class layout:
    """A tensor's memory layout: torch.strided, the only one in this edition."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return (layout, (self._name,))


strided = layout("strided")

float32 = float = dtype("float32")
float64 = double = dtype("float64")
int32 = int = dtype("int32")
int64 = long = dtype("int64")
uint8 = dtype("uint8")
globals()["bool"] = dtype("bool")

from . import return_types
from .type_info import finfo, iinfo
_max_result, _min_result, _sort_result, _topk_result = (return_types.max, return_types.min, return_types.sort,
                                                        return_types.topk)


class device:
    """Where a tensor lives: device('cpu'), device('cuda'), device('cuda:1'),
    device('cuda', 0). Any function that takes device= also takes the string."""

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, _builtins.int):
            type, index = "cuda", type
        elif not isinstance(type, str):
            raise TypeError("device() takes a string such as 'cuda:0', got %r" % (type,))
        if ":" in type and index is not None:
            raise RuntimeError("device(%r, %r): the string already names an index" % (type, index))
        if index is not None and index < 0:
            raise RuntimeError("device index must not be negative, got %d" % index)
        # The engine's own reading of a device name (PyTorch raises RuntimeError for a bad one).
        try:
            type, parsed = _core._parse_device(type if index is None else "%s:%d" % (type, index))
        except ValueError as e:
            raise RuntimeError(str(e)) from None
        index = parsed
        self.type = type
        self.index = index

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __repr__(self):
        if self.index is None:
            return "device(type=%r)" % self.type
        return "device(type=%r, index=%d)" % (self.type, self.index)

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as torch.Size([2, 3])."""

    def __repr__(self):
        return "torch.Size([%s])" % ", ".join(str(d) for d in self)

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n


class no_grad:
    """Turns this thread's grad mode off while it lives (a context manager,
    or a decorator)."""

    _mode = False

    def __enter__(self):
        self._previous = _t._set_grad_enabled(self._mode)

    def __exit__(self, *exc):
        _t._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)
        return wrapped


class enable_grad(no_grad):
    """Turns this thread's grad mode on while it lives (inside no_grad)."""

    _mode = True


from .serialization import load, save  # noqa: E402 (PyTorch's file format)
from . import serialization  # noqa: E402


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fills the tensor in place with samples of N(mean, std^2) (PyTorch's numbers for its seed)."""
    return self.copy_(_t._normal_like(self, mean, std, generator))


def _uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fills the tensor in place with samples uniform in [a, b) (PyTorch's numbers for its seed)."""
    return self.copy_(_t._uniform_like(self, a, b, generator))


def _random_(self, *bounds, generator=None, **named):
    """random_(from, to), random_(to) or random_(): fills the tensor in place
    with integers uniform in [from, to), [0, to), or over what its type holds."""
    if "to" in named:
        bounds = bounds + (named.pop("to"),)
    if "from" in named:
        bounds = (named.pop("from"),) + bounds
    if named:
        raise TypeError("random_() got an unexpected keyword argument '%s'" % next(iter(named)))
    if len(bounds) > 2:
        raise TypeError("random_() takes at most 2 bounds (from, to)")
    low, high = (bounds + (None, None))[:2]
    return self.copy_(_t._random_like(self, low, high, generator))


def _bernoulli_(self, p=0.5, *, generator=None):
    """Fills the tensor in place with 1 with probability p (a number or a tensor), else 0."""
    if isinstance(p, Tensor):
        drawn = _t._bernoulli(p.to(self.device).expand(self.shape).contiguous(), self.dtype, generator)
    else:
        drawn = _t._bernoulli_like(self, _builtins.float(p), generator)
    return self.copy_(drawn)


def _exponential_(self, lambd=1.0, *, generator=None):
    """Fills the tensor in place with samples of the exponential distribution of rate lambd."""
    u = rand(tuple(self.shape), dtype=float64, generator=generator)
    return self.copy_((-1.0 / lambd) * (1.0 - u).log())


Tensor.normal_ = _normal_
Tensor.uniform_ = _uniform_
Tensor.random_ = _random_
Tensor.bernoulli_ = _bernoulli_
Tensor.exponential_ = _exponential_


def _method_of(fn):
    def method(self, other):
        return fn(self, other)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _format(self, spec):
    """format(t, spec): a 0-d tensor formats as its value ('{:+.2f}'.format(t)); others only as str(t)."""
    if self.dim() == 0:
        return self.item().__format__(spec)
    if spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return str(self)


Tensor.__format__ = _format


def _index(self):
    """operator.index(t): a one-element integer tensor as a Python int
    (a list index, range(t)); a sync point, as item() is."""
    if self.numel() != 1 or self.is_floating_point():
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return _builtins.int(self.item())


Tensor.__index__ = _index

# The products as methods too (x.mm(y), as PyTorch has them).
for _name in ("mm", "mv", "matmul", "dot", "outer", "bmm"):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _method_of(globals()[_name]))
del _name


__all__ = ["Tensor", "cat", "concat", "stack", "ones", "zeros", "randn", "rand", "tensor", "mm", "matmul", "sum", "mean", "norm", "dot", "mv",
           "zeros_like", "ones_like", "full_like", "full", "rand_like", "randn_like", "device", "Size",
           "dtype", "layout", "strided", "float32", "float", "float64", "double", "int32", "int", "int64", "long", "uint8", "bool",
           "autograd", "cuda", "distributions", "finfo", "iinfo", "linalg", "nn", "optim", "utils", "jit", "onnx", "hub", "backends", "no_grad", "enable_grad", "save", "load", "is_grad_enabled", "arange", "cumsum", "max", "min", "argmax", "argmin",
           "prod", "all", "any", "amax", "amin", "where", "clamp", "clip", "from_numpy", "as_tensor", "unsqueeze",
           "squeeze", "flatten", "permute", "transpose", "swapaxes", "flip", "std", "var", "softmax", "log_softmax",
           "split", "chunk", "outer", "linspace", "eye", "randint", "normal", "randperm", "tile", "repeat_interleave",
           "bmm", "multinomial", "manual_seed", "sort", "argsort", "msort", "topk", "take_along_dim"]

# The elementwise functions made from the op table (`asyncscope ops`): relu,
# sigmoid, exp, sin, round, ...
for _name in _t.__table_ops__:
    globals()[_name] = getattr(_t, _name)
    __all__.append(_name)
del _name


from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,  # noqa: E402
                     seed, set_rng_state)
from . import random  # noqa: E402
__all__ += ["Generator", "default_generator", "get_rng_state", "initial_seed", "seed", "set_rng_state", "random"]


_TYPE_NAMES = {"torch.float32": "Float", "torch.float64": "Double", "torch.int32": "Int", "torch.int64": "Long",
               "torch.uint8": "Byte", "torch.bool": "Bool"}


def _refuse_float_into_int(self, result):
    """An in-place op's check, as PyTorch's: a floating result cannot be written into an integer tensor."""
    if result.is_floating_point() and not self.is_floating_point():
        raise RuntimeError("result type %s can't be cast to the desired output type %s"
                           % (_TYPE_NAMES[repr(result.dtype)], _TYPE_NAMES[repr(self.dtype)]))


def _rebuild(values):
    """A pickled tensor's values as a tensor again (on the CPU, of their type)."""
    return tensor(values)

# Made of the names above:
from . import composed, joins, order_statistics, pointwise, searching, structural, scatter, linalg  # noqa: E402

# The in-place forms of the bindings' own methods, then composed.py's declarations.
composed.surface.in_place_forms("abs", "neg", "negative", "exp", "log", "log1p", "sqrt", "square", "sin", "cos",
                                "tanh", "sigmoid", "relu", "floor", "ceil", "round", "sign", "clamp", "clip", "pow",
                                "expm1", "asin", "acos", "atan", "sinh", "cosh", "erf")
composed.surface.install(globals(), Tensor, _refuse_float_into_int)
composed._installed(Tensor)

from . import backends, distributions, hub, jit, nn, onnx, optim, utils  # noqa: E402 (they use the names above)

# out= on every function, and the factories' requires_grad= (torch/_variants.py).
from . import _variants  # noqa: E402
_variants.install(globals(), __all__, _sys.modules[__name__])
_variants.install(vars(linalg), linalg.__all__, _sys.modules[__name__])
_variants.name_backwards(vars(nn.functional), _variants.BACKWARD_NAMES, Tensor)
_variants.name_backwards(None, _variants.BACKWARD_NAMES, Tensor, method=True)

# Last, over every in-place method: updates while recording as PyTorch records them (torch/in_place.py).
from . import in_place as _in_place  # noqa: E402
_in_place.install(Tensor)
