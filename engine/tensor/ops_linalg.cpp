// Matrix ops: the BLAS (or cuBLAS) product, the transpose, and reshape (a
// view); each with its gradient for autograd.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "engine/core/help_board.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/blas.h"
#include <array>

#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch;
using ops_detail::launch_typed;
using Grads = std::vector<NDArray>;
using Need = std::span<const bool>;

namespace {

void require_2d(const NDArray& a, const char* op) {
  if (a.shape().ndim() != 2) {
    throw std::invalid_argument(std::string(op) + ": needs a 2-D array, got " + a.shape().to_string());
  }
}

// The least work worth a part of its own: about 0.3 ms on one core, against
// the tens of microseconds a sleeping worker takes to wake up and join.
constexpr double kMinPartFlops = double(1 << 25);
// Parts start on multiples of this many rows (or columns), the register
// blocking of the BLAS kernels, so no part ends in a ragged edge mid-block.
constexpr int kPartAlign = 16;

// C = op(A) op(B) (m x n, row stride ldc) for integer types, which BLAS
// lacks: a row of C at a time, wrapping on overflow as PyTorch's CPU kernel.
template <class T>
void integer_gemm(bool ta, bool tb, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc) {
  using U = std::make_unsigned_t<T>;
  for (int i = 0; i < m; ++i) {
    T* row = c + int64_t{i} * ldc;
    std::fill(row, row + n, T{0});
    for (int p = 0; p < k; ++p) {
      const U aip = static_cast<U>(ta ? a[int64_t{p} * lda + i] : a[int64_t{i} * lda + p]);
      if (aip == 0) continue;
      for (int j = 0; j < n; ++j) {
        const U bpj = static_cast<U>(tb ? b[int64_t{j} * ldb + p] : b[int64_t{p} * ldb + j]);
        row[j] = static_cast<T>(static_cast<U>(static_cast<U>(row[j]) + static_cast<U>(aip * bpj)));
      }
    }
  }
}

// One product C = op(A) op(B) of the element type T, on this thread.
template <class T>
void gemm(bool ta, bool tb, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc) {
  if constexpr (std::is_same_v<T, float>) {
    blas::sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    blas::dgemm(ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  } else {
    integer_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  }
}

// The same on a GPU's stream: cuBLAS for float32 and float64 (products of
// other types are refused before they are pushed: gpu_product_type).
template <class T>
void gpu_gemm(void* stream, bool ta, bool tb, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c,
              int ldc) {
  if constexpr (std::is_same_v<T, float>) {
    cuda::sgemm(stream, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cuda::dgemm(stream, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  }
}

// The element type both operands of a product have: float32 and float64
// through BLAS, int32, int64 and uint8 through integer_gemm (on the CPU
// only, as PyTorch's); std::invalid_argument for two types or bool.
DType product_type(const NDArray& a, const NDArray& b, const char* op) {
  const DType t = a.dtype();
  if (b.dtype() != t) {
    throw std::invalid_argument(std::string(op) + ": the arrays have different element types (" + name(t) + " and " +
                                name(b.dtype()) + "); cast one to the other's type");
  }
  if (t == DType::boolean) throw std::invalid_argument(std::string(op) + ": not implemented for bool arrays");
  if (a.device().kind != DeviceKind::cpu && !is_floating(t)) {
    throw std::invalid_argument(std::string(op) + ": products of " + name(t) + " arrays are not implemented on " +
                                to_string(a.device()) + " (cuBLAS has float32 and float64)");
  }
  return t;
}

// C = op(A) op(B) (m x n, row stride n). When idle workers of the
// pool can help (engine/core/help_board.h), a product large enough is split
// into row blocks of C (column blocks when it is wider than tall), each a
// single-threaded GEMM: while other ops are ready, the helpers stay with
// them and this worker runs every part; while none is, the product uses
// every worker's core. One part per worker: each part packs all of the other
// operand again, so more parts than workers add packing and gain nothing.
template <class T>
void gemm_in_parts(const RunContext& rc, bool ta, bool tb, int m, int n, int k, const T* a, int lda, const T* b,
                   int ldb, T* c) {
  const int helpers = help_capacity(rc);
  const bool by_rows = m >= n;
  const int dim = by_rows ? m : n;
  const double flops = 2.0 * m * n * k;
  const int parts = helpers == 0 ? 1
                                 : static_cast<int>(std::min<double>(
                                       {double(helpers + 1), double(dim / (4 * kPartAlign)), flops / kMinPartFlops}));
  if (parts <= 1) {
    gemm(ta, tb, m, n, k, a, lda, b, ldb, c, n);
    return;
  }
  const auto boundary = [dim, parts](int part) {
    return part == parts ? dim : static_cast<int>(int64_t{dim} * part / parts) / kPartAlign * kPartAlign;
  };
  run_parts(rc, parts, [&](int part) {
    const int begin = boundary(part);
    const int size = boundary(part + 1) - begin;
    if (size <= 0) return;
    if (by_rows) {  // rows of op(A): rows of A, or columns of a transposed A
      const T* a_part = ta ? a + begin : a + int64_t{begin} * lda;
      gemm(ta, tb, size, n, k, a_part, lda, b, ldb, c + int64_t{begin} * n, n);
    } else {  // columns of op(B): columns of B, or rows of a transposed B
      const T* b_part = tb ? b + int64_t{begin} * ldb : b + begin;
      gemm(ta, tb, m, size, k, a, lda, b_part, ldb, c + begin, n);
    }
  });
}

// Calls f(T{}) with T the C++ type of a product's element type.
template <class F>
void visit_product_type(DType t, F&& f) {
  switch (t) {
    case DType::float32: f(float{}); return;
    case DType::float64: f(double{}); return;
    case DType::int32: f(int32_t{}); return;
    case DType::int64: f(int64_t{}); return;
    case DType::uint8: f(uint8_t{}); return;
    default: throw std::logic_error("visit_product_type: no product of this type");
  }
}

}  // namespace

NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b) {
  static const trace::NameId kName = trace::intern("dot");
  ops_detail::check_pair(a, b, "dot");
  require_2d(a, "dot");
  require_2d(b, "dot");
  const int64_t m = transpose_a ? a.shape()[1] : a.shape()[0];
  const int64_t k = transpose_a ? a.shape()[0] : a.shape()[1];
  const int64_t kb = transpose_b ? b.shape()[1] : b.shape()[0];
  const int64_t n = transpose_b ? b.shape()[0] : b.shape()[1];
  if (k != kb) {
    throw std::invalid_argument("dot: inner dimensions differ (" + a.shape().to_string() +
                                (transpose_a ? "^T" : "") + " x " + b.shape().to_string() +
                                (transpose_b ? "^T" : "") + ")");
  }
  // BLAS takes int dimensions and leading dimensions.
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (std::max({a.shape()[0], a.shape()[1], b.shape()[0], b.shape()[1]}) > kIntMax) {
    throw std::invalid_argument("dot: dimensions beyond " + std::to_string(kIntMax) + " are not supported by BLAS (" +
                                a.shape().to_string() + " x " + b.shape().to_string() + ")");
  }
  const DType dtype = product_type(a, b, "dot");
  NDArray out = NDArray::empty(a.context_ptr(), Shape{m, n}, a.device(), dtype);
  Chunk* o = out.chunk();
  ChunkRef pa = ops_detail::storage(a, "dot");
  ChunkRef pb = ops_detail::storage(b, "dot");
  // Leading dimensions from the operands' own shapes (a view's storage may have another).
  const auto lda = static_cast<int>(a.shape()[1]);
  const auto ldb = static_cast<int>(b.shape()[1]);
  const auto im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  // m n <= 2^59 (a shape's bound) and k < 2^31: 2 m n k may pass 2^64, so the count saturates.
  const auto mn = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  const uint64_t flops = k == 0 || mn <= UINT64_MAX / 2 / static_cast<uint64_t>(k) ? 2 * mn * static_cast<uint64_t>(k)
                                                                                 : UINT64_MAX;
  a.context().count_matmul_flops(flops);
  launch_typed(
      kName, "dot", {&a, &b}, {&out},
      [o, pa, pb, transpose_a, transpose_b, im, in, ik, lda, ldb, dtype](const RunContext& rc) {
        visit_product_type(dtype, [&]<class T>(T) {
          gemm_in_parts(rc, transpose_a, transpose_b, im, in, ik, pa->typed_for_read<T>(), lda,
                        pb->typed_for_read<T>(), ldb, o->typed_for_write<T>());
        });
      },
      [o, pa, pb, transpose_a, transpose_b, im, in, ik, lda, ldb, dtype](const RunContext& rc) {
        void* c = o->raw_for_write();
        if (im == 0 || in == 0) return;
        if (ik == 0) {
          cuda::fill_words(rc.stream, c, int64_t{im} * in, item_size(dtype), 0);
          return;
        }
        visit_product_type(dtype, [&]<class T>(T) {
          gpu_gemm(rc.stream, transpose_a, transpose_b, im, in, ik, pa->typed_for_read<T>(), lda,
                   pb->typed_for_read<T>(), ldb, static_cast<T*>(c), in);
        });
      });
  // C = op(a) op(b): dA and dB are again single GEMMs, with the transposes
  // chosen so that no transposed copy is ever materialised.
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [a, b, transpose_a, transpose_b](const NDArray& dc, Need need) {
      Grads g(2);
      if (need[0]) g[0] = transpose_a ? dot(b, dc, transpose_b, true) : dot(dc, b, false, !transpose_b);
      if (need[1]) g[1] = transpose_b ? dot(dc, a, true, transpose_a) : dot(a, dc, !transpose_a, false);
      return g;
    });
  }
  return out;
}

