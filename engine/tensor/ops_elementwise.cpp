// Elementwise ops: broadcasting binary ops, ops with a scalar, unary
// functions, relu's gradient, and the in-place updates; each with its
// gradient for autograd.
#include <cmath>

#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Binary;
using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch;
using ops_detail::IntegerInput;
using ops_detail::record1;
using ops_detail::unary;
using Grads = std::vector<NDArray>;
using Need = std::span<const bool>;

namespace {

template <Binary kOp>
inline float apply(float a, float b) {
  if constexpr (kOp == Binary::add) return a + b;
  if constexpr (kOp == Binary::sub) return a - b;
  if constexpr (kOp == Binary::mul) return a * b;
  if constexpr (kOp == Binary::div) return a / b;
  if constexpr (kOp == Binary::pow) return std::pow(a, b);
  // NaN wins, as in NumPy and PyTorch.
  if constexpr (kOp == Binary::maximum) return a != a ? a : (b != b ? b : (a > b ? a : b));
  if constexpr (kOp == Binary::minimum) return a != a ? a : (b != b ? b : (a < b ? a : b));
  if constexpr (kOp == Binary::equal) return a == b ? 1.0f : 0.0f;
  if constexpr (kOp == Binary::not_equal) return a != b ? 1.0f : 0.0f;
  if constexpr (kOp == Binary::greater) return a > b ? 1.0f : 0.0f;
  if constexpr (kOp == Binary::greater_equal) return a >= b ? 1.0f : 0.0f;
  if constexpr (kOp == Binary::less) return a < b ? 1.0f : 0.0f;
  return a <= b ? 1.0f : 0.0f;
}

// y = a op b over `out`'s layout, each operand stretched along its mask. The
// loops keep the innermost dimension unit-stride where the operands allow,
// so the common shapes (equal, one scalar, a row against a matrix) vectorise.
// The equal-shape case on its own, with restrict pointers (the output is a
// fresh array, never an input): inlined into the broadcasting kernel, GCC
// may keep the output pointer on the stack and reload it in every iteration
// of the vector loop, which makes a small x * y markedly slower than the bare
// loop.
template <Binary kOp>
[[gnu::noinline]] void binary_same_shape(float* __restrict y, const float* __restrict pa, const float* __restrict pb,
                                         int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = apply<kOp>(pa[i], pb[i]);
}

// y = y op b: the in-place update (x += y), where the output is an input.
template <Binary kOp>
[[gnu::noinline]] void binary_same_shape_in_place(float* y, const float* pb, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = apply<kOp>(y[i], pb[i]);
}

// y may be pa (an in-place update: pa is then not stretched, ma == 0); every
// loop below reads an element of pa before it writes the same one of y.
template <Binary kOp>
void binary_kernel(float* y, const float* pa, StretchMask ma, const float* pb, StretchMask mb, const Dims4& out) {
  const int64_t n = out.size();
  if (n == 0) return;
  if (ma == 0 && mb == 0) {
    if (y == pa) {
      binary_same_shape_in_place<kOp>(y, pb, n);
    } else {
      binary_same_shape<kOp>(y, pa, pb, n);
    }
    return;
  }
  const Strides4 sa = stretched_strides(out, ma);
  const Strides4 sb = stretched_strides(out, mb);
  const auto one_element = [](const Strides4& s) { return (s.s[0] | s.s[1] | s.s[2] | s.s[3]) == 0; };
  if (ma == 0 && one_element(sb)) {
    const float b = pb[0];
    for (int64_t i = 0; i < n; ++i) y[i] = apply<kOp>(pa[i], b);
    return;
  }
  if (mb == 0 && one_element(sa)) {
    const float a = pa[0];
    for (int64_t i = 0; i < n; ++i) y[i] = apply<kOp>(a, pb[i]);
    return;
  }
  const int64_t inner = out.d[3];
  for (int64_t i0 = 0; i0 < out.d[0]; ++i0) {
    for (int64_t i1 = 0; i1 < out.d[1]; ++i1) {
      for (int64_t i2 = 0; i2 < out.d[2]; ++i2) {
        const float* ra = pa + offset_of(sa, i0, i1, i2, 0);
        const float* rb = pb + offset_of(sb, i0, i1, i2, 0);
        float* ry = y;
        y += inner;
        if (sa.s[3] == 1 && sb.s[3] == 1) {
          for (int64_t c = 0; c < inner; ++c) ry[c] = apply<kOp>(ra[c], rb[c]);
        } else if (sa.s[3] == 1) {
          const float b = rb[0];
          for (int64_t c = 0; c < inner; ++c) ry[c] = apply<kOp>(ra[c], b);
        } else if (sb.s[3] == 1) {
          const float a = ra[0];
          for (int64_t c = 0; c < inner; ++c) ry[c] = apply<kOp>(a, rb[c]);
        } else {
          const float v = apply<kOp>(ra[0], rb[0]);
          for (int64_t c = 0; c < inner; ++c) ry[c] = v;
        }
      }
    }
  }
}

template <Binary kOp>
constexpr cuda::BinaryOp gpu_op() {
  // The two enums list the same ops in the same order.
  return static_cast<cuda::BinaryOp>(static_cast<int>(kOp));
}
static_assert(static_cast<int>(Binary::less_equal) == static_cast<int>(cuda::BinaryOp::less_equal));

template <Binary kOp>
NDArray binary(const NDArray& a, const NDArray& b, trace::NameId name, const char* op) {
  if (a.dtype() != DType::float32 || b.dtype() != DType::float32) [[unlikely]] {
    constexpr bool kComparison = kOp >= Binary::equal && kOp <= Binary::less_equal;
    const DType result = kComparison ? promote(a.dtype(), b.dtype()) : ops_detail::arithmetic_type(a.dtype(), b.dtype(), kOp);
    return ops_detail::binary_typed(a, b, kOp, result, name, op);
  }
  ops_detail::check_pair(a, b, op);
  const Shape shape = ops_detail::broadcast_shape(a.shape(), b.shape(), op);
  const Dims4 out_dims = ops_detail::padded(shape);
  const StretchMask ma = ops_detail::stretch_mask(a.shape(), out_dims);
  const StretchMask mb = ops_detail::stretch_mask(b.shape(), out_dims);
  NDArray out = NDArray::empty(a.context_ptr(), shape, a.device());
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, op);
  ChunkRef z = ops_detail::storage(b, op);
  constexpr cuda::BinaryOp kGpuOp = gpu_op<kOp>();
  launch(
      name, op, {&a, &b}, {&out},
      [o, x, z, ma, mb, out_dims](const RunContext&) {
        binary_kernel<kOp>(o->data_for_write(), x->data_for_read(), ma, z->data_for_read(), mb, out_dims);
      },
      [o, x, z, ma, mb, out_dims](const RunContext& rc) {
        cuda::binary(rc.stream, kGpuOp, o->data_for_write(), out_dims, x->data_for_read(), ma, z->data_for_read(),
                     mb);
      });
  return out;
}

}  // namespace

