// The ops of every dtype (engine/tensor/dtype.h), on the CPU: casts, typed
// creation (fill, arange, host bytes), elementwise arithmetic and
// comparisons in the promoted type, reductions (sum, prod, max, min, argmax,
// argmin, all, any, mean), cumsum, and strided selections (indexing's take
// and assignment). The float32 ops keep their own kernels (and GPU ones);
// they come here for arrays of other types.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/base/random.h"
#include "engine/base/vector_clones.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Binary;
using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch_typed;
using ops_detail::NoFunction;
using Grads = std::vector<NDArray>;
using Need = std::span<const bool>;

namespace ops_detail {

void throw_dtype(const char* op, DType dtype) {
  throw std::invalid_argument(std::string(op) + ": not implemented for " + name(dtype) +
                              " arrays (float32 only; cast with astype)");
}

NDArray cast_for(const NDArray& a, DType dtype) { return astype(a, dtype); }

}  // namespace ops_detail

namespace {

// The GPU kernels' names for the element types and ops (engine/cuda/elements.h).
static_assert(static_cast<int>(cuda::Type::boolean) == static_cast<int>(DType::boolean) &&
              static_cast<int>(cuda::Type::uint8) == static_cast<int>(DType::uint8) &&
              static_cast<int>(cuda::Type::float64) == static_cast<int>(DType::float64));
static_assert(static_cast<int>(cuda::TypedBinary::logical_xor) == static_cast<int>(Binary::logical_xor) &&
              static_cast<int>(cuda::TypedBinary::floor_divide) == static_cast<int>(Binary::floor_divide) &&
              static_cast<int>(cuda::TypedBinary::less_equal) == static_cast<int>(Binary::less_equal));
static_assert(static_cast<int>(cuda::TypedReduction::mean) == static_cast<int>(Reduction::mean) &&
              static_cast<int>(cuda::TypedReduction::argmin) == static_cast<int>(Reduction::argmin));
static_assert(Shape::kMaxDims == 4, "cuda::StridedLayout holds 4 dimensions");

cuda::Type gpu_type(DType t) { return static_cast<cuda::Type>(t); }

cuda::StridedLayout gpu_layout(const Selection& sel) {
  cuda::StridedLayout l;
  l.offset = sel.offset;
  l.ndim = sel.shape.ndim();
  for (int d = 0; d < l.ndim; ++d) {
    l.shape[d] = sel.shape[d];
    l.strides[d] = sel.strides[d];
  }
  return l;
}

const ContextPtr& checked(const ContextPtr& ctx, const char* op) {
  if (!ctx) throw std::invalid_argument(std::string(op) + ": null context");
  return ctx;
}

// A value converted as NumPy's astype and PyTorch's .to() convert it on
// x86: a float to an integer truncates toward zero through int64, then
// wraps into a narrower type (-1.5 as uint8 is 255); NaN, infinities and
// values beyond int64, undefined in C++, become the type's lowest value.
template <class To, class From>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    const double d = static_cast<double>(v);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return std::numeric_limits<To>::lowest();
    return static_cast<To>(static_cast<int64_t>(d));
  } else {
    return static_cast<To>(v);
  }
}

template <class T>
constexpr bool kInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

}  // namespace

NDArray astype(const NDArray& a, DType dtype) {
  static const trace::NameId kName = trace::intern("astype");
  ChunkRef x = ops_detail::storage(a, "astype");
  const DType from = a.dtype();
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device(), dtype);
  Chunk* o = out.chunk();
  {
    launch_typed(
        kName, "astype", {&a}, {&out},
        [o, x, from, dtype](const RunContext&) {
          const int64_t n = o->shape.size();
          if (from == dtype) {
            if (n) std::memcpy(o->raw_for_write(), x->raw_for_read(), o->bytes);
            return;
          }
          visit_dtype(dtype, [&]<class To>(To) {
            visit_dtype(from, [&]<class From>(From) {
              To* y = o->typed_for_write<To>();
              const From* p = x->typed_for_read<From>();
              for (int64_t i = 0; i < n; ++i) y[i] = convert<To>(p[i]);
            });
          });
        },
        [o, x, from, dtype](const RunContext& rc) {
          cuda::cast(rc.stream, gpu_type(dtype), o->raw_for_write(), gpu_type(from), x->raw_for_read(),
                     o->shape.size());
        });
  }
  if (is_floating(from) && is_floating(dtype) && autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [from](const NDArray& dy, Need) { return Grads{astype(dy, from)}; });
  }
  return out;
}

NDArray full(const ContextPtr& ctx, const Shape& shape, double value, DType dtype, Device device) {
  static const trace::NameId kName = trace::intern("full");
  if (dtype == DType::float32) return full(ctx, shape, static_cast<float>(value), device);
  NDArray out = NDArray::empty(checked(ctx, "full"), shape, device, dtype);
  Chunk* o = out.chunk();
  launch_typed(
      kName, "full", {}, {&out},
      [o, value, dtype](const RunContext&) {
        visit_dtype(dtype, [&]<class T>(T) {
          const T v = convert<T>(value);
          T* y = o->typed_for_write<T>();
          std::fill(y, y + o->shape.size(), v);
        });
      },
      [o, value, dtype](const RunContext& rc) {
        uint64_t bits = 0;
        visit_dtype(dtype, [&]<class T>(T) {
          const T v = convert<T>(value);
          std::memcpy(&bits, &v, sizeof(T));
        });
        cuda::fill_words(rc.stream, o->raw_for_write(), o->shape.size(), item_size(dtype), bits);
      });
  return out;
}

NDArray arange(const ContextPtr& ctx, double start, double stop, double step, DType dtype, Device device) {
  static const trace::NameId kName = trace::intern("arange");
  if (step == 0.0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop)) {
    throw std::invalid_argument("arange: start, stop and step must be finite and step non-zero");
  }
  const double count = std::ceil((stop - start) / step);
  const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  NDArray out = NDArray::empty(checked(ctx, "arange"), Shape{n}, device, dtype);
  Chunk* o = out.chunk();
  launch_typed(
      kName, "arange", {}, {&out},
      [o, start, step, dtype, n](const RunContext&) {
        visit_dtype(dtype, [&]<class T>(T) {
          T* y = o->typed_for_write<T>();
          for (int64_t i = 0; i < n; ++i) y[i] = convert<T>(start + static_cast<double>(i) * step);
        });
      },
      [o, start, step, dtype, n](const RunContext& rc) {
        cuda::arange(rc.stream, gpu_type(dtype), o->raw_for_write(), n, start, step);
      });
  return out;
}

NDArray from_host_bytes(const ContextPtr& ctx, const Shape& shape, DType dtype, std::vector<std::byte> bytes,
                        Device device) {
  static const trace::NameId kName = trace::intern("from_host");
  if (bytes.size() != static_cast<size_t>(shape.size()) * item_size(dtype)) {
    throw std::invalid_argument("from_host: " + std::to_string(bytes.size()) + " bytes for a " + shape.to_string() +
                                " " + name(dtype) + " array");
  }
  if (dtype == DType::float32) {
    std::vector<float> values(bytes.size() / sizeof(float));
    if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return from_host(ctx, shape, std::move(values), device);
  }
  if (device != Device::cpu()) {
    // The values go to the host side first, then one copy to the device.
    return to(from_host_bytes(ctx, shape, dtype, std::move(bytes), Device::cpu()), device);
  }
  NDArray out = NDArray::empty(checked(ctx, "from_host"), shape, device, dtype);
  Chunk* o = out.chunk();
  launch_typed(
      kName, "from_host", {}, {&out},
      [o, v = std::move(bytes)](const RunContext&) {
        if (!v.empty()) std::memcpy(o->raw_for_write(), v.data(), v.size());
      },
      NoFunction{});
  return out;
}

// ---- elementwise ----------------------------------------------------------

