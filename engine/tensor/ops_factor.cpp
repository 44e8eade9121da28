// The factorisations of engine/tensor/factor.h: each op copies a matrix of
// the batch into a column-major buffer, calls LAPACK on it, and copies the
// factors back row-major, matrix after matrix, on the CPU worker that runs it.
#include "engine/tensor/factor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/tensor/autograd.h"
#include "engine/tensor/lapack.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch_typed;
using ops_detail::NoFunction;
using Grads = std::vector<NDArray>;
using Need = std::span<const bool>;

namespace {

// A batch of matrices: how many, and each one's rows and columns.
struct Batch {
  int64_t count = 1;
  int rows = 0, cols = 0;
};

Batch checked(const NDArray& a, const char* op, bool square) {
  const Shape& s = a.chunk(op)->shape;
  if (a.dtype() != DType::float32 && a.dtype() != DType::float64) {
    throw std::invalid_argument(std::string(op) + ": expected a float32 or float64 tensor, got " + name(a.dtype()));
  }
  if (a.device().kind != DeviceKind::cpu) {
    throw std::invalid_argument(std::string(op) + ": not implemented on " + to_string(a.device()) +
                                " (LAPACK runs on the CPU; move the tensor there)");
  }
  if (s.ndim() < 2) {
    throw std::invalid_argument(std::string(op) + ": the input must have at least 2 dimensions, got " +
                                s.to_string());
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  Batch b;
  for (int d = 0; d < s.ndim() - 2; ++d) b.count *= s[d];
  if (s[s.ndim() - 2] > kIntMax || s[s.ndim() - 1] > kIntMax) {
    throw std::invalid_argument(std::string(op) + ": dimensions beyond " + std::to_string(kIntMax) +
                                " are not supported by LAPACK (" + s.to_string() + ")");
  }
  b.rows = static_cast<int>(s[s.ndim() - 2]);
  b.cols = static_cast<int>(s[s.ndim() - 1]);
  if (square && b.rows != b.cols) {
    throw std::invalid_argument(std::string(op) + ": A must be batches of square matrices, but they are " +
                                std::to_string(b.rows) + " by " + std::to_string(b.cols) + " matrices");
  }
  return b;
}

// a's shape with its last two dims replaced (or its last two by one, `last`).
Shape matrices(const Shape& s, int64_t rows, int64_t cols) {
  std::vector<int64_t> d(s.begin(), s.end() - 2);
  d.push_back(rows);
  d.push_back(cols);
  return Shape(std::span<const int64_t>(d));
}
Shape vectors(const Shape& s, int64_t last) {
  std::vector<int64_t> d(s.begin(), s.end() - 2);
  d.push_back(last);
  return Shape(std::span<const int64_t>(d));
}

// Row-major r x c at `src` into column-major (leading dimension r) at `dst`, and back.
template <class T>
void to_columns(const T* src, int r, int c, T* dst) {
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < c; ++j) dst[int64_t{j} * r + i] = src[int64_t{i} * c + j];
  }
}
template <class T>
void from_columns(const T* src, int r, int c, T* dst) {
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < c; ++j) dst[int64_t{i} * c + j] = src[int64_t{j} * r + i];
  }
}

// For each matrix i of a batch: A_i (ar x ac) and B_i (m x n), row-major at
// a and b, copied column-major; solve(i, a_col, b_col) replaces b_col, which
// is copied back row-major to out. An empty B_i (or `empty`) is copied as it is.
template <class T, class Solve>
void solve_each(int64_t count, int ar, int ac, int m, int n, bool empty, const T* a, const T* b, T* out,
                Solve&& solve) {
  std::vector<T> acol(static_cast<size_t>(std::max(1, ar) * std::max(1, ac)));
  std::vector<T> bcol(static_cast<size_t>(std::max(1, m) * std::max(1, n)));
  for (int64_t i = 0; i < count; ++i) {
    const T* bi = b + i * int64_t{m} * n;
    T* oi = out + i * int64_t{m} * n;
    if (empty || m == 0 || n == 0) {
      std::copy(bi, bi + int64_t{m} * n, oi);
      continue;
    }
    to_columns(a + i * int64_t{ar} * ac, ar, ac, acol.data());
    to_columns(bi, m, n, bcol.data());
    solve(i, acol.data(), bcol.data());
    from_columns(bcol.data(), m, n, oi);
  }
}

