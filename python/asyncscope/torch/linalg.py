"""torch.linalg of the PyTorch edition: norm, vector_norm and matrix_norm
(every order; 2, -2 and nuclear through the singular values), made of the
edition's reductions, and matmul, vecdot, matrix_power, multi_dot, cross and
vander; the factorisations through LAPACK, one op each on the timeline
(engine/tensor/factor.h): svd, svdvals, qr, eigh, eigvalsh, cholesky, lu,
lu_factor, lu_solve, inv, solve_triangular, householder_product, and what
is made of them: det, slogdet, solve, matrix_rank, pinv, cond. inv, solve,
solve_triangular, det, slogdet, svdvals, eigvalsh and the norms made of
them are differentiable; svd, qr, eigh, cholesky and pinv are not here. A general (non-symmetric) eigendecomposition, eig
and eigvals, is not in this edition: they raise NotImplementedError.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from .. import torch as _torch
from . import return_types

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
        moved = A.movedim((rows, cols), (-2, -1))
        S = svdvals(moved)
        out = S.amax(-1) if ord == 2 else (S.amin(-1) if ord == -2 else S.sum(-1))
        if keepdim:
            for d in sorted((rows, cols)):
                out = out.unsqueeze(d)
        return out
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
    """A (a square matrix, or a batch of them) to the integer power n, by
    repeated squaring (of the inverse for a negative n)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are %s by %s "
                           "matrices" % (A.shape[-2] if A.ndim >= 2 else 1, A.shape[-1] if A.ndim else 1))
    if n < 0:
        A, n = inv(A), -n
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
        raise NotImplementedError("torch.linalg.%s needs a general (non-symmetric) eigendecomposition, which this "
                                  "edition does not have" % name)
    refuse.__name__ = name
    return refuse


# -- factorisations, through LAPACK (engine/tensor/factor.h): one op each on the timeline -------------

_core = _torch._t
_svd_result, _qr_result, _eigh_result = return_types.linalg_svd, return_types.linalg_qr, return_types.linalg_eigh
_slogdet_result, _lu_factor_result, _lu_result = (return_types.linalg_slogdet, return_types.linalg_lu_factor,
                                                  return_types.linalg_lu)
_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _floats(A, name):
    if not A.is_floating_point():
        raise RuntimeError("linalg.%s: Expected a floating point or complex tensor as input. Got %s"
                           % (name, str(A.dtype).replace("torch.", "")))
    return A


def svd(A, full_matrices=True, *, driver=None):
    """A = U diag(S) Vh (LAPACK's gesdd); S descending. Not differentiable here."""
    return _svd_result(*_core._svd(_floats(A, "svd"), full_matrices, True))


def _tracked(A):
    return A.requires_grad and _torch.is_grad_enabled()


def svdvals(A, *, driver=None):
    """The singular values of A, descending; differentiable: S_i is
    u_i^T A v_i with the singular vectors held constant, whose gradient
    u_i v_i^T is S_i's."""
    if not _tracked(A):
        return _core._svd(_floats(A, "svdvals"), False, False)[0]
    U, S, Vh = _core._svd(_floats(A, "svdvals").detach(), False, True)
    d = _torch.diagonal(_torch.matmul(_torch.matmul(U.transpose(-2, -1), A), Vh.transpose(-2, -1)), 0, -2, -1)
    return S + (d - d.detach())


def qr(A, mode="reduced"):
    """A = Q R (geqrf, orgqr): mode 'reduced', 'complete' or 'r' (Q then empty)."""
    parts = _core._qr(_floats(A, "qr"), mode)
    if mode == "r":
        return _qr_result(_torch.zeros(0, dtype=A.dtype, device=A.device), parts[0])
    return _qr_result(*parts)


