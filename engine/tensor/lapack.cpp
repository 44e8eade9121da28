#include "engine/tensor/lapack.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/tensor/blas.h"

namespace asyncscope::lapack {
namespace {

// The Fortran ABI: every argument by address, and after them the length of
// each character argument (gfortran's hidden arguments; 1 for ours).
using Len = size_t;

// The routine `name` with the precision's prefix (s or d): a symbol lookup
// in the already loaded library, far cheaper than any factorisation.
template <class Fn, class T>
Fn routine(const char* name) {
  const std::string full = std::string(std::is_same_v<T, float> ? "s" : "d") + name + "_";
  const auto fn = reinterpret_cast<Fn>(blas::symbol(full.c_str()));
  if (fn == nullptr) throw std::runtime_error("the loaded OpenBLAS lacks LAPACK's " + full);
  return fn;
}

int checked(int info, const char* name) {
  if (info < 0) throw std::logic_error(std::string("LAPACK ") + name + ": argument " + std::to_string(-info) + " is invalid");
  return info;
}

// The workspace LAPACK asked for in a query (lwork = -1), as a count.
template <class T>
int workspace(T asked) {
  return std::max(1, static_cast<int>(asked));
}

}  // namespace

template <class T>
int gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt) {
  using Fn = void (*)(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*, const int*, T*,
                      const int*, int*, int*, Len);
  const Fn fn = routine<Fn, T>("gesdd");
  std::vector<int> iwork(static_cast<size_t>(8 * std::max(1, std::min(m, n))));
  int info = 0, lwork = -1;
  T size{};
  fn(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &size, &lwork, iwork.data(), &info, 1);
  checked(info, "gesdd");
  lwork = workspace(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
  return checked(info, "gesdd");
}

template <class T>
int geqrf(int m, int n, T* a, int lda, T* tau) {
  using Fn = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  const Fn fn = routine<Fn, T>("geqrf");
  int info = 0, lwork = -1;
  T size{};
  fn(&m, &n, a, &lda, tau, &size, &lwork, &info);
  checked(info, "geqrf");
  lwork = workspace(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  return checked(info, "geqrf");
}

template <class T>
int orgqr(int m, int n, int k, T* a, int lda, const T* tau) {
  using Fn = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  const Fn fn = routine<Fn, T>("orgqr");
  int info = 0, lwork = -1;
  T size{};
  fn(&m, &n, &k, a, &lda, tau, &size, &lwork, &info);
  checked(info, "orgqr");
  lwork = workspace(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);
  return checked(info, "orgqr");
}

template <class T>
int ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc) {
  using Fn = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const int*, const T*, T*,
                      const int*, T*, const int*, int*, Len, Len);
  const Fn fn = routine<Fn, T>("ormqr");
  int info = 0, lwork = -1;
  T size{};
  fn(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, &size, &lwork, &info, 1, 1);
  checked(info, "ormqr");
  lwork = workspace(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, &info, 1, 1);
  return checked(info, "ormqr");
}

template <class T>
int syevd(char jobz, char uplo, int n, T* a, int lda, T* w) {
  using Fn = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*, const int*, int*,
                      Len, Len);
  const Fn fn = routine<Fn, T>("syevd");
  int info = 0, lwork = -1, liwork = -1, isize = 0;
  T size{};
  fn(&jobz, &uplo, &n, a, &lda, w, &size, &lwork, &isize, &liwork, &info, 1, 1);
  checked(info, "syevd");
  lwork = workspace(size);
  liwork = std::max(1, isize);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  fn(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return checked(info, "syevd");
}

template <class T>
int potrf(char uplo, int n, T* a, int lda) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*, Len);
  int info = 0;
  routine<Fn, T>("potrf")(&uplo, &n, a, &lda, &info, 1);
  return checked(info, "potrf");
}

template <class T>
int getrf(int m, int n, T* a, int lda, int* ipiv) {
  using Fn = void (*)(const int*, const int*, T*, const int*, int*, int*);
  int info = 0;
  routine<Fn, T>("getrf")(&m, &n, a, &lda, ipiv, &info);
  return checked(info, "getrf");
}

template <class T>
int getri(int n, T* a, int lda, const int* ipiv) {
  using Fn = void (*)(const int*, T*, const int*, const int*, T*, const int*, int*);
  const Fn fn = routine<Fn, T>("getri");
  int info = 0, lwork = -1;
  T size{};
  fn(&n, a, &lda, ipiv, &size, &lwork, &info);
  checked(info, "getri");
  lwork = workspace(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&n, a, &lda, ipiv, work.data(), &lwork, &info);
  return checked(info, "getri");
}

template <class T>
int getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*, Len);
  int info = 0;
  routine<Fn, T>("getrs")(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return checked(info, "getrs");
}

template <class T>
int trtrs(char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb) {
  using Fn = void (*)(const char*, const char*, const char*, const int*, const int*, const T*, const int*, T*,
                      const int*, int*, Len, Len, Len);
  int info = 0;
  routine<Fn, T>("trtrs")(&uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, &info, 1, 1, 1);
  return checked(info, "trtrs");
}

#define ASYNCSCOPE_LAPACK_FOR(T)                                                                           \
  template int gesdd<T>(char, int, int, T*, int, T*, T*, int, T*, int);                                    \
  template int geqrf<T>(int, int, T*, int, T*);                                                            \
  template int orgqr<T>(int, int, int, T*, int, const T*);                                                 \
  template int ormqr<T>(char, char, int, int, int, const T*, int, const T*, T*, int);                      \
  template int syevd<T>(char, char, int, T*, int, T*);                                                     \
  template int potrf<T>(char, int, T*, int);                                                               \
  template int getrf<T>(int, int, T*, int, int*);                                                          \
  template int getri<T>(int, T*, int, const int*);                                                         \
  template int getrs<T>(char, int, int, const T*, int, const int*, T*, int);                               \
  template int trtrs<T>(char, char, char, int, int, const T*, int, T*, int);
ASYNCSCOPE_LAPACK_FOR(float)
ASYNCSCOPE_LAPACK_FOR(double)
#undef ASYNCSCOPE_LAPACK_FOR

}  // namespace asyncscope::lapack