template <class F>
void visit_float(DType t, F&& f) {
  if (t == DType::float32) {
    f(float{});
  } else {
    f(double{});
  }
}

// A batch's element in the message of a failure, as PyTorch's "(Batch element 1): ".
std::string element(int64_t count, int64_t i) {
  return count > 1 ? "(Batch element " + std::to_string(i) + "): " : "";
}

void fail(const std::string& text) { throw std::runtime_error(text); }

// x @ y for batches (..., r, c) (transposes as dot's), through batch_dot on one batch dim.
NDArray matmul_batches(const NDArray& x, const NDArray& y, bool tx, bool ty) {
  const Shape& sx = x.shape();
  const Shape& sy = y.shape();
  const int64_t count = x.size() / std::max<int64_t>(1, sx[sx.ndim() - 2] * sx[sx.ndim() - 1]);
  const NDArray x3 = reshape(x, Shape{count, sx[sx.ndim() - 2], sx[sx.ndim() - 1]});
  const NDArray y3 = reshape(y, Shape{count, sy[sy.ndim() - 2], sy[sy.ndim() - 1]});
  const NDArray out = batch_dot(x3, y3, tx, ty);
  return reshape(out, matrices(sx, out.shape()[1], out.shape()[2]));
}

// A constant (n, n) mask of a triangle of type `dtype`: 1 on and above (or
// below) the diagonal, the diagonal itself kept unless `strict`.
NDArray triangle(const NDArray& like, int64_t n, bool upper, bool strict) {
  std::vector<float> m(static_cast<size_t>(n * n), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool in = upper ? (strict ? j > i : j >= i) : (strict ? j < i : j <= i);
      m[static_cast<size_t>(i * n + j)] = in ? 1.0f : 0.0f;
    }
  }
  return astype(from_host(like.context_ptr(), Shape{n, n}, std::move(m), like.device()), like.dtype());
}

}  // namespace