def eigh(A, UPLO="L"):
    """The eigenvalues (ascending) and eigenvectors of symmetric A, from its UPLO triangle (syevd)."""
    if UPLO not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % UPLO)
    return _eigh_result(*_core._eigh(_floats(A, "eigh"), UPLO == "U", True))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of symmetric A; differentiable as
    v_i^T A v_i with the eigenvectors held constant (the gradient v_i v_i^T,
    symmetric, as PyTorch's)."""
    if UPLO not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % UPLO)
    if not _tracked(A):
        return _core._eigh(_floats(A, "eigvalsh"), UPLO == "U", False)[0]
    w, V = _core._eigh(_floats(A, "eigvalsh").detach(), UPLO == "U", True)
    d = _torch.diagonal(_torch.matmul(_torch.matmul(V.transpose(-2, -1), A), V), 0, -2, -1)
    return w + (d - d.detach())


def cholesky(A, *, upper=False):
    """L with A = L L^H (or U with A = U^H U) for positive-definite A (potrf)."""
    return _core._cholesky(_floats(A, "cholesky"), upper)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """(cholesky(A), info): info 0 (a matrix that is not positive-definite fails the op instead)."""
    L = cholesky(A, upper=upper)
    return return_types.linalg_cholesky_ex(L, _torch.zeros(tuple(A.shape[:-2]), dtype=_torch.int32, device=A.device))


def inv(A):
    """The inverse (getrf, getri); differentiable."""
    return _core._inverse(_floats(A, "inv"))


def inv_ex(A, *, check_errors=False):
    """(inv(A), info): info 0 (a singular matrix fails the op instead)."""
    return return_types.linalg_inv_ex(inv(A), _torch.zeros(tuple(A.shape[:-2]), dtype=_torch.int32, device=A.device))


def _with_gradient(value, A, gradient):
    """value (computed without a gradient) whose gradient with respect to A is
    `gradient` (of A's shape, one per matrix): value + <A, G> - <A, G>, the
    last term detached, so the forward value stays value and d/dA is G."""
    if not A.requires_grad or not _torch.is_grad_enabled():
        return value
    g = gradient().detach()
    inner = (A * g).sum((-2, -1))
    return value.detach() + inner - inner.detach()


def lu_factor(A, *, pivot=True):
    """(LU, pivots): A = P L U with unit L below U's diagonal in LU, pivots
    the 1-based row swaps (getrf)."""
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return _lu_factor_result(*_core._lu_factor(_floats(A, "lu_factor")))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info): lu_factor and the index of the first zero on U's diagonal (0: none)."""
    LU, pivots = lu_factor(A, pivot=pivot)
    diag = _torch.diagonal(LU, 0, -2, -1)
    zero = (diag == 0)
    first = _torch.where(zero, _torch.arange(1, diag.shape[-1] + 1, device=A.device), _torch.full_like(
        diag, diag.shape[-1] + 1, dtype=_torch.int64)).amin(-1) if diag.shape[-1] else _torch.zeros(
        tuple(A.shape[:-2]), dtype=_torch.int64, device=A.device)
    info = _torch.where(first > diag.shape[-1], _torch.zeros_like(first), first).to(_torch.int32)
    return return_types.linalg_lu_factor_ex(LU, pivots, info)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (or A^T X = B with adjoint, X A = B with left=False) from lu_factor's (LU, pivots)."""
    if left:
        return _core._lu_solve(LU, pivots, B, adjoint)
    return _core._lu_solve(LU, pivots, B.transpose(-2, -1), not adjoint).transpose(-2, -1)


def _permutation(pivots, n, device):
    """The permutation matrices (..., n, n) of LAPACK's row swaps (read: a sync point)."""
    import itertools
    shape = tuple(pivots.shape[:-1])
    flat = pivots.reshape(-1, pivots.shape[-1]).tolist() if pivots.numel() else [[] for _ in range(
        _builtins.max(1, int(_math_prod(shape))))]
    mats = []
    for swaps in flat:
        order = list(range(n))
        for i, p in enumerate(swaps):
            order[i], order[p - 1] = order[p - 1], order[i]
        mats.extend(1.0 if order[c] == r else 0.0 for r, c in itertools.product(range(n), range(n)))
    return mats, shape


def _math_prod(shape):
    out = 1
    for d in shape:
        out *= d
    return out