NDArray operator+(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("add");
  NDArray out = binary<Binary::add>(a, b, kName, "add");
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [sa = a.shape(), sb = b.shape()](const NDArray& dy, Need need) {
      return Grads{need[0] ? sum_to(dy, sa) : NDArray(), need[1] ? sum_to(dy, sb) : NDArray()};
    });
  }
  return out;
}

NDArray operator-(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("sub");
  NDArray out = binary<Binary::sub>(a, b, kName, "sub");
  // Negate after reducing: the reduced gradient is never larger than dy.
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [sa = a.shape(), sb = b.shape()](const NDArray& dy, Need need) {
      return Grads{need[0] ? sum_to(dy, sa) : NDArray(), need[1] ? -sum_to(dy, sb) : NDArray()};
    });
  }
  return out;
}

NDArray operator*(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("mul");
  NDArray out = binary<Binary::mul>(a, b, kName, "mul");
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [a, b](const NDArray& dy, Need need) {
      return Grads{need[0] ? sum_to(dy * b, a.shape()) : NDArray(), need[1] ? sum_to(dy * a, b.shape()) : NDArray()};
    });
  }
  return out;
}

NDArray operator/(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("div");
  NDArray out = binary<Binary::div>(a, b, kName, "div");
  // d(a/b)/db = -(a/b)/b: from the output, so a need not be kept.
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out,
                     [b, out = ops_detail::detached(out), sa = a.shape()](const NDArray& dy, Need need) {
                       return Grads{need[0] ? sum_to(dy / b, sa) : NDArray(),
                                    need[1] ? sum_to(-(dy * out / b), b.shape()) : NDArray()};
                     });
  }
  return out;
}