Svd svd(const NDArray& a, bool full_matrices, bool compute_uv) {
  static const trace::NameId kName = trace::intern("svd");
  const Batch b = checked(a, "svd", false);
  const int m = b.rows, n = b.cols, k = std::min(m, n);
  const bool full = full_matrices && compute_uv;
  const int ucols = full ? m : k, vrows = full ? n : k;
  Svd out;
  out.s = NDArray::empty(a.context_ptr(), vectors(a.shape(), k), a.device(), a.dtype());
  if (compute_uv) {
    out.u = NDArray::empty(a.context_ptr(), matrices(a.shape(), m, ucols), a.device(), a.dtype());
    out.vh = NDArray::empty(a.context_ptr(), matrices(a.shape(), vrows, n), a.device(), a.dtype());
  }
  ChunkRef x = ops_detail::storage(a, "svd");
  Chunk* s = out.s.chunk();
  Chunk* u = compute_uv ? out.u.chunk() : nullptr;
  Chunk* vh = compute_uv ? out.vh.chunk() : nullptr;
  const DType t = a.dtype();
  const auto cpu = [=](const RunContext&) {
    visit_float(t, [&]<class T>(T) {
      const T* in = x->typed_for_read<T>();
      T* sv = s->typed_for_write<T>();
      T* uv = u ? u->typed_for_write<T>() : nullptr;
      T* vv = vh ? vh->typed_for_write<T>() : nullptr;
      std::vector<T> col(static_cast<size_t>(std::max(1, m) * std::max(1, n)));
      std::vector<T> ucol(static_cast<size_t>(std::max(1, m) * std::max(1, ucols)));
      std::vector<T> vcol(static_cast<size_t>(std::max(1, vrows) * std::max(1, n)));
      for (int64_t i = 0; i < b.count; ++i) {
        T* ui = uv ? uv + i * int64_t{m} * ucols : nullptr;
        T* vi = vv ? vv + i * int64_t{vrows} * n : nullptr;
        if (k == 0) {  // no singular values: U and Vh are identities where full, empty otherwise
          if (ui) for (int r = 0; r < m; ++r) for (int c = 0; c < ucols; ++c) ui[int64_t{r} * ucols + c] = r == c;
          if (vi) for (int r = 0; r < vrows; ++r) for (int c = 0; c < n; ++c) vi[int64_t{r} * n + c] = r == c;
          continue;
        }
        to_columns(in + i * int64_t{m} * n, m, n, col.data());
        const char jobz = !compute_uv ? 'N' : full ? 'A' : 'S';
        const int info = lapack::gesdd<T>(jobz, m, n, col.data(), m, sv + i * k, ucol.data(), m, vcol.data(),
                                          std::max(1, vrows));
        if (info > 0) {
          fail("linalg.svd: " + element(b.count, i) +
               "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
               "repeated singular values (error code: " + std::to_string(info) + ").");
        }
        if (ui) from_columns(ucol.data(), m, ucols, ui);
        if (vi) from_columns(vcol.data(), vrows, n, vi);
      }
    });
  };
  if (compute_uv) {
    launch_typed(kName, "svd", {&a}, {&out.u, &out.s, &out.vh}, cpu, NoFunction{});
  } else {
    launch_typed(kName, "svd", {&a}, {&out.s}, cpu, NoFunction{});
  }
  return out;
}

QrReflectors geqrf(const NDArray& a) {
  static const trace::NameId kName = trace::intern("geqrf");
  const Batch b = checked(a, "geqrf", false);
  const int m = b.rows, n = b.cols, k = std::min(m, n);
  QrReflectors out;
  out.a = NDArray::empty(a.context_ptr(), a.shape(), a.device(), a.dtype());
  out.tau = NDArray::empty(a.context_ptr(), vectors(a.shape(), k), a.device(), a.dtype());
  ChunkRef x = ops_detail::storage(a, "geqrf");
  Chunk* r = out.a.chunk();
  Chunk* tau = out.tau.chunk();
  const DType t = a.dtype();
  launch_typed(
      kName, "geqrf", {&a}, {&out.a, &out.tau},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          const T* in = x->typed_for_read<T>();
          T* rv = r->typed_for_write<T>();
          T* tv = tau->typed_for_write<T>();
          std::vector<T> col(static_cast<size_t>(std::max(1, m) * std::max(1, n)));
          for (int64_t i = 0; i < b.count; ++i) {
            if (k == 0) {
              std::copy(in + i * int64_t{m} * n, in + (i + 1) * int64_t{m} * n, rv + i * int64_t{m} * n);
              continue;
            }
            to_columns(in + i * int64_t{m} * n, m, n, col.data());
            lapack::geqrf<T>(m, n, col.data(), m, tv + i * k);
            from_columns(col.data(), m, n, rv + i * int64_t{m} * n);
          }
        });
      },
      NoFunction{});
  return out;
}

