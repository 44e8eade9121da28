#pragma once

// Single-precision GEMM through OpenBLAS, loaded at run time.
//
// The engine does not link OpenBLAS. On first use it dlopen()s the library,
// and before that sets OPENBLAS_CORETYPE from our own CPUID check, because
// Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) misdetects CPUs newer than it knows
// as "Prescott" and runs SGEMM several times slower on that old kernel. It
// also sets OPENBLAS_THREAD_TIMEOUT so that OpenBLAS's idle threads stop
// spinning after about 0.1 ms instead of a tenth of a second, time they would
// take from the engine's workers. A value the user set themselves always wins.

#include <string>

namespace asyncscope::blas {

// What was loaded and which CPU kernel OpenBLAS runs, for logs and the UI.
struct Info {
  std::string library;      // path of the loaded library, or its soname if the path is unknown
  std::string core;         // openblas_get_corename() after loading, e.g. "SkylakeX"; "unknown" if absent
  std::string forced_core;  // what we set OPENBLAS_CORETYPE to; empty if we did not set it
  std::string reason;       // one line: why forced_core was (not) set
  std::string config;       // openblas_get_config() if the library exports it
  // OPENBLAS_THREAD_TIMEOUT the library was loaded with (how long its idle
  // threads spin, 2^N cycles), and whose it was; empty if it was loaded
  // before us (by NumPy, say), when neither could be chosen.
  std::string thread_timeout;
};

// Loads OpenBLAS on the first call (once per process) and describes it.
// Throws std::runtime_error, saying what to install, if OpenBLAS is unavailable;
// every later call throws the same error.
// The first call may set and then restore OPENBLAS_CORETYPE; make it from main()
// before starting threads if other threads call setenv/getenv concurrently.
// Threading: any thread.
const Info& info();

// The OpenBLAS kernel name this CPU should use ("Cooperlake", "SkylakeX", "Zen",
// "Haswell"), from CPUID and XCR0 only; loads nothing. Empty when no override is
// needed (no AVX2, or a non-x86 build). Threading: any thread.
std::string recommended_core();

// A function of the loaded OpenBLAS by its symbol name (its LAPACK
// routines, such as "sgesdd_"), or null if the library lacks it. Loads
// OpenBLAS if needed and throws what info() throws. Threading: any thread.
void* symbol(const char* name);

// Sets the number of OpenBLAS worker threads (openblas_set_num_threads). This is
// process-global: it affects every caller of sgemm. Throws std::invalid_argument
// if n < 1. No-op if the library lacks the call. Loads OpenBLAS if needed and
// throws what info() throws. Threading: any thread, but do not race it with
// sgemm calls that must see a particular count.
void set_threads(int n);

// The current number of OpenBLAS worker threads; 1 if the library lacks the call.
// Loads OpenBLAS if needed and throws what info() throws. Threading: any thread.
int threads();

// Row-major single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, where
// op(A) is m x k, op(B) is k x n and C is m x n; op(X) is X or X^T per trans_x.
// lda/ldb/ldc are row strides in elements of the matrices as stored.
// Throws std::invalid_argument on negative sizes or too-small strides, and what
// info() throws if OpenBLAS is unavailable. Cheap after the first call (no lock).
// Threading: any thread; concurrent calls must not write the same C.
void sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
           int ldb, float beta, float* c, int ldc);

// The same in double precision (cblas_dgemm), for float64 arrays.
void dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
           int ldb, double beta, double* c, int ldc);

}  // namespace asyncscope::blas
