"""PyTorch's functions that rearrange, combine or reduce whole tensors,
made of the edition's ops: ravel, broadcast_to / broadcast_shapes / broadcast_tensors,
movedim / moveaxis, take, diagonal / diag_embed / diagflat, tensor_split /
hsplit / vsplit / dsplit, atleast_3d, dstack / row_stack, unflatten,
narrow_copy, sum_to_size, block_diag, vdot, inner, tensordot, addmv /
addr / addbmm, aminmax, nansum / nanmean, cumprod / cummax / cummin /
logcumsumexp, trapezoid / trapz / cumulative_trapezoid, histogram; each a function
and, where PyTorch has one, a Tensor method (declared once,
python/asyncscope/_surface.py).

Each is the ops it is made of on the timeline. The running products and
extremes (cumprod, cummax, cummin) are one op per position along their dim,
as a loop of the frontend would be.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import torch as _torch
from . import return_types
from .composed import _dim, index_select, surface

_aminmax, _cummax, _cummin = return_types.aminmax, return_types.cummax, return_types.cummin


def _sizes(args):
    """A size given as ints or as one sequence."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, _torch.Size)):
        return tuple(args[0])
    return tuple(args)


@surface.op(method=True)
def ravel(input):
    """input as one dim."""
    return input.reshape(-1)


@surface.op(method=True)
def broadcast_to(input, size):
    """input stretched to `size` (expand)."""
    return input.expand(*size)


@surface.op()
def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (a torch.Size)."""
    dims = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    n = _builtins.max((len(d) for d in dims), default=0)
    out = [1] * n
    for d in dims:
        for k, size in enumerate(d):
            at = n - len(d) + k
            if size < 0:
                raise RuntimeError("Trying to create tensor with negative dimension %d: %s" % (size, list(d)))
            if size != 1:
                if out[at] not in (1, size):
                    raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape")
                out[at] = size
    return _torch.Size(out)


@surface.op()
def broadcast_tensors(*tensors):
    """The tensors stretched to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    shape = _torch.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(t.expand(*shape) for t in tensors)