NDArray batch_dot(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b) {
  static const trace::NameId kName = trace::intern("batch_dot");
  ops_detail::check_pair(a, b, "batch_dot");
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa.ndim() != 3 || sb.ndim() != 3 || sa[0] != sb[0]) {
    throw std::invalid_argument("batch_dot: needs two 3-D arrays of one batch size, got " + sa.to_string() + " and " +
                                sb.to_string());
  }
  const int64_t batch = sa[0];
  const int64_t m = transpose_a ? sa[2] : sa[1];
  const int64_t k = transpose_a ? sa[1] : sa[2];
  const int64_t kb = transpose_b ? sb[2] : sb[1];
  const int64_t n = transpose_b ? sb[1] : sb[2];
  if (k != kb) {
    throw std::invalid_argument("batch_dot: inner dimensions differ (" + sa.to_string() + (transpose_a ? "^T" : "") +
                                " x " + sb.to_string() + (transpose_b ? "^T" : "") + ")");
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (std::max({sa[1], sa[2], sb[1], sb[2]}) > kIntMax) {
    throw std::invalid_argument("batch_dot: dimensions beyond " + std::to_string(kIntMax) +
                                " are not supported by BLAS (" + sa.to_string() + " x " + sb.to_string() + ")");
  }
  const DType dtype = product_type(a, b, "batch_dot");
  NDArray out = NDArray::empty(a.context_ptr(), Shape{batch, m, n}, a.device(), dtype);
  Chunk* o = out.chunk();
  ChunkRef pa = ops_detail::storage(a, "batch_dot");
  ChunkRef pb = ops_detail::storage(b, "batch_dot");
  const auto lda = static_cast<int>(sa[2]), ldb = static_cast<int>(sb[2]);
  const auto im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  const int64_t step_a = sa[1] * sa[2], step_b = sb[1] * sb[2], step_c = m * n;
  const double flops = 2.0 * static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) *
                       static_cast<double>(k);
  a.context().count_matmul_flops(flops >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(flops));
  launch_typed(
      kName, "batch_dot", {&a, &b}, {&out},
      [=](const RunContext& rc) {
        visit_product_type(dtype, [&]<class T>(T) {
          const T* x = pa->typed_for_read<T>();
          const T* y = pb->typed_for_read<T>();
          T* c = o->typed_for_write<T>();
          // The batch split among idle workers (a product each), when there is work for them.
          const int helpers = help_capacity(rc);
          const int parts = helpers == 0 ? 1
                                         : static_cast<int>(std::min<double>(
                                               {double(helpers + 1), double(batch), flops / kMinPartFlops}));
          const auto products = [&](int64_t first, int64_t last) {
            for (int64_t i = first; i < last; ++i) {
              gemm(transpose_a, transpose_b, im, in, ik, x + i * step_a, lda, y + i * step_b, ldb, c + i * step_c, in);
            }
          };
          if (parts <= 1) {
            products(0, batch);
            return;
          }
          run_parts(rc, parts, [&](int part) { products(batch * part / parts, batch * (part + 1) / parts); });
        });
      },
      [=](const RunContext& rc) {
        void* raw = o->raw_for_write();
        if (batch == 0 || im == 0 || in == 0) return;
        if (ik == 0) {
          cuda::fill_words(rc.stream, raw, batch * step_c, item_size(dtype), 0);
          return;
        }
        // A product per batch on the op's stream (cuBLAS's strided-batched call is not in the loaded table).
        visit_product_type(dtype, [&]<class T>(T) {
          const T* x = pa->typed_for_read<T>();
          const T* y = pb->typed_for_read<T>();
          T* c = static_cast<T*>(raw);
          for (int64_t i = 0; i < batch; ++i) {
            gpu_gemm(rc.stream, transpose_a, transpose_b, im, in, ik, x + i * step_a, lda, y + i * step_b, ldb,
                     c + i * step_c, in);
          }
        });
      });
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [a, b, transpose_a, transpose_b](const NDArray& dc, Need need) {
      Grads g(2);
      if (need[0]) g[0] = transpose_a ? batch_dot(b, dc, transpose_b, true) : batch_dot(dc, b, false, !transpose_b);
      if (need[1]) g[1] = transpose_b ? batch_dot(dc, a, true, transpose_a) : batch_dot(a, dc, !transpose_a, false);
      return g;
    });
  }
  return out;
}

