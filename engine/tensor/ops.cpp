#include "engine/tensor/ops.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/cuda/cuda.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/blas.h"
#include "engine/base/random.h"

namespace asyncscope {
namespace {

using detail::Chunk;

// Every op kind's interned name, looked up once.
struct OpNames {
  const trace::NameId add = trace::intern("add");
  const trace::NameId add_inplace = trace::intern("add_inplace");
  const trace::NameId add_scalar = trace::intern("add_scalar");
  const trace::NameId add_scaled = trace::intern("add_scaled");
  const trace::NameId copy = trace::intern("copy");
  const trace::NameId div = trace::intern("div");
  const trace::NameId div_scalar = trace::intern("div_scalar");
  const trace::NameId dot = trace::intern("dot");
  const trace::NameId from_host = trace::intern("from_host");
  const trace::NameId full = trace::intern("full");
  const trace::NameId mean = trace::intern("mean");
  const trace::NameId mul = trace::intern("mul");
  const trace::NameId mul_inplace = trace::intern("mul_inplace");
  const trace::NameId mul_scalar = trace::intern("mul_scalar");
  const trace::NameId negative = trace::intern("negative");
  const trace::NameId norm = trace::intern("norm");
  const trace::NameId normal = trace::intern("normal");
  const trace::NameId ones = trace::intern("ones");
  const trace::NameId rdiv_scalar = trace::intern("rdiv_scalar");
  const trace::NameId relu = trace::intern("relu");
  const trace::NameId relu_grad = trace::intern("relu_grad");
  const trace::NameId rsub_scalar = trace::intern("rsub_scalar");
  const trace::NameId sub = trace::intern("sub");
  const trace::NameId sub_inplace = trace::intern("sub_inplace");
  const trace::NameId sub_scalar = trace::intern("sub_scalar");
  const trace::NameId sum = trace::intern("sum");
  const trace::NameId sum_axis0 = trace::intern("sum_axis0");
  const trace::NameId sum_axis1 = trace::intern("sum_axis1");
  const trace::NameId to_device = trace::intern("to_device");
  const trace::NameId to_host = trace::intern("to_host");
  const trace::NameId transpose = trace::intern("transpose");
  const trace::NameId uniform = trace::intern("uniform");
  const trace::NameId zeros = trace::intern("zeros");
};
const OpNames& op_names() {
  static const OpNames names;
  return names;
}

void same_context(const NDArray& a, const NDArray& b, const char* op) {
  if (&a.context() != &b.context()) {
    throw std::invalid_argument(std::string(op) + ": arrays belong to different contexts");
  }
  if (a.device() != b.device()) {
    throw std::invalid_argument(std::string(op) + ": arrays are on different devices (" + to_string(a.device()) +
                                " and " + to_string(b.device()) + "); move one with to()");
  }
}

bool on_gpu(const NDArray& a) { return a.device().kind != DeviceKind::cpu; }
bool on_gpu(const Chunk* c) { return c->device.kind != DeviceKind::cpu; }

// Host values on their way to a GPU: copied into page-locked memory, from
// which the device copies asynchronously (from pageable memory the runtime
// may wait for the stream first). The op's function holds it, and the
// engine drops the function only after the device finished the op.
struct PinnedStaging {
  void* block = nullptr;
  size_t bytes = 0;
  ~PinnedStaging() {
    if (block != nullptr) cuda::pinned_allocator().deallocate(block, bytes);
  }
  const float* hold(const float* values, size_t n) {
    bytes = n * sizeof(float);
    block = cuda::pinned_allocator().allocate(bytes);
    if (bytes != 0) std::memcpy(block, values, bytes);
    return static_cast<const float*>(block);
  }
};

void copy_host_values_to(void* stream, float* device, const float* values, size_t n, PinnedStaging& staging) {
  cuda::copy_to_device(stream, device, staging.hold(values, n), n * sizeof(float));
}

// Pushes fn reading `in` and writing `out`, tagged for the trace. It runs on
// the device of the first output, or on `device` when given (copies between
// devices run on the GPU's stream).
template <class F>
void launch(trace::NameId name, std::initializer_list<const NDArray*> in, std::initializer_list<const NDArray*> out,
            F&& fn, const Device* device = nullptr) {
  const NDArray& first = **out.begin();
  Context& ctx = first.context();
  Var* reads[4];
  Var* writes[2];
  size_t nr = 0, nw = 0;
  OpMeta meta(name, device ? *device : first.device());
  meta.iteration = ctx.iteration();
  for (const NDArray* a : in) reads[nr++] = a->var();
  for (const NDArray* a : out) {
    writes[nw++] = a->var();
    meta.out_bytes += a->bytes();
  }
  ctx.engine().push(std::forward<F>(fn), std::span<Var* const>(reads, nr), std::span<Var* const>(writes, nw), meta);
}

NDArray fill_op(const ContextPtr& ctx, const Shape& shape, float value, trace::NameId name) {
  NDArray out = NDArray::empty(ctx, shape);
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    launch(name, {}, {&out}, [o, value](const RunContext& rc) {
      cuda::fill(rc.stream, o->data_for_write(), o->shape.size(), value);
    });
    return out;
  }
  launch(name, {}, {&out}, [o, value](const RunContext&) {
    float* y = o->data_for_write();
    const int64_t n = o->shape.size();
    for (int64_t i = 0; i < n; ++i) y[i] = value;
  });
  return out;
}

// How an operand maps onto the output's (rows x cols) view.
struct Operand {
  const Chunk* chunk;
  int64_t row_stride;  // cols (full), 0 (row or scalar)
  int64_t col_stride;  // 1 (full or row), 0 (scalar)
};

int64_t last_dim(const Shape& s) { return s.ndim() == 0 ? 1 : s[s.ndim() - 1]; }

bool is_row_of(const Shape& row, const Shape& full) {
  if (full.ndim() == 0) return false;
  const bool one_d = row.ndim() == 1 && row[0] == last_dim(full);
  const bool one_by_n = row.ndim() == 2 && row[0] == 1 && row[1] == last_dim(full);
  return one_d || one_by_n;
}

enum class Binary { add, sub, mul, div };

template <Binary kOp>
inline float apply(float a, float b) {
  if constexpr (kOp == Binary::add) return a + b;
  if constexpr (kOp == Binary::sub) return a - b;
  if constexpr (kOp == Binary::mul) return a * b;
  return a / b;
}

template <Binary kOp>
void binary_kernel(Chunk* out, Operand a, Operand b) {
  float* y = out->data_for_write();
  const float* pa = a.chunk->data_for_read();
  const float* pb = b.chunk->data_for_read();
  const int64_t cols = last_dim(out->shape);
  const int64_t rows = cols == 0 ? 0 : out->shape.size() / cols;
  if (a.col_stride == 1 && a.row_stride == cols && b.col_stride == 1 && b.row_stride == cols) {
    const int64_t n = rows * cols;  // the common case: contiguous, vectorisable
    for (int64_t i = 0; i < n; ++i) y[i] = apply<kOp>(pa[i], pb[i]);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* ra = pa + r * a.row_stride;
    const float* rb = pb + r * b.row_stride;
    float* ry = y + r * cols;
    for (int64_t c = 0; c < cols; ++c) ry[c] = apply<kOp>(ra[c * a.col_stride], rb[c * b.col_stride]);
  }
}

template <Binary kOp>
NDArray binary(const NDArray& a, const NDArray& b, trace::NameId name, const char* text) {
  same_context(a, b, text);
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  // The output takes the shape of the larger operand; the other must broadcast.
  const bool a_is_out = sa == sb || sb.size() == 1 || is_row_of(sb, sa);
  if (!a_is_out && !(sa.size() == 1 || is_row_of(sa, sb))) {
    throw std::invalid_argument(std::string(text) + ": shapes " + sa.to_string() + " and " + sb.to_string() +
                                " do not broadcast (need equal shapes, a one-element array, or a row "
                                "matching the last dimension)");
  }
  const Shape& shape = a_is_out ? sa : sb;
  const int64_t cols = last_dim(shape);
  const auto operand = [&shape, cols](const NDArray& x) {
    if (x.shape() == shape) return Operand{x.chunk(), cols, 1};
    if (x.size() == 1 && !is_row_of(x.shape(), shape)) return Operand{x.chunk(), 0, 0};
    return Operand{x.chunk(), 0, 1};
  };
  NDArray out = NDArray::empty(a.context_ptr(), shape, a.device());
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    constexpr auto kGpuOp = kOp == Binary::add   ? cuda::BinaryOp::add
                            : kOp == Binary::sub ? cuda::BinaryOp::sub
                            : kOp == Binary::mul ? cuda::BinaryOp::mul
                                                 : cuda::BinaryOp::div;
    launch(name, {&a, &b}, {&out}, [o, oa = operand(a), ob = operand(b)](const RunContext& rc) {
      const int64_t c = last_dim(o->shape);
      const int64_t rows = c == 0 ? 0 : o->shape.size() / c;
      cuda::binary(rc.stream, kGpuOp, o->data_for_write(), rows, c,
                   cuda::StridedOperand{oa.chunk->data_for_read(), oa.row_stride, oa.col_stride},
                   cuda::StridedOperand{ob.chunk->data_for_read(), ob.row_stride, ob.col_stride});
    });
    return out;
  }
  launch(name, {&a, &b}, {&out}, [o, oa = operand(a), ob = operand(b)](const RunContext&) {
    binary_kernel<kOp>(o, oa, ob);
  });
  return out;
}