@surface.op("movedim", "moveaxis", method=True)
def movedim(input, source, destination):
    """input with the dims at `source` moved to `destination`, the others in their order."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError("movedim: Invalid source or destination dims: source (%s dims) should contain the same "
                           "number of dims as destination (%s dims)" % (src, dst))
    n = input.ndim
    src = [_dim(input, d) for d in src]
    dst = [_dim(input, d) for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in source or destination")
    order = [None] * _builtins.max(n, 1)
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order][:n]
    return input.permute(*order) if n else input


@surface.op(method=True)
def take(input, index):
    """The elements of the flattened input at `index` (index's shape)."""
    return input.reshape(-1)[index.reshape(-1)].reshape(tuple(index.shape))


@surface.op(method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the matrices in dims dim1 and dim2, as a last dim (a view-free copy)."""
    d1, d2 = _dim(input, dim1), _dim(input, dim2)
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    rest = [d for d in range(input.ndim) if d not in (d1, d2)]
    moved = input.permute(*rest, d1, d2)
    rows, cols = moved.shape[-2], moved.shape[-1]
    count = _builtins.max(0, _builtins.min(rows + _builtins.min(offset, 0), cols - _builtins.max(offset, 0)))
    i = _torch.arange(count, device=input.device) + _builtins.max(-offset, 0)
    j = _torch.arange(count, device=input.device) + _builtins.max(offset, 0)
    if count == 0:
        return _torch.zeros(tuple(moved.shape[:-2]) + (0,), dtype=input.dtype, device=input.device)
    return moved[(slice(None),) * len(rest) + (i, j)]


@surface.op(method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (in dims dim1, dim2 of the result) with input's last dim on their diagonal."""
    n = input.shape[-1] + abs(offset)
    ndim = input.ndim + 1
    d1, d2 = dim1 % ndim, dim2 % ndim
    eye = _torch.zeros(input.shape[-1], n, n, dtype=input.dtype, device=input.device)
    k = _torch.arange(input.shape[-1], device=input.device)
    eye[k, k + _builtins.max(-offset, 0), k + _builtins.max(offset, 0)] = 1
    full = (input.unsqueeze(-1).unsqueeze(-1) * eye).sum(-3)  # (..., n, n)
    rest = list(range(input.ndim - 1))
    order = [None] * ndim
    order[d1], order[d2] = ndim - 2, ndim - 1
    it = iter(rest)
    order = [next(it) if o is None else o for o in order]
    return full.permute(*order)


@surface.op(method=True)
def diagflat(input, offset=0):
    """A matrix with the flattened input on its diagonal `offset`."""
    return diag_embed(input.reshape(-1), offset)


@surface.op(method=True)
def tensor_split(input, indices_or_sections, dim=0):
    """input cut along dim into n nearly equal parts, or at the given indices."""
    d = _dim(input, dim)
    size = input.shape[d]
    if isinstance(indices_or_sections, _torch.Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError("number of sections must be larger than 0, got %d" % n)
        big, small = size % n, size // n
        bounds, at = [], 0
        for k in range(n - 1):
            at += small + (1 if k < big else 0)
            bounds.append(at)
    else:
        bounds = list(indices_or_sections)
    edges = [0] + [_builtins.min(_builtins.max(b, 0), size) for b in bounds] + [size]
    return tuple(input.narrow(d, a, _builtins.max(b - a, 0)) for a, b in zip(edges, edges[1:]))


def _split_by(input, sections, dim, name, least):
    if input.ndim < least:
        raise RuntimeError("torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                           "dimensions!" % (name, least, input.ndim))
    if isinstance(sections, int) and input.shape[dim] % sections:
        raise RuntimeError("torch.%s attempted to split along dimension %d, but the size of the dimension %d is not "
                           "divisible by the split_size %d!" % (name, dim, input.shape[dim], sections))
    return tensor_split(input, sections, dim)


@surface.op(method=True)
def hsplit(input, sections):
    """tensor_split along dim 1 (dim 0 of a 1-D tensor)."""
    return _split_by(input, sections, 1 if input.ndim > 1 else 0, "hsplit", 1)


@surface.op(method=True)
def vsplit(input, sections):
    """tensor_split along dim 0 of a tensor of 2 or more dims."""
    return _split_by(input, sections, 0, "vsplit", 2)


@surface.op(method=True)
def dsplit(input, sections):
    """tensor_split along dim 2 of a tensor of 3 or more dims."""
    return _split_by(input, sections, 2, "dsplit", 3)


@surface.op()
def atleast_3d(input):
    """input with dims of 1 added (a 1-D one as (1, n, 1), a 2-D one as (m, n, 1)) up to 3 dims."""
    if input.ndim == 0:
        return input.reshape(1, 1, 1)
    if input.ndim == 1:
        return input.reshape(1, input.shape[0], 1)
    if input.ndim == 2:
        return input.unsqueeze(-1)
    return input


@surface.op()
def dstack(tensors):
    """The tensors, each at least 3-D, joined along dim 2."""
    return _torch.cat([atleast_3d(t) for t in tensors], dim=2)


@surface.op()
def row_stack(tensors):
    """vstack."""
    return _torch.vstack(tensors)


@surface.op(method=True)
def unflatten(input, dim, sizes):
    """input with dim split into `sizes` (one may be -1)."""
    d = _dim(input, dim)
    shape = tuple(input.shape)
    return input.reshape(shape[:d] + tuple(sizes) + shape[d + 1:])


@surface.op(method=True)
def narrow_copy(input, dim, start, length):
    """narrow, as a copy."""
    return input.narrow(dim, start, length).clone()


@surface.op(function=False, method=True)
def sum_to_size(self, *size):
    """The tensor summed down to `size` (which broadcasts to its shape)."""
    size = _sizes(size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    out = self
    if lead:
        out = out.sum(dim=tuple(range(lead)))
    dims = tuple(k for k, (want, have) in enumerate(zip(size, shape[lead:])) if want == 1 and have != 1)
    return out.sum(dim=dims, keepdim=True) if dims else out


@surface.op()
def block_diag(*tensors):
    """The tensors (0-d, 1-D as a row, 2-D) on the diagonal of a matrix of zeros."""
    mats = [t.reshape(1, -1) if t.ndim <= 1 else t for t in tensors]
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _torch.promote_types(dtype, m.dtype) if hasattr(_torch, "promote_types") else dtype
    rows = [m.shape[0] for m in mats]
    cols = [m.shape[1] for m in mats]
    pieces, left = [], 0
    total = _builtins.sum(cols)
    for m, c in zip(mats, cols):
        parts = []
        if left:
            parts.append(_torch.zeros(m.shape[0], left, dtype=dtype, device=m.device))
        parts.append(m.to(dtype))
        if total - left - c:
            parts.append(_torch.zeros(m.shape[0], total - left - c, dtype=dtype, device=m.device))
        pieces.append(_torch.cat(parts, dim=1) if len(parts) > 1 else parts[0])
        left += c
    if not pieces:
        return _torch.zeros(0, 0)
    return _torch.cat(pieces, dim=0) if _builtins.sum(rows) else _torch.zeros(0, total, dtype=dtype)


@surface.op(method=True)
def vdot(input, other):
    """The inner product of two 1-D tensors."""
    return _torch.dot(input, other)


@surface.op(method=True)
def inner(input, other):
    """The sums of products over the last dims of both (a product of numbers for a 0-d one)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    k = input.shape[-1]
    left = input.reshape(-1, k)
    right = other.reshape(-1, k)
    return (left @ right.T).reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


@surface.op()
def tensordot(a, b, dims=2, out=None):
    """The sum of products over a's last `dims` dims and b's first (or the dims listed for each)."""
    if isinstance(dims, _torch.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        dims_a = list(range(a.ndim - dims, a.ndim))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    dims_a = [_dim(a, d) for d in dims_a]
    dims_b = [_dim(b, d) for d in dims_b]
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = 1
    for d in dims_a:
        k *= a.shape[d]
    m = 1
    for d in free_a:
        m *= a.shape[d]
    n = 1
    for d in free_b:
        n *= b.shape[d]
    left = a.permute(*(free_a + dims_a)).reshape(m, k) if a.ndim else a.reshape(1, 1)
    right = b.permute(*(dims_b + free_b)).reshape(k, n) if b.ndim else b.reshape(1, 1)
    result = (left @ right).reshape(tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))
    return out.copy_(result) if out is not None else result


def _scaled(input, product, beta, alpha):
    scaled = product * alpha if alpha != 1 else product
    if beta == 0:
        return scaled + _torch.zeros_like(input)
    return (input * beta if beta != 1 else input) + scaled


@surface.op(method=True, in_place=True)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta input + alpha (mat @ vec)."""
    return _scaled(input, _torch.mv(mat, vec), beta, alpha)


@surface.op(method=True, in_place=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta input + alpha outer(vec1, vec2)."""
    return _scaled(input, _torch.outer(vec1, vec2), beta, alpha)


@surface.op(method=True, in_place=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta input + alpha (the sum of the products of the batches)."""
    return _scaled(input, _torch.bmm(batch1, batch2).sum(0), beta, alpha)


@surface.op(method=True)
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of everything, or along dim."""
    if dim is None:
        if keepdim:
            shape = (1,) * input.ndim
            return _aminmax(input.amin().reshape(shape), input.amax().reshape(shape))
        return _aminmax(input.amin(), input.amax())
    return _aminmax(input.amin(dim, keepdim), input.amax(dim, keepdim))


@surface.op(method=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaNs counted as zero."""
    x = input.to(dtype) if dtype is not None else input
    if x.is_floating_point():
        x = _torch.where(x != x, _torch.zeros_like(x), x)
    return x.sum() if dim is None else x.sum(dim=dim, keepdim=keepdim)


@surface.op(method=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN."""
    x = input.to(dtype) if dtype is not None else input
    count = (x == x).to(x.dtype)
    total = nansum(x, dim, keepdim)
    return total / (count.sum() if dim is None else count.sum(dim=dim, keepdim=keepdim))


def _running(input, dim, step):
    """The running combination of input along dim (a tensor of 1 or more
    dims): the parts to join, one op per position, and the dim."""
    d = _dim(input, dim)
    parts = []
    acc = None
    for i in range(input.shape[d]):
        cur = input.narrow(d, i, 1)
        acc = cur if acc is None else step(acc, cur, i)
        parts.append(acc)
    return parts, d


@surface.op(method=True, in_place=True)
def cumprod(input, dim, *, dtype=None):
    """The running product along dim."""
    x = input.to(dtype) if dtype is not None else input
    if x.dtype == _torch.bool:
        x = x.long()
    if x.ndim == 0:
        return x.clone()
    if x.shape[_dim(x, dim)] == 0:
        return x.clone()
    parts, d = _running(x, dim, lambda acc, cur, i: acc * cur)
    return _torch.cat(parts, dim=d)


def _cumulative_extreme(input, dim, better, result):
    d = _dim(input, dim)
    if input.ndim == 0:
        return result(input.clone(), _torch.zeros((), dtype=_torch.int64, device=input.device))
    if input.shape[d] == 0:
        return result(input.clone(), _torch.zeros(tuple(input.shape), dtype=_torch.int64, device=input.device))
    values, indices = [], []
    best = best_at = None
    for i in range(input.shape[d]):
        cur = input.narrow(d, i, 1)
        at = _torch.full(tuple(cur.shape), i, dtype=_torch.int64, device=input.device)
        if best is None:
            best, best_at = cur, at
        else:
            # A NaN wins and stays; a tie moves to the later position, as PyTorch's.
            take = (cur != cur) | ((best == best) & better(cur, best))
            best = _torch.where(take, cur, best)
            best_at = _torch.where(take, at, best_at)
        values.append(best)
        indices.append(best_at)
    return result(_torch.cat(values, dim=d), _torch.cat(indices, dim=d))


@surface.op(method=True)
def cummax(input, dim):
    """(values, indices): the running maximum along dim and where it was."""
    return _cumulative_extreme(input, dim, lambda a, b: a >= b, _cummax)


@surface.op(method=True)
def cummin(input, dim):
    """(values, indices): the running minimum along dim and where it was."""
    return _cumulative_extreme(input, dim, lambda a, b: a <= b, _cummin)


@surface.op(method=True)
def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along dim, shifted by the maximum against overflow."""
    d = _dim(input, dim)
    if input.ndim == 0 or input.numel() == 0:
        return input.clone()
    top = input.amax(dim=d, keepdim=True).detach()
    top = _torch.where((top == float("inf")) | (top == float("-inf")) | (top != top), _torch.zeros_like(top), top)
    return (input - top).exp().cumsum(d).log() + top


def _spacing(y, x, dx, dim):
    d = _dim(y, dim)
    n = y.shape[d]
    if x is not None:
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[d] = n
            x = x.reshape(shape)
        return x.narrow(d if x.ndim > 1 else d, 1, n - 1) - x.narrow(d, 0, n - 1), d
    return dx, d


def _trapezoids(y, x, dx, dim):
    """The areas of the trapezoids between neighbours of y along dim, and the dim."""
    if x is not None and not isinstance(x, _torch.Tensor):
        dx, x = x, None
    d = _dim(y, dim)
    n = y.shape[d]
    if n == 0:
        return None, d
    mids = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * 0.5
    step, _ = _spacing(y, x, 1.0 if dx is None else dx, d)
    return mids * step, d


@surface.op("trapezoid", "trapz")
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule's integral of y along dim (spacing dx, default 1, or the points x)."""
    areas, d = _trapezoids(y, x, dx, dim)
    return y.sum(d) * 0 if areas is None else areas.sum(d)


@surface.op()
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of y along dim (one fewer element there)."""
    areas, d = _trapezoids(y, x, dx, dim)
    return y.clone() if areas is None else areas.cumsum(d)


_histogram = return_types.histogram


def _linspace_edges(left, right, bins, dtype_name):
    """bins + 1 edges from left to right, computed as PyTorch's linspace
    computes them (from both ends, in the tensor's type), as NumPy values."""
    import numpy as np
    t = np.float32 if dtype_name == "float32" else np.float64
    start, end = t(left), t(right)
    steps = bins + 1
    step = (end - start) / t(steps - 1)
    edges = np.empty(steps, dtype=t)
    half = steps // 2
    for i in range(steps):
        edges[i] = start + step * t(i) if i < half else end - step * t(steps - 1 - i)
    return edges


@surface.op(method=True)
def histogram(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): how many elements (or how much weight) fall in each
    bin; `bins` equal bins over `range` (the elements' own range, read: a
    sync point, as PyTorch's) or a tensor of edges. Each bin holds its left
    edge, the last one its right edge too; elements outside are left out."""
    x = input.reshape(-1)
    if isinstance(bins, _torch.Tensor):
        edges = bins.to(input.dtype)
    else:
        if range is not None:
            left, right = float(range[0]), float(range[1])
        elif x.numel():
            low, high = x.aminmax()
            left, right = float(low), float(high)
        else:
            left, right = 0.0, 1.0
        if left > right:
            raise RuntimeError("torch.histogram(): max must be larger than min")
        if left == right:
            left, right = left - 0.5, right + 0.5
        edges = _torch.tensor(_linspace_edges(left, right, int(bins), input.dtype._asyncscope_dtype),
                              device=input.device)
    count = edges.shape[0] - 1
    first, last = edges[0], edges[-1]
    where = _torch.searchsorted(edges, x, right=True) - 1
    where = _torch.where(x == last, _torch.full_like(where, count - 1), where)
    inside = (x >= first) & (x <= last)
    amount = weight.reshape(-1).to(input.dtype) if weight is not None else _torch.ones_like(x)
    amount = _torch.where(inside, amount, _torch.zeros_like(amount))
    hits = (where.unsqueeze(1) == _torch.arange(count, device=input.device)).to(input.dtype)
    hist = (hits * amount.unsqueeze(1)).sum(0)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return _histogram(hist, edges)


# -- choices and padding -------------------------------------------------------------------

@surface.op()
def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-D tensor's elements, as rows (in order, with replacement if asked)."""
    import itertools
    if input.ndim != 1:
        raise RuntimeError("Expect a 1D vector, but got shape %s" % list(input.shape))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got %d" % r)
    if r == 0:
        return _torch.zeros(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return _torch.zeros(0, r, dtype=input.dtype, device=input.device)
    where = _torch.tensor([i for row in rows for i in row], device=input.device)
    return index_select(input, 0, where).reshape(len(rows), r)


@surface.op()
def constant_pad_nd(input, pad, value=0):
    """input padded by `pad` (pairs from the last dim back) with value (nn.functional.pad)."""
    from .nn import functional as _F
    return _F.pad(input, pad, value=value)