namespace {

// a op b in T; comparisons give 1 or 0. Integer division by zero throws
// (the op's error, at the sync point), as Python and PyTorch refuse it.
template <Binary kOp, class T>
T apply_typed(T a, T b) {
  if constexpr (kOp == Binary::add) return static_cast<T>(a + b);
  if constexpr (kOp == Binary::sub) return static_cast<T>(a - b);
  if constexpr (kOp == Binary::mul) return static_cast<T>(a * b);
  if constexpr (kOp == Binary::div) return static_cast<T>(a / b);
  if constexpr (kOp == Binary::floor_divide) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(a / b);
    } else {
      if (b == 0) throw std::domain_error("integer division by zero");
      T q = static_cast<T>(a / b);
      if constexpr (std::is_signed_v<T>) {
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      }
      return q;
    }
  }
  if constexpr (kOp == Binary::mod) {
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      if (b == 0) throw std::domain_error("integer modulo by zero");
      T r = static_cast<T>(a % b);
      if constexpr (std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      }
      return r;
    }
  }
  if constexpr (kOp == Binary::pow) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      if constexpr (std::is_signed_v<T>) {
        // As C's integer arithmetic and PyTorch give it: 1 / a^|b| truncated.
        if (b < 0) return a == 1 ? T{1} : a == -1 ? static_cast<T>(b % 2 == 0 ? 1 : -1) : T{0};
      }
      T result = 1, base = a;
      for (auto e = b; e > 0; e = static_cast<T>(e / 2)) {
        if (e % 2) result = static_cast<T>(result * base);
        base = static_cast<T>(base * base);
      }
      return result;
    }
  }
  if constexpr (kOp == Binary::maximum) {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a > b ? a : b;
  }
  if constexpr (kOp == Binary::minimum) {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a < b ? a : b;
  }
  if constexpr (kOp == Binary::equal) return a == b;
  if constexpr (kOp == Binary::not_equal) return a != b;
  if constexpr (kOp == Binary::greater) return a > b;
  if constexpr (kOp == Binary::greater_equal) return a >= b;
  if constexpr (kOp == Binary::less) return a < b;
  if constexpr (kOp == Binary::less_equal) return a <= b;
  if constexpr (kOp == Binary::logical_and) return static_cast<T>(a != T{} && b != T{});
  if constexpr (kOp == Binary::logical_or) return static_cast<T>(a != T{} || b != T{});
  if constexpr (kOp == Binary::logical_xor) return static_cast<T>((a != T{}) != (b != T{}));
  return T{};
}

constexpr bool is_comparison(Binary op) {
  return op == Binary::equal || op == Binary::not_equal || op == Binary::greater || op == Binary::greater_equal ||
         op == Binary::less || op == Binary::less_equal || op == Binary::logical_and || op == Binary::logical_or ||
         op == Binary::logical_xor;
}

// y[...] = a op b over out's layout (each operand stretched along its mask),
// computed in T and stored as R.
template <Binary kOp, class T, class R>
void typed_kernel(R* __restrict y, const T* pa, StretchMask ma, const T* pb, StretchMask mb, const Dims4& out) {
  const Strides4 sa = stretched_strides(out, ma);
  const Strides4 sb = stretched_strides(out, mb);
  const int64_t n = out.size();
  const auto one_element = [](const Strides4& st) { return (st.s[0] | st.s[1] | st.s[2] | st.s[3]) == 0; };
  // The common shapes as flat loops, which vectorise: equal shapes, and one
  // operand a single element (x + 1).
  if (ma == 0 && mb == 0) {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<R>(apply_typed<kOp, T>(pa[i], pb[i]));
    return;
  }
  if (ma == 0 && one_element(sb)) {
    const T b = pb[0];
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<R>(apply_typed<kOp, T>(pa[i], b));
    return;
  }
  if (mb == 0 && one_element(sa)) {
    const T a = pa[0];
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<R>(apply_typed<kOp, T>(a, pb[i]));
    return;
  }
  for (int64_t i0 = 0; i0 < out.d[0]; ++i0) {
    for (int64_t i1 = 0; i1 < out.d[1]; ++i1) {
      for (int64_t i2 = 0; i2 < out.d[2]; ++i2) {
        const T* ra = pa + offset_of(sa, i0, i1, i2, 0);
        const T* rb = pb + offset_of(sb, i0, i1, i2, 0);
        for (int64_t c = 0; c < out.d[3]; ++c) {
          *y++ = static_cast<R>(apply_typed<kOp, T>(ra[c * sa.s[3]], rb[c * sb.s[3]]));
        }
      }
    }
  }
}

template <Binary kOp>
void push_typed_binary(const NDArray& a, const NDArray& b, const NDArray& out, DType compute, trace::NameId name,
                       const char* op) {
  const Dims4 dims = ops_detail::padded(out.shape());
  const StretchMask ma = ops_detail::stretch_mask(a.shape(), dims);
  const StretchMask mb = ops_detail::stretch_mask(b.shape(), dims);
  ChunkRef x = ops_detail::storage(a, op);
  ChunkRef z = ops_detail::storage(b, op);
  Chunk* o = out.chunk();
  const DType result = out.dtype();
  launch_typed(
      name, op, {&a, &b}, {&out},
      [o, x, z, ma, mb, dims, compute, result](const RunContext&) {
        visit_dtype(compute, [&]<class T>(T) {
          if constexpr (std::is_same_v<T, bool> && (kOp == Binary::div || kOp == Binary::floor_divide ||
                                                    kOp == Binary::mod || kOp == Binary::pow)) {
            throw std::logic_error("no bool kernel");  // refused at the call
          } else {
            visit_dtype(result, [&]<class R>(R) {
              typed_kernel<kOp, T, R>(o->typed_for_write<R>(), x->typed_for_read<T>(), ma, z->typed_for_read<T>(),
                                      mb, dims);
            });
          }
        });
      },
      [o, x, z, ma, mb, dims, compute, result](const RunContext& rc) {
        cuda::binary_typed(rc.stream, static_cast<cuda::TypedBinary>(kOp), gpu_type(compute), gpu_type(result),
                           o->raw_for_write(), dims, x->raw_for_read(), ma, z->raw_for_read(), mb);
      });
}

}  // namespace

namespace ops_detail {

NDArray binary_typed(const NDArray& a, const NDArray& b, Binary op, DType result, trace::NameId name,
                     const char* text) {
  check_pair(a, b, text);
  const Shape shape = broadcast_shape(a.shape(), b.shape(), text);
  DType compute = promote(a.dtype(), b.dtype());
  const bool arithmetic_on_bool = op == Binary::sub || op == Binary::div || op == Binary::floor_divide ||
                                  op == Binary::mod || op == Binary::pow;
  if (compute == DType::boolean && arithmetic_on_bool) {
    if (op == Binary::floor_divide || op == Binary::mod || op == Binary::pow) {
      throw std::invalid_argument(std::string(text) + ": not implemented for bool arrays (cast to an integer type)");
    }
    if (op == Binary::sub) {
      throw std::invalid_argument(std::string(text) +
                                  ": subtracting bool arrays is not supported (use logical_xor, or cast to an integer "
                                  "type first)");
    }
    compute = DType::int64;
  }
  if (op == Binary::div && !is_floating(compute)) compute = DType::float32;  // true division
  if (!is_comparison(op) && result != compute) {
    throw std::logic_error(std::string(text) + ": the result of arithmetic is in the type it computes in");
  }
  const NDArray ca = a.dtype() == compute ? a : astype(a, compute);
  const NDArray cb = b.dtype() == compute ? b : astype(b, compute);
  NDArray out = NDArray::empty(a.context_ptr(), shape, a.device(), result);
  switch (op) {
#define ASYNCSCOPE_TYPED_CASE(k) \
  case Binary::k: push_typed_binary<Binary::k>(ca, cb, out, compute, name, text); break;
    ASYNCSCOPE_TYPED_CASE(add)
    ASYNCSCOPE_TYPED_CASE(sub)
    ASYNCSCOPE_TYPED_CASE(mul)
    ASYNCSCOPE_TYPED_CASE(div)
    ASYNCSCOPE_TYPED_CASE(pow)
    ASYNCSCOPE_TYPED_CASE(maximum)
    ASYNCSCOPE_TYPED_CASE(minimum)
    ASYNCSCOPE_TYPED_CASE(equal)
    ASYNCSCOPE_TYPED_CASE(not_equal)
    ASYNCSCOPE_TYPED_CASE(greater)
    ASYNCSCOPE_TYPED_CASE(greater_equal)
    ASYNCSCOPE_TYPED_CASE(less)
    ASYNCSCOPE_TYPED_CASE(less_equal)
    ASYNCSCOPE_TYPED_CASE(floor_divide)
    ASYNCSCOPE_TYPED_CASE(mod)
    ASYNCSCOPE_TYPED_CASE(logical_and)
    ASYNCSCOPE_TYPED_CASE(logical_or)
    ASYNCSCOPE_TYPED_CASE(logical_xor)
#undef ASYNCSCOPE_TYPED_CASE
  }
  return out;
}

DType arithmetic_type(DType a, DType b, Binary op) {
  DType compute = promote(a, b);
  if (compute == DType::boolean && op != Binary::add && op != Binary::mul && op != Binary::maximum &&
      op != Binary::minimum) {
    compute = DType::int64;
  }
  if (op == Binary::div && !is_floating(compute)) compute = DType::float32;
  return compute;
}

NDArray scalar_array(const NDArray& like, double value, bool is_float) {
  return full(like.context_ptr(), Shape{}, value, scalar_result(like.dtype(), is_float), like.device());
}

}  // namespace ops_detail

