// The ops of every dtype (engine/tensor/dtype.h), on the CPU: casts, typed
// creation (fill, arange, host bytes), and elementwise arithmetic and
// comparisons in the promoted type (with where). The float32 ops keep their
// own kernels (and GPU ones); they come here for arrays of other types.
// Reductions and cumsum of every dtype are in ops_reduce_typed.cpp, strided
// and integer-array selections in ops_select.cpp.
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

cuda::Type gpu_type(DType t) { return static_cast<cuda::Type>(t); }

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

}  // namespace asyncscope
