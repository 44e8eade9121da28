"""PyTorch functions and Tensor methods made of the edition's own ops
(comparisons, where, indexing, reductions, cat, sort): torch.eq and the
other comparisons, isnan / isinf / isfinite, isclose / allclose, rsqrt,
narrow, select, unbind, index_select, gather, masked_fill, diag, trace, tril
/ triu, logsumexp, lerp, dist, roll, addmm / baddbmm, meshgrid, logspace,
empty, randint_like, bernoulli, einsum, the logical functions, clamp_min /
clamp_max, addcmul / addcdiv, heaviside, std_mean / var_mean, plus a
Tensor's new_zeros / new_ones / new_full, type_as / view_as / reshape_as /
expand_as, is_cuda, mT, nelement, ndimension and element_size, where and
byte. Each is the ops it is made of on the timeline: asynchronous as they
are (allclose, which returns a Python bool, waits as item() does),
differentiable where they are. The order statistics, nonzero and unique are
in torch/order_statistics.py, the distances, searching and counting in
torch/searching.py, the stacks, flips and differences in torch/joins.py, on
the same surface.

narrow, select and unbind give views, as basic indexing does (writing one
writes the tensor); empty returns zeros (its values are unspecified).

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import _einsum, _joins
from .._surface import Surface
from .. import torch as _torch

_INF = float("inf")

surface = Surface("torch")


def _dim(input, dim):
    """dim in [0, ndim), from PyTorch's negative dims; IndexError as PyTorch's."""
    n = input.ndim
    if not -_builtins.max(n, 1) <= dim < _builtins.max(n, 1):
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-_builtins.max(n, 1), _builtins.max(n, 1) - 1, dim))
    return dim % _builtins.max(n, 1)


def _along(input, dim, index):
    """input indexed by `index` along dim (every other dim whole)."""
    return input[(slice(None),) * _dim(input, dim) + (index,)]


def _zero(input):
    """A 0-d zero of input's type and device, for where()."""
    return _torch.zeros((), dtype=input.dtype, device=input.device)


# -- comparisons and tests ----------------------------------------------------

@surface.op(method=True)
def eq(input, other):
    """input == other, elementwise (a bool tensor)."""
    return input == other


@surface.op(method=True)
def ne(input, other):
    """input != other, elementwise (a bool tensor)."""
    return input != other


@surface.op(method=True)
def gt(input, other):
    """input > other, elementwise (a bool tensor)."""
    return input > other


@surface.op(method=True)
def ge(input, other):
    """input >= other, elementwise (a bool tensor)."""
    return input >= other


@surface.op(method=True)
def lt(input, other):
    """input < other, elementwise (a bool tensor)."""
    return input < other


@surface.op(method=True)
def le(input, other):
    """input <= other, elementwise (a bool tensor)."""
    return input <= other


@surface.op(method=True)
def isnan(input):
    """Where input is NaN (never, for an integer or bool tensor)."""
    if not input.is_floating_point():
        return _torch.zeros_like(input, dtype=_torch.bool)
    return input != input


@surface.op(method=True)
def isinf(input):
    """Where input is +inf or -inf."""
    if not input.is_floating_point():
        return _torch.zeros_like(input, dtype=_torch.bool)
    return input.abs() == _INF


@surface.op(method=True)
def isfinite(input):
    """Where input is neither infinite nor NaN (x - x is 0 exactly there)."""
    if not input.is_floating_point():
        return _torch.ones_like(input, dtype=_torch.bool)
    return (input - input) == 0