NDArray scalar_like(const NDArray& like, double value, bool is_float) {
  return ops_detail::scalar_array(like, value, is_float);
}

NDArray floor_divide(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("floor_divide");
  const DType t = ops_detail::arithmetic_type(a.dtype(), b.dtype(), Binary::floor_divide);
  return ops_detail::binary_typed(a, b, Binary::floor_divide, t, kName, "floor_divide");
}

NDArray mod(const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("mod");
  const DType t = ops_detail::arithmetic_type(a.dtype(), b.dtype(), Binary::mod);
  return ops_detail::binary_typed(a, b, Binary::mod, t, kName, "mod");
}

NDArray compare(const NDArray& a, const NDArray& b, Comparison c, bool as_bool) {
  static const trace::NameId kNames[] = {trace::intern("equal"),         trace::intern("not_equal"),
                                         trace::intern("greater"),       trace::intern("greater_equal"),
                                         trace::intern("less"),          trace::intern("less_equal"),
                                         trace::intern("logical_and"),   trace::intern("logical_or"),
                                         trace::intern("logical_xor")};
  static const char* const kTexts[] = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                                       "logical_and", "logical_or", "logical_xor"};
  static const Binary kOps[] = {Binary::equal,       Binary::not_equal,   Binary::greater,
                                Binary::greater_equal, Binary::less,      Binary::less_equal,
                                Binary::logical_and, Binary::logical_or,  Binary::logical_xor};
  const auto i = static_cast<size_t>(c);
  const DType result = as_bool ? DType::boolean : promote(a.dtype(), b.dtype());
  if (!as_bool && result == DType::float32 && c <= Comparison::less_equal) {
    switch (c) {
      case Comparison::equal: return equal(a, b);
      case Comparison::not_equal: return not_equal(a, b);
      case Comparison::greater: return greater(a, b);
      case Comparison::greater_equal: return greater_equal(a, b);
      case Comparison::less: return less(a, b);
      default: return less_equal(a, b);
    }
  }
  return ops_detail::binary_typed(a, b, kOps[i], result, kNames[i], kTexts[i]);
}

NDArray logical_not(const NDArray& a, bool as_bool) {
  return compare(a, full(a.context_ptr(), Shape{}, 0.0, a.dtype(), a.device()), Comparison::equal, as_bool);
}

NDArray where(const NDArray& condition, const NDArray& a, const NDArray& b) {
  static const trace::NameId kName = trace::intern("where");
  ops_detail::check_pair(condition, a, "where");
  ops_detail::check_pair(a, b, "where");
  const Shape shape = ops_detail::broadcast_shape(
      ops_detail::broadcast_shape(condition.shape(), a.shape(), "where"), b.shape(), "where");
  const DType t = promote(a.dtype(), b.dtype());
  const NDArray ca = a.dtype() == t ? a : astype(a, t);
  const NDArray cb = b.dtype() == t ? b : astype(b, t);
  const NDArray cc = condition.dtype() == DType::boolean ? condition : astype(condition, DType::boolean);
  NDArray out = NDArray::empty(a.context_ptr(), shape, a.device(), t);
  const Dims4 dims = ops_detail::padded(shape);
  const StretchMask mc = ops_detail::stretch_mask(cc.shape(), dims);
  const StretchMask ma = ops_detail::stretch_mask(ca.shape(), dims);
  const StretchMask mb = ops_detail::stretch_mask(cb.shape(), dims);
  Chunk* o = out.chunk();
  ChunkRef pc = ops_detail::storage(cc, "where");
  ChunkRef pa = ops_detail::storage(ca, "where");
  ChunkRef pb = ops_detail::storage(cb, "where");
  launch_typed(
      kName, "where", {&cc, &ca, &cb}, {&out},
      [o, pc, pa, pb, mc, ma, mb, dims, t](const RunContext&) {
        visit_dtype(t, [&]<class T>(T) {
          const Strides4 sc = stretched_strides(dims, mc), sa = stretched_strides(dims, ma),
                         sb = stretched_strides(dims, mb);
          const bool* c = pc->typed_for_read<bool>();
          const T* x = pa->typed_for_read<T>();
          const T* z = pb->typed_for_read<T>();
          T* y = o->typed_for_write<T>();
          for (int64_t i0 = 0; i0 < dims.d[0]; ++i0)
            for (int64_t i1 = 0; i1 < dims.d[1]; ++i1)
              for (int64_t i2 = 0; i2 < dims.d[2]; ++i2)
                for (int64_t i3 = 0; i3 < dims.d[3]; ++i3) {
                  *y++ = c[offset_of(sc, i0, i1, i2, i3)] ? x[offset_of(sa, i0, i1, i2, i3)]
                                                          : z[offset_of(sb, i0, i1, i2, i3)];
                }
        });
      },
      [o, pc, pa, pb, mc, ma, mb, dims, t](const RunContext& rc) {
        cuda::where(rc.stream, gpu_type(t), o->raw_for_write(), dims, static_cast<const bool*>(pc->raw_for_read()), mc,
                    pa->raw_for_read(), ma, pb->raw_for_read(), mb);
      });
  if (autograd::should_record({&ca, &cb})) {
    autograd::record(kName, {&ca, &cb}, out, [cc, sa = ca.shape(), sb = cb.shape()](const NDArray& dy, Need need) {
      const NDArray zero = zeros(dy.context_ptr(), Shape{}, dy.device());
      return Grads{need[0] ? sum_to(where(cc, dy, zero), sa) : NDArray(),
                   need[1] ? sum_to(where(cc, zero, dy), sb) : NDArray()};
    });
  }
  return out;
}

// ---- reductions -------------------------------------------------------------

