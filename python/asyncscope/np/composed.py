"""NumPy functions of MXNet's np interface made of its own ops (comparisons,
where, indexing, reductions, concatenate, sort): where with numbers as well
as arrays (and where(condition) as nonzero), amax / amin, isnan / isinf / isfinite, isclose / allclose /
array_equal, logical_not, reciprocal, true_divide, log2, log10, tan,
around / round (halves to even, as NumPy and MXNet's np), ravel, copy,
full_like, broadcast_to, hstack, vstack, identity, diag, diagonal, trace,
tril, triu, roll, meshgrid, take, moveaxis, append and pad (constant),
median, nanmedian, quantile, percentile, nonzero, flatnonzero, argwhere,
count_nonzero, unique and einsum, and the ndarray methods ravel, transpose, clip,
repeat, take, round, diagonal, trace and nonzero. Each is the ops it is
made of on the timeline, asynchronous as they are (allclose and
array_equal, which return a Python bool, wait as item() does; nonzero,
argwhere and unique read a mask, since their sizes depend on the values),
differentiable where they are.

Threading: the frontend thread, as every op of the interface.
"""

import builtins as _builtins
import math as _math
import numbers as _numbers

import numpy as _numpy

from .. import _core, _einsum, _joins, _order

# NumPy's error for an axis out of range (an IndexError and a ValueError).
AxisError = getattr(_numpy, "AxisError", None) or _numpy.exceptions.AxisError

_np = _core.np
ndarray = _np.ndarray


def _array_like(value, like):
    """value as an ndarray: a number becomes a 0-d array of like's type (or float32)."""
    if isinstance(value, ndarray):
        return value
    dtype = like.dtype if isinstance(like, ndarray) else ("bool" if isinstance(value, bool) else "float32")
    ctx = like.ctx if isinstance(like, ndarray) else None
    return _np.full((), value, dtype=dtype, ctx=ctx)


def _axis(a, axis):
    n = a.ndim
    if not -n <= axis < n:
        raise AxisError("axis %d is out of bounds for array of dimension %d" % (axis, n))
    return axis % n


def _along(a, axis, index):
    return a[(slice(None),) * _axis(a, axis) + (index,)]


def _zero(a):
    return _np.zeros((), dtype=a.dtype, ctx=a.ctx)


# -- where, tests and comparisons -------------------------------------------------------

def where(condition, x=None, y=None):
    """x where condition is true, else y (either may be a number)."""
    if x is None and y is None:
        return nonzero(condition)  # NumPy's where(condition): a sync point, as nonzero is
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    x, y = _array_like(x, y), _array_like(y, x)
    return _np.where(condition, x, y)


def amax(a, axis=None, keepdims=False):
    """The maximum (of all elements, or along axis)."""
    return _np.max(a, axis=axis, keepdims=keepdims)


def amin(a, axis=None, keepdims=False):
    """The minimum (of all elements, or along axis)."""
    return _np.min(a, axis=axis, keepdims=keepdims)


def _is_float(a):
    return a.dtype.kind == "f"


def isnan(x):
    """Where x is NaN (never, for integers and bools)."""
    return x != x if _is_float(x) else _np.zeros(x.shape, dtype="bool", ctx=x.ctx)


def isinf(x):
    """Where x is +inf or -inf."""
    return _np.abs(x) == _math.inf if _is_float(x) else _np.zeros(x.shape, dtype="bool", ctx=x.ctx)


def isfinite(x):
    """Where x is neither infinite nor NaN (x - x is 0 exactly there)."""
    return (x - x) == 0 if _is_float(x) else _np.ones(x.shape, dtype="bool", ctx=x.ctx)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b|, elementwise; equal infinities are close,
    NaN only to NaN with equal_nan."""
    a, b = _array_like(a, b), _array_like(b, a)
    if not _is_float(a) or not _is_float(b):
        a, b = a.astype("float64"), b.astype("float64")
    close = _np.logical_or(_np.abs(a - b) <= atol + rtol * _np.abs(b), a == b)
    if equal_nan:
        close = _np.logical_or(close, _np.logical_and(isnan(a), isnan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (isclose): a Python bool, so a sync point."""
    return _builtins.bool(_np.all(isclose(a, b, rtol, atol, equal_nan)).item())