// y = f(x) elementwise; on a GPU the same function is cuda::unary(gpu_op, s).
template <class F>
NDArray unary(const NDArray& a, trace::NameId name, cuda::UnaryOp gpu_op, float s, F f) {
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device());
  Chunk* o = out.chunk();
  const Chunk* x = a.chunk();
  if (on_gpu(o)) {
    launch(name, {&a}, {&out}, [o, x, gpu_op, s](const RunContext& rc) {
      cuda::unary(rc.stream, gpu_op, o->data_for_write(), x->data_for_read(), o->shape.size(), s);
    });
    return out;
  }
  launch(name, {&a}, {&out}, [o, x, f](const RunContext&) {
    float* y = o->data_for_write();
    const float* p = x->data_for_read();
    const int64_t n = o->shape.size();
    for (int64_t i = 0; i < n; ++i) y[i] = f(p[i]);
  });
  return out;
}

void require_2d(const NDArray& a, const char* op) {
  if (a.shape().ndim() != 2) {
    throw std::invalid_argument(std::string(op) + ": needs a 2-D array, got " + a.shape().to_string());
  }
}

template <class F>
NDArray reduce_all(const NDArray& a, trace::NameId name, cuda::ReduceOp gpu_op, F finish) {
  NDArray out = NDArray::empty(a.context_ptr(), Shape{}, a.device());
  Chunk* o = out.chunk();
  const Chunk* x = a.chunk();
  if (on_gpu(o)) {
    launch(name, {&a}, {&out}, [o, x, gpu_op](const RunContext& rc) {
      cuda::reduce_all(rc.stream, gpu_op, o->data_for_write(), x->data_for_read(), x->shape.size());
    });
    return out;
  }
  launch(name, {&a}, {&out}, [o, x, finish](const RunContext&) {
    const float* p = x->data_for_read();
    const int64_t n = x->shape.size();
    double acc = 0.0;
    double sq = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      acc += p[i];
      sq += static_cast<double>(p[i]) * p[i];
    }
    o->data_for_write()[0] = static_cast<float>(finish(acc, sq, n));
  });
  return out;
}