NDArray transpose(const NDArray& a) {
  static const trace::NameId kName = trace::intern("transpose");
  require_2d(a, "transpose");
  const int64_t rows = a.shape()[0];
  const int64_t cols = a.shape()[1];
  if (a.dtype() != DType::float32) return permute(a, std::array<int, 2>{1, 0});
  ChunkRef x = ops_detail::storage(a, "transpose");
  NDArray out = NDArray::empty(a.context_ptr(), Shape{cols, rows}, a.device());
  Chunk* o = out.chunk();
  launch(
      kName, "transpose", {&a}, {&out},
      [o, x, rows, cols](const RunContext&) {
        float* y = o->data_for_write();
        const float* p = x->data_for_read();
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = p[r * cols + c];
        }
      },
      [o, x, rows, cols](const RunContext& rc) {
        cuda::transpose(rc.stream, o->data_for_write(), x->data_for_read(), rows, cols);
      });
  if (autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [](const NDArray& dy, Need) { return Grads{transpose(dy)}; });
  }
  return out;
}

NDArray permute(const NDArray& a, std::span<const int> order) {
  const Shape& s = a.chunk("permute")->shape;
  if (static_cast<int>(order.size()) != s.ndim()) {
    throw std::invalid_argument("permute: " + std::to_string(order.size()) + " axes given for a " + s.to_string() +
                                " array (" + std::to_string(s.ndim()) + " dimensions)");
  }
  int64_t strides[Shape::kMaxDims];
  for (int i = s.ndim() - 1, stride = 0; i >= 0; --i) {
    strides[i] = i == s.ndim() - 1 ? 1 : strides[i + 1] * s[i + 1];
    (void)stride;
  }
  bool used[Shape::kMaxDims] = {};
  Selection sel;
  int64_t dims[Shape::kMaxDims];
  for (size_t i = 0; i < order.size(); ++i) {
    int axis = order[i];
    if (axis < 0) axis += s.ndim();
    if (axis < 0 || axis >= s.ndim() || used[axis]) {
      throw std::invalid_argument("permute: the axes must be a permutation of 0.." + std::to_string(s.ndim() - 1) +
                                  " (axis " + std::to_string(order[i]) + " is out of range or repeated)");
    }
    used[axis] = true;
    dims[i] = s[axis];
    sel.strides[i] = strides[axis];
  }
  sel.shape = Shape(std::span<const int64_t>(dims, order.size()));
  if (s.ndim() == 2 && order[0] != order[1] && a.dtype() == DType::float32 && (order[0] == 1 || order[0] == -1)) {
    return transpose(a);
  }
  return take(a, sel);
}

