// The matrix factorisations and what is solved with them, through LAPACK
// (engine/tensor/lapack.h): SVD, QR, the symmetric eigendecomposition,
// Cholesky, LU, the inverse and triangular solves. Each takes a matrix or a
// batch of them (the last two dims; float32 or float64, on the CPU) and is
// one op on the timeline, pushed like every other and run on a CPU worker,
// a matrix after another. A matrix LAPACK cannot factor (a singular one for
// inverse, one not positive-definite for cholesky, an SVD that does not
// converge) fails the op with PyTorch's message, seen at the next sync
// point, as an error on a GPU stream is. inverse and solve_triangular record
// their gradients; the others are not differentiable here.
// Threading: the frontend thread that owns the context, as every op.
#pragma once

#include "engine/tensor/ndarray.h"

namespace asyncscope {

struct Svd {
  NDArray u, s, vh;  // u and vh are null without compute_uv
};
// A = U diag(S) Vh for a (..., m, n): with full_matrices U is (..., m, m) and
// Vh (..., n, n), else (..., m, k) and (..., k, n), k = min(m, n); S is
// (..., k), descending.
Svd svd(const NDArray& a, bool full_matrices, bool compute_uv);

struct Qr {
  NDArray q, r;  // q is null for mode "r"
};
// A = Q R for a (..., m, n): mode "reduced" (Q (..., m, k), R (..., k, n)),
// "complete" (Q (..., m, m), R (..., m, n)) or "r" (R only, reduced).
Qr qr(const NDArray& a, const char* mode);

struct QrReflectors {
  NDArray a, tau;  // geqrf's form: R above the diagonal, the reflectors below; tau (..., k)
};
QrReflectors geqrf(const NDArray& a);
// op(Q) C or C op(Q) for Q given by geqrf's (a, tau).
NDArray ormqr(const NDArray& a, const NDArray& tau, const NDArray& c, bool left, bool transpose);

struct Eigh {
  NDArray values, vectors;  // vectors is null without compute_vectors
};
// The eigenvalues (ascending) and eigenvectors (columns) of the symmetric
// matrices a (..., n, n), read from their lower (or upper) triangle.
Eigh eigh(const NDArray& a, bool upper, bool compute_vectors);

// L with A = L L^T (or U with A = U^T U), the other triangle zero.
NDArray cholesky(const NDArray& a, bool upper);

struct Lu {
  NDArray lu, pivots;  // pivots int32, 1-based row swaps, as LAPACK's and PyTorch's lu_factor
};
Lu lu_factor(const NDArray& a);
// X with op(A) X = B, A given by lu_factor's (lu, pivots), b (..., n, k).
NDArray lu_solve(const NDArray& lu, const NDArray& pivots, const NDArray& b, bool transpose);

// The inverse of the square matrices a (..., n, n).
NDArray inverse(const NDArray& a);

// X with op(A) X = B for triangular A (..., n, n) (upper or lower; unit: its
// diagonal taken as ones) and b (..., n, k) of the same batch.
NDArray solve_triangular(const NDArray& a, const NDArray& b, bool upper, bool transpose, bool unit);

}  // namespace asyncscope