Qr qr(const NDArray& a, const char* mode) {
  static const trace::NameId kName = trace::intern("qr");
  const std::string how = mode;
  if (how != "reduced" && how != "complete" && how != "r") {
    throw std::invalid_argument("qr received unrecognized mode '" + how +
                                "' but expected one of 'reduced' (default), 'r', or 'complete'");
  }
  const Batch b = checked(a, "qr", false);
  const int m = b.rows, n = b.cols, k = std::min(m, n);
  const bool complete = how == "complete", want_q = how != "r";
  const int qcols = complete ? m : k, rrows = complete ? m : k;
  Qr out;
  out.r = NDArray::empty(a.context_ptr(), matrices(a.shape(), rrows, n), a.device(), a.dtype());
  if (want_q) out.q = NDArray::empty(a.context_ptr(), matrices(a.shape(), m, qcols), a.device(), a.dtype());
  ChunkRef x = ops_detail::storage(a, "qr");
  Chunk* q = want_q ? out.q.chunk() : nullptr;
  Chunk* r = out.r.chunk();
  const DType t = a.dtype();
  const auto cpu = [=](const RunContext&) {
    visit_float(t, [&]<class T>(T) {
      const T* in = x->typed_for_read<T>();
      T* qv = q ? q->typed_for_write<T>() : nullptr;
      T* rv = r->typed_for_write<T>();
      // Room for m x max(n, m) so that a complete Q (m x m) can be made in place.
      const int width = std::max(n, qcols);
      std::vector<T> col(static_cast<size_t>(std::max(1, m) * std::max(1, width)));
      std::vector<T> tau(static_cast<size_t>(std::max(1, k)));
      for (int64_t i = 0; i < b.count; ++i) {
        T* ri = rv + i * int64_t{rrows} * n;
        std::fill(col.begin(), col.end(), T{0});
        to_columns(in + i * int64_t{m} * n, m, n, col.data());
        if (k > 0) lapack::geqrf<T>(m, n, col.data(), m, tau.data());
        for (int rr = 0; rr < rrows; ++rr) {
          for (int c = 0; c < n; ++c) ri[int64_t{rr} * n + c] = c >= rr ? col[int64_t{c} * m + rr] : T{0};
        }
        if (qv == nullptr) continue;
        T* qi = qv + i * int64_t{m} * qcols;
        if (k == 0) {
          for (int rr = 0; rr < m; ++rr) for (int c = 0; c < qcols; ++c) qi[int64_t{rr} * qcols + c] = rr == c;
          continue;
        }
        lapack::orgqr<T>(m, qcols, k, col.data(), m, tau.data());
        from_columns(col.data(), m, qcols, qi);
      }
    });
  };
  if (want_q) {
    launch_typed(kName, "qr", {&a}, {&out.q, &out.r}, cpu, NoFunction{});
  } else {
    launch_typed(kName, "qr", {&a}, {&out.r}, cpu, NoFunction{});
  }
  return out;
}

NDArray ormqr(const NDArray& a, const NDArray& tau, const NDArray& c, bool left, bool transpose) {
  static const trace::NameId kName = trace::intern("ormqr");
  const Batch ba = checked(a, "ormqr", false);
  const Batch bc = checked(c, "ormqr", false);
  ops_detail::check_pair(a, c, "ormqr");
  if (a.dtype() != c.dtype() || tau.dtype() != a.dtype()) {
    throw std::invalid_argument("ormqr: expected input, tau and other of one dtype");
  }
  const int m = bc.rows, n = bc.cols;
  const int k = static_cast<int>(tau.shape()[tau.shape().ndim() - 1]);
  const int rows_a = ba.rows;
  if (ba.count != bc.count || rows_a != (left ? m : n) || k > std::min(ba.rows, ba.cols)) {
    throw std::invalid_argument("ormqr: the reflectors " + a.shape().to_string() + " and tau " +
                                tau.shape().to_string() + " do not fit other " + c.shape().to_string());
  }
  NDArray out = NDArray::empty(c.context_ptr(), c.shape(), c.device(), c.dtype());
  ChunkRef xa = ops_detail::storage(a, "ormqr");
  ChunkRef xt = ops_detail::storage(tau, "ormqr");
  ChunkRef xc = ops_detail::storage(c, "ormqr");
  Chunk* o = out.chunk();
  const DType t = a.dtype();
  const int cols_a = ba.cols;
  launch_typed(
      kName, "ormqr", {&a, &tau, &c}, {&out},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          const T* tv = xt->typed_for_read<T>();
          solve_each<T>(bc.count, rows_a, cols_a, m, n, k == 0, xa->typed_for_read<T>(), xc->typed_for_read<T>(),
                        o->typed_for_write<T>(), [&](int64_t i, T* acol, T* ccol) {
                          lapack::ormqr<T>(left ? 'L' : 'R', transpose ? 'T' : 'N', m, n, k, acol, rows_a,
                                           tv + i * k, ccol, m);
                        });
        });
      },
      NoFunction{});
  return out;
}