template <class F>
NDArray& update_in_place(NDArray& self, const NDArray& other, trace::NameId name, cuda::UpdateOp gpu_op, float s,
                         F f) {
  same_context(self, other, "in-place update");
  if (!(self.shape() == other.shape())) {
    throw std::invalid_argument("in-place update: shapes " + self.shape().to_string() + " and " +
                                other.shape().to_string() + " differ");
  }
  Chunk* o = self.chunk();
  const Chunk* x = other.chunk();
  if (on_gpu(o)) {
    launch(name, {&other}, {&self}, [o, x, gpu_op, s](const RunContext& rc) {
      cuda::update(rc.stream, gpu_op, o->data_for_update(), x->data_for_read(), o->shape.size(), s);
    });
    return self;
  }
  launch(name, {&other}, {&self}, [o, x, f](const RunContext&) {
    float* y = o->data_for_update();
    const float* p = x->data_for_read();
    const int64_t n = o->shape.size();
    for (int64_t i = 0; i < n; ++i) y[i] = f(y[i], p[i]);
  });
  return self;
}

}  // namespace

NDArray zeros(const ContextPtr& ctx, const Shape& shape) { return fill_op(ctx, shape, 0.0f, op_names().zeros); }
NDArray ones(const ContextPtr& ctx, const Shape& shape) { return fill_op(ctx, shape, 1.0f, op_names().ones); }
NDArray full(const ContextPtr& ctx, const Shape& shape, float value) {
  return fill_op(ctx, shape, value, op_names().full);
}