def array_equal(a1, a2, equal_nan=False):
    """Whether the two have the same shape and elements: a Python bool, so a sync point."""
    if tuple(a1.shape) != tuple(a2.shape):
        return False
    same = a1 == a2
    if equal_nan:
        same = _np.logical_or(same, _np.logical_and(isnan(a1), isnan(a2)))
    return _builtins.bool(_np.all(same).item())


def logical_not(x):
    """Where x is zero (false)."""
    return x == 0


# -- elementwise ------------------------------------------------------------------------

def reciprocal(x):
    """1 / x."""
    return 1 / x


def true_divide(x1, x2):
    """x1 / x2 (always a true division)."""
    return x1 / x2


def log2(x):
    """The base-2 logarithm."""
    return _np.log(x) * (1 / _math.log(2))


def log10(x):
    """The base-10 logarithm."""
    return _np.log(x) * (1 / _math.log(10))


def tan(x):
    """The tangent (sin / cos)."""
    return _np.sin(x) / _np.cos(x)


def around(a, decimals=0):
    """a rounded to decimals places, halves to even (as NumPy and MXNet's np round)."""
    if decimals == 0:
        return _np.rint(a)
    scale = 10.0 ** decimals
    return _np.rint(a * scale) / scale


round = around  # noqa: A001 (NumPy's name)


# -- shapes -------------------------------------------------------------------------------

def ravel(a):
    """a as a 1-D array."""
    return a.reshape(-1)


def copy(a):
    """A copy of a."""
    return a.copy()


def full_like(a, fill_value, dtype=None):
    """An array of a's shape (and type, unless dtype says) filled with fill_value."""
    return _np.full(tuple(a.shape), fill_value, dtype=dtype or a.dtype, ctx=a.ctx)


def broadcast_to(array, shape):
    """array broadcast to shape (a copy here; NumPy gives a read-only view)."""
    shape = (shape,) if isinstance(shape, _numbers.Integral) else tuple(shape)
    return _np.where(_np.ones(shape, dtype="bool", ctx=array.ctx), array, array)


def hstack(tup):
    """The arrays side by side: along axis 1 (axis 0 for 1-D arrays)."""
    arrays = list(tup)
    return _np.concatenate(arrays, axis=0 if arrays and arrays[0].ndim == 1 else 1)


def vstack(tup):
    """The arrays one below the other (1-D arrays as rows)."""
    return _np.concatenate([a.reshape(1, -1) if a.ndim == 1 else a for a in tup], axis=0)


def moveaxis(a, source, destination):
    """a with the axes source moved to destination, the others in their order."""
    src = [source] if isinstance(source, _numbers.Integral) else list(source)
    dst = [destination] if isinstance(destination, _numbers.Integral) else list(destination)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    src = [_axis(a, s) for s in src]
    dst = [_axis(a, d) for d in dst]
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _np.transpose(a, tuple(order))


def append(arr, values, axis=None):
    """arr with values after it: flattened without axis, else along axis."""
    if axis is None:
        return _np.concatenate([ravel(arr), ravel(_array_like(values, arr))])
    return _np.concatenate([arr, values], axis=axis)


def pad(array, pad_width, mode="constant", constant_values=0):
    """array with pad_width values of constant_values before and after along each axis."""
    if mode != "constant":
        raise NotImplementedError("pad: only mode='constant' is supported, not %r" % (mode,))
    widths = pad_width
    if isinstance(widths, _numbers.Integral):
        widths = [(widths, widths)] * array.ndim
    else:
        widths = [tuple(w) if not isinstance(w, _numbers.Integral) else (w, w) for w in widths]
        if len(widths) == 1:
            widths = widths * array.ndim
    if len(widths) != array.ndim:
        raise ValueError("operands could not be broadcast together with remapped shapes [original->remapped]: "
                         "pad_width for %d axes, array of %d" % (len(widths), array.ndim))
    if any(before < 0 or after < 0 for before, after in widths):
        raise ValueError("index can't contain negative values")
    return _joins.padded(array, dict(enumerate(widths)),
                         lambda shape: _np.full(shape, constant_values, dtype=array.dtype, ctx=array.ctx),
                         lambda parts, axis: _np.concatenate(parts, axis=axis))


# -- indexing -------------------------------------------------------------------------------