NDArray pow(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("pow");
  NDArray out = binary<Binary::pow>(a, b, kName, "pow");
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [a, b, out = ops_detail::detached(out)](const NDArray& dy, Need need) {
      return Grads{need[0] ? sum_to(dy * b * pow(a, b - 1.0f), a.shape()) : NDArray(),
                   need[1] ? sum_to(dy * out * log(a), b.shape()) : NDArray()};
    });
  }
  return out;
}

namespace {
// maximum and minimum: the gradient goes to the input that was taken (to a
// on a tie, as MXNet does; PyTorch splits a tie's gradient in halves).
template <Binary kOp>
NDArray extremum(const NDArray& a, const NDArray& b, const char* op) {
  static const trace::NameId kName = trace::intern(op);
  NDArray out = binary<kOp>(a, b, kName, op);
  if (autograd::should_record({&a, &b})) {
    autograd::record(kName, {&a, &b}, out, [a, b](const NDArray& dy, Need need) {
      const NDArray took_a = kOp == Binary::maximum ? greater_equal(a, b) : less_equal(a, b);
      return Grads{need[0] ? sum_to(dy * took_a, a.shape()) : NDArray(),
                   need[1] ? sum_to(dy * (1.0f - took_a), b.shape()) : NDArray()};
    });
  }
  return out;
}

template <Binary kOp>
NDArray comparison(const NDArray& a, const NDArray& b, const char* op) {
  static const trace::NameId kName = trace::intern(op);
  return binary<kOp>(a, b, kName, op);
}
}  // namespace

NDArray maximum(const NDArray& a, const NDArray& b) { return extremum<Binary::maximum>(a, b, "maximum"); }
NDArray minimum(const NDArray& a, const NDArray& b) { return extremum<Binary::minimum>(a, b, "minimum"); }
NDArray equal(const NDArray& a, const NDArray& b) { return comparison<Binary::equal>(a, b, "equal"); }
NDArray not_equal(const NDArray& a, const NDArray& b) { return comparison<Binary::not_equal>(a, b, "not_equal"); }
NDArray greater(const NDArray& a, const NDArray& b) { return comparison<Binary::greater>(a, b, "greater"); }
NDArray greater_equal(const NDArray& a, const NDArray& b) {
  return comparison<Binary::greater_equal>(a, b, "greater_equal");
}
NDArray less(const NDArray& a, const NDArray& b) { return comparison<Binary::less>(a, b, "less"); }
NDArray less_equal(const NDArray& a, const NDArray& b) { return comparison<Binary::less_equal>(a, b, "less_equal"); }

NDArray operator+(const NDArray& a, float s) {
  static const trace::NameId kName = trace::intern("add_scalar");
  if (!is_floating(a.dtype())) [[unlikely]] return a + ops_detail::scalar_array(a, s, true);
  NDArray out = unary(a, kName, "add_scalar", cuda::UnaryOp::add_scalar, s, [s](auto x) { return x + s; });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [](const NDArray& dy) { return dy; });
  }
  return out;
}