Eigh eigh(const NDArray& a, bool upper, bool compute_vectors) {
  static const trace::NameId kName = trace::intern("eigh");
  const Batch b = checked(a, "eigh", true);
  const int n = b.rows;
  Eigh out;
  out.values = NDArray::empty(a.context_ptr(), vectors(a.shape(), n), a.device(), a.dtype());
  if (compute_vectors) out.vectors = NDArray::empty(a.context_ptr(), a.shape(), a.device(), a.dtype());
  ChunkRef x = ops_detail::storage(a, "eigh");
  Chunk* w = out.values.chunk();
  Chunk* v = compute_vectors ? out.vectors.chunk() : nullptr;
  const DType t = a.dtype();
  const auto cpu = [=](const RunContext&) {
    visit_float(t, [&]<class T>(T) {
      const T* in = x->typed_for_read<T>();
      T* wv = w->typed_for_write<T>();
      T* vv = v ? v->typed_for_write<T>() : nullptr;
      std::vector<T> col(static_cast<size_t>(std::max(1, n) * std::max(1, n)));
      for (int64_t i = 0; i < b.count; ++i) {
        if (n == 0) continue;
        to_columns(in + i * int64_t{n} * n, n, n, col.data());
        const int info = lapack::syevd<T>(vv ? 'V' : 'N', upper ? 'U' : 'L', n, col.data(), n, wv + i * n);
        if (info > 0) {
          fail("linalg.eigh: " + element(b.count, i) +
               "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
               "repeated eigenvalues (error code: " + std::to_string(info) + ").");
        }
        if (vv) from_columns(col.data(), n, n, vv + i * int64_t{n} * n);
      }
    });
  };
  if (compute_vectors) {
    launch_typed(kName, "eigh", {&a}, {&out.values, &out.vectors}, cpu, NoFunction{});
  } else {
    launch_typed(kName, "eigh", {&a}, {&out.values}, cpu, NoFunction{});
  }
  return out;
}

NDArray cholesky(const NDArray& a, bool upper) {
  static const trace::NameId kName = trace::intern("cholesky");
  const Batch b = checked(a, "cholesky", true);
  const int n = b.rows;
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device(), a.dtype());
  ChunkRef x = ops_detail::storage(a, "cholesky");
  Chunk* o = out.chunk();
  const DType t = a.dtype();
  launch_typed(
      kName, "cholesky", {&a}, {&out},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          std::vector<T> col(static_cast<size_t>(std::max(1, n) * std::max(1, n)));
          for (int64_t i = 0; i < b.count; ++i) {
            if (n == 0) continue;
            to_columns(x->typed_for_read<T>() + i * int64_t{n} * n, n, n, col.data());
            const int info = lapack::potrf<T>(upper ? 'U' : 'L', n, col.data(), n);
            if (info > 0) {
              fail("linalg.cholesky: " + element(b.count, i) +
                   "The factorization could not be completed because the input is not positive-definite (the "
                   "leading minor of order " + std::to_string(info) + " is not positive-definite).");
            }
            T* oi = o->typed_for_write<T>() + i * int64_t{n} * n;
            for (int r = 0; r < n; ++r) {
              for (int c = 0; c < n; ++c) {
                const bool kept = upper ? c >= r : c <= r;
                oi[int64_t{r} * n + c] = kept ? col[int64_t{c} * n + r] : T{0};
              }
            }
          }
        });
      },
      NoFunction{});
  return out;
}