namespace {

const char* reduction_text(Reduction r) {
  switch (r) {
    case Reduction::sum: return "sum";
    case Reduction::prod: return "prod";
    case Reduction::max: return "max";
    case Reduction::min: return "min";
    case Reduction::argmax: return "argmax";
    case Reduction::argmin: return "argmin";
    case Reduction::all: return "all";
    case Reduction::any: return "any";
    case Reduction::mean: return "mean";
  }
  return "reduce";
}

DType reduction_type(Reduction r, DType in, const char* op) {
  switch (r) {
    case Reduction::sum:
    case Reduction::prod: return is_floating(in) ? in : DType::int64;
    case Reduction::max:
    case Reduction::min: return in;
    case Reduction::argmax:
    case Reduction::argmin: return DType::int64;
    case Reduction::all:
    case Reduction::any: return DType::boolean;
    case Reduction::mean:
      if (!is_floating(in)) {
        throw std::invalid_argument(std::string(op) + ": needs a floating-point array, got " + name(in) +
                                    " (cast it with astype first)");
      }
      return in;
  }
  return in;
}

// The accumulator of a reduction: double for floating types (the sum of
// float32 values is accumulated in double, as the float32 kernels do),
// int64 for integers, and the input type for max and min.
template <class T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

// The largest (kLarger) or smallest of p[0..n) and `start`, ignoring NaNs;
// `suspect` is set when a NaN was seen, for the caller to look again. In
// 64-byte vectors of independent lanes (GCC's vector extension: a running
// extremum is a chain of dependent compares, and GCC vectorises neither it
// nor an array of scalar lanes), compiled per vector width.
template <bool kLarger, class T>
ASYNCSCOPE_VECTOR_CLONES T row_extremum(const T* p, int64_t n, T start, bool& suspect) {
  const auto better = [](T v, T best) { return kLarger ? v > best : v < best; };
  T best = start;
  int64_t c = 0;
  if constexpr (!std::is_same_v<T, bool>) {
    constexpr int kLanes = static_cast<int>(64 / sizeof(T));
    using V [[gnu::vector_size(64)]] = T;
    V lanes;
    V nans{};
    for (int j = 0; j < kLanes; ++j) lanes[j] = start;
    for (; c + kLanes <= n; c += kLanes) {
      V v;
      std::memcpy(&v, p + c, sizeof(V));
      if constexpr (kLarger) {
        lanes = v > lanes ? v : lanes;
      } else {
        lanes = v < lanes ? v : lanes;
      }
      if constexpr (std::is_floating_point_v<T>) nans = v != v ? v : nans;
    }
    for (int j = 0; j < kLanes; ++j) {
      if (better(lanes[j], best)) best = lanes[j];
      if constexpr (std::is_floating_point_v<T>) suspect |= nans[j] != nans[j];
    }
  }
  for (; c < n; ++c) {
    const T v = p[c];
    if constexpr (std::is_floating_point_v<T>) suspect |= v != v;
    if (better(v, best)) best = v;
  }
  return best;
}

// One reduction, the op fixed at compile time: y (the output layout, each
// reduced dimension 1) = op over x (layout `in`) along `reduced`, reading x
// once in order. Rows whose last dimension is reduced fold into one
// accumulator; others accumulate element by element into their output row.
// max and min start from the type's extreme (a NaN wins, the first of equal
// values is kept: strict comparisons), so no element is special; argmax and
// argmin keep the index within the reduced dimensions, row-major.
template <Reduction kR, class T, class R>
void reduce_typed_kernel(R* y, const T* x, const Dims4& in, StretchMask reduced) {
  constexpr bool kExtremum = kR == Reduction::max || kR == Reduction::min || kR == Reduction::argmax ||
                             kR == Reduction::argmin;
  constexpr bool kLarger = kR == Reduction::max || kR == Reduction::argmax;
  constexpr bool kIndex = kR == Reduction::argmax || kR == Reduction::argmin;
  using A = std::conditional_t<kExtremum, T, Acc<T>>;
  Dims4 out = in;
  int64_t count = 1;
  int64_t index_stride[4] = {0, 0, 0, 0};  // an element's step in the reduced index, per dimension
  for (int i = 3, s = 1; i >= 0; --i) {
    if ((reduced >> i) & 1u) {
      count *= in.d[i];
      out.d[i] = 1;
      index_stride[i] = s;
      s *= static_cast<int>(in.d[i]);
    }
  }
  const size_t m = static_cast<size_t>(out.size());
  A start{};
  if constexpr (kR == Reduction::prod || kR == Reduction::all) start = A{1};
  if constexpr (kExtremum) {
    if constexpr (std::is_floating_point_v<T>) {
      start = kLarger ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      start = kLarger ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  std::vector<A> acc(m, start);
  std::vector<int64_t> where(kIndex ? m : 0, 0);
  const auto step = [&](size_t k, T v, int64_t at) {
    if constexpr (kExtremum) {
      bool take;
      if constexpr (std::is_floating_point_v<T>) {
        take = acc[k] == acc[k] && (v != v || (kLarger ? v > acc[k] : v < acc[k]));
      } else {
        take = kLarger ? v > acc[k] : v < acc[k];
      }
      if (take) {
        acc[k] = v;
        if constexpr (kIndex) where[k] = at;
      }
    } else if constexpr (kR == Reduction::prod) {
      if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
        // Integer products wrap, as PyTorch's (two's complement; signed overflow is undefined in C++).
        using U = std::make_unsigned_t<A>;
        acc[k] = static_cast<A>(static_cast<U>(acc[k]) * static_cast<U>(static_cast<A>(v)));
      } else {
        acc[k] *= static_cast<A>(v);
      }
    } else if constexpr (kR == Reduction::all) {
      acc[k] = acc[k] && v != T{};
    } else if constexpr (kR == Reduction::any) {
      acc[k] = acc[k] || v != T{};
    } else if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
      using U = std::make_unsigned_t<A>;  // wrapping, as the product above
      acc[k] = static_cast<A>(static_cast<U>(acc[k]) + static_cast<U>(static_cast<A>(v)));
    } else {
      acc[k] += static_cast<A>(v);
    }
  };
  const Strides4 so = stretched_strides(in, reduced);
  const bool last_reduced = (reduced >> 3) & 1u;
  const T* p = x;
  for (int64_t i0 = 0; i0 < in.d[0]; ++i0)
    for (int64_t i1 = 0; i1 < in.d[1]; ++i1)
      for (int64_t i2 = 0; i2 < in.d[2]; ++i2) {
        const size_t row = static_cast<size_t>(offset_of(so, i0, i1, i2, 0));
        const int64_t at = i0 * index_stride[0] + i1 * index_stride[1] + i2 * index_stride[2];
        if (last_reduced) {
          if constexpr (kExtremum && !kIndex) {
            // The row's extremum in independent lanes (a running one is a
            // chain of dependent compares), NaNs counted on the side.
            const int64_t len = in.d[3];
            bool suspect = false;
            step(row, row_extremum<kLarger, T>(p, len, static_cast<T>(acc[row]), suspect), 0);
            if constexpr (std::is_floating_point_v<T>) {
              // A NaN wins: the first one (NaNs differ in their payloads).
              for (int64_t k = 0; suspect && k < len; ++k) {
                if (p[k] != p[k]) {
                  acc[row] = p[k];
                  break;
                }
              }
            }
          } else {
            for (int64_t c = 0; c < in.d[3]; ++c) step(row, p[c], at + c);
          }
        } else {
          for (int64_t c = 0; c < in.d[3]; ++c) step(row + static_cast<size_t>(c), p[c], at);
        }
        p += in.d[3];
      }
  for (size_t k = 0; k < m; ++k) {
    if constexpr (kIndex) {
      y[k] = static_cast<R>(where[k]);
    } else if constexpr (kR == Reduction::mean) {
      y[k] = static_cast<R>(count ? static_cast<double>(acc[k]) / static_cast<double>(count)
                                  : std::numeric_limits<double>::quiet_NaN());
    } else {
      y[k] = static_cast<R>(acc[k]);
    }
  }
}

template <class T, class R>
void reduce_typed(Reduction r, R* y, const T* x, const Dims4& in, StretchMask reduced) {
  switch (r) {
    case Reduction::sum: return reduce_typed_kernel<Reduction::sum>(y, x, in, reduced);
    case Reduction::prod: return reduce_typed_kernel<Reduction::prod>(y, x, in, reduced);
    case Reduction::max: return reduce_typed_kernel<Reduction::max>(y, x, in, reduced);
    case Reduction::min: return reduce_typed_kernel<Reduction::min>(y, x, in, reduced);
    case Reduction::argmax: return reduce_typed_kernel<Reduction::argmax>(y, x, in, reduced);
    case Reduction::argmin: return reduce_typed_kernel<Reduction::argmin>(y, x, in, reduced);
    case Reduction::all: return reduce_typed_kernel<Reduction::all>(y, x, in, reduced);
    case Reduction::any: return reduce_typed_kernel<Reduction::any>(y, x, in, reduced);
    case Reduction::mean: return reduce_typed_kernel<Reduction::mean>(y, x, in, reduced);
  }
}

}  // namespace