NDArray operator-(const NDArray& a, float s) {
  static const trace::NameId kName = trace::intern("sub_scalar");
  if (!is_floating(a.dtype())) [[unlikely]] return a - ops_detail::scalar_array(a, s, true);
  NDArray out = unary(a, kName, "sub_scalar", cuda::UnaryOp::sub_scalar, s, [s](auto x) { return x - s; });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [](const NDArray& dy) { return dy; });
  }
  return out;
}

NDArray operator*(const NDArray& a, float s) {
  static const trace::NameId kName = trace::intern("mul_scalar");
  if (!is_floating(a.dtype())) [[unlikely]] return a * ops_detail::scalar_array(a, s, true);
  NDArray out = unary(a, kName, "mul_scalar", cuda::UnaryOp::mul_scalar, s, [s](auto x) { return x * s; });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [s](const NDArray& dy) { return dy * s; });
  }
  return out;
}

NDArray operator/(const NDArray& a, float s) {
  static const trace::NameId kName = trace::intern("div_scalar");
  if (!is_floating(a.dtype())) [[unlikely]] return a / ops_detail::scalar_array(a, s, true);
  NDArray out = unary(a, kName, "div_scalar", cuda::UnaryOp::div_scalar, s, [s](auto x) { return x / s; });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [s](const NDArray& dy) { return dy / s; });
  }
  return out;
}

NDArray operator+(float s, const NDArray& a) { return a + s; }
NDArray operator*(float s, const NDArray& a) { return a * s; }

NDArray operator-(float s, const NDArray& a) {
  static const trace::NameId kName = trace::intern("rsub_scalar");
  if (!is_floating(a.dtype())) [[unlikely]] return ops_detail::scalar_array(a, s, true) - a;
  NDArray out = unary(a, kName, "rsub_scalar", cuda::UnaryOp::rsub_scalar, s, [s](auto x) { return s - x; });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [](const NDArray& dy) { return -dy; });
  }
  return out;
}

NDArray operator/(float s, const NDArray& a) {
  static const trace::NameId kName = trace::intern("rdiv_scalar");
  if (!is_floating(a.dtype())) [[unlikely]] return ops_detail::scalar_array(a, s, true) / a;
  NDArray out = unary(a, kName, "rdiv_scalar", cuda::UnaryOp::rdiv_scalar, s, [s](auto x) { return s / x; });
  if (autograd::should_record({&a})) {
    // d(s/a)/da = -(s/a)/a
    record1(kName, a, out, [a, out = ops_detail::detached(out)](const NDArray& dy) { return -(dy * out / a); });
  }
  return out;
}

NDArray operator-(const NDArray& a) {
  static const trace::NameId kName = trace::intern("negative");
  NDArray out = unary(a, kName, "negative", cuda::UnaryOp::negative, 0.0f, [](auto x) { return -x; }, IntegerInput::keep);
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [](const NDArray& dy) { return -dy; });
  }
  return out;
}

NDArray relu(const NDArray& a) {
  static const trace::NameId kName = trace::intern("relu");
  NDArray out = unary(a, kName, "relu", cuda::UnaryOp::relu, 0.0f, [](auto x) { return x > 0 ? x : decltype(x){}; },
                      IntegerInput::keep);
  // out > 0 exactly where a > 0, so the gradient keeps the output (which the
  // next layer keeps anyway) and the pre-activation can be freed at once.
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [out = ops_detail::detached(out)](const NDArray& dy) { return relu_grad(out, dy); });
  }
  return out;
}

NDArray square(const NDArray& a) {
  static const trace::NameId kName = trace::intern("square");
  if (a.dtype() == DType::boolean) return square(astype(a, DType::int64));  // as b ** 2 promotes
  NDArray out = unary(a, kName, "square", cuda::UnaryOp::square, 0.0f, [](auto x) { return x * x; }, IntegerInput::keep);
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy * a * 2.0f; });
  }
  return out;
}