@surface.op(method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol |other|, elementwise; equal infinities
    are close, NaN only to NaN with equal_nan."""
    a, b = input, other if isinstance(other, _torch.Tensor) else _torch.full_like(input, other)
    if not a.is_floating_point() or not b.is_floating_point():
        a, b = a.to(_torch.float64), b.to(_torch.float64)
    close = ((a - b).abs() <= atol + rtol * b.abs()) | (a == b)
    if equal_nan:
        close = close | (isnan(a) & isnan(b))
    return close


@surface.op(method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (isclose): a Python bool, so a sync point."""
    return _builtins.bool(isclose(input, other, rtol, atol, equal_nan).all())


# -- elementwise ----------------------------------------------------------------

@surface.op(method=True)
def rsqrt(input):
    """1 / sqrt(input), elementwise."""
    return 1 / _torch.sqrt(input)


@surface.op(method=True, in_place=True)
def lerp(input, end, weight):
    """input + weight (end - input)."""
    return input + weight * (end - input)


@surface.op(method=True)
def dist(input, other, p=2):
    """The p-norm of input - other."""
    return _torch.norm(input - other, p)


@surface.op(method=True, in_place=True)
def masked_fill(input, mask, value):
    """input with value where mask is True (value cast to input's type)."""
    if isinstance(value, _torch.Tensor):
        if value.ndim != 0:
            raise RuntimeError("masked_fill only supports a 0-dimensional value tensor, but got tensor with %d "
                               "dimension(s)." % value.ndim)
        fill = value.to(input.dtype)
    else:
        fill = _torch.full((), value, dtype=input.dtype, device=input.device)
    return _torch.where(mask, fill, input)


# -- indexing ---------------------------------------------------------------------

@surface.op(method=True)
def narrow(input, dim, start, length):
    """length elements of input along dim from start (a view)."""
    d = _dim(input, dim)
    size = input.shape[d]
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise RuntimeError("start (%d) + length (%d) exceeds dimension size (%d)." % (start, length, size))
    return _along(input, d, slice(start, start + length))


@surface.op(method=True)
def select(input, dim, index):
    """input at index along dim, that dim removed (a view)."""
    d = _dim(input, dim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError("select(): index %d out of range for tensor of size %s at dimension %d"
                         % (index, list(input.shape), d))
    return _along(input, d, index)


@surface.op(method=True)
def unbind(input, dim=0):
    """The slices of input along dim, as a tuple of views (that dim removed)."""
    d = _dim(input, dim)
    return tuple(_along(input, d, i) for i in range(input.shape[d]))


@surface.op(method=True)
def index_select(input, dim, index):
    """input at the entries of index (a 1-D integer tensor) along dim."""
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return _along(input, dim, index.reshape(-1))


@surface.op(method=True)
def gather(input, dim, index):
    """out[i][j] = input[i][index[i][j]] for dim=1, and so on: input's values
    at index along dim, and at the same place along the others."""
    d = _dim(input, dim)
    if index.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    where = []
    for k in range(input.ndim):
        if k == d:
            where.append(index)
            continue
        if index.shape[k] > input.shape[k]:
            raise RuntimeError("Size does not match at dimension %d expected index %s to be smaller than self %s "
                               "apart from dimension %d" % (k, list(index.shape), list(input.shape), d))
        shape = [1] * input.ndim
        shape[k] = index.shape[k]
        where.append(_torch.arange(index.shape[k], device=input.device).reshape(shape))
    return input[tuple(where)]


@surface.op(method=True)
def diag(input, diagonal=0):
    """Of a vector, the square matrix with it on the diagonal-th diagonal; of
    a matrix, that diagonal as a vector."""
    if input.ndim == 1:
        n, k = input.shape[0], _builtins.abs(diagonal)
        square = _torch.where(_torch.eye(n, device=input.device) > 0, input.unsqueeze(0), _zero(input))
        if k == 0:
            return square
        side = _torch.zeros((n, k), dtype=input.dtype, device=input.device)
        rows = _torch.zeros((k, n + k), dtype=input.dtype, device=input.device)
        if diagonal > 0:
            return _torch.cat((_torch.cat((side, square), dim=1), rows), dim=0)
        return _torch.cat((rows, _torch.cat((square, side), dim=1)), dim=0)
    if input.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % input.ndim)
    m, n = input.shape
    first_row, first_col = _builtins.max(0, -diagonal), _builtins.max(0, diagonal)
    length = _builtins.max(0, _builtins.min(m - first_row, n - first_col))
    rows = _torch.arange(length, device=input.device) + first_row
    return input[rows, rows + (first_col - first_row)]


@surface.op(method=True)
def trace(input):
    """The sum of a matrix's diagonal."""
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % input.ndim)
    return diag(input).sum()


def _triangle(input, diagonal, lower, name):
    if input.ndim < 2:
        raise RuntimeError("%s: input tensor must have at least 2 dimensions" % name)
    m, n = input.shape[-2], input.shape[-1]
    rows = _torch.arange(m, device=input.device).reshape(m, 1) + diagonal
    cols = _torch.arange(n, device=input.device).reshape(1, n)
    keep = rows >= cols if lower else rows <= cols
    return _torch.where(keep, input, _zero(input))


@surface.op(method=True, in_place=True)
def tril(input, diagonal=0):
    """input with the elements above the diagonal-th diagonal zeroed (the last two dims)."""
    return _triangle(input, diagonal, True, "tril")


@surface.op(method=True, in_place=True)
def triu(input, diagonal=0):
    """input with the elements below the diagonal-th diagonal zeroed (the last two dims)."""
    return _triangle(input, diagonal, False, "triu")


