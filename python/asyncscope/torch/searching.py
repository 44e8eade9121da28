"""PyTorch's distances, searching and counting in the PyTorch edition:
cdist (and nn.functional's cosine_similarity and pairwise_distance),
searchsorted / bucketize, bincount, histc and tril_indices / triu_indices,
functions and Tensor methods declared on composed.py's surface, made of
the edition's ops. bincount and histc read their input's range first:
sync points, as in PyTorch.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import torch as _torch
from .composed import _INF, surface
from .joins import atleast_1d


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