NDArray reduce(const NDArray& a, Reduction r, std::span<const int> axes, bool keepdims) {
  static const trace::NameId kNames[] = {trace::intern("sum"),    trace::intern("prod"),   trace::intern("max"),
                                         trace::intern("min"),    trace::intern("argmax"), trace::intern("argmin"),
                                         trace::intern("all"),    trace::intern("any"),    trace::intern("mean")};
  const char* text = reduction_text(r);
  const Shape& s = a.chunk(text)->shape;
  const DType in_type = a.dtype();
  const DType out_type = reduction_type(r, in_type, text);
  const auto mask = ops_detail::axes_mask(s, axes, text);
  StretchMask reduced = 0;
  int64_t out_dims[Shape::kMaxDims], kept_dims[Shape::kMaxDims];
  size_t n_out = 0;
  int64_t count = 1;
  const int pad = 4 - s.ndim();
  for (int i = 0; i < s.ndim(); ++i) {
    const bool red = mask[static_cast<size_t>(i)];
    kept_dims[i] = red ? 1 : s[i];
    if (red) {
      reduced = static_cast<StretchMask>(reduced | (1u << (pad + i)));
      count *= s[i];
    }
    if (!red || keepdims) out_dims[n_out++] = red ? 1 : s[i];
  }
  const bool extremum = r == Reduction::max || r == Reduction::min || r == Reduction::argmax ||
                        r == Reduction::argmin;
  if (extremum && count == 0) {
    throw std::out_of_range(std::string(text) + ": the reduced axes of " + s.to_string() +
                                " are empty, and an empty selection has no " + (r == Reduction::max || r == Reduction::argmax ? "maximum" : "minimum"));
  }
  const Shape out_shape(std::span<const int64_t>(out_dims, n_out));
  NDArray out = NDArray::empty(a.context_ptr(), out_shape, a.device(), out_type);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, text);
  const Dims4 in = ops_detail::padded(s);
  launch_typed(
      kNames[static_cast<size_t>(r)], text, {&a}, {&out},
      [o, x, r, in, reduced, in_type, out_type](const RunContext&) {
        visit_dtype(in_type, [&]<class T>(T) {
          visit_dtype(out_type, [&]<class R>(R) {
            reduce_typed<T, R>(r, o->typed_for_write<R>(), x->typed_for_read<T>(), in, reduced);
          });
        });
      },
      [o, x, r, in, reduced, in_type, out_type](const RunContext& rc) {
        const cuda::ReduceLayout l = cuda::reduce_layout(in, reduced);
        cuda::reduce_typed(rc.stream, static_cast<cuda::TypedReduction>(r), gpu_type(in_type), gpu_type(out_type),
                           o->raw_for_write(), x->raw_for_read(), l, l.kept.size());
      });
  if (is_floating(in_type) && autograd::should_record({&a})) {
    const Shape kept(std::span<const int64_t>(kept_dims, static_cast<size_t>(s.ndim())));
    if (r == Reduction::sum || r == Reduction::mean) {
      const double scale = r == Reduction::sum ? 1.0 : count ? 1.0 / static_cast<double>(count) : 0.0;
      autograd::record(kNames[static_cast<size_t>(r)], {&a}, out, [s, kept, scale](const NDArray& dy, Need) {
        NDArray g = broadcast_to(reshape(dy, kept), s);
        return Grads{scale == 1.0 ? g : g * static_cast<float>(scale)};
      });
    } else if (r == Reduction::max || r == Reduction::min) {
      // To every element equal to the extremum (PyTorch's amax rule).
      std::vector<int> reduced_axes(axes.begin(), axes.end());
      autograd::record(kNames[static_cast<size_t>(r)], {&a}, out,
                       [a, out = ops_detail::detached(out), kept, reduced_axes](const NDArray& dy, Need) {
                         const NDArray hit = compare(a, reshape(out, kept), Comparison::equal, false);
                         const NDArray n = sum(hit, reduced_axes, true);  // the ties of each output
                         return Grads{hit * reshape(dy, kept) / n};
                       });
    } else if (r == Reduction::prod) {
      autograd::record(kNames[static_cast<size_t>(r)], {&a}, out,
                       [a, out = ops_detail::detached(out), kept](const NDArray& dy, Need) {
                         return Grads{reshape(dy * out, kept) / a};
                       });
    }
  }
  return out;
}

NDArray cumsum(const NDArray& a, int axis, bool reverse) {
  static const trace::NameId kName = trace::intern("cumsum");
  const Shape& s = a.chunk("cumsum")->shape;
  const int ndim = s.ndim() == 0 ? 1 : s.ndim();
  if (axis < -ndim || axis >= ndim) {
    throw std::invalid_argument("cumsum: axis " + std::to_string(axis) + " is out of range for " + s.to_string());
  }
  if (axis < 0) axis += ndim;
  const DType in_type = a.dtype();
  const DType out_type = is_floating(in_type) ? in_type : DType::int64;
  NDArray out = NDArray::empty(a.context_ptr(), s, a.device(), out_type);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, "cumsum");
  int64_t outer = 1, len = 1, inner = 1;
  for (int i = 0; i < s.ndim(); ++i) {
    if (i < axis) outer *= s[i];
    if (i == axis) len = s[i];
    if (i > axis) inner *= s[i];
  }
  launch_typed(
      kName, "cumsum", {&a}, {&out},
      [o, x, outer, len, inner, in_type, out_type, reverse](const RunContext&) {
        visit_dtype(in_type, [&]<class T>(T) {
          visit_dtype(out_type, [&]<class R>(R) {
            const T* p = x->typed_for_read<T>();
            R* y = o->typed_for_write<R>();
            for (int64_t b = 0; b < outer; ++b) {
              for (int64_t c = 0; c < inner; ++c) {
                Acc<T> run{};
                for (int64_t k = 0; k < len; ++k) {
                  const int64_t j = reverse ? len - 1 - k : k;
                  const int64_t at = (b * len + j) * inner + c;
                  run += static_cast<Acc<T>>(p[at]);
                  y[at] = static_cast<R>(run);
                }
              }
            }
          });
        });
      },
      [o, x, outer, len, inner, in_type, out_type, reverse](const RunContext& rc) {
        cuda::cumsum(rc.stream, gpu_type(in_type), gpu_type(out_type), o->raw_for_write(), x->raw_for_read(), outer,
                     len, inner, reverse);
      });
  if (is_floating(in_type) && autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out,
                     [axis, reverse](const NDArray& dy, Need) { return Grads{cumsum(dy, axis, !reverse)}; });
  }
  return out;
}

// ---- strided selections -----------------------------------------------------

namespace {

void check_selection(const Shape& base, const Selection& sel, const char* op) {
  // Every element the selection reaches lies inside the base.
  int64_t lo = sel.offset, hi = sel.offset;
  for (int i = 0; i < sel.shape.ndim(); ++i) {
    if (sel.shape[i] == 0) return;
    const int64_t span = (sel.shape[i] - 1) * sel.strides[i];
    (span < 0 ? lo : hi) += span;
  }
  if (lo < 0 || (base.size() > 0 ? hi >= base.size() : sel.shape.size() > 0)) {
    throw std::invalid_argument(std::string(op) + ": the selection reaches outside the " + base.to_string() + " array");
  }
}

// Calls f(k, at) for each element k (row-major) of the selection and its offset in the base.
template <class F>
void for_each_selected(const Selection& sel, F&& f) {
  const int nd = sel.shape.ndim();
  const int64_t n = sel.shape.size();
  int64_t idx[Shape::kMaxDims] = {};
  int64_t at = sel.offset;
  for (int64_t k = 0; k < n; ++k) {
    f(k, at);
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < sel.shape[d]) {
        at += sel.strides[d];
        break;
      }
      at -= (sel.shape[d] - 1) * sel.strides[d];
      idx[d] = 0;
    }
  }
}

// The selection as rows: f(row, at, value_at) for each row of its last
// dimension (row-major), with the row's first offset in the base and, for a
// value of `value_dims` broadcast over the selection (stride 0 where it is
// stretched), the row's first offset in the value. The last dimension's
// strides are the caller's (sel.strides[nd-1], the value's s[3]).
template <class F>
void for_each_selected_row(const Selection& sel, const Strides4& value, F&& f) {
  const int nd = sel.shape.ndim();
  if (sel.shape.size() == 0) return;
  if (nd == 0) {
    f(int64_t{0}, sel.offset, int64_t{0});
    return;
  }
  const int pad = 4 - nd;
  int64_t idx[Shape::kMaxDims] = {};
  const int64_t rows = sel.shape.size() / sel.shape[nd - 1];
  int64_t at = sel.offset, from = 0;
  for (int64_t r = 0; r < rows; ++r) {
    f(r, at, from);
    for (int d = nd - 2; d >= 0; --d) {
      if (++idx[d] < sel.shape[d]) {
        at += sel.strides[d];
        from += value.s[pad + d];
        break;
      }
      at -= (sel.shape[d] - 1) * sel.strides[d];
      from -= (sel.shape[d] - 1) * value.s[pad + d];
      idx[d] = 0;
    }
  }
}

// The unsigned integer of an item's size: elements are copied as these.
template <size_t kSize>
using Word = std::conditional_t<kSize == 1, uint8_t, std::conditional_t<kSize == 4, uint32_t, uint64_t>>;

// dst[row-major over the selection] = src[selection], element by element of `item` bytes.
void take_rows(void* dst_, const void* src_, const Selection& sel, size_t item) {
  const auto run = [&]<size_t kSize>() {
    using W = Word<kSize>;
    W* dst = static_cast<W*>(dst_);
    const W* src = static_cast<const W*>(src_);
    const int nd = sel.shape.ndim();
    const int64_t len = nd == 0 ? 1 : sel.shape[nd - 1];
    const int64_t stride = nd == 0 ? 0 : sel.strides[nd - 1];
    for_each_selected_row(sel, Strides4{}, [&](int64_t r, int64_t at, int64_t) {
      W* out = dst + r * len;
      const W* in = src + at;
      if (stride == 1) {
        std::memcpy(out, in, static_cast<size_t>(len) * kSize);
      } else {
        for (int64_t c = 0; c < len; ++c) out[c] = in[c * stride];
      }
    });
  };
  if (item == 1) {
    run.template operator()<1>();
  } else if (item == 4) {
    run.template operator()<4>();
  } else {
    run.template operator()<8>();
  }
}