def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U."""
    LU, pivots = lu_factor(A, pivot=pivot)
    return _lu_result(*_unpack(LU, pivots, A.dtype))


def _unpack(LU, pivots, dtype):
    m, n = LU.shape[-2], LU.shape[-1]
    k = _builtins.min(m, n)
    mats, shape = _permutation(pivots, m, LU.device)
    P = _torch.tensor(mats, dtype=dtype, device=LU.device).reshape(shape + (m, m))
    L = _torch.tril(LU, -1)[..., :, :k] + _torch.eye(m, k, dtype=dtype, device=LU.device)
    U = _torch.triu(LU)[..., :k, :]
    return P, L, U


def det(A):
    """The determinant, from the LU factors: U's diagonal's product, its sign
    from the row swaps; differentiable (det(A) A^-T) for an invertible A."""
    _floats(A, "det")
    n = A.shape[-1]
    if A.ndim < 2 or A.shape[-2] != n:
        raise RuntimeError("linalg.det: A must be batches of square matrices")
    if n == 0:
        return _torch.ones(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)
    LU, pivots = _core._lu_factor(A.detach())
    swaps = (pivots != _torch.arange(1, n + 1, dtype=_torch.int32, device=A.device)).to(_torch.int64).sum(-1)
    sign = 1.0 - 2.0 * (swaps % 2).to(A.dtype)
    value = sign * _torch.diagonal(LU, 0, -2, -1).prod(-1)
    return _with_gradient(value, A, lambda: value.unsqueeze(-1).unsqueeze(-1) * inv(A.detach()).transpose(-2, -1))


def slogdet(A):
    """(sign, log|det|) of A; differentiable in log|det| (A^-T) for an invertible A."""
    d = det(A.detach())
    sign = d.sign()
    logabs = d.abs().log()
    return _slogdet_result(sign, _with_gradient(logabs, A, lambda: inv(A.detach()).transpose(-2, -1)))


def solve(A, B, *, left=True):
    """X with A X = B (X A = B with left=False); B a matrix or a batch of
    them, or a vector: through A's inverse (differentiable in A and B)."""
    vector = B.ndim == A.ndim - 1
    if left:
        rhs = B.unsqueeze(-1) if vector else B
        X = _torch.matmul(inv(A), rhs)
        return X.squeeze(-1) if vector else X
    return _torch.matmul(B, inv(A))


