// LAPACK's factorisations from the loaded OpenBLAS (Debian's ships LAPACK in
// the same library), in float and double: the routines the linear-algebra
// ops (engine/tensor/ops_factor.cpp) run on a CPU worker. Matrices are
// column-major, as LAPACK's; each function finds its workspace size first
// and allocates it, and returns LAPACK's `info` (0: done; > 0: the
// routine's own failure, such as a singular matrix; < 0 is a bug here and
// throws std::logic_error). A routine the library lacks throws
// std::runtime_error naming it.
// Threading: any thread; calls on different matrices may run concurrently.
#pragma once

namespace asyncscope::lapack {

// A = U diag(s) VT (gesdd): jobz 'A' (all of U and VT), 'S' (the first
// min(m, n) columns of U and rows of VT) or 'N' (s only).
template <class T>
int gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt);

// A = Q R: the Householder form in a and tau (geqrf), then Q's first k
// columns of m x n, made explicit in a (orgqr).
template <class T>
int geqrf(int m, int n, T* a, int lda, T* tau);
template <class T>
int orgqr(int m, int n, int k, T* a, int lda, const T* tau);

// C = op(Q) C or C op(Q), Q given by geqrf's reflectors (ormqr): side 'L' or
// 'R', trans 'N' or 'T'.
template <class T>
int ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc);

// The eigenvalues (ascending, in w) and, with jobz 'V', the eigenvectors (in
// a) of a symmetric matrix, from its triangle uplo ('L' or 'U') (syevd).
template <class T>
int syevd(char jobz, char uplo, int n, T* a, int lda, T* w);

// A = L L^T (uplo 'L') or U^T U ('U') in that triangle of a (potrf).
template <class T>
int potrf(char uplo, int n, T* a, int lda);

// A = P L U with unit L, in a, and the row swaps in ipiv (1-based) (getrf).
template <class T>
int getrf(int m, int n, T* a, int lda, int* ipiv);

// The inverse from getrf's factors, in a (getri).
template <class T>
int getri(int n, T* a, int lda, const int* ipiv);

// Solves op(A) X = B (trans 'N' or 'T') from getrf's factors, X in b (getrs).
template <class T>
int getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);

// Solves op(A) X = B for triangular A (uplo 'U'/'L', trans 'N'/'T', diag 'N'
// or 'U' for a unit diagonal), X in b (trtrs).
template <class T>
int trtrs(char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb);

}  // namespace asyncscope::lapack
