"""PyTorch's scatters in the PyTorch edition: scatter / scatter_add /
scatter_reduce, index_add / index_copy / index_fill / index_reduce, put and
Tensor.unfold, functions and Tensor methods (with their in-place forms)
declared on composed.py's surface. Each written position is found by
comparing every index with every place along the dim, so a scatter is the
comparison, the products and the sums on the timeline, differentiable as
they are.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import torch as _torch
from .composed import _dim, index_select, surface
from .structural import movedim


def _scattered(input, dim, index, src):
    """What a scatter along dim writes: (the sum of the values sent to each
    place of input, how many were sent there), both of input's shape, and
    `pieces`, the values sent and the places hit before they are summed
    (for the other reductions): (m, n, ...) with m the index's size along
    dim and n input's. The index may be smaller than input in every dim."""
    if input.ndim == 0:
        one = src.reshape(1) if isinstance(src, _torch.Tensor) else src
        total, count, (values, hits, pad, back) = _scattered(input.reshape(1), 0, index.reshape(1), one)
        return total.reshape(()), count.reshape(()), (values, hits, pad, lambda x: back(x).reshape(()))
    d = _dim(input, dim)
    n = input.shape[d]
    idx = index.movedim(d, 0) if index.ndim else index.reshape(1)
    values = src.movedim(d, 0) if isinstance(src, _torch.Tensor) and src.ndim else src
    if isinstance(values, _torch.Tensor) and tuple(values.shape) != tuple(idx.shape):
        values = values[tuple(slice(0, k) for k in idx.shape)]
    if not isinstance(values, _torch.Tensor):
        values = _torch.full(tuple(idx.shape), values, dtype=input.dtype, device=input.device)
    values = values.to(input.dtype)
    places = _torch.arange(n, device=input.device).reshape((1, n) + (1,) * (idx.ndim - 1))
    hits = idx.unsqueeze(1) == places  # (m, n, r...)
    total = (values.unsqueeze(1) * hits.to(input.dtype)).sum(0)  # (n, r...)
    count = hits.to(input.dtype).sum(0)
    moved = input.movedim(d, 0)
    pad = []
    for have, want in zip(reversed(total.shape[1:]), reversed(moved.shape[1:])):
        pad += [0, want - have]
    if any(pad):
        from .nn import functional as _F
        total, count = _F.pad(total, pad), _F.pad(count, pad)

    def back(x):
        return x.movedim(0, d)
    return back(total), back(count), (values, hits, pad, back)


def _reduced(input, dim, index, src, reduce, include_self):
    """input with src's values combined into the places `index` names (scatter_reduce's rule)."""
    total, count, (values, hits, pad, back) = _scattered(input, dim, index, src)
    hit = count > 0
    if reduce == "sum":
        out = total + (input if include_self else 0)
    elif reduce == "mean":
        out = (total + (input if include_self else 0)) / (count + (1 if include_self else 0)).clamp(min=1)
        if not input.is_floating_point():
            out = out.floor()
    elif reduce in ("prod", "amax", "amin"):
        fill = {"prod": 1.0, "amax": float("-inf"), "amin": float("inf")}[reduce]
        if not input.is_floating_point() and reduce != "prod":
            fill = -(2 ** 62) if reduce == "amax" else 2 ** 62
        spread = _torch.where(hits, values.unsqueeze(1), _torch.full_like(values.unsqueeze(1), fill))
        part = spread.prod(0) if reduce == "prod" else (spread.amax(0) if reduce == "amax" else spread.amin(0))
        if any(pad):
            from .nn import functional as _F
            part = _F.pad(part, pad, value=fill)
        part = back(part)
        if include_self:
            part = part * input if reduce == "prod" else (
                _torch.maximum(part, input) if reduce == "amax" else _torch.minimum(part, input))
        out = part
    else:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got %s" % reduce)
    return _torch.where(hit, out.to(input.dtype), input)