NDArray sqrt(const NDArray& a) {
  static const trace::NameId kName = trace::intern("sqrt");
  NDArray out = unary(a, kName, "sqrt", cuda::UnaryOp::sqrt, 0.0f, [](auto x) { return std::sqrt(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [out = ops_detail::detached(out)](const NDArray& dy) { return dy / out * 0.5f; });
  }
  return out;
}

NDArray exp(const NDArray& a) {
  static const trace::NameId kName = trace::intern("exp");
  NDArray out = unary(a, kName, "exp", cuda::UnaryOp::exp, 0.0f, [](auto x) { return std::exp(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [out = ops_detail::detached(out)](const NDArray& dy) { return dy * out; });
  }
  return out;
}

NDArray log(const NDArray& a) {
  static const trace::NameId kName = trace::intern("log");
  NDArray out = unary(a, kName, "log", cuda::UnaryOp::log, 0.0f, [](auto x) { return std::log(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy / a; });
  }
  return out;
}

NDArray relu_grad(const NDArray& x, const NDArray& dy) {
  static const trace::NameId kName = trace::intern("relu_grad");
  ops_detail::check_pair(x, dy, "relu_grad");
  if (!(x.shape() == dy.shape())) {
    throw std::invalid_argument("relu_grad: shapes " + x.shape().to_string() + " and " + dy.shape().to_string() +
                                " differ");
  }
  if (x.dtype() != DType::float32 || dy.dtype() != DType::float32) {
    // Other types (a float64 graph): dy where x > 0, else 0, through the typed ops.
    const NDArray zero = full(x.context_ptr(), Shape{}, 0.0, dy.dtype(), x.device());
    return where(greater(x, astype(zero, x.dtype())), dy, zero);
  }
  NDArray out = NDArray::empty(x.context_ptr(), x.shape(), x.device());
  Chunk* o = out.chunk();
  ChunkRef px = ops_detail::storage(x, "relu_grad");
  ChunkRef pd = ops_detail::storage(dy, "relu_grad");
  launch(
      kName, "relu_grad", {&x, &dy}, {&out},
      [o, px, pd](const RunContext&) {
        float* y = o->data_for_write();
        const float* a = px->data_for_read();
        const float* g = pd->data_for_read();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] = a[i] > 0.0f ? g[i] : 0.0f;
      },
      [o, px, pd](const RunContext& rc) {
        cuda::relu_grad(rc.stream, o->data_for_write(), px->data_for_read(), pd->data_for_read(), o->shape.size());
      });
  return out;
}

namespace {

void refuse_while_recording(const NDArray& self, const NDArray* other, const char* op) {
  if (!autograd::is_recording()) return;
  if (self.requires_grad() || (other != nullptr && other->requires_grad())) {
    throw std::logic_error(std::string(op) +
                           ": in-place updates of arrays that need a gradient are not allowed while recording (the "
                           "recorded graph would see the changed values); use the out-of-place op");
  }
}

// self = self op other, other broadcast to self's shape (NumPy's rule for
// an in-place op: the result must keep self's shape). One op that writes
// self's var, on self's own buffer.
// All of self as a selection (for the in-place ops of other types, which
// compute a new array and assign it).
Selection whole(const Shape& s) {
  Selection sel;
  sel.shape = s;
  int64_t stride = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    sel.strides[i] = stride;
    stride *= s[i];
  }
  return sel;
}

// Whether a value of type `from` may be stored in place into an array of type
// `to`: not a float into an integer or bool array, nor an integer into a bool
// one (NumPy's same-kind rule, PyTorch's in-place rule).
bool fits_in_place(DType from, DType to) {
  if (is_floating(from)) return is_floating(to);
  if (is_integral(from)) return to != DType::boolean;
  return true;
}

// self = self op other for arrays of other types: the result computed
// as a new array and assigned to all of self (two ops, both on the timeline).
NDArray& typed_in_place(NDArray& self, const NDArray& other, Binary kop, trace::NameId name, const char* op) {
  const DType result = ops_detail::arithmetic_type(self.dtype(), other.dtype(), kop);
  if (!fits_in_place(result, self.dtype())) {
    throw std::invalid_argument(std::string(op) + ": the result type " + asyncscope::name(result) +
                                " cannot be stored in place in a " + asyncscope::name(self.dtype()) + " array");
  }
  const NDArray r = ops_detail::binary_typed(self, other, kop, result, name, op);
  if (!(r.shape() == self.shape())) {
    throw std::invalid_argument(std::string(op) + ": cannot update a " + self.shape().to_string() +
                                " array in place with a " + other.shape().to_string() + " one (the result would be " +
                                r.shape().to_string() + ")");
  }
  return assign(self, whole(self.shape()), r);
}

template <Binary kOp>
NDArray& binary_in_place(NDArray& self, const NDArray& other, trace::NameId name, const char* op) {
  if (self.dtype() != DType::float32 || other.dtype() != DType::float32) [[unlikely]] {
    ops_detail::check_pair(self, other, op);
    refuse_while_recording(self, &other, op);
    return typed_in_place(self, other, kOp, name, op);
  }
  ops_detail::check_pair(self, other, op);
  const Shape shape = ops_detail::broadcast_shape(self.shape(), other.shape(), op);
  if (!(shape == self.shape())) {
    throw std::invalid_argument(std::string(op) + ": cannot update a " + self.shape().to_string() +
                                " array in place with a " + other.shape().to_string() + " one (the result would be " +
                                shape.to_string() + ")");
  }
  refuse_while_recording(self, &other, op);
  const Dims4 dims = ops_detail::padded(shape);
  const StretchMask mb = ops_detail::stretch_mask(other.shape(), dims);
  ChunkRef o = ops_detail::storage(self, op);
  const NDArray src = ops_detail::unaliased(self, other);
  ChunkRef x = ops_detail::storage(src, op);
  launch(
      name, op, {&src}, {&self},
      [o, x, mb, dims](const RunContext&) {
        float* y = o->data_for_update();
        binary_kernel<kOp>(y, y, 0, x->data_for_read(), mb, dims);
      },
      [o, x, mb, dims](const RunContext& rc) {
        float* y = o->data_for_update();
        cuda::binary(rc.stream, gpu_op<kOp>(), y, dims, y, 0, x->data_for_read(), mb);
      });
  return self;
}

// self = f(self) elementwise; on a GPU cuda::unary(gpu_op, s) on self's buffer.
template <class F>
NDArray& unary_in_place(NDArray& self, trace::NameId name, const char* op, cuda::UnaryOp gpu_op, float s, F f,
                        Binary kop) {
  refuse_while_recording(self, nullptr, op);
  if (self.dtype() != DType::float32) [[unlikely]] {
    return typed_in_place(self, ops_detail::scalar_array(self, s, true), kop, name, op);
  }
  ChunkRef o = ops_detail::storage(self, op);
  launch(
      name, op, {}, {&self},
      [o, f](const RunContext&) {
        float* y = o->data_for_update();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] = f(y[i]);
      },
      [o, gpu_op, s](const RunContext& rc) {
        float* y = o->data_for_update();
        cuda::unary(rc.stream, gpu_op, y, y, o->shape.size(), s);
      });
  return self;
}