// dst[selection] = value (broadcast over the selection by `sv`), by words of `item` bytes.
void assign_rows(void* dst_, const void* value_, const Selection& sel, const Strides4& sv, size_t item) {
  const auto run = [&]<size_t kSize>() {
    using W = Word<kSize>;
    W* dst = static_cast<W*>(dst_);
    const W* value = static_cast<const W*>(value_);
    const int nd = sel.shape.ndim();
    const int64_t len = nd == 0 ? 1 : sel.shape[nd - 1];
    const int64_t stride = nd == 0 ? 0 : sel.strides[nd - 1];
    const int64_t vstride = sv.s[3];
    for_each_selected_row(sel, sv, [&](int64_t, int64_t at, int64_t from) {
      W* out = dst + at;
      const W* in = value + from;
      if (vstride == 0) {
        const W v = in[0];
        if (stride == 1) {
          std::fill(out, out + len, v);
        } else {
          for (int64_t c = 0; c < len; ++c) out[c * stride] = v;
        }
      } else if (stride == 1) {
        std::memcpy(out, in, static_cast<size_t>(len) * kSize);
      } else {
        for (int64_t c = 0; c < len; ++c) out[c * stride] = in[c];
      }
    });
  };
  if (item == 1) {
    run.template operator()<1>();
  } else if (item == 4) {
    run.template operator()<4>();
  } else {
    run.template operator()<8>();
  }
}

NDArray put_selection(const NDArray& dy, const Shape& base, const Selection& sel);

}  // namespace

namespace {

// What assign and scatter check of the value they write: one context and
// device, a shape that broadcasts to the selection's, and no recorded graph
// that would see the array change.
void check_assigned(const NDArray& a, const NDArray& value, const Shape& selected, const char* op) {
  ops_detail::check_pair(a, value, op);
  if (!(ops_detail::broadcast_shape(value.shape(), selected, op) == selected)) {
    throw std::invalid_argument(std::string(op) + ": a " + value.shape().to_string() +
                                " value cannot be assigned to a " + selected.to_string() + " selection");
  }
  if (autograd::is_recording() && (a.requires_grad() || value.requires_grad())) {
    throw std::logic_error(std::string(op) +
                           ": in-place updates of arrays that need a gradient are not allowed while recording (the "
                           "recorded graph would see the changed values); use the out-of-place op");
  }
}

}  // namespace

NDArray take(const NDArray& a, const Selection& sel) {
  static const trace::NameId kName = trace::intern("take");
  const Shape& s = a.chunk("take")->shape;
  check_selection(s, sel, "take");
  NDArray out = NDArray::empty(a.context_ptr(), sel.shape, a.device(), a.dtype());
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, "take");
  const size_t item = item_size(a.dtype());
  launch_typed(
      kName, "take", {&a}, {&out},
      [o, x, sel, item](const RunContext&) {
        if (o->shape.size() == 0) return;
        take_rows(o->raw_for_write(), x->raw_for_read(), sel, item);
      },
      [o, x, sel, item](const RunContext& rc) {
        cuda::take(rc.stream, o->raw_for_write(), x->raw_for_read(), gpu_layout(sel), o->shape.size(), item);
      });
  if (is_floating(a.dtype()) && autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [s, sel](const NDArray& dy, Need) { return Grads{put_selection(dy, s, sel)}; });
  }
  return out;
}

std::optional<NDArray> view_of(const NDArray& a, const Selection& sel) {
  const Chunk* c = a.chunk("view");
  check_selection(c->shape, sel, "view");
  if (sel.shape.size() == 0) return std::nullopt;  // an empty selection: a (cheap) copy has no offset to check
  // Contiguous: each dimension of more than one element steps over exactly
  // the elements of the ones after it.
  int64_t stride = 1;
  bool contiguous = true;
  for (int i = sel.shape.ndim() - 1; i >= 0; --i) {
    if (sel.shape[i] != 1 && sel.strides[i] != stride) contiguous = false;
    stride *= sel.shape[i];
  }
  if (contiguous) return make_view(a, sel.shape, sel.offset);
  // A strided part of a strided view is a copy.
  if (c->strided) return std::nullopt;
  return make_strided_view(a, sel.shape, sel.offset, sel.strides);
}

namespace ops_detail {

namespace {

// A strided view's place in its storage, as a selection of the storage's elements.
Selection layout_of(const Chunk* view) {
  Selection sel;
  sel.offset = static_cast<int64_t>(view->offset / item_size(view->dtype));
  sel.shape = view->shape;
  for (int d = 0; d < view->shape.ndim(); ++d) sel.strides[d] = view->strides[d];
  return sel;
}

}  // namespace

// Pushes f (on the CPU) or gpu (on a GPU), given the view's chunk, as an op
// writing the view's var: the view's buffer is the view's own, and writing
// the var keeps every other op on the array (which may read or write that
// buffer) away meanwhile.
template <class F, class G>
void push_on_view(const NDArray& view, trace::NameId name, size_t out_bytes, F f, G gpu) {
  Chunk* v = view.chunk();
  Context& ctx = view.context();
  OpMeta meta(name, v->device);
  meta.iteration = ctx.iteration();
  meta.out_bytes = out_bytes;
  Var* const writes[] = {v->var};
  if (on_gpu(v->device)) {
    ctx.engine().push([ref = ChunkRef(v), gpu](const RunContext& rc) { gpu(ref.get(), rc.stream); },
                      std::span<Var* const>(), std::span<Var* const>(writes, 1), meta);
  } else {
    ctx.engine().push([ref = ChunkRef(v), f](const RunContext&) { f(ref.get()); }, std::span<Var* const>(),
                      std::span<Var* const>(writes, 1), meta);
  }
}

// A strided view's buffer, allocated on its first read (from its base's allocator).
void allocate_view_buffer(Chunk* c) {
  if (c->data != nullptr) return;
  try {
    c->data = c->allocator->allocate(c->bytes);
  } catch (const MemoryBudgetError& refusal) {
    throw MemoryBudgetError("the " + c->shape.to_string() + " view", refusal);
  }
}

void strided_read(const NDArray& view) {
  static const trace::NameId kName = trace::intern("strided_read");
  push_on_view(
      view, kName, view.bytes(),
      [](Chunk* c) {
        allocate_view_buffer(c);
        take_rows(c->data, c->base->raw_for_read(), layout_of(c), item_size(c->dtype));
      },
      [](Chunk* c, void* stream) {
        allocate_view_buffer(c);
        cuda::take(stream, c->data, c->base->raw_for_read(), gpu_layout(layout_of(c)), c->shape.size(),
                   item_size(c->dtype));
      });
}

void strided_write(const NDArray& view) {
  static const trace::NameId kName = trace::intern("strided_write");
  push_on_view(
      view, kName, 0,
      [](Chunk* c) {
        const Selection sel = layout_of(c);
        assign_rows(c->base->raw_for_update(), c->raw_for_read(), sel, stretched_strides(padded(sel.shape), 0),
                    item_size(c->dtype));
      },
      [](Chunk* c, void* stream) {
        const Selection sel = layout_of(c);
        cuda::assign(stream, c->base->raw_for_update(), c->raw_for_read(), gpu_layout(sel),
                     stretched_strides(padded(sel.shape), 0), sel.shape.size(), item_size(c->dtype));
      });
}

}  // namespace ops_detail

namespace {

// zeros of `base` with dy added at the selection: take's gradient.
NDArray put_selection(const NDArray& dy, const Shape& base, const Selection& sel) {
  static const trace::NameId kName = trace::intern("take_backward");
  NDArray out = NDArray::empty(dy.context_ptr(), base, dy.device(), dy.dtype());
  Chunk* o = out.chunk();
  ChunkRef g = ops_detail::storage(dy, "take_backward");
  const DType t = dy.dtype();
  launch_typed(
      kName, "take_backward", {&dy}, {&out},
      [o, g, sel, t](const RunContext&) {
        visit_dtype(t, [&]<class T>(T) {
          T* y = o->typed_for_write<T>();
          std::fill(y, y + o->shape.size(), T{});
          const T* p = g->typed_for_read<T>();
          for_each_selected(sel, [&](int64_t k, int64_t at) { y[at] = static_cast<T>(y[at] + p[k]); });
        });
      },
      [o, g, sel, t](const RunContext& rc) {
        cuda::take_backward(rc.stream, gpu_type(t), o->raw_for_write(), o->shape.size(), g->raw_for_read(),
                            gpu_layout(sel), sel.shape.size());
      });
  return out;
}

}  // namespace