@surface.op(method=True, in_place=True)
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """input with src's values (or one value) written at the places index
    names along dim; reduce='add' or 'multiply' combines them instead.
    Where two values go to one place, their mean is written (PyTorch leaves
    which one wins unspecified)."""
    if src is None:
        src = value
    if reduce is not None:
        return _reduced(input, dim, index, src, {"add": "sum", "multiply": "prod"}[reduce], True)
    total, count, _ = _scattered(input, dim, index, src)
    return _torch.where(count > 0, (total / count.clamp(min=1)).to(input.dtype), input)


@surface.op(method=True, in_place=True)
def scatter_add(input, dim, index, src):
    """input plus src's values added at the places index names along dim."""
    return _reduced(input, dim, index, src, "sum", True)


@surface.op(method=True, in_place=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """input with src's values combined (sum, prod, mean, amax, amin) into the places index names along dim."""
    return _reduced(input, dim, index, src, reduce, include_self)


def _index_spread(input, dim, index, source):
    """index_add's rule as a scatter: each slice source[..., i, ...] along dim goes to slice index[i]."""
    d = _dim(input, dim)
    shape = [1] * _builtins.max(source.ndim, 1)
    shape[d if source.ndim else 0] = index.numel()
    full = index.reshape(shape).expand(*source.shape) if source.ndim else index.reshape(())
    return d, full


@surface.op(method=True, in_place=True)
def index_add(input, dim, index, source, *, alpha=1):
    """input with alpha * source's slices added at the slices index names along dim."""
    d, full = _index_spread(input, dim, index, source)
    return _reduced(input, d, full, source * alpha if alpha != 1 else source, "sum", True)


@surface.op(method=True, in_place=True)
def index_copy(input, dim, index, source):
    """input with source's slices written at the slices index names along dim."""
    d, full = _index_spread(input, dim, index, source)
    return scatter(input, d, full, source)


@surface.op(method=True, in_place=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices combined (prod, mean, amax, amin) into the slices index names along dim."""
    d, full = _index_spread(input, dim, index, source)
    return _reduced(input, d, full, source, reduce, include_self)


@surface.op(method=True, in_place=True)
def index_fill(input, dim, index, value):
    """input with the slices index names along dim set to value."""
    d = _dim(input, dim)
    places = _torch.arange(input.shape[d] if input.ndim else 1, device=input.device)
    chosen = (index.reshape(-1, 1) == places).any(0)
    shape = [1] * input.ndim
    if input.ndim:
        shape[d] = input.shape[d]
    mask = chosen.reshape(shape) if input.ndim else chosen.reshape(())
    fill = value if isinstance(value, _torch.Tensor) else _torch.full((), value, dtype=input.dtype,
                                                                         device=input.device)
    return _torch.where(mask, fill.to(input.dtype), input)


@surface.op(method=True, in_place=True)
def put(input, index, source, accumulate=False):
    """input with source's values at the flat places index names (added with accumulate)."""
    flat = input.reshape(-1)
    index = index.reshape(-1)
    index = _torch.where(index < 0, index + flat.shape[0], index)
    out = _reduced(flat, 0, index.reshape(-1), source.reshape(-1), "sum", True) if accumulate else scatter(
        flat, 0, index.reshape(-1), source.reshape(-1))
    return out.reshape(tuple(input.shape))


@surface.op(function=False, method=True)
def unfold(self, dimension, size, step):
    """The slices of length `size` along `dimension`, `step` apart, as a new last dim."""
    d = _dim(self, dimension)
    n = self.shape[d] if self.ndim else 1
    if size > n:
        raise RuntimeError("maximum size for tensor at dimension %d is %d but size is %d" % (d, n, size))
    if step <= 0:
        raise RuntimeError("step is %d but must be > 0" % step)
    if self.ndim == 0:
        return self.reshape(1)
    count = (n - size) // step + 1
    starts = _torch.arange(count, device=self.device) * step
    where = (starts.reshape(-1, 1) + _torch.arange(size, device=self.device)).reshape(-1)
    picked = index_select(self, d, where)  # (..., count * size, ...)
    shape = tuple(self.shape)
    picked = picked.reshape(shape[:d] + (count, size) + shape[d + 1:])
    return picked.movedim(d + 1, -1)