// self = value everywhere (its old values are not read: a NaN goes too).
NDArray& fill_in_place(NDArray& self, float value, trace::NameId name, const char* op) {
  refuse_while_recording(self, nullptr, op);
  if (self.dtype() != DType::float32) [[unlikely]] {
    return assign(self, whole(self.shape()), full(self.context_ptr(), Shape{}, value, self.dtype(), self.device()));
  }
  ChunkRef o = ops_detail::storage(self, op);
  launch(
      name, op, {}, {&self},
      [o, value](const RunContext&) {
        float* y = o->data_for_write();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] = value;
      },
      [o, value](const RunContext& rc) { cuda::fill(rc.stream, o->data_for_write(), o->shape.size(), value); });
  return self;
}

// self += alpha * other for arrays of one shape (the optimizers' update).
NDArray& scaled_add_in_place(NDArray& self, const NDArray& other, float alpha, trace::NameId name, const char* op) {
  ops_detail::check_pair(self, other, op);
  if (!(self.shape() == other.shape())) {
    throw std::invalid_argument(std::string(op) + ": shapes " + self.shape().to_string() + " and " +
                                other.shape().to_string() + " differ");
  }
  refuse_while_recording(self, &other, op);
  ChunkRef o = ops_detail::storage(self, op);
  const NDArray src = ops_detail::unaliased(self, other);
  ChunkRef x = ops_detail::storage(src, op);
  launch(
      name, op, {&src}, {&self},
      [o, x, alpha](const RunContext&) {
        float* y = o->data_for_update();
        const float* p = x->data_for_read();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] += alpha * p[i];
      },
      [o, x, alpha](const RunContext& rc) {
        cuda::update(rc.stream, cuda::UpdateOp::add_scaled, o->data_for_update(), x->data_for_read(), o->shape.size(),
                     alpha);
      });
  return self;
}

}  // namespace