@surface.op(method=True)
def roll(input, shifts, dims=None):
    """input with its elements moved shifts places along dims, those pushed
    off the end coming back at the start (the flattened tensor without dims)."""
    if dims is None:
        if isinstance(shifts, (tuple, list)):
            if len(shifts) != 1:
                raise RuntimeError("shifts and dimensions must align. shifts: %d, dims:0" % len(shifts))
            shifts = shifts[0]
        return roll(input.reshape(-1), shifts, 0).reshape(tuple(input.shape))
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError("shifts and dimensions must align. shifts: %d, dims:%d" % (len(shifts), len(dims)))
    return _joins.rolled(input, shifts, dims, _dim, lambda parts, d: _torch.cat(parts, dim=d))


# -- reductions and products --------------------------------------------------------

@surface.op(method=True)
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) along dim, without overflow (the max taken out first)."""
    x = input if input.is_floating_point() else input.to(_torch.float32)
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if x.ndim == 0:
        for d in dims:
            _dim(x, d)
        return x.clone()
    top = x.amax(dim=dims, keepdim=True)
    top = _torch.where(isfinite(top), top, _zero(top))  # a row of -inf (or an inf) stays as it is
    out = (x - top).exp().sum(dim=dims, keepdim=True).log() + top
    if not keepdim:
        for d in sorted((_dim(x, d) for d in dims), reverse=True):
            out = out.squeeze(d)
    return out


def _scaled_sum(input, product, beta, alpha):
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # input is ignored, NaN included, as PyTorch does
        return product + _zero(product)
    return (input if beta == 1 else input * beta) + product


@surface.op(method=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta input + alpha (mat1 @ mat2)."""
    return _scaled_sum(input, _torch.mm(mat1, mat2), beta, alpha)