NDArray& assign(NDArray& a, const Selection& sel, const NDArray& value) {
  static const trace::NameId kName = trace::intern("assign");
  const Shape& s = a.chunk("assign")->shape;
  check_selection(s, sel, "assign");
  check_assigned(a, value, sel.shape, "assign");
  const NDArray v = value.dtype() == a.dtype() ? ops_detail::unaliased(a, value) : astype(value, a.dtype());
  ChunkRef o = ops_detail::storage(a, "assign");
  ChunkRef x = ops_detail::storage(v, "assign");
  const Dims4 dims = ops_detail::padded(sel.shape);
  const StretchMask mv = ops_detail::stretch_mask(v.shape(), dims);
  const size_t item = item_size(a.dtype());
  // A whole-array assignment writes without reading the old values (an array
  // no op has written yet can be filled so).
  const bool whole = sel.offset == 0 && sel.shape.size() == s.size() && [&] {
    int64_t stride = 1;
    for (int i = sel.shape.ndim() - 1; i >= 0; --i) {
      if (sel.shape[i] != 1 && sel.strides[i] != stride) return false;
      stride *= sel.shape[i];
    }
    return true;
  }();
  launch_typed(
      kName, "assign", {&v}, {&a},
      [o, x, sel, dims, mv, item, whole](const RunContext&) {
        if (sel.shape.size() == 0) return;
        void* y = whole ? o->raw_for_write() : o->raw_for_update();
        assign_rows(y, x->raw_for_read(), sel, stretched_strides(dims, mv), item);
      },
      [o, x, sel, dims, mv, item, whole](const RunContext& rc) {
        if (sel.shape.size() == 0) return;
        void* y = whole ? o->raw_for_write() : o->raw_for_update();
        cuda::assign(rc.stream, y, x->raw_for_read(), gpu_layout(sel), stretched_strides(dims, mv), sel.shape.size(),
                     item);
      });
  return a;
}

}  // namespace asyncscope

// ---- integer-array indexing ---------------------------------------------------

namespace asyncscope {
namespace {

// What gather and scatter share: the index arrays (int64, one shape) for the
// first k dimensions of `a`, the shape of the result, and the size of the
// block each index picks (the dimensions after the k indexed ones).
struct GatherPlan {
  std::vector<NDArray> indices;
  Shape index_shape;
  Shape out_shape;
  int64_t block = 1;
  std::vector<int64_t> dims;     // a's first k dimensions
  std::vector<int64_t> strides;  // their strides, in blocks
};

GatherPlan plan_gather(const NDArray& a, std::span<const NDArray> indices, const char* op) {
  const Shape& s = a.chunk(op)->shape;
  const size_t k = indices.size();
  if (k == 0 || k > static_cast<size_t>(s.ndim())) {
    throw std::invalid_argument(std::string(op) + ": " + std::to_string(k) + " index arrays for a " + s.to_string() +
                                " array");
  }
  GatherPlan plan;
  Shape shape = indices[0].shape();
  for (const NDArray& i : indices) {
    ops_detail::check_pair(a, i, op);
    if (!is_integral(i.dtype())) {
      throw std::invalid_argument(std::string(op) + ": index arrays hold integers, got " + name(i.dtype()));
    }
    shape = ops_detail::broadcast_shape(shape, i.shape(), op);
  }
  plan.index_shape = shape;
  for (const NDArray& i : indices) {
    NDArray v = i.dtype() == DType::int64 ? i : astype(i, DType::int64);
    plan.indices.push_back(v.shape() == shape ? v : broadcast_to(v, shape));
  }
  std::vector<int64_t> out(shape.begin(), shape.end());
  for (int d = static_cast<int>(k); d < s.ndim(); ++d) {
    out.push_back(s[d]);
    plan.block *= s[d];
  }
  if (out.size() > static_cast<size_t>(Shape::kMaxDims)) {
    throw std::invalid_argument(std::string(op) + ": the result would have " + std::to_string(out.size()) +
                                " dimensions, more than " + std::to_string(Shape::kMaxDims));
  }
  plan.out_shape = Shape(std::span<const int64_t>(out));
  plan.dims.assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(k));
  plan.strides.assign(k, 1);
  for (int d = static_cast<int>(k) - 2; d >= 0; --d) {
    plan.strides[static_cast<size_t>(d)] = plan.strides[static_cast<size_t>(d) + 1] * plan.dims[static_cast<size_t>(d) + 1];
  }
  return plan;
}

// The block offset of index element j (negative indices from the end); the
// op's error for one out of range.
int64_t block_of(const std::vector<const int64_t*>& idx, const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& strides, int64_t j) {
  int64_t at = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    int64_t i = idx[d][j];
    if (i < -dims[d] || i >= dims[d]) {
      throw std::out_of_range("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(d) +
                              " with size " + std::to_string(dims[d]));
    }
    if (i < 0) i += dims[d];
    at += i * strides[d];
  }
  return at;
}

NDArray scatter_add(const NDArray& dy, const Shape& base, const GatherPlan& plan);

// The index arrays' device pointers and their dimensions, for the GPU kernels.
cuda::IndexArrays gpu_indices(const std::vector<ChunkRef>& idx, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& strides) {
  cuda::IndexArrays ix;
  ix.count = static_cast<int>(idx.size());
  for (size_t d = 0; d < idx.size(); ++d) {
    ix.index[d] = idx[d]->typed_for_read<int64_t>();
    ix.dims[d] = dims[d];
    ix.strides[d] = strides[d];
  }
  return ix;
}

}  // namespace

NDArray gather(const NDArray& a, std::span<const NDArray> indices) {
  static const trace::NameId kName = trace::intern("gather");
  GatherPlan plan = plan_gather(a, indices, "gather");
  NDArray out = NDArray::empty(a.context_ptr(), plan.out_shape, a.device(), a.dtype());
  std::vector<NDArray> in{a};
  std::vector<ChunkRef> idx;
  for (const NDArray& i : plan.indices) {
    in.push_back(i);
    idx.push_back(ops_detail::storage(i, "gather"));
  }
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, "gather");
  const size_t bytes = plan.block * item_size(a.dtype());
  const int64_t n = plan.index_shape.size();
  ops_detail::launch_many(kName, "gather", in, out, [o, x, idx, bytes, n, dims = plan.dims, strides = plan.strides](const RunContext&) {
    std::vector<const int64_t*> p;
    for (const ChunkRef& c : idx) p.push_back(c->typed_for_read<int64_t>());
    if (o->shape.size() == 0) return;
    auto* y = static_cast<std::byte*>(o->raw_for_write());
    const auto* src = static_cast<const std::byte*>(x->raw_for_read());
    for (int64_t j = 0; j < n; ++j) {
      std::memcpy(y + static_cast<size_t>(j) * bytes, src + static_cast<size_t>(block_of(p, dims, strides, j)) * bytes, bytes);
    }
  }, [o, x, idx, n, block = plan.block, item = item_size(a.dtype()), dims = plan.dims, strides = plan.strides](const RunContext& rc) {
    cuda::gather(rc.stream, o->raw_for_write(), x->raw_for_read(), gpu_indices(idx, dims, strides), n, block, item);
  });
  if (is_floating(a.dtype()) && autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [base = a.shape(), plan](const NDArray& dy, Need) {
      return Grads{scatter_add(dy, base, plan)};
    });
  }
  return out;
}

namespace {

// zeros of `base` with dy's blocks added at the gathered places: gather's gradient.
NDArray scatter_add(const NDArray& dy, const Shape& base, const GatherPlan& plan) {
  static const trace::NameId kName = trace::intern("gather_backward");
  NDArray out = NDArray::empty(dy.context_ptr(), base, dy.device(), dy.dtype());
  std::vector<NDArray> in{dy};
  std::vector<ChunkRef> idx;
  for (const NDArray& i : plan.indices) {
    in.push_back(i);
    idx.push_back(ops_detail::storage(i, "gather_backward"));
  }
  Chunk* o = out.chunk();
  ChunkRef g = ops_detail::storage(dy, "gather_backward");
  const DType t = dy.dtype();
  const int64_t n = plan.index_shape.size(), block = plan.block;
  ops_detail::launch_many(kName, "gather_backward", in, out,
                          [o, g, idx, t, n, block, dims = plan.dims, strides = plan.strides](const RunContext&) {
                            std::vector<const int64_t*> p;
                            for (const ChunkRef& c : idx) p.push_back(c->typed_for_read<int64_t>());
                            visit_dtype(t, [&]<class T>(T) {
                              T* y = o->typed_for_write<T>();
                              std::fill(y, y + o->shape.size(), T{});
                              const T* d = g->typed_for_read<T>();
                              for (int64_t j = 0; j < n; ++j) {
                                T* dst = y + block_of(p, dims, strides, j) * block;
                                for (int64_t e = 0; e < block; ++e) dst[e] = static_cast<T>(dst[e] + d[j * block + e]);
                              }
                            });
                          },
                          [o, g, idx, t, n, block, dims = plan.dims, strides = plan.strides](const RunContext& rc) {
                            cuda::scatter_add(rc.stream, gpu_type(t), o->raw_for_write(), o->shape.size(),
                                              g->raw_for_read(), gpu_indices(idx, dims, strides), n, block);
                          });
  return out;
}

}  // namespace

