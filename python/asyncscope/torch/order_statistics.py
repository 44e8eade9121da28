"""PyTorch's statistics, positions and unique values in the PyTorch
edition: median / nanmedian, kthvalue, quantile / nanquantile (on its
sorting op), cov / corrcoef, nonzero / argwhere, count_nonzero and unique /
unique_consecutive, functions and Tensor methods declared on composed.py's
surface. nonzero and unique read a mask, since their sizes depend on the
values (as PyTorch's do on a GPU): sync points.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import _order
from .. import torch as _torch
from . import return_types
from .composed import _dim, index_select, isnan, narrow, surface


_median_result, _nanmedian_result, _kthvalue_result = (return_types.median, return_types.nanmedian,
                                                       return_types.kthvalue)


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
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile over the values that are not NaN (NaN for a line of NaNs only)."""
    x, d, qs, scalar = _quantile_lines(input, q, dim, interpolation)
    ordered = _torch.sort(x, dim=d).values  # NaNs last
    valid = (x == x).to(_torch.int64).sum(d, keepdim=True)
    top = (valid - 1).clamp(min=0)
    outs = []
    for v in qs:
        pos = top.to(x.dtype) * v
        low, high = pos.floor(), pos.ceil()
        if interpolation == "lower":
            pos = low
        elif interpolation == "higher":
            pos = high
        elif interpolation == "nearest":
            pos = pos.round()
        a = _torch.take_along_dim(ordered, low.long() if interpolation in ("linear", "midpoint") else pos.long(), d)
        if interpolation in ("linear", "midpoint"):
            b = _torch.take_along_dim(ordered, high.long(), d)
            frac = (pos - low) if interpolation == "linear" else _torch.full_like(pos, 0.5)
            a = a + (b - a) * frac
        a = _torch.where(valid == 0, _torch.full_like(a, float("nan")), a)
        outs.append(a)
    if dim is None or input.ndim == 0:
        outs = [o.reshape((1,) * input.ndim if keepdim else ()) for o in outs]
    elif not keepdim:
        outs = [o.squeeze(d) for o in outs]
    return outs[0] if scalar else _torch.stack(outs)


@surface.op(method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows (observations
    in its columns; a 1-D input is one variable, its variance 0-d), with
    frequency and observation weights and the `correction` of the count."""
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if not x.is_floating_point():
        x = x.to(_torch.float32)
    observations = x.shape[1]
    weights = None
    if fweights is not None:
        weights = fweights.to(x.dtype)
    if aweights is not None:
        weights = aweights.to(x.dtype) if weights is None else weights * aweights
    if weights is None:
        total = float(observations)
        mean = x.mean(1, keepdim=True) if observations else x.sum(1, keepdim=True)
        norm = total - correction
    else:
        total = weights.sum()
        mean = (x * weights).sum(1, keepdim=True) / total
        if correction == 0:
            norm = total
        elif aweights is None:
            norm = total - correction
        else:
            norm = total - correction * (weights * aweights).sum() / total
    if isinstance(norm, float):
        norm = _builtins.max(norm, 0.0)
    else:
        norm = norm.clamp(min=0)
    centred = x - mean
    scaled = centred if weights is None else centred * weights
    return ((scaled @ centred.T) / norm).squeeze()


@surface.op(method=True)
def corrcoef(input):
    """Pearson's correlation coefficients of the variables in input's rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = _torch.diagonal(c).sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1.0, 1.0)


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