@surface.op(method=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta input + alpha (batch1 @ batch2), batch by batch."""
    return _scaled_sum(input, _torch.bmm(batch1, batch2), beta, alpha)


# -- creation -----------------------------------------------------------------------

@surface.op()
def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids of 1-D tensors: with indexing='ij', the i-th output
    varies along dim i; with 'xy', the first two are swapped (x along columns)."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s" % indexing)
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %r" % (t,))
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    sizes = [tensors[order[p]].numel() for p in range(len(tensors))]  # the swap is its own inverse
    grids = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[order[i]] = t.numel()
        grids.append(t.reshape(shape).expand(*sizes))
    return tuple(grids)


@surface.op()
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """steps values from base**start to base**end, evenly spaced in the exponent."""
    out = base ** _torch.linspace(start, end, steps, device=device)
    if dtype is not None:
        out = out.to(dtype)
    return out.requires_grad_(requires_grad) if requires_grad else out


@surface.op()
def empty(*size, **kwargs):
    """A tensor whose values are not to be relied on (zeros here)."""
    return _torch.zeros(*size, **kwargs)


@surface.op()
def empty_like(input, **kwargs):
    """A tensor like input whose values are not to be relied on (zeros here)."""
    return _torch.zeros_like(input, **kwargs)


@surface.op()
def randint_like(input, low=0, high=None, **kwargs):
    """Random integers in [low, high) (high alone: [0, high)), in input's shape and type."""
    if high is None:
        low, high = 0, low
    dtype = kwargs.pop("dtype", None) or input.dtype
    device = kwargs.pop("device", None) or input.device
    return _torch.randint(low, high, tuple(input.shape), device=device, **kwargs).to(dtype)


@surface.op(method=True)
def bernoulli(input, p=None, *, generator=None):
    """1 with probability input (or the number p), else 0, elementwise, in input's type."""
    if p is None:
        return _torch._t._bernoulli(input, None, generator)
    return _torch._t._bernoulli_like(input, float(p), generator)


# -- Tensor's own ---------------------------------------------------------------------

# -- more elementwise, joins, differences -------------------------------------------------

@surface.op(method=True, in_place=True)
def logical_not(input):
    """Where input is zero (a bool tensor)."""
    return input == 0


@surface.op(method=True)
def logical_and(input, other):
    """Where both are non-zero (a bool tensor)."""
    return (input != 0) & (other != 0)


@surface.op(method=True)
def logical_or(input, other):
    """Where either is non-zero (a bool tensor)."""
    return (input != 0) | (other != 0)


@surface.op(method=True)
def logical_xor(input, other):
    """Where exactly one is non-zero (a bool tensor)."""
    return (input != 0) ^ (other != 0)


@surface.op(method=True, in_place=True)
def clamp_min(input, min):
    """input.clamp(min=min)."""
    return input.clamp(min=min)


@surface.op(method=True, in_place=True)
def clamp_max(input, max):
    """input.clamp(max=max)."""
    return input.clamp(max=max)


@surface.op(method=True, in_place=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    return input + tensor1 * tensor2 * value


@surface.op(method=True, in_place=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2."""
    return input + tensor1 / tensor2 * value


@surface.op(method=True)
def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, values where input == 0."""
    step = (input > 0).to(input.dtype)
    return _torch.where(input == 0, values.to(input.dtype), step)


@surface.op()
def numel(input):
    """The number of elements."""
    return input.numel()


@surface.op()
def is_tensor(obj):
    """Whether obj is a tensor of this edition."""
    return isinstance(obj, _torch.Tensor)


@surface.op()
def std_mean(input, dim=None, unbiased=True, keepdim=False):
    """(std, mean) of input, or along dim."""
    if dim is None:
        return input.std(unbiased=unbiased), input.mean()
    return input.std(dim, unbiased=unbiased, keepdim=keepdim), input.mean(dim, keepdim=keepdim)


@surface.op()
def var_mean(input, dim=None, unbiased=True, keepdim=False):
    """(var, mean) of input, or along dim."""
    if dim is None:
        return input.var(unbiased=unbiased), input.mean()
    return input.var(dim, unbiased=unbiased, keepdim=keepdim), input.mean(dim, keepdim=keepdim)


# -- einsum -----------------------------------------------------------------------------------

class _EinsumOps:
    """The ops _einsum.einsum pushes, as this edition spells them."""
    error = RuntimeError

    @staticmethod
    def permute(x, order):
        return x.permute(*order)

    @staticmethod
    def expand(x, shape):
        return x.expand(*shape)

    @staticmethod
    def sum(x, dims):
        return x.sum(dim=dims)

    @staticmethod
    def bmm(a, b):
        return _torch.bmm(a, b)

    @staticmethod
    def arange(n, like):
        return _torch.arange(n, device=like.device)


@surface.op()
def einsum(equation, *operands):
    """Sums of products over the subscripts the equation names, '...'
    included (_einsum.py: a repeated subscript is a diagonal; the operands
    are contracted two at a time, each pair through one bmm)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _einsum.einsum(equation, operands, _EinsumOps)


@surface.op("new_zeros", function=False, method=True)
def _new_zeros(self, *size, **kwargs):
    kwargs.setdefault("dtype", self.dtype)
    kwargs.setdefault("device", self.device)
    return _torch.zeros(*size, **kwargs)


@surface.op("new_ones", function=False, method=True)
def _new_ones(self, *size, **kwargs):
    kwargs.setdefault("dtype", self.dtype)
    kwargs.setdefault("device", self.device)
    return _torch.ones(*size, **kwargs)


@surface.op("new_full", function=False, method=True)
def _new_full(self, size, fill_value, **kwargs):
    kwargs.setdefault("dtype", self.dtype)
    kwargs.setdefault("device", self.device)
    return _torch.full(size, fill_value, **kwargs)


@surface.op("new_tensor", function=False, method=True)
def _new_tensor(self, data, **kwargs):
    kwargs.setdefault("dtype", self.dtype)
    kwargs.setdefault("device", self.device)
    return _torch.tensor(data, **kwargs)


_ITEM_SIZES = {"float32": 4, "float64": 8, "int32": 4, "int64": 8, "uint8": 1, "bool": 1}


surface.method("where", lambda self, condition, other: _torch.where(condition, self, other))
surface.method("byte", lambda self: self.to(_torch.uint8))
surface.method("type_as", lambda self, other: self.to(other.dtype))
surface.method("view_as", lambda self, other: self.reshape(tuple(other.shape)))
surface.method("reshape_as", lambda self, other: self.reshape(tuple(other.shape)))
surface.method("expand_as", lambda self, other: self.expand(*other.shape))
surface.method("nelement", lambda self: self.numel())
surface.method("ndimension", lambda self: self.ndim)
surface.method("element_size", lambda self: _ITEM_SIZES[self.dtype._asyncscope_dtype])


def _installed(tensor_class):
    """The properties PyTorch's Tensor has that are made of methods."""
    if not hasattr(tensor_class, "mT"):
        tensor_class.mT = property(lambda self: self.transpose(-2, -1),
                                   doc="The transpose of the last two dims (of a batch of matrices).")
    if not hasattr(tensor_class, "is_cuda"):
        tensor_class.is_cuda = property(lambda self: self.device.type == "cuda",
                                        doc="Whether the tensor lives on a GPU.")