Lu lu_factor(const NDArray& a) {
  static const trace::NameId kName = trace::intern("lu_factor");
  const Batch b = checked(a, "lu_factor", false);
  const int m = b.rows, n = b.cols, k = std::min(m, n);
  Lu out;
  out.lu = NDArray::empty(a.context_ptr(), a.shape(), a.device(), a.dtype());
  out.pivots = NDArray::empty(a.context_ptr(), vectors(a.shape(), k), a.device(), DType::int32);
  ChunkRef x = ops_detail::storage(a, "lu_factor");
  Chunk* lu = out.lu.chunk();
  Chunk* piv = out.pivots.chunk();
  const DType t = a.dtype();
  launch_typed(
      kName, "lu_factor", {&a}, {&out.lu, &out.pivots},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          std::vector<T> col(static_cast<size_t>(std::max(1, m) * std::max(1, n)));
          for (int64_t i = 0; i < b.count; ++i) {
            const T* in = x->typed_for_read<T>() + i * int64_t{m} * n;
            T* li = lu->typed_for_write<T>() + i * int64_t{m} * n;
            if (k == 0) {
              std::copy(in, in + int64_t{m} * n, li);
              continue;
            }
            to_columns(in, m, n, col.data());
            // A singular matrix still factors (a zero on U's diagonal): PyTorch's lu_factor returns it too.
            lapack::getrf<T>(m, n, col.data(), m, piv->typed_for_write<int32_t>() + i * k);
            from_columns(col.data(), m, n, li);
          }
        });
      },
      NoFunction{});
  return out;
}

NDArray lu_solve(const NDArray& lu, const NDArray& pivots, const NDArray& b, bool transpose) {
  static const trace::NameId kName = trace::intern("lu_solve");
  const Batch ba = checked(lu, "lu_solve", true);
  const Batch bb = checked(b, "lu_solve", false);
  ops_detail::check_pair(lu, b, "lu_solve");
  if (lu.dtype() != b.dtype()) throw std::invalid_argument("lu_solve: LU and B have different dtypes");
  if (pivots.dtype() != DType::int32) throw std::invalid_argument("lu_solve: expected int32 pivots (lu_factor's)");
  const int n = ba.rows, k = bb.cols;
  if (bb.rows != n || ba.count != bb.count || pivots.size() != ba.count * n) {
    throw std::invalid_argument("lu_solve: LU " + lu.shape().to_string() + ", pivots " + pivots.shape().to_string() +
                                " and B " + b.shape().to_string() + " do not fit");
  }
  NDArray out = NDArray::empty(b.context_ptr(), b.shape(), b.device(), b.dtype());
  ChunkRef xl = ops_detail::storage(lu, "lu_solve");
  ChunkRef xp = ops_detail::storage(pivots, "lu_solve");
  ChunkRef xb = ops_detail::storage(b, "lu_solve");
  Chunk* o = out.chunk();
  const DType t = lu.dtype();
  launch_typed(
      kName, "lu_solve", {&lu, &pivots, &b}, {&out},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          const int32_t* piv = xp->typed_for_read<int32_t>();
          solve_each<T>(bb.count, n, n, n, k, false, xl->typed_for_read<T>(), xb->typed_for_read<T>(),
                        o->typed_for_write<T>(), [&](int64_t i, T* acol, T* bcol) {
                          lapack::getrs<T>(transpose ? 'T' : 'N', n, k, acol, n, piv + i * n, bcol, n);
                        });
        });
      },
      NoFunction{});
  return out;
}

