"""torch.linalg of the PyTorch edition: norm, vector_norm and matrix_norm
(Frobenius, 1, -1, inf, -inf), made of the edition's reductions, and
matmul, vecdot, matrix_power (n >= 0), multi_dot, cross and vander. Norms that need a singular value decomposition (a matrix's 2, -2
and nuclear norms) and the factorisations (inv, det, solve, svd, eig) are
not in this edition: they raise NotImplementedError saying so.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import torch as _torch

_INF = float("inf")


def _dims(x, dim):
    if dim is None:
        return tuple(range(x.ndim))
    return tuple(d % _builtins.max(x.ndim, 1) for d in ((dim,) if isinstance(dim, int) else dim))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ord-norm of x's elements (all of them, or along dim): ord inf the
    largest magnitude, -inf the smallest, 0 the count of non-zeros."""
    if dtype is not None:
        x = x.to(dtype)
    if not x.is_floating_point():
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s"
                           % str(x.dtype).replace("torch.", ""))
    dims = _dims(x, dim)
    a = x.abs()
    if ord == _INF:
        return a.amax(dim=dims, keepdim=keepdim)
    if ord == -_INF:
        return a.amin(dim=dims, keepdim=keepdim)
    if ord == 0:
        return (x != 0).to(x.dtype).sum(dim=dims, keepdim=keepdim)
    if ord == 1:
        return a.sum(dim=dims, keepdim=keepdim)
    if ord == 2:
        return (x * x).sum(dim=dims, keepdim=keepdim).sqrt()
    return (a ** ord).sum(dim=dims, keepdim=keepdim) ** (1.0 / ord)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The ord-norm of the matrices along the two dims: 'fro' (Frobenius),
    1 / -1 (largest / smallest column sum of magnitudes), inf / -inf (row
    sums)."""
    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    rows, cols = (d % A.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim)
    if ord in (2, -2, "nuc"):
        raise NotImplementedError("linalg.matrix_norm(ord=%r) needs a singular value decomposition, which this "
                                  "edition does not have" % (ord,))
    if ord not in (1, -1, _INF, -_INF):
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % (ord,))
    summed, then = (rows, cols) if ord in (1, -1) else (cols, rows)  # 1: sum each column, inf: each row
    sums = A.abs().sum(dim=summed, keepdim=True)
    out = sums.amax(dim=then, keepdim=True) if ord > 0 else sums.amin(dim=then, keepdim=True)
    if not keepdim:
        for d in sorted((rows, cols), reverse=True):
            out = out.squeeze(d)
    return out


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """vector_norm for a vector or an int dim (ord 2 by default) or for
    everything when neither ord nor dim is given; matrix_norm for a matrix
    or two dims (ord 'fro' by default)."""
    if isinstance(dim, int) or (dim is not None and len(dim) == 1) or (dim is None and (A.ndim == 1 or ord is None)):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None and A.ndim != 2:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           "Got %dD." % A.ndim)
    return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)


def matmul(input, other):
    """torch.matmul."""
    return _torch.matmul(input, other)


def vecdot(x, y, *, dim=-1):
    """The dot products of x's and y's vectors along dim (broadcasting)."""
    return (x * y).sum(dim)


def matrix_power(A, n):
    """A (a square matrix, or a batch of them) to the integer power n >= 0,
    by repeated squaring; a negative n needs an inverse, not in this edition."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are %s by %s "
                           "matrices" % (A.shape[-2] if A.ndim >= 2 else 1, A.shape[-1] if A.ndim else 1))
    if n < 0:
        return _missing("matrix_power")(A, n)
    result = None
    base = A
    while True:
        if n & 1:
            result = base if result is None else _torch.matmul(result, base)
        n >>= 1
        if not n:
            break
        base = _torch.matmul(base, base)
    if result is None:
        eye = _torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return eye.expand(*A.shape) + A * 0
    return result


def multi_dot(tensors):
    """The product of the matrices in order (the first may be a row vector, the last a column vector)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got %d" % len(tensors))
    out = tensors[0]
    for t in tensors[1:]:
        out = _torch.matmul(out, t)
    return out


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along dim (broadcasting)."""
    return _torch.cross(input, other, dim=dim)


def vander(x, *, N=None):
    """The Vandermonde matrix of x's last dim: columns x^0, x^1, ..., x^(N-1)."""
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 0:
        raise RuntimeError("N must be greater than 1.")
    powers = [_torch.ones_like(x)]
    for _ in range(n - 1):
        powers.append(powers[-1] * x)
    return _torch.stack(powers[:n], dim=-1)


def _missing(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError("torch.linalg.%s needs a matrix factorisation, which this edition does not have"
                                  % name)
    refuse.__name__ = name
    return refuse


inv = _missing("inv")
det = _missing("det")
solve = _missing("solve")
svd = _missing("svd")
eig = _missing("eig")
eigh = _missing("eigh")
qr = _missing("qr")
cholesky = _missing("cholesky")

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul", "vecdot", "matrix_power", "multi_dot", "cross", "vander", "inv", "det", "solve", "svd", "eig", "eigh", "qr",
           "cholesky"]
