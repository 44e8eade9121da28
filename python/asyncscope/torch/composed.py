"""PyTorch functions and Tensor methods made of the edition's own ops
(comparisons, where, indexing, reductions, cat, sort): torch.eq and the
other comparisons, isnan / isinf / isfinite, isclose / allclose, rsqrt,
narrow, select, unbind, index_select, gather, masked_fill, diag, trace,
tril / triu, logsumexp, lerp, dist, roll, addmm / baddbmm, meshgrid,
logspace, empty, randint_like, bernoulli, median / nanmedian, kthvalue,
quantile, nonzero / argwhere, count_nonzero, unique / unique_consecutive, einsum, the logical
functions, clamp_min / clamp_max, addcmul / addcdiv, heaviside, std_mean /
var_mean, hstack / vstack / column_stack, fliplr / flipud / rot90, diff,
cross, kron, cdist, searchsorted / bucketize, bincount, tril_indices /
triu_indices and histc, plus a Tensor's
new_zeros / new_ones / new_full, type_as / view_as / reshape_as /
expand_as, is_cuda, mT, nelement, ndimension and element_size, where and byte.
Each is the ops it is made of on the timeline: asynchronous as they are
(allclose, which returns a Python bool, waits as item() does; nonzero and
unique read a mask, since their sizes depend on the values, as PyTorch's
do on a GPU), differentiable where they are.

narrow, select and unbind give views, as basic indexing does (writing one
writes the tensor); empty returns zeros (its values are unspecified).

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins
import collections as _collections

from .. import _einsum, _joins, _order
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


@surface.op()
def atleast_1d(input):
    """input, a 0-d tensor as one of shape (1,)."""
    return input.reshape(1) if input.ndim == 0 else input


@surface.op()
def atleast_2d(input):
    """input with leading dims of 1 up to 2 dims."""
    return input.reshape((1,) * (2 - input.ndim) + tuple(input.shape)) if input.ndim < 2 else input


@surface.op()
def hstack(tensors):
    """The tensors joined along dim 1 (dim 0 for 1-D ones)."""
    parts = [atleast_1d(t) for t in tensors]
    return _torch.cat(parts, dim=0 if parts[0].ndim == 1 else 1)


@surface.op()
def vstack(tensors):
    """The tensors, each at least 2-D, joined along dim 0."""
    return _torch.cat([atleast_2d(t) for t in tensors], dim=0)


@surface.op()
def column_stack(tensors):
    """The tensors as columns: 0-d and 1-D ones as (n, 1), joined along dim 1."""
    return _torch.cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], dim=1)


@surface.op(method=True)
def fliplr(input):
    """input reversed along dim 1."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


@surface.op(method=True)
def flipud(input):
    """input reversed along dim 0."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


@surface.op(method=True)
def rot90(input, k=1, dims=(0, 1)):
    """input turned by 90 degrees k times, from the first of dims towards the second."""
    if len(dims) != 2:
        raise RuntimeError("expected total rotation dims == 2, but got dims = %d" % len(dims))
    d0, d1 = _dim(input, dims[0]), _dim(input, dims[1])
    if d0 == d1:
        raise RuntimeError("expected rotation dims to be different, but got dim0 = %d and dim1 = %d" % (d0, d1))
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip(d0).flip(d1)
    if k == 3:
        return input.transpose(d0, d1).flip(d1)
    return input.clone()


@surface.op(method=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th differences along dim (of bools: where neighbours differ),
    after prepend and append are joined on."""
    d = _dim(input, dim)
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _torch.cat(parts, dim=d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        later, earlier = narrow(x, d, 1, length - 1), narrow(x, d, 0, length - 1)
        x = later ^ earlier if x.dtype == _torch.bool else later - earlier
    return x


@surface.op(method=True)
def cross(input, other, dim=None):
    """The cross product of 3-vectors along dim (the first of size 3 without dim)."""
    if dim is None:
        dim = next((k for k in range(input.ndim) if input.shape[k] == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    d = _dim(input, dim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %d and %d"
                           % (d, input.shape[d], other.shape[d]))
    a = [narrow(input, d, i, 1) for i in range(3)]
    b = [narrow(other, d, i, 1) for i in range(3)]
    return _torch.cat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], dim=d)


@surface.op(method=True)
def kron(input, other):
    """The Kronecker product of two tensors of up to 2 dims: each element of
    input times the whole of other, in input's layout."""
    if input.ndim > 2 or other.ndim > 2:
        raise NotImplementedError("kron: tensors of up to 2 dims (the engine's arrays have at most 4)")
    a, b = atleast_2d(input), atleast_2d(other)
    (m, n), (p, q) = tuple(a.shape), tuple(b.shape)
    out = (a.reshape(m, 1, n, 1) * b.reshape(1, p, 1, q)).reshape(m * p, n * q)
    return out.reshape(-1) if input.ndim <= 1 and other.ndim <= 1 else out


# -- distances ------------------------------------------------------------------------------

def _p_norm(x, p, dim, keepdim=False):
    """The p-norm of x along dim (p = inf: the largest magnitude; p = 0:
    how many are not zero)."""
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim=dim, keepdim=keepdim)
    if p == _INF:
        return x.abs().amax(dim=dim, keepdim=keepdim)
    if p == 2:
        return (x * x).sum(dim=dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim=dim, keepdim=keepdim)
    return (x.abs() ** p).sum(dim=dim, keepdim=keepdim) ** (1.0 / p)