NDArray& scatter(NDArray& a, std::span<const NDArray> indices, const NDArray& value) {
  static const trace::NameId kName = trace::intern("scatter");
  GatherPlan plan = plan_gather(a, indices, "scatter");
  check_assigned(a, value, plan.out_shape, "scatter");
  NDArray v = value.dtype() == a.dtype() ? ops_detail::unaliased(a, value) : astype(value, a.dtype());
  if (!(v.shape() == plan.out_shape)) v = broadcast_to(v, plan.out_shape);
  std::vector<NDArray> in{v};
  std::vector<ChunkRef> idx;
  for (const NDArray& i : plan.indices) {
    in.push_back(i);
    idx.push_back(ops_detail::storage(i, "scatter"));
  }
  ChunkRef o = ops_detail::storage(a, "scatter");
  ChunkRef x = ops_detail::storage(v, "scatter");
  const size_t bytes = plan.block * item_size(a.dtype());
  const int64_t n = plan.index_shape.size();
  // One op writing a's var (and reading the value and the indices).
  Context& ctx = a.context();
  ctx.check_open("scatter");
  std::vector<Var*> reads;
  for (const NDArray& r : in) reads.push_back(r.var());
  Var* const writes[] = {a.var()};
  OpMeta meta(kName, a.device());
  meta.iteration = ctx.iteration();
  meta.out_bytes = a.bytes();
  if (ops_detail::on_gpu(a.device())) {
    ctx.engine().push(
        [o, x, idx, n, block = plan.block, item = item_size(a.dtype()), dims = plan.dims,
         strides = plan.strides](const RunContext& rc) {
          cuda::scatter(rc.stream, o->raw_for_update(), x->raw_for_read(), gpu_indices(idx, dims, strides), n, block,
                        item);
        },
        reads, writes, meta);
    return a;
  }
  ctx.engine().push(
      [o, x, idx, bytes, n, dims = plan.dims, strides = plan.strides](const RunContext&) {
        std::vector<const int64_t*> p;
        for (const ChunkRef& c : idx) p.push_back(c->typed_for_read<int64_t>());
        if (n == 0 || bytes == 0) return;
        auto* y = static_cast<std::byte*>(o->raw_for_update());
        const auto* src = static_cast<const std::byte*>(x->raw_for_read());
        for (int64_t j = 0; j < n; ++j) {
          std::memcpy(y + static_cast<size_t>(block_of(p, dims, strides, j)) * bytes, src + static_cast<size_t>(j) * bytes,
                      bytes);
        }
      },
      reads, writes, meta);
  return a;
}

}  // namespace asyncscope

// ---- random permutations ------------------------------------------------------

namespace asyncscope {

NDArray randperm(const ContextPtr& ctx, int64_t n, Device device) {
  static const trace::NameId kName = trace::intern("randperm");
  if (!ctx) throw std::invalid_argument("randperm: null context");
  if (n < 0) throw std::invalid_argument("randperm: n must be non-negative, got " + std::to_string(n));
  // On the host (a sequential shuffle), then copied to the device.
  NDArray out = NDArray::empty(ctx, Shape{n}, Device::cpu(), DType::int64);
  Chunk* o = out.chunk();
  const uint64_t key = ctx->next_random_key();
  launch_typed(
      kName, "randperm", {}, {&out},
      [o, key, n](const RunContext&) {
        // Fisher-Yates, with the seeded counter-based stream: the same seed
        // and push order give the same permutation, whatever the workers.
        int64_t* y = o->typed_for_write<int64_t>();
        for (int64_t i = 0; i < n; ++i) y[i] = i;
        for (int64_t i = n - 1; i > 0; --i) {
          const uint64_t r = random::bits(key, static_cast<uint64_t>(i));
          const auto j = static_cast<int64_t>(r % static_cast<uint64_t>(i + 1));
          std::swap(y[i], y[j]);
        }
      },
      NoFunction{});
  return device == Device::cpu() ? out : to(out, device);
}

NDArray multinomial(const NDArray& weights, int64_t samples, bool replacement) {
  static const trace::NameId kName = trace::intern("multinomial");
  const Shape& s = weights.chunk("multinomial")->shape;
  if (s.ndim() != 1 && s.ndim() != 2) {
    throw std::invalid_argument("multinomial: the weights must be 1-d or 2-d, got " + s.to_string());
  }
  if (!is_floating(weights.dtype())) {
    throw std::invalid_argument(std::string("multinomial: the weights must be floats, got ") + name(weights.dtype()));
  }
  const int64_t categories = s[s.ndim() - 1];
  if (categories == 0) throw std::invalid_argument("multinomial: no categories to sample from");
  if (samples < 0) throw std::invalid_argument("multinomial: cannot sample " + std::to_string(samples) + " times");
  if (!replacement && samples > categories) {
    throw std::invalid_argument("multinomial: cannot sample " + std::to_string(samples) + " of " +
                                std::to_string(categories) + " categories without replacement");
  }
  const int64_t rows = s.ndim() == 2 ? s[0] : 1;
  const Shape out_shape = s.ndim() == 2 ? Shape{rows, samples} : Shape{samples};
  const NDArray w = weights.device() == Device::cpu() ? astype(weights, DType::float64) : to(astype(weights, DType::float64), Device::cpu());
  NDArray out = NDArray::empty(weights.context_ptr(), out_shape, Device::cpu(), DType::int64);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(w, "multinomial");
  const uint64_t key = weights.context().next_random_key();
  launch_typed(
      kName, "multinomial", {&w}, {&out},
      [o, x, key, rows, categories, samples, replacement](const RunContext&) {
        const double* p = x->typed_for_read<double>();
        int64_t* y = o->typed_for_write<int64_t>();
        std::vector<double> cumulative(static_cast<size_t>(categories));
        std::vector<std::pair<double, int64_t>> keys(static_cast<size_t>(categories));
        uint64_t counter = 0;
        for (int64_t r = 0; r < rows; ++r) {
          const double* row = p + r * categories;
          double total = 0;
          int64_t positive = 0;
          for (int64_t c = 0; c < categories; ++c) {
            if (!(row[c] >= 0) || std::isinf(row[c])) {
              throw std::invalid_argument("multinomial: the weights must be finite and non-negative");
            }
            total += row[c];
            positive += row[c] > 0;
            cumulative[static_cast<size_t>(c)] = total;
          }
          if (total <= 0) throw std::invalid_argument("multinomial: the weights of a row sum to 0");
          if (!replacement && positive < samples) {
            throw std::invalid_argument("multinomial: fewer categories with a non-zero weight than samples "
                                        "without replacement");
          }
          int64_t* out_row = y + r * samples;
          if (replacement) {
            for (int64_t k = 0; k < samples; ++k) {
              const double u = static_cast<double>(random::bits(key, counter++) >> 11) * 0x1.0p-53 * total;
              const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
              out_row[k] = std::min<int64_t>(at, categories - 1);
            }
          } else {
            // Efraimidis-Spirakis: the `samples` largest of log(u) / w are a
            // weighted draw without replacement, in draw order.
            for (int64_t c = 0; c < categories; ++c) {
              const double u = (static_cast<double>(random::bits(key, counter++) >> 11) + 0.5) * 0x1.0p-53;
              keys[static_cast<size_t>(c)] = {row[c] > 0 ? std::log(u) / row[c] : -HUGE_VAL, c};
            }
            std::partial_sort(keys.begin(), keys.begin() + samples, keys.end(),
                              [](const auto& a, const auto& b) { return a.first > b.first; });
            for (int64_t k = 0; k < samples; ++k) out_row[k] = keys[static_cast<size_t>(k)].second;
          }
        }
      },
      NoFunction{});
  return weights.device() == Device::cpu() ? out : to(out, weights.device());
}

}  // namespace asyncscope