def take(a, indices, axis=None):
    """a's elements at indices: of the flattened array without axis, else along axis."""
    if axis is None:
        return ravel(a)[indices]
    return _along(a, axis, indices)


def roll(a, shift, axis=None):
    """a with its elements moved shift places along axis, those pushed off the
    end coming back at the start (the flattened array without axis)."""
    if axis is None:
        return roll(ravel(a), shift, 0).reshape(tuple(a.shape))
    shifts = (shift,) if isinstance(shift, _numbers.Integral) else tuple(shift)
    axes = (axis,) if isinstance(axis, _numbers.Integral) else tuple(axis)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    return _joins.rolled(a, shifts, axes, _axis, lambda parts, d: _np.concatenate(parts, axis=d))


def diagonal(a, offset=0):
    """The offset-th diagonal of a matrix, as a 1-D array."""
    if a.ndim != 2:
        raise ValueError("diagonal: only 2-D arrays are supported here, not %d-D" % a.ndim)
    m, n = a.shape
    first_row, first_col = _builtins.max(0, -offset), _builtins.max(0, offset)
    length = _builtins.max(0, _builtins.min(m - first_row, n - first_col))
    rows = _np.arange(length, dtype="int64", ctx=a.ctx) + first_row
    return a[rows, rows + (first_col - first_row)]


def diag(v, k=0):
    """Of a 1-D array, the square matrix with it on the k-th diagonal; of a 2-D
    one, its k-th diagonal."""
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n, shift = v.shape[0], _builtins.abs(k)
    square = _np.where(_np.eye(n, dtype="bool", ctx=v.ctx), v.reshape(1, n), _zero(v))
    if shift == 0:
        return square
    side = _np.zeros((n, shift), dtype=v.dtype, ctx=v.ctx)
    rows = _np.zeros((shift, n + shift), dtype=v.dtype, ctx=v.ctx)
    if k > 0:
        return _np.concatenate([_np.concatenate([side, square], axis=1), rows], axis=0)
    return _np.concatenate([rows, _np.concatenate([square, side], axis=1)], axis=0)


def trace(a, offset=0):
    """The sum of a matrix's offset-th diagonal."""
    return _np.sum(diagonal(a, offset))


def identity(n, dtype=None, ctx=None):
    """The n x n identity matrix."""
    return _np.eye(n, dtype=dtype, ctx=ctx)


def _triangle(m, k, lower):
    if m.ndim < 2:
        raise ValueError("tril/triu: an array of at least 2 dimensions is needed here, not %d-D" % m.ndim)
    rows, cols = m.shape[-2], m.shape[-1]
    r = _np.arange(rows, dtype="int64", ctx=m.ctx).reshape(rows, 1) + k
    c = _np.arange(cols, dtype="int64", ctx=m.ctx).reshape(1, cols)
    return _np.where(r >= c if lower else r <= c, m, _zero(m))


def tril(m, k=0):
    """m with the elements above the k-th diagonal zeroed (the last two axes)."""
    return _triangle(m, k, True)


def triu(m, k=0):
    """m with the elements below the k-th diagonal zeroed (the last two axes)."""
    return _triangle(m, k, False)


def meshgrid(*xi, indexing="xy"):
    """Coordinate grids of 1-D arrays: with NumPy's default indexing='xy' the
    first two axes are swapped (x along columns); 'ij' keeps the order."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    order = list(range(len(xi)))
    if indexing == "xy" and len(xi) >= 2:
        order[0], order[1] = 1, 0
    sizes = tuple(xi[order[p]].size for p in range(len(xi)))  # the swap is its own inverse
    grids = []
    for i, x in enumerate(xi):
        shape = [1] * len(xi)
        shape[order[i]] = x.size
        grids.append(broadcast_to(x.reshape(tuple(shape)), sizes))
    return grids


# -- order statistics, positions, unique values (on the sorting op) -------------------------

def _lines(a, axis):
    """(array, axis): a flattened for axis None, else a and axis from NumPy's negative axes."""
    if axis is None:
        return a.reshape(-1), 0
    return a, _axis(a, axis)


def _as_float(a):
    return a if _is_float(a) else a.astype("float32")


def _reduced(v, a, axis, d, keepdims):
    """v (d kept as a dimension of 1) shaped as a reduction of a over axis."""
    if axis is None:
        return v.reshape((1,) * a.ndim if keepdims else ())
    return v if keepdims else _np.squeeze(v, axis=d)