NDArray inverse(const NDArray& a) {
  static const trace::NameId kName = trace::intern("inverse");
  const Batch b = checked(a, "inverse", true);
  const int n = b.rows;
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device(), a.dtype());
  ChunkRef x = ops_detail::storage(a, "inverse");
  Chunk* o = out.chunk();
  const DType t = a.dtype();
  launch_typed(
      kName, "inverse", {&a}, {&out},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          std::vector<T> col(static_cast<size_t>(std::max(1, n) * std::max(1, n)));
          std::vector<int> piv(static_cast<size_t>(std::max(1, n)));
          for (int64_t i = 0; i < b.count; ++i) {
            if (n == 0) continue;
            to_columns(x->typed_for_read<T>() + i * int64_t{n} * n, n, n, col.data());
            int info = lapack::getrf<T>(n, n, col.data(), n, piv.data());
            if (info == 0) info = lapack::getri<T>(n, col.data(), n, piv.data());
            if (info > 0) {
              fail("linalg.inv: " + element(b.count, i) + "The diagonal element " + std::to_string(info) +
                   " is zero, the inversion could not be completed because the input matrix is singular.");
            }
            from_columns(col.data(), n, n, o->typed_for_write<T>() + i * int64_t{n} * n);
          }
        });
      },
      NoFunction{});
  // d(A^-1) = -A^-T dY A^-T.
  if (autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [y = ops_detail::detached(out)](const NDArray& dy, Need) {
      return Grads{-matmul_batches(matmul_batches(y, dy, true, false), y, false, true)};
    });
  }
  return out;
}

NDArray solve_triangular(const NDArray& a, const NDArray& b, bool upper, bool transpose, bool unit) {
  static const trace::NameId kName = trace::intern("solve_triangular");
  const Batch ba = checked(a, "solve_triangular", true);
  const Batch bb = checked(b, "solve_triangular", false);
  ops_detail::check_pair(a, b, "solve_triangular");
  if (a.dtype() != b.dtype()) {
    throw std::invalid_argument(std::string("solve_triangular: A and B have different element types (") +
                                name(a.dtype()) + " and " + name(b.dtype()) + ")");
  }
  const int n = ba.rows, k = bb.cols;
  if (bb.rows != n || ba.count != bb.count) {
    throw std::invalid_argument("solve_triangular: A " + a.shape().to_string() + " and B " + b.shape().to_string() +
                                " do not fit (B needs A's batch and as many rows as A)");
  }
  NDArray out = NDArray::empty(b.context_ptr(), b.shape(), b.device(), b.dtype());
  ChunkRef xa = ops_detail::storage(a, "solve_triangular");
  ChunkRef xb = ops_detail::storage(b, "solve_triangular");
  Chunk* o = out.chunk();
  const DType t = a.dtype();
  launch_typed(
      kName, "solve_triangular", {&a, &b}, {&out},
      [=](const RunContext&) {
        visit_float(t, [&]<class T>(T) {
          solve_each<T>(bb.count, n, n, n, k, false, xa->typed_for_read<T>(), xb->typed_for_read<T>(),
                        o->typed_for_write<T>(), [&](int64_t, T* acol, T* bcol) {
                          // A zero on the diagonal: LAPACK reports it and leaves B; the result then holds
                          // infinities, as PyTorch's does (it does not check).
                          const int info = lapack::trtrs<T>(upper ? 'U' : 'L', transpose ? 'T' : 'N',
                                                            unit ? 'U' : 'N', n, k, acol, n, bcol, n);
                          if (info > 0) std::fill(bcol, bcol + int64_t{n} * k, std::numeric_limits<T>::infinity());
                        });
        });
      },
      NoFunction{});
  // X = op(A)^-1 B: dB = op(A)^-T dX, dA = -dB X^T (transposed for op(A) = A^T), kept to A's triangle.
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out,
                     [a, x = ops_detail::detached(out), upper, transpose, unit, n](const NDArray& dx, Need need) {
                       Grads g(2);
                       const NDArray db = solve_triangular(a, dx, upper, !transpose, unit);
                       if (need[1]) g[1] = db;
                       if (need[0]) {
                         const NDArray da = transpose ? -matmul_batches(x, db, false, true)
                                                      : -matmul_batches(db, x, false, true);
                         g[0] = da * triangle(a, n, upper, unit);
                       }
                       return g;
                     });
  }
  return out;
}

}  // namespace asyncscope