def solve_ex(A, B, *, left=True, check_errors=False):
    """(solve(A, B), info): info 0 (a singular A fails the op instead)."""
    return return_types.linalg_solve_ex(solve(A, B, left=left), _torch.zeros(tuple(A.shape[:-2]), dtype=_torch.int32,
                                                            device=A.device))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (X A = B with left=False) for triangular A (trtrs); differentiable."""
    A, B = _floats(A, "solve_triangular"), _floats(B, "solve_triangular")
    batch = _torch.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    A = A.expand(*batch, *A.shape[-2:])
    if left:
        return _core._solve_triangular(A, B.expand(*batch, *B.shape[-2:]), upper, False, unitriangular)
    Bt = B.expand(*batch, *B.shape[-2:]).transpose(-2, -1)
    return _core._solve_triangular(A, Bt, upper, True, unitriangular).transpose(-2, -1)


def _cutoff(S, A, atol, rtol):
    top = S.amax(-1, keepdim=True) if S.shape[-1] else _torch.zeros(tuple(S.shape[:-1]) + (1,), dtype=S.dtype)
    if atol is None and rtol is None:
        rtol = _EPS[A.dtype._asyncscope_dtype] * _builtins.max(A.shape[-2], A.shape[-1])
    atol = 0.0 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol_t = atol if isinstance(atol, _torch.Tensor) else _torch.full_like(top, float(atol))
    if isinstance(atol_t, _torch.Tensor) and atol_t.ndim == top.ndim - 1:
        atol_t = atol_t.unsqueeze(-1)
    rtol_t = rtol if isinstance(rtol, _torch.Tensor) else _torch.full_like(top, float(rtol))
    if isinstance(rtol_t, _torch.Tensor) and rtol_t.ndim == top.ndim - 1:
        rtol_t = rtol_t.unsqueeze(-1)
    return _torch.maximum(atol_t, rtol_t * top)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """How many singular values exceed max(atol, rtol * the largest)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    return (S > _cutoff(S, A, atol, rtol)).to(_torch.int64).sum(-1)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The pseudo-inverse, from the SVD (singular values under max(atol, rtol * the largest) dropped)."""
    if rcond is not None:
        rtol = rcond
    if hermitian:
        w, V = eigh(A)
        keep = w.abs() > _cutoff(w.abs(), A, atol, rtol)
        winv = _torch.where(keep, 1.0 / _torch.where(keep, w, _torch.ones_like(w)), _torch.zeros_like(w))
        return _torch.matmul(V * winv.unsqueeze(-2), V.transpose(-2, -1))
    U, S, Vh = svd(A, full_matrices=False)
    keep = S > _cutoff(S, A, atol, rtol)
    sinv = _torch.where(keep, 1.0 / _torch.where(keep, S, _torch.ones_like(S)), _torch.zeros_like(S))
    return _torch.matmul(Vh.transpose(-2, -1) * sinv.unsqueeze(-2), U.transpose(-2, -1))


def cond(A, p=None):
    """The condition number: the largest singular value over the smallest (p None or 2, -2: the inverse),
    or norm(A, p) norm(inv(A), p)."""
    if p is None or p in (2, -2):
        S = svdvals(A)
        ratio = S[..., 0] / S[..., -1]
        return ratio if p != -2 else 1.0 / ratio
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def householder_product(A, tau):
    """The product of the Householder reflectors in A's columns (orgqr), as an m x n matrix."""
    m, n = A.shape[-2], A.shape[-1]
    eye = _torch.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    return _core._ormqr(A, tau, eye.clone(), True, False)


eig = _missing("eig")
eigvals = _missing("eigvals")

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul", "vecdot", "matrix_power", "multi_dot", "cross", "vander",
           "svd", "svdvals", "qr", "eigh", "eigvalsh", "cholesky", "cholesky_ex", "inv", "inv_ex", "det",
           "slogdet", "solve", "solve_ex", "solve_triangular", "lu_factor", "lu_factor_ex", "lu_solve", "lu",
           "matrix_rank", "pinv", "cond", "householder_product", "eig", "eigvals"]


# -- torch's own names for them (torch.svd, torch.det, Tensor.inverse, ...) ----------------------------

from .composed import surface  # noqa: E402 (declared with the edition's other functions)

_torch_svd_result, _torch_qr_result, _geqrf_result = return_types.svd, return_types.qr, return_types.geqrf
_triangular_result, _symeig_result = return_types.triangular_solve, return_types.symeig
_torch_slogdet_result, _lu_unpack_result = return_types.slogdet, return_types.lu_unpack


@surface.op("svd", method=True)
def _torch_svd(input, some=True, compute_uv=True):
    """(U, S, V) with input = U diag(S) V^T (V, not Vh); zeros for U and V without compute_uv."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:
        return _torch_svd_result(_torch.zeros_like(U), S, _torch.zeros_like(Vh.transpose(-2, -1)))
    return _torch_svd_result(U, S, Vh.transpose(-2, -1))


@surface.op("qr", method=True)
def _torch_qr(input, some=True):
    """(Q, R), reduced (some) or complete."""
    return _torch_qr_result(*qr(input, "reduced" if some else "complete"))


@surface.op("geqrf", method=True)
def _torch_geqrf(input):
    """(a, tau): QR in LAPACK's form, R on and above a's diagonal, the Householder reflectors below it."""
    return _geqrf_result(*_core._geqrf(_floats(input, "geqrf")))


@surface.op("ormqr", method=True)
def _torch_ormqr(input, tau, other, left=True, transpose=False):
    """op(Q) other (left) or other op(Q), Q given by geqrf's (input, tau)."""
    return _core._ormqr(input, tau, other, left, transpose)