NDArray reshape(const NDArray& a, const Shape& shape) {
  static const trace::NameId kName = trace::intern("reshape");
  NDArray out = make_view(a, shape);
  if (autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [in = a.shape()](const NDArray& dy, Need) { return Grads{reshape(dy, in)}; });
  }
  return out;
}

NDArray reshape(const NDArray& a, std::span<const int64_t> dims) {
  const int64_t total = a.chunk("reshape")->shape.size();
  int64_t known = 1;
  int infer = -1;
  std::vector<int64_t> resolved(dims.begin(), dims.end());
  for (size_t i = 0; i < resolved.size(); ++i) {
    if (resolved[i] == -1) {
      if (infer >= 0) throw std::invalid_argument("reshape: at most one dimension may be -1");
      infer = static_cast<int>(i);
    } else if (resolved[i] < 0) {
      throw std::invalid_argument("reshape: dimensions must be >= 0 or -1, got " + std::to_string(resolved[i]));
    } else {
      known = Shape::mul_capped(known, resolved[i]);
    }
  }
  if (known > Shape::kMaxElements) {
    throw std::invalid_argument("reshape: cannot reshape " + a.shape().to_string() +
                                ": the new dimensions hold more than 2^59 elements");
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      throw std::invalid_argument("reshape: cannot infer the -1 dimension: " + std::to_string(total) +
                                  " elements of " + a.shape().to_string() + " do not divide by " +
                                  std::to_string(known));
    }
    resolved[static_cast<size_t>(infer)] = total / known;
  }
  return reshape(a, Shape(std::span<const int64_t>(resolved)));
}

}  // namespace asyncscope