NDArray uniform(const ContextPtr& ctx, const Shape& shape, float low, float high) {
  if (!(low < high)) throw std::invalid_argument("uniform: need low < high");
  NDArray out = NDArray::empty(ctx, shape);
  Chunk* o = out.chunk();
  const uint64_t key = ctx->next_random_key();
  if (on_gpu(o)) {
    launch(op_names().uniform, {}, {&out}, [o, key, low, high](const RunContext& rc) {
      cuda::fill_uniform(rc.stream, o->data_for_write(), o->shape.size(), key, low, high);
    });
    return out;
  }
  launch(op_names().uniform, {}, {&out}, [o, key, low, high](const RunContext&) {
    random::fill_uniform(o->data_for_write(), o->shape.size(), key, low, high);
  });
  return out;
}

NDArray normal(const ContextPtr& ctx, const Shape& shape, float mean, float std_dev) {
  if (!(std_dev >= 0.0f)) throw std::invalid_argument("normal: need std_dev >= 0");
  NDArray out = NDArray::empty(ctx, shape);
  Chunk* o = out.chunk();
  const uint64_t key = ctx->next_random_key();
  if (on_gpu(o)) {
    launch(op_names().normal, {}, {&out}, [o, key, mean, std_dev](const RunContext& rc) {
      cuda::fill_normal(rc.stream, o->data_for_write(), o->shape.size(), key, mean, std_dev);
    });
    return out;
  }
  launch(op_names().normal, {}, {&out}, [o, key, mean, std_dev](const RunContext&) {
    random::fill_normal(o->data_for_write(), o->shape.size(), key, mean, std_dev);
  });
  return out;
}

NDArray from_host(const ContextPtr& ctx, const Shape& shape, std::vector<float> values) {
  if (static_cast<int64_t>(values.size()) != shape.size()) {
    throw std::invalid_argument("from_host: " + std::to_string(values.size()) + " values for shape " +
                                shape.to_string());
  }
  NDArray out = NDArray::empty(ctx, shape);
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    auto staging = std::make_shared<PinnedStaging>();
    launch(op_names().from_host, {}, {&out}, [o, v = std::move(values), staging](const RunContext& rc) {
      copy_host_values_to(rc.stream, o->data_for_write(), v.data(), v.size(), *staging);
    });
    return out;
  }
  launch(op_names().from_host, {}, {&out}, [o, v = std::move(values)](const RunContext&) {
    if (!v.empty()) std::memcpy(o->data_for_write(), v.data(), v.size() * sizeof(float));
  });
  return out;
}

NDArray copy(const NDArray& a) {
  return unary(a, op_names().copy, cuda::UnaryOp::copy, 0.0f, [](float x) { return x; });
}

NDArray to(const NDArray& a, Device device) {
  if (a.device() == device) return copy(a);
  if (on_gpu(a) && device.kind != DeviceKind::cpu) {
    throw std::invalid_argument("to(): copies between two GPUs are not supported (" + to_string(a.device()) + " to " +
                                to_string(device) + "); go through the host");
  }
  const Chunk* x = a.chunk();
  if (on_gpu(a)) {
    // Device to host: into page-locked memory, so the copy is asynchronous too.
    NDArray out = NDArray::empty(a.context_ptr(), a.shape(), device);
    Chunk* o = out.chunk();
    o->allocator = &cuda::pinned_allocator();
    const Device stream_device = a.device();
    launch(op_names().to_host, {&a}, {&out}, [o, x](const RunContext& rc) {
      cuda::copy_to_host(rc.stream, o->data_for_write(), x->data_for_read(), o->bytes);
    }, &stream_device);
    return out;
  }
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), device);
  Chunk* o = out.chunk();
  auto staging = std::make_shared<PinnedStaging>();
  launch(op_names().to_device, {&a}, {&out}, [o, x, staging](const RunContext& rc) {
    copy_host_values_to(rc.stream, o->data_for_write(), x->data_for_read(), static_cast<size_t>(x->shape.size()),
                        *staging);
  });
  return out;
}