def median(a, axis=None, keepdims=False):
    """The median (of all elements, or along axis): the mean of the two
    middle values for an even count; NaN where there is a NaN. Integers give
    float32 (MXNet's default float)."""
    x, d = _lines(_as_float(a), axis)
    n = x.shape[d]
    if n == 0:
        raise ValueError("median of an empty array (along axis %s)" % axis)
    ordered = _np.sort(x, axis=d)
    lo = _order.along(ordered, d, slice((n - 1) // 2, (n - 1) // 2 + 1))
    hi = _order.along(ordered, d, slice(n // 2, n // 2 + 1))
    last = _order.along(ordered, d, slice(n - 1, n))
    return _reduced(_np.where(isnan(last), last, (lo + hi) / 2), a, axis, d, keepdims)


def nanmedian(a, axis=None, keepdims=False):
    """median() of the values that are not NaN (NaN where all are)."""
    x, d = _lines(_as_float(a), axis)
    if x.shape[d] == 0:
        raise ValueError("nanmedian of an empty array (along axis %s)" % axis)
    ordered = _np.sort(x, axis=d)
    numbers = (x == x).astype("int64").sum(axis=d, keepdims=True)
    lo = _np.take_along_axis(ordered, _np.maximum((numbers - 1) // 2, 0), axis=d)
    hi = _np.take_along_axis(ordered, numbers // 2, axis=d)
    return _reduced((lo + hi) / 2, a, axis, d, keepdims)


def _quantiles_of(a, qs, scale, axis, method, keepdims, what):
    if method not in _order.METHODS:
        raise ValueError("'%s' is not a valid method. Use one of: %s" % (method, ", ".join(_order.METHODS)))
    q = qs.asnumpy() if isinstance(qs, ndarray) else _numpy.asarray(qs, dtype=_numpy.float64)
    values = [float(v) / scale for v in q.reshape(-1)]
    if any(not 0 <= v <= 1 for v in values):
        raise ValueError(what)
    x, d = _lines(_as_float(a), axis)
    if x.shape[d] == 0:
        raise IndexError("cannot take the quantiles of an empty array")
    outs = [_reduced(v, a, axis, d, keepdims)
            for v in _order.quantiles(_np.sort(x, axis=d), d, values, method, _np.where, isnan)]
    if q.ndim == 0:
        return outs[0]
    return _np.stack(outs).reshape(q.shape + tuple(outs[0].shape))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             interpolation=None):
    """The q-th quantiles (q in [0, 1], a number or an array of them) of a,
    or of its lines along axis: method linear, lower, higher, midpoint or
    nearest; NaN where a line has a NaN. q is read on the host (an ndarray q
    is a sync point)."""
    if out is not None:
        raise TypeError("quantile(): out= is not supported")
    return _quantiles_of(a, q, 1.0, axis, interpolation or method, keepdims, "Quantiles must be in the range [0, 1]")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               interpolation=None):
    """quantile() with q in percent ([0, 100])."""
    if out is not None:
        raise TypeError("percentile(): out= is not supported")
    return _quantiles_of(a, q, 100.0, axis, interpolation or method, keepdims,
                         "Percentiles must be in the range [0, 100]")


def _positions(a):
    """The flat positions (int64) of a's non-zero elements: the mask is read
    (a sync point), since their count decides the shape."""
    mask = (a != 0).reshape(-1)
    return _np.arange(mask.shape[0], dtype="int64", ctx=a.ctx)[mask]


def nonzero(a):
    """The indices of a's non-zero elements, one int64 array per dimension
    (a sync point: their count decides the shapes)."""
    shape = tuple(a.shape) or (1,)  # a 0-d array as a 1-d one, as NumPy does
    return tuple(_order.coordinates(_positions(a), shape))


def flatnonzero(a):
    """The positions of the non-zero elements of a flattened (a sync point)."""
    return _positions(a)


def argwhere(a):
    """The coordinates of a's non-zero elements, an int64 array (count, ndim) (a sync point)."""
    positions = _positions(a)
    if a.ndim == 0:
        return _np.zeros((positions.shape[0], 0), dtype="int64", ctx=a.ctx)
    return _np.stack(_order.coordinates(positions, tuple(a.shape)), axis=1)


def count_nonzero(a, axis=None, keepdims=False):
    """How many elements are non-zero (along axis), an int64 array."""
    return (a != 0).astype("int64").sum(axis=axis, keepdims=keepdims)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """The distinct values of ar flattened, ascending; with return_index where
    each first occurs, with return_inverse each element's place among them
    (flat, as NumPy 1.x), with return_counts how often each occurs. NaNs are
    one value unless equal_nan=False. Their count decides the shape, so a
    mask is read: a sync point."""
    if axis is not None:
        raise NotImplementedError("unique(axis=...) is not in this interface; unique of the flattened array is")
    flat = ar.reshape(-1)
    n = flat.shape[0]
    order = _np.argsort(flat)
    values = flat[order]
    if n == 0:
        starts = _np.zeros(0, dtype="bool", ctx=ar.ctx)
    else:
        new = values[1:] != values[:-1]
        if equal_nan and _is_float(ar):
            new = _np.logical_and(new, _np.logical_or(values[1:] == values[1:], values[:-1] == values[:-1]))
        starts = _np.concatenate([_np.ones(1, dtype="bool", ctx=ar.ctx), new])
    out = [values[starts]]
    positions = _np.arange(n, dtype="int64", ctx=ar.ctx)[starts]
    if return_index:
        out.append(order[positions])
    if return_inverse:
        inverse = _np.zeros(n, dtype="int64", ctx=ar.ctx)
        inverse[order] = _np.cumsum(starts.astype("int64")) - 1
        out.append(inverse)
    if return_counts:
        out.append(_np.concatenate([positions[1:], _np.full((1,), n, dtype="int64", ctx=ar.ctx)]) - positions)
    return out[0] if len(out) == 1 else tuple(out)


class _EinsumOps:
    """The ops _einsum.einsum pushes, as this interface spells them."""
    error = ValueError

    @staticmethod
    def permute(x, order):
        return _np.transpose(x, tuple(order))

    @staticmethod
    def expand(x, shape):
        return broadcast_to(x, tuple(shape))

    @staticmethod
    def sum(x, dims):
        return x.sum(axis=dims)

    @staticmethod
    def bmm(a, b):
        return _np.matmul(a, b)

    @staticmethod
    def arange(n, like):
        return _np.arange(n, dtype="int64", ctx=like.ctx)


def einsum(subscripts, *operands, out=None, optimize=False):
    """Sums of products over the subscripts the equation names, '...'
    included (_einsum.py: a repeated subscript is a diagonal; the operands
    are contracted two at a time, each pair through one batched matmul)."""
    if out is not None:
        raise TypeError("einsum(): out= is not supported")
    return _einsum.einsum(subscripts, operands, _EinsumOps)


FUNCTIONS = ["where", "amax", "amin", "isnan", "isinf", "isfinite", "isclose", "allclose", "array_equal",
             "logical_not", "reciprocal", "true_divide", "log2", "log10", "tan", "around", "round",
             "ravel", "copy", "full_like", "broadcast_to", "hstack", "vstack", "moveaxis", "append", "pad", "take",
             "roll", "diagonal", "diag", "trace", "identity", "tril", "triu", "meshgrid", "median", "nanmedian",
             "quantile", "percentile", "nonzero", "flatnonzero", "argwhere", "count_nonzero", "unique", "einsum"]


def _transpose(self, *axes):
    if len(axes) == 1 and not isinstance(axes[0], _numbers.Integral):
        axes = axes[0]
    return _np.transpose(self, tuple(axes) if axes else None)


def install(cls):
    """Adds the methods to the ndarray class (those it does not have already)."""
    methods = {
        "ravel": ravel,
        "transpose": _transpose,
        "clip": lambda self, a_min=None, a_max=None: _np.clip(self, a_min, a_max),
        "repeat": lambda self, repeats, axis=None: _np.repeat(self, repeats, axis),
        "take": lambda self, indices, axis=None: take(self, indices, axis),
        "round": lambda self, decimals=0: around(self, decimals),
        "diagonal": lambda self, offset=0: diagonal(self, offset),
        "trace": lambda self, offset=0: trace(self, offset),
        "nonzero": nonzero,
    }
    for name, fn in methods.items():
        if name == "round" or not hasattr(cls, name):  # the table's round rounds halves away from zero (nd's)
            setattr(cls, name, fn)
