"""PyTorch's stacks, flips and differences in the PyTorch edition:
atleast_1d / atleast_2d, hstack / vstack / column_stack, fliplr / flipud /
rot90, diff, cross and kron, functions and Tensor methods declared on
composed.py's surface, made of the edition's ops (cat, flip, slicing,
products), differentiable as they are.

Threading: the frontend thread, as every op of the edition.
"""

from .. import torch as _torch
from .composed import _dim, narrow, surface


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