NDArray operator+(const NDArray& a, const NDArray& b) { return binary<Binary::add>(a, b, op_names().add, "add"); }
NDArray operator-(const NDArray& a, const NDArray& b) { return binary<Binary::sub>(a, b, op_names().sub, "sub"); }
NDArray operator*(const NDArray& a, const NDArray& b) { return binary<Binary::mul>(a, b, op_names().mul, "mul"); }
NDArray operator/(const NDArray& a, const NDArray& b) { return binary<Binary::div>(a, b, op_names().div, "div"); }

NDArray operator+(const NDArray& a, float s) {
  return unary(a, op_names().add_scalar, cuda::UnaryOp::add_scalar, s, [s](float x) { return x + s; });
}
NDArray operator-(const NDArray& a, float s) {
  return unary(a, op_names().sub_scalar, cuda::UnaryOp::sub_scalar, s, [s](float x) { return x - s; });
}
NDArray operator*(const NDArray& a, float s) {
  return unary(a, op_names().mul_scalar, cuda::UnaryOp::mul_scalar, s, [s](float x) { return x * s; });
}
NDArray operator/(const NDArray& a, float s) {
  return unary(a, op_names().div_scalar, cuda::UnaryOp::div_scalar, s, [s](float x) { return x / s; });
}
NDArray operator+(float s, const NDArray& a) { return a + s; }
NDArray operator*(float s, const NDArray& a) { return a * s; }
NDArray operator-(float s, const NDArray& a) {
  return unary(a, op_names().rsub_scalar, cuda::UnaryOp::rsub_scalar, s, [s](float x) { return s - x; });
}
NDArray operator/(float s, const NDArray& a) {
  return unary(a, op_names().rdiv_scalar, cuda::UnaryOp::rdiv_scalar, s, [s](float x) { return s / x; });
}
NDArray operator-(const NDArray& a) {
  return unary(a, op_names().negative, cuda::UnaryOp::negative, 0.0f, [](float x) { return -x; });
}
NDArray relu(const NDArray& a) {
  return unary(a, op_names().relu, cuda::UnaryOp::relu, 0.0f, [](float x) { return x > 0.0f ? x : 0.0f; });
}

NDArray relu_grad(const NDArray& x, const NDArray& dy) {
  same_context(x, dy, "relu_grad");
  if (!(x.shape() == dy.shape())) throw std::invalid_argument("relu_grad: shapes differ");
  NDArray out = NDArray::empty(x.context_ptr(), x.shape(), x.device());
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    launch(op_names().relu_grad, {&x, &dy}, {&out}, [o, px = x.chunk(), pd = dy.chunk()](const RunContext& rc) {
      cuda::relu_grad(rc.stream, o->data_for_write(), px->data_for_read(), pd->data_for_read(), o->shape.size());
    });
    return out;
  }
  launch(op_names().relu_grad, {&x, &dy}, {&out}, [o, px = x.chunk(), pd = dy.chunk()](const RunContext&) {
    float* y = o->data_for_write();
    const float* a = px->data_for_read();
    const float* g = pd->data_for_read();
    const int64_t n = o->shape.size();
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] > 0.0f ? g[i] : 0.0f;
  });
  return out;
}

NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b) {
  same_context(a, b, "dot");
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
  NDArray out = NDArray::empty(a.context_ptr(), Shape{m, n}, a.device());
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    launch(op_names().dot, {&a, &b}, {&out},
           [o, pa = a.chunk(), pb = b.chunk(), transpose_a, transpose_b, m, n, k](const RunContext& rc) {
             float* c = o->data_for_write();
             if (m == 0 || n == 0) return;
             if (k == 0) {
               cuda::fill(rc.stream, c, m * n, 0.0f);
               return;
             }
             cuda::sgemm(rc.stream, transpose_a, transpose_b, static_cast<int>(m), static_cast<int>(n),
                         static_cast<int>(k), 1.0f, pa->data_for_read(), static_cast<int>(pa->shape[1]),
                         pb->data_for_read(), static_cast<int>(pb->shape[1]), 0.0f, c, static_cast<int>(n));
           });
    return out;
  }
  launch(op_names().dot, {&a, &b}, {&out},
         [o, pa = a.chunk(), pb = b.chunk(), transpose_a, transpose_b, m, n, k](const RunContext&) {
           float* c = o->data_for_write();
           const auto lda = static_cast<int>(pa->shape[1]);
           const auto ldb = static_cast<int>(pb->shape[1]);
           blas::sgemm(transpose_a, transpose_b, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
                       pa->data_for_read(), lda, pb->data_for_read(), ldb, 0.0f, c, static_cast<int>(n));
         });
  return out;
}

