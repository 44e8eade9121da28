"""Order statistics and positions shared by the two editions' composed
functions (torch/composed.py, np/composed.py): quantiles of sorted lines by
NumPy's and PyTorch's interpolation methods, and flat positions turned into
coordinates. Each works on either edition's arrays through basic indexing,
arithmetic and the `where` / `isnan` the caller passes, so what it pushes is
those ops.

Threading: the frontend thread, as every op of the editions.
"""

import math

METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def along(x, d, index):
    """x indexed by `index` (an int or a slice) along dimension d."""
    return x[(slice(None),) * d + (index,)]


def quantiles(ordered, d, qs, method, where, isnan):
    """For each q of qs (numbers in [0, 1]), the q-th quantile of each line
    of `ordered` along d (sorted ascending, NaN last: the sorting op's
    order), each keeping d as a dimension of 1. Between the two values
    around position q * (n - 1): `method` as NumPy's and PyTorch's (linear
    interpolates as their lerp does, from the nearer end; nearest rounds
    halves to even). A line holding a NaN gives NaN."""
    n = ordered.shape[d]
    last = along(ordered, d, slice(n - 1, n))
    nan_line = isnan(last)
    out = []
    for q in qs:
        pos = q * (n - 1)
        lo, hi = int(math.floor(pos)), int(math.ceil(pos))
        a = along(ordered, d, slice(lo, lo + 1))
        b = along(ordered, d, slice(hi, hi + 1))
        t = pos - lo
        if method == "lower" or hi == lo:
            v = a
        elif method == "higher":
            v = b
        elif method == "nearest":
            i = round(pos)  # Python's round: halves to even
            v = along(ordered, d, slice(i, i + 1))
        elif method == "midpoint":
            v = b - (b - a) * 0.5
        elif t < 0.5:
            v = a + (b - a) * t
        else:
            v = b - (b - a) * (1 - t)
        out.append(where(nan_line, last, v))
    return out


def coordinates(positions, shape):
    """The coordinates along each dimension of `shape` of flat (row-major)
    positions: a list of integer arrays like positions."""
    coords = []
    stride = 1
    for size in reversed(shape):
        coords.append((positions // stride) % size)
        stride *= size
    return coords[::-1]