NDArray& NDArray::operator+=(const NDArray& other) {
  static const trace::NameId kName = trace::intern("add_inplace");
  return binary_in_place<Binary::add>(*this, other, kName, "add_inplace");
}

NDArray& NDArray::operator-=(const NDArray& other) {
  static const trace::NameId kName = trace::intern("sub_inplace");
  return binary_in_place<Binary::sub>(*this, other, kName, "sub_inplace");
}

NDArray& NDArray::operator*=(const NDArray& other) {
  static const trace::NameId kName = trace::intern("mul_inplace");
  return binary_in_place<Binary::mul>(*this, other, kName, "mul_inplace");
}

NDArray& NDArray::operator/=(const NDArray& other) {
  static const trace::NameId kName = trace::intern("div_inplace");
  return binary_in_place<Binary::div>(*this, other, kName, "div_inplace");
}

NDArray& NDArray::operator+=(float s) {
  static const trace::NameId kName = trace::intern("add_inplace");
  return unary_in_place(*this, kName, "add_inplace", cuda::UnaryOp::add_scalar, s, [s](float y) { return y + s; },
                        Binary::add);
}

NDArray& NDArray::operator-=(float s) {
  static const trace::NameId kName = trace::intern("sub_inplace");
  return unary_in_place(*this, kName, "sub_inplace", cuda::UnaryOp::sub_scalar, s, [s](float y) { return y - s; },
                        Binary::sub);
}

NDArray& NDArray::operator*=(float s) {
  static const trace::NameId kName = trace::intern("mul_inplace");
  return unary_in_place(*this, kName, "mul_inplace", cuda::UnaryOp::mul_scalar, s, [s](float y) { return y * s; },
                        Binary::mul);
}

NDArray& NDArray::operator/=(float s) {
  static const trace::NameId kName = trace::intern("div_inplace");
  return unary_in_place(*this, kName, "div_inplace", cuda::UnaryOp::div_scalar, s, [s](float y) { return y / s; },
                        Binary::div);
}

NDArray& NDArray::fill(float value) {
  static const trace::NameId kName = trace::intern("fill_inplace");
  return fill_in_place(*this, value, kName, "fill_inplace");
}

NDArray& NDArray::add_scaled(const NDArray& other, float alpha) {
  static const trace::NameId kName = trace::intern("add_scaled");
  return scaled_add_in_place(*this, other, alpha, kName, "add_scaled");
}

}  // namespace asyncscope