NDArray transpose(const NDArray& a) {
  require_2d(a, "transpose");
  const int64_t rows = a.shape()[0];
  const int64_t cols = a.shape()[1];
  NDArray out = NDArray::empty(a.context_ptr(), Shape{cols, rows}, a.device());
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    launch(op_names().transpose, {&a}, {&out}, [o, x = a.chunk(), rows, cols](const RunContext& rc) {
      cuda::transpose(rc.stream, o->data_for_write(), x->data_for_read(), rows, cols);
    });
    return out;
  }
  launch(op_names().transpose, {&a}, {&out}, [o, x = a.chunk(), rows, cols](const RunContext&) {
    float* y = o->data_for_write();
    const float* p = x->data_for_read();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = p[r * cols + c];
    }
  });
  return out;
}

NDArray sum(const NDArray& a) {
  return reduce_all(a, op_names().sum, cuda::ReduceOp::sum, [](double s, double, int64_t) { return s; });
}
NDArray mean(const NDArray& a) {
  return reduce_all(a, op_names().mean, cuda::ReduceOp::mean, [](double s, double, int64_t n) { return n ? s / static_cast<double>(n) : 0.0; });
}
NDArray norm(const NDArray& a) {
  return reduce_all(a, op_names().norm, cuda::ReduceOp::norm, [](double, double sq, int64_t) { return std::sqrt(sq); });
}

NDArray sum(const NDArray& a, int axis) {
  require_2d(a, "sum(axis)");
  if (axis != 0 && axis != 1) throw std::invalid_argument("sum: axis must be 0 or 1 for a 2-D array");
  const int64_t rows = a.shape()[0];
  const int64_t cols = a.shape()[1];
  NDArray out = NDArray::empty(a.context_ptr(), Shape{axis == 0 ? cols : rows}, a.device());
  Chunk* o = out.chunk();
  if (on_gpu(o)) {
    launch(axis == 0 ? op_names().sum_axis0 : op_names().sum_axis1, {&a}, {&out},
           [o, x = a.chunk(), rows, cols, axis](const RunContext& rc) {
             cuda::sum_axis(rc.stream, o->data_for_write(), x->data_for_read(), rows, cols, axis);
           });
    return out;
  }
  launch(axis == 0 ? op_names().sum_axis0 : op_names().sum_axis1, {&a}, {&out}, [o, x = a.chunk(), rows, cols, axis](const RunContext&) {
    float* y = o->data_for_write();
    const float* p = x->data_for_read();
    std::vector<double> acc(static_cast<size_t>(axis == 0 ? cols : rows), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) acc[static_cast<size_t>(axis == 0 ? c : r)] += p[r * cols + c];
    }
    for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<float>(acc[i]);
  });
  return out;
}

NDArray& NDArray::operator+=(const NDArray& other) {
  return update_in_place(*this, other, op_names().add_inplace, cuda::UpdateOp::add, 0.0f, [](float y, float x) { return y + x; });
}
NDArray& NDArray::operator-=(const NDArray& other) {
  return update_in_place(*this, other, op_names().sub_inplace, cuda::UpdateOp::sub, 0.0f, [](float y, float x) { return y - x; });
}
NDArray& NDArray::add_scaled(const NDArray& other, float alpha) {
  return update_in_place(*this, other, op_names().add_scaled, cuda::UpdateOp::add_scaled, alpha, [alpha](float y, float x) { return y + alpha * x; });
}
NDArray& NDArray::operator*=(float scalar) {
  Chunk* o = chunk();
  if (on_gpu(o)) {
    launch(op_names().mul_inplace, {}, {this}, [o, scalar](const RunContext& rc) {
      cuda::update(rc.stream, cuda::UpdateOp::mul_scalar, o->data_for_update(), nullptr, o->shape.size(), scalar);
    });
    return *this;
  }
  launch(op_names().mul_inplace, {}, {this}, [o, scalar](const RunContext&) {
    float* y = o->data_for_update();
    const int64_t n = o->shape.size();
    for (int64_t i = 0; i < n; ++i) y[i] *= scalar;
  });
  return *this;
}

}  // namespace asyncscope