@surface.op()
def cdist(x1, x2, p=2.0, compute_mode=None):
    """The p-norm distance of each row of x1 to each row of x2 (batched over
    leading dims): every difference is formed, (..., P, R, M)."""
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: %d X2: %d"
                           % (x1.shape[-1], x2.shape[-1]))
    if x1.ndim <= 3 and x2.ndim <= 3:
        return _p_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, -1)
    # Batch dims beyond one: broadcast and folded into one, so the differences stay 4-D.
    batch = _torch.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    (rows1, m), rows2 = tuple(x1.shape[-2:]), x2.shape[-2]
    a = x1.expand(*batch, rows1, m).reshape(-1, rows1, m)
    b = x2.expand(*batch, rows2, m).reshape(-1, rows2, m)
    return _p_norm(a.unsqueeze(-2) - b.unsqueeze(-3), p, -1).reshape(*batch, rows1, rows2)


def _cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / max(|x1| |x2|, eps) along dim, the two broadcast first."""
    dot_ = x1 * x2
    shape = tuple(dot_.shape)
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    dot_ = dot_.sum(dim=dim)
    both = ((x1 * x1).sum(dim=dim) * (x2 * x2).sum(dim=dim)).clamp(min=eps * eps).sqrt()
    return dot_ / both


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    return _p_norm(x1 - x2 + eps, p, -1, keepdim)


# -- searching and counting -----------------------------------------------------------------

@surface.op()
def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """For each of values, the place in sorted_sequence (its last dim sorted,
    leading dims matching values') where it would go: after the equal ones
    with right=True (side='right'). Each value is compared with the whole
    sequence: (..., len(values), len(sequence)) comparisons at once."""
    if sorter is not None:
        sorted_sequence = _torch.take_along_dim(sorted_sequence, sorter, dim=-1)
    if side is not None:
        right = side == "right"
    v = values if isinstance(values, _torch.Tensor) else _torch.tensor(values, device=sorted_sequence.device)
    scalar = v.ndim == 0
    v = atleast_1d(v)
    seq = sorted_sequence if sorted_sequence.ndim > 1 else sorted_sequence.reshape((1,) * (v.ndim - 1) + (-1,))
    below = seq.unsqueeze(-2) <= v.unsqueeze(-1) if right else seq.unsqueeze(-2) < v.unsqueeze(-1)
    out = below.sum(dim=-1).to(_torch.int32 if out_int32 else _torch.int64)
    return out.reshape(()) if scalar else out


@surface.op()
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element: i where boundaries[i-1] < x <= boundaries[i]
    (with right=True, boundaries[i-1] <= x < boundaries[i])."""
    if boundaries.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim(%d)" % boundaries.ndim)
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@surface.op(method=True)
def bincount(input, weights=None, minlength=0):
    """How often each of 0..max(input) occurs in a 1-D int tensor (the sum of
    weights there, with weights). Its length depends on the largest value,
    which is read: a sync point, as in PyTorch."""
    if input.ndim != 1 or input.is_floating_point() or input.dtype == _torch.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.numel() and int(input.min().item()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    n = _builtins.max(int(input.max().item()) + 1 if input.numel() else 0, minlength)
    hits = input.unsqueeze(1) == _torch.arange(n, device=input.device).unsqueeze(0)
    if weights is None:
        return hits.sum(dim=0) if input.numel() else _torch.zeros(n, dtype=_torch.int64, device=input.device)
    w = weights.to(_torch.float64) if not weights.is_floating_point() else weights
    return (hits.to(w.dtype) * w.unsqueeze(1)).sum(dim=0)


def _triangle_indices(row, col, offset, lower, dtype, device):
    import numpy
    r, c = numpy.tril_indices(row, offset, col) if lower else numpy.triu_indices(row, offset, col)
    return _torch.tensor(numpy.stack([r, c]).astype(numpy.int64), device=device).to(dtype)


@surface.op()
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The coordinates (2, N) of a row x col matrix's lower triangle, offset diagonals up."""
    return _triangle_indices(row, col, offset, True, dtype or _torch.int64, device)


@surface.op()
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The coordinates (2, N) of a row x col matrix's upper triangle, offset diagonals up."""
    return _triangle_indices(row, col, offset, False, dtype or _torch.int64, device)


@surface.op(method=True)
def histc(input, bins=100, min=0, max=0):
    """Counts of input's elements in bins equal bins from min to max (the
    elements' own range when both are 0, read: a sync point); elements
    outside are left out. Of input's floating type."""
    if not input.is_floating_point():
        raise RuntimeError("\"histogram_cpu\" not implemented for '%s'" % str(input.dtype).replace("torch.", "").title())
    lo, hi = float(min), float(max)
    if lo == hi and input.numel():
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.reshape(-1)
    inside = (x >= lo) & (x <= hi)
    place = ((x - lo) * (bins / (hi - lo))).floor().clamp(0, bins - 1).long()
    hits = (place.unsqueeze(1) == _torch.arange(bins, device=input.device).unsqueeze(0)) & inside.unsqueeze(1)
    return hits.sum(dim=0).to(input.dtype)


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


# -- order statistics, positions, unique values (on the sorting op) -------------------------

_median_result = _collections.namedtuple("median", ["values", "indices"])
_nanmedian_result = _collections.namedtuple("nanmedian", ["values", "indices"])
_kthvalue_result = _collections.namedtuple("kthvalue", ["values", "indices"])


def _picked(sorted_pair, d, k, keepdim):
    """(values, indices) at sorted place k along d, d kept or removed."""
    values, indices = narrow(sorted_pair.values, d, k, 1), narrow(sorted_pair.indices, d, k, 1)
    return (values, indices) if keepdim else (values.squeeze(d), indices.squeeze(d))


@surface.op(method=True)
def median(input, dim=None, keepdim=False):
    """The lower of the two middle values (NaN where there is a NaN); with
    dim, (values, indices) along it."""
    if dim is None:
        flat = input.reshape(-1)
        n = flat.shape[0]
        if n == 0:
            return _torch.full((), float("nan"), dtype=input.dtype, device=input.device)
        ordered = _torch.sort(flat).values
        return _torch.where(isnan(ordered[n - 1]), ordered[n - 1], ordered[(n - 1) // 2])
    d = _dim(input, dim)
    if input.ndim == 0:
        return _median_result(input.clone(), _torch.zeros((), dtype=_torch.int64, device=input.device))
    n = input.shape[d]
    if n == 0:
        raise IndexError("median(): Expected reduction dim %d to have non-zero size." % d)
    s = _torch.sort(input, dim=d)
    values, indices = _picked(s, d, (n - 1) // 2, True)
    if input.is_floating_point():
        # A line with a NaN gives its first NaN (they sort last, in their order).
        nans = isnan(input).sum(dim=d, keepdim=True)
        first_nan = _torch.take_along_dim(s.indices, (n - nans).clamp(max=n - 1), dim=d)
        values = _torch.where(nans > 0, _torch.full((), float("nan"), dtype=input.dtype, device=input.device), values)
        indices = _torch.where(nans > 0, first_nan, indices)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return _median_result(values, indices)


@surface.op(method=True)
def nanmedian(input, dim=None, keepdim=False):
    """median() of the values that are not NaN (NaN where all are); with dim,
    (values, indices) along it."""
    if not input.is_floating_point():
        return median(input, dim, keepdim)
    flat = dim is None
    x = input.reshape(-1) if flat else input
    d = 0 if flat else _dim(input, dim)
    if x.ndim == 0:
        return _nanmedian_result(x.clone(), _torch.zeros((), dtype=_torch.int64, device=x.device))
    if x.shape[d] == 0:
        if flat:
            return _torch.full((), float("nan"), dtype=input.dtype, device=input.device)
        raise IndexError("nanmedian(): Expected reduction dim %d to have non-zero size." % d)
    s = _torch.sort(x, dim=d)
    numbers = (~isnan(x)).sum(dim=d, keepdim=True)
    place = ((numbers - 1) // 2).clamp(min=0)
    values = _torch.take_along_dim(s.values, place, dim=d)
    if flat:
        return values.reshape(())
    indices = _torch.take_along_dim(s.indices, place, dim=d)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return _nanmedian_result(values, indices)


@surface.op(method=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices): the k-th smallest (from 1) along dim."""
    d = _dim(input, dim)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError("kthvalue(): selected number k out of range for dimension %d" % d)
    if input.ndim == 0:
        return _kthvalue_result(input.clone(), _torch.zeros((), dtype=_torch.int64, device=input.device))
    return _kthvalue_result(*_picked(_torch.sort(input, dim=d), d, k - 1, keepdim))


def _quantile_lines(input, q, dim, interpolation):
    """quantile's and nanquantile's arguments checked as PyTorch checks them:
    the lines (x, their dim d), the quantiles asked (floats) and whether q
    was one number."""
    if not input.is_floating_point():
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _order.METHODS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           "Got %s" % interpolation)
    if isinstance(q, _torch.Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        qs, scalar = [float(v) for v in q.reshape(-1).tolist()], q.ndim == 0
    else:
        qs, scalar = [float(q)], True
    if any(not 0 <= v <= 1 for v in qs):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _dim(input, dim)
    if x.ndim == 0:
        x, d = x.reshape(1), 0
    if x.shape[d] == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    return x, d, qs, scalar


@surface.op(method=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q a number or a 1-D tensor in [0, 1]) of input, or
    of its lines along dim; interpolation linear, lower, higher, midpoint or
    nearest; NaN where a line has a NaN. A tensor q is read (a sync point),
    as PyTorch reads it to check its range."""
    x, d, qs, scalar = _quantile_lines(input, q, dim, interpolation)
    outs = _order.quantiles(_torch.sort(x, dim=d).values, d, qs, interpolation, _torch.where, isnan)
    if dim is None:
        outs = [v.reshape((1,) * input.ndim if keepdim else ()) for v in outs]
    elif not keepdim and input.ndim > 0:
        outs = [v.squeeze(d) for v in outs]
    return outs[0] if scalar else _torch.stack(outs)


@surface.op(method=True)
def nonzero(input, *, as_tuple=False):
    """The coordinates of input's non-zero elements, row-major: an int64
    tensor of (count, ndim), or with as_tuple one tensor per dimension. The
    count decides the shape, so the mask is read: a sync point, as in
    PyTorch."""
    flat = (input != 0).reshape(-1)
    positions = _torch.arange(flat.shape[0], device=input.device)[flat]
    coords = _order.coordinates(positions, tuple(input.shape))
    if as_tuple:
        return tuple(coords) if coords else (_torch.zeros(positions.shape[0], dtype=_torch.int64,
                                                          device=input.device),)
    if not coords:
        return _torch.zeros((positions.shape[0], 0), dtype=_torch.int64, device=input.device)
    return _torch.stack(coords, dim=1)


@surface.op(method=True)
def argwhere(input):
    """nonzero(input): the coordinates of the non-zero elements, (count, ndim)."""
    return nonzero(input)


@surface.op(method=True)
def count_nonzero(input, dim=None):
    """How many elements are non-zero (along dim)."""
    mask = input != 0
    return mask.sum() if dim is None else mask.sum(dim=dim)


def _runs(keys, order, starts, n, device, return_inverse, return_counts):
    """What unique and unique_consecutive return besides the values, from
    the rows' order (`order`, the i-th of the ordered rows is input row
    order[i]) and where each run of equal rows starts."""
    out = []
    if return_inverse:
        inverse = _torch.zeros(n, dtype=_torch.int64, device=device)
        if n:
            inverse[order] = starts.long().cumsum(0) - 1
        out.append(inverse)
    if return_counts:
        positions = _torch.arange(n, device=device)[starts]
        ends = _torch.cat([positions[1:], _torch.full((1,), n, dtype=_torch.int64, device=device)])
        out.append(ends - positions if n else _torch.zeros(0, dtype=_torch.int64, device=device))
    return out


def _run_starts(rows, n):
    """Where a run of equal rows (or values) starts in `rows`, ordered: the
    first, and each that differs from the one before (NaN differs from
    everything, as in PyTorch)."""
    if n == 0:
        return _torch.zeros(0, dtype=_torch.bool, device=rows.device)
    first = _torch.ones(1, dtype=_torch.bool, device=rows.device)
    differs = rows[1:] != rows[:-1]
    if differs.ndim > 1:
        differs = differs.reshape(n - 1, -1).any(1) if differs.numel() else _torch.zeros(n - 1, dtype=_torch.bool,
                                                                                       device=rows.device)
    return _torch.cat([first, differs])


def _unique_along(input, dim, return_inverse, return_counts, consecutive):
    """unique / unique_consecutive of the slices of input along dim."""
    d = _dim(input, dim)
    n = input.shape[d]
    if n and any(size == 0 for k, size in enumerate(input.shape) if k != d):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    moved = input.transpose(0, d) if d else input
    width = 1
    for size in moved.shape[1:]:
        width *= size
    rows = moved.reshape(n, width)
    order = _torch.arange(n, device=input.device)
    if not consecutive:
        # Rows in lexicographic order: stable sorts by each column, the last first.
        for j in range(rows.shape[1] - 1, -1, -1):
            _, by = _torch.sort(index_select(rows, 0, order)[:, j], stable=True)
            order = order[by]
    ordered = index_select(rows, 0, order)
    starts = _run_starts(ordered, n)
    kept = index_select(moved, 0, order[starts]) if n else moved
    values = kept.transpose(0, d) if d else kept
    out = [values] + _runs(rows, order, starts, n, input.device, return_inverse, return_counts)
    return out[0] if len(out) == 1 else tuple(out)


@surface.op(method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input, ascending (also with sorted=False, where
    PyTorch leaves the order unspecified); with return_inverse each
    element's place among them (input's shape), with return_counts how often
    each occurs. Each NaN is distinct, as in PyTorch. With dim, the distinct
    slices along dim, in lexicographic order. The count decides the shape,
    so a mask is read: a sync point, as in PyTorch."""
    if dim is not None:
        return _unique_along(input, dim, return_inverse, return_counts, False)
    flat = input.reshape(-1)
    n = flat.shape[0]
    values, order = _torch.sort(flat, stable=True)
    starts = _run_starts(values, n)
    out = [values[starts]] + _runs(flat, order, starts, n, input.device, return_inverse, return_counts)
    if return_inverse:
        out[1] = out[1].reshape(tuple(input.shape))
    return out[0] if len(out) == 1 else tuple(out)


@surface.op(method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first of each run of equal consecutive values (or, with dim,
    slices along dim); with return_inverse each element's run, with
    return_counts each run's length. A sync point, as unique."""
    if dim is not None:
        return _unique_along(input, dim, return_inverse, return_counts, True)
    flat = input.reshape(-1)
    n = flat.shape[0]
    starts = _run_starts(flat, n)
    out = [flat[starts]] + _runs(flat, _torch.arange(n, device=input.device), starts, n, input.device,
                                 return_inverse, return_counts)
    if return_inverse:
        out[1] = out[1].reshape(tuple(input.shape))
    return out[0] if len(out) == 1 else tuple(out)


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