@surface.op("orgqr", method=True)
def _torch_orgqr(input, tau):
    """householder_product."""
    return householder_product(input, tau)


@surface.op("det", method=True)
def _torch_det(input):
    """linalg.det."""
    return det(input)


@surface.op("logdet", method=True)
def _torch_logdet(input):
    """log(det(input)): NaN for a negative determinant, -inf for 0."""
    d = det(input)
    return _torch.where(d < 0, _torch.full_like(d, float("nan")), d.log())


@surface.op("slogdet", method=True)
def _torch_slogdet(input):
    """linalg.slogdet."""
    return _torch_slogdet_result(*slogdet(input))


@surface.op("inverse", method=True)
def _torch_inverse(input):
    """linalg.inv."""
    return inv(input)


@surface.op("pinverse", method=True)
def _torch_pinverse(input, rcond=1e-15):
    """linalg.pinv with singular values under rcond times the largest dropped."""
    return pinv(input, rtol=rcond)


@surface.op("matrix_power", method=True)
def _torch_matrix_power(input, n):
    """linalg.matrix_power."""
    return matrix_power(input, n)


@surface.op("cholesky", method=True)
def _torch_cholesky(input, upper=False):
    """linalg.cholesky."""
    return cholesky(input, upper=upper)


@surface.op("cholesky_solve", method=True)
def _torch_cholesky_solve(input, input2, upper=False):
    """X with A X = input, A = L L^T (input2 = L, or U with upper): two triangular solves."""
    if upper:
        y = _core._solve_triangular(input2, input, True, True, False)
        return _core._solve_triangular(input2, y, True, False, False)
    y = _core._solve_triangular(input2, input, False, False, False)
    return _core._solve_triangular(input2, y, False, True, False)


@surface.op("cholesky_inverse", method=True)
def _torch_cholesky_inverse(input, upper=False):
    """The inverse of A = L L^T (input = L, or U with upper)."""
    A = _torch.matmul(input.transpose(-2, -1), input) if upper else _torch.matmul(input, input.transpose(-2, -1))
    return inv(A)


@surface.op("lu", method=True)
def _torch_lu(A, pivot=True, get_infos=False):
    """(LU, pivots) or, with get_infos, (LU, pivots, infos)."""
    if get_infos:
        return tuple(lu_factor_ex(A, pivot=pivot))
    return tuple(lu_factor(A, pivot=pivot))


@surface.op("lu_solve", method=True)
def _torch_lu_solve(b, LU_data, LU_pivots):
    """X with A X = b from lu's (LU_data, LU_pivots)."""
    return _core._lu_solve(LU_data, LU_pivots, b, False)


@surface.op("lu_unpack")
def _torch_lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from lu's factors (the permutation read from the pivots: a sync point)."""
    P, L, U = _unpack(LU_data, LU_pivots, LU_data.dtype)
    empty = _torch.zeros(0, dtype=LU_data.dtype, device=LU_data.device)
    return _lu_unpack_result(P if unpack_pivots else empty, L if unpack_data else empty, U if unpack_data else empty)


@surface.op("triangular_solve", method=True)
def _torch_triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A.clone()) with op(A) X = b for triangular A."""
    batch = _torch.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2]))
    A_full = A.expand(*batch, *A.shape[-2:])
    x = _core._solve_triangular(A_full, b.expand(*batch, *b.shape[-2:]), upper, transpose, unitriangular)
    return _triangular_result(x, A_full.clone())


@surface.op("symeig", method=True)
def _torch_symeig(input, eigenvectors=False, upper=True):
    """(eigenvalues, eigenvectors) of symmetric input (eigenvectors empty unless asked)."""
    if eigenvectors:
        return _symeig_result(*eigh(input, "U" if upper else "L"))
    return _symeig_result(eigvalsh(input, "U" if upper else "L"), _torch.zeros(0, dtype=input.dtype,
                                                                               device=input.device))
