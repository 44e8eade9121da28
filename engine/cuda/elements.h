// The per-element work of the typed GPU kernels (typed_kernels.cu), as
// functions that compile for the host too: casts, the typed binary ops,
// where, reductions (one output from a thread's share of the reduced
// elements, and the combining of shares), running sums, and the offsets of
// strided selections. The kernels only spread these over threads, so the
// tests run them on the host and compare them with the CPU ops
// (tests/engine/cuda/elements_test.cpp): a machine without a GPU checks
// what every GPU element computes.
//
// Semantics are the CPU ops' (engine/tensor/ops_dtype.cpp): NumPy's and
// PyTorch's casts, Python's floored division and modulo, a NaN winning a
// maximum or minimum, reductions accumulated in double (floating types) or
// int64 (integers and bools). One difference: a kernel cannot raise, so an
// integer division or modulo by zero gives 0 on a GPU where the CPU op
// fails (README, "Data types").
//
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <type_traits>

#include "engine/base/layout.h"

#if defined(__CUDACC__)
#include <math.h>
#else
#include <cmath>
#endif

namespace asyncscope::cuda {

// Element types, in DType's order (engine/tensor/dtype.h; checked there).
enum class Type : uint8_t { float32, float64, int32, int64, uint8, boolean };
// The elementwise functions of one input (and a scalar s).
enum class UnaryOp : uint8_t {
  copy, add_scalar, sub_scalar, mul_scalar, div_scalar, rsub_scalar, rdiv_scalar, negative, relu, square, sqrt, exp, log,
  abs, sign, sin, cos, tanh, sigmoid, log1p, floor, ceil, rint, round, asin, acos, atan, sinh, cosh, expm1, erf
};
// The typed binary ops, in ops_detail::Binary's order (checked there).
enum class TypedBinary : uint8_t {
  add, sub, mul, div, pow, maximum, minimum, equal, not_equal, greater, greater_equal, less, less_equal,
  floor_divide, mod, logical_and, logical_or, logical_xor
};
// The typed reductions, in Reduction's order (engine/tensor/ops.h; checked there).
enum class TypedReduction : uint8_t { sum, prod, max, min, argmax, argmin, all, any, mean };

// A strided selection of an array's elements (ops.h's Selection): element
// (i0, i1, ...) of it is element offset + i0 * strides[0] + ... of the array.
struct StridedLayout {
  int64_t offset = 0;
  int ndim = 0;
  int64_t shape[4] = {1, 1, 1, 1};
  int64_t strides[4] = {0, 0, 0, 0};
};

// A reduction's layout: output k and reduced index j (row-major over the
// reduced dimensions) read input element
// offset(kept, k) + offset(reduced, j), each over its own dimensions.
struct ReduceLayout {
  Dims4 kept;          // the output's dimensions (reduced ones 1)
  Strides4 kept_step;  // their strides in the input
  Dims4 reduced;       // the reduced dimensions (kept ones 1)
  Strides4 reduced_step;
  int64_t count = 1;   // reduced elements per output
};

// Threads per block of the reduction kernel: each reduces every
// kReduceThreads-th element of an output, then the block combines the
// partials in a tree (halves added to the first halves).
inline constexpr int kReduceThreads = 256;

// Integer-array indexing (x[i, j]): `count` int64 index arrays of equal
// length pick blocks of x, the indexed dimensions' sizes and strides counted
// in blocks.
struct IndexArrays {
  const int64_t* index[4] = {nullptr, nullptr, nullptr, nullptr};
  int64_t dims[4] = {1, 1, 1, 1};
  int64_t strides[4] = {0, 0, 0, 0};
  int count = 0;
};

// take_along_axis's layout: the output's dimensions (padded to 4), the
// axis among them and the array's length along it, and the strides of the
// array and of the index in the output's dimensions (0 where either is
// broadcast; the array's stride along the axis is the step an index moves).
struct AlongLayout {
  Dims4 out;
  int axis = 3;
  int64_t len = 1;
  Strides4 array;
  Strides4 index;
};

// The layout of a reduction of `in` over the dimensions in `reduced`.
inline ReduceLayout reduce_layout(const Dims4& in, StretchMask reduced) {
  ReduceLayout l;
  const Strides4 step = stretched_strides(in, 0);
  for (int i = 0; i < 4; ++i) {
    const bool red = (reduced >> i) & 1u;
    l.kept.d[i] = red ? 1 : in.d[i];
    l.reduced.d[i] = red ? in.d[i] : 1;
    l.kept_step.s[i] = red ? 0 : step.s[i];
    l.reduced_step.s[i] = red ? step.s[i] : 0;
  }
  l.count = l.reduced.size();
  return l;
}

namespace elements {

template <class T>
inline constexpr bool kFloat = std::is_floating_point_v<T>;

template <class T>
ASYNCSCOPE_HOST_DEVICE inline T highest() {
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(std::is_signed_v<T> ? static_cast<U>(~U{0}) >> 1 : static_cast<U>(~U{0}));
  }
}

template <class T>
ASYNCSCOPE_HOST_DEVICE inline T lowest() {
  if constexpr (std::is_same_v<T, bool> || !std::is_signed_v<T>) {
    return T{0};
  } else {
    return static_cast<T>(-highest<T>() - 1);
  }
}

// NumPy's astype and PyTorch's .to() on x86: a float to an integer truncates
// toward zero through int64, then wraps into a narrower type; NaN,
// infinities and values beyond int64 become the type's lowest value.
template <class To, class From>
ASYNCSCOPE_HOST_DEVICE inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (kFloat<From> && std::is_integral_v<To>) {
    const double d = static_cast<double>(v);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return lowest<To>();
    return static_cast<To>(static_cast<int64_t>(d));
  } else {
    return static_cast<To>(v);
  }
}

template <class T>
ASYNCSCOPE_HOST_DEVICE inline T floor_of(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return floorf(v);
  } else {
    return floor(v);
  }
}

// a op b in T; comparisons and logical ops give 1 or 0.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline T apply(TypedBinary op, T a, T b) {
  switch (op) {
    case TypedBinary::add: return static_cast<T>(a + b);
    case TypedBinary::sub: return static_cast<T>(a - b);
    case TypedBinary::mul: return static_cast<T>(a * b);
    case TypedBinary::div:
      if constexpr (!kFloat<T>) {
        if (b == 0) return T{0};
      }
      return static_cast<T>(a / b);
    case TypedBinary::floor_divide:
      if constexpr (kFloat<T>) {
        return floor_of<T>(a / b);
      } else if constexpr (std::is_same_v<T, bool>) {
        return T{};
      } else {
        if (b == 0) return T{0};
        T q = static_cast<T>(a / b);
        if constexpr (std::is_signed_v<T>) {
          if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
        }
        return q;
      }
    case TypedBinary::mod:
      if constexpr (kFloat<T>) {
        T r;
        if constexpr (std::is_same_v<T, float>) {
          r = fmodf(a, b);
        } else {
          r = fmod(a, b);
        }
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      } else if constexpr (std::is_same_v<T, bool>) {
        return T{};
      } else {
        if (b == 0) return T{0};
        T r = static_cast<T>(a % b);
        if constexpr (std::is_signed_v<T>) {
          if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        }
        return r;
      }
    case TypedBinary::pow:
      if constexpr (std::is_same_v<T, float>) {
        return powf(a, b);
      } else if constexpr (std::is_same_v<T, double>) {
        return pow(a, b);
      } else if constexpr (std::is_same_v<T, bool>) {
        return T{};
      } else {
        if constexpr (std::is_signed_v<T>) {
          // As C's integer arithmetic and PyTorch give it: 1 / a^|b| truncated.
          if (b < 0) return a == 1 ? T{1} : a == -1 ? static_cast<T>(b % 2 == 0 ? 1 : -1) : T{0};
        }
        T result = 1, base = a;
        for (T e = b; e > 0; e = static_cast<T>(e / 2)) {
          if (e % 2) result = static_cast<T>(result * base);
          base = static_cast<T>(base * base);
        }
        return result;
      }
    case TypedBinary::maximum:
      if constexpr (kFloat<T>) {
        if (a != a) return a;
        if (b != b) return b;
      }
      return a > b ? a : b;
    case TypedBinary::minimum:
      if constexpr (kFloat<T>) {
        if (a != a) return a;
        if (b != b) return b;
      }
      return a < b ? a : b;
    case TypedBinary::equal: return static_cast<T>(a == b);
    case TypedBinary::not_equal: return static_cast<T>(a != b);
    case TypedBinary::greater: return static_cast<T>(a > b);
    case TypedBinary::greater_equal: return static_cast<T>(a >= b);
    case TypedBinary::less: return static_cast<T>(a < b);
    case TypedBinary::less_equal: return static_cast<T>(a <= b);
    case TypedBinary::logical_and: return static_cast<T>(a != T{} && b != T{});
    case TypedBinary::logical_or: return static_cast<T>(a != T{} || b != T{});
    case TypedBinary::logical_xor: return static_cast<T>((a != T{}) != (b != T{}));
  }
  return T{};
}

// f(x, s) in T, as the CPU ops compute it for a float64 or (the functions
// that keep them) an integer x: s is a float, promoted as C++ promotes it.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline T apply_unary(UnaryOp op, T x, float s) {
  switch (op) {
    case UnaryOp::copy: return x;
    case UnaryOp::add_scalar: return static_cast<T>(x + s);
    case UnaryOp::sub_scalar: return static_cast<T>(x - s);
    case UnaryOp::mul_scalar: return static_cast<T>(x * s);
    case UnaryOp::div_scalar: return static_cast<T>(x / s);
    case UnaryOp::rsub_scalar: return static_cast<T>(s - x);
    case UnaryOp::rdiv_scalar: return static_cast<T>(s / x);
    case UnaryOp::negative: return static_cast<T>(-x);
    case UnaryOp::relu: return x > 0 ? x : T{};
    case UnaryOp::square: return static_cast<T>(x * x);
    case UnaryOp::abs:
      if constexpr (std::is_unsigned_v<T>) {
        return x;
      } else {
        return x < 0 ? static_cast<T>(-x) : x;
      }
    case UnaryOp::sign:
      if constexpr (std::is_unsigned_v<T>) {
        return static_cast<T>(x > 0);
      } else {
        return static_cast<T>(static_cast<float>((x > 0) - (x < 0)));
      }
    default: break;
  }
  if constexpr (kFloat<T>) {
    switch (op) {
      case UnaryOp::sqrt: return sqrt(x);
      case UnaryOp::exp: return exp(x);
      case UnaryOp::log: return log(x);
      case UnaryOp::sin: return sin(x);
      case UnaryOp::cos: return cos(x);
      case UnaryOp::tanh: return tanh(x);
      case UnaryOp::sigmoid: return static_cast<T>(1.0f / (1.0f + exp(-x)));
      case UnaryOp::log1p: return log1p(x);
      case UnaryOp::floor: return floor(x);
      case UnaryOp::ceil: return ceil(x);
      case UnaryOp::rint: return nearbyint(x);
      case UnaryOp::round: return round(x);
      case UnaryOp::asin: return asin(x);
      case UnaryOp::acos: return acos(x);
      case UnaryOp::atan: return atan(x);
      case UnaryOp::sinh: return sinh(x);
      case UnaryOp::cosh: return cosh(x);
      case UnaryOp::expm1: return expm1(x);
      case UnaryOp::erf: return erf(x);
      default: return x;
    }
  } else {
    return x;  // the rounding functions give an integer back
  }
}

// y[i] = v as type r (static_cast: arithmetic results are already in r, and
// comparisons are 1 or 0).
template <class T>
ASYNCSCOPE_HOST_DEVICE inline void store(void* y, Type r, int64_t i, T v) {
  switch (r) {
    case Type::float32: static_cast<float*>(y)[i] = static_cast<float>(v); return;
    case Type::float64: static_cast<double*>(y)[i] = static_cast<double>(v); return;
    case Type::int32: static_cast<int32_t*>(y)[i] = static_cast<int32_t>(v); return;
    case Type::int64: static_cast<int64_t*>(y)[i] = static_cast<int64_t>(v); return;
    case Type::uint8: static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(v); return;
    case Type::boolean: static_cast<bool*>(y)[i] = static_cast<bool>(v); return;
  }
}

// The offset in an operand (strides `s`, stretched ones 0) of element i of
// the row-major layout `out`.
ASYNCSCOPE_HOST_DEVICE inline int64_t offset_at(int64_t i, const Dims4& out, const Strides4& s) {
  const int64_t i3 = i % out.d[3];
  i /= out.d[3];
  const int64_t i2 = i % out.d[2];
  i /= out.d[2];
  const int64_t i1 = i % out.d[1];
  const int64_t i0 = i / out.d[1];
  return offset_of(s, i0, i1, i2, i3);
}

// Element i of y (type r, layout out) = a op b, computed in T.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline void binary_element(int64_t i, TypedBinary op, Type r, void* y, const Dims4& out,
                                                  const T* a, const Strides4& sa, const T* b, const Strides4& sb) {
  store<T>(y, r, i, apply<T>(op, a[offset_at(i, out, sa)], b[offset_at(i, out, sb)]));
}

// Element i of y (layout out) = c ? a : b.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline void where_element(int64_t i, T* y, const Dims4& out, const bool* c,
                                                 const Strides4& sc, const T* a, const Strides4& sa, const T* b,
                                                 const Strides4& sb) {
  y[i] = c[offset_at(i, out, sc)] ? a[offset_at(i, out, sa)] : b[offset_at(i, out, sb)];
}

// ---- reductions ---------------------------------------------------------------

// The accumulator: double for floating types, int64 for the others (exact
// for every value of them, so extrema keep their values too).
template <class T>
using Acc = std::conditional_t<kFloat<T>, double, int64_t>;

inline constexpr int64_t kNoIndex = INT64_MAX;

// A reduction over some of an output's elements: the running value and,
// for extrema, the reduced index it came from (kNoIndex: no element yet).
template <class T>
struct Partial {
  Acc<T> value;
  int64_t index;
};

ASYNCSCOPE_HOST_DEVICE inline bool is_extremum(TypedReduction r) {
  return r == TypedReduction::max || r == TypedReduction::min || r == TypedReduction::argmax ||
         r == TypedReduction::argmin;
}
ASYNCSCOPE_HOST_DEVICE inline bool is_larger(TypedReduction r) {
  return r == TypedReduction::max || r == TypedReduction::argmax;
}

template <class T>
ASYNCSCOPE_HOST_DEVICE inline Partial<T> start(TypedReduction r) {
  Partial<T> p{Acc<T>{0}, kNoIndex};
  if (r == TypedReduction::prod || r == TypedReduction::all) p.value = 1;
  if (is_extremum(r)) {
    if constexpr (kFloat<T>) {
      p.value = is_larger(r) ? -HUGE_VAL : HUGE_VAL;
    } else {
      p.value = static_cast<Acc<T>>(is_larger(r) ? lowest<T>() : highest<T>());
    }
  }
  return p;
}

// Whether extremum candidate b replaces a: a NaN wins (the first one), then
// the larger (smaller), then on a tie the smaller index.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline bool replaces(TypedReduction r, const Partial<T>& a, const Partial<T>& b) {
  if (b.index == kNoIndex) return false;
  if (a.index == kNoIndex) return true;
  if constexpr (kFloat<T>) {
    const bool nan_a = a.value != a.value, nan_b = b.value != b.value;
    if (nan_a || nan_b) return nan_b && (!nan_a || b.index < a.index);
  }
  if (b.value == a.value) return b.index < a.index;
  return is_larger(r) ? b.value > a.value : b.value < a.value;
}

// a + b and a * b, wrapping for integers as PyTorch's (in unsigned
// arithmetic: signed overflow is undefined in C++ and CUDA alike).
template <class A>
ASYNCSCOPE_HOST_DEVICE inline A wrapping_add(A a, A b) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class A>
ASYNCSCOPE_HOST_DEVICE inline A wrapping_mul(A a, A b) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// p with element v (reduced index j) added.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline void step(TypedReduction r, Partial<T>& p, T v, int64_t j) {
  switch (r) {
    case TypedReduction::sum:
    case TypedReduction::mean: p.value = wrapping_add(p.value, static_cast<Acc<T>>(v)); return;
    case TypedReduction::prod: p.value = wrapping_mul(p.value, static_cast<Acc<T>>(v)); return;
    case TypedReduction::all: p.value = p.value && v != T{}; return;
    case TypedReduction::any: p.value = p.value || v != T{}; return;
    default: {
      const Partial<T> q{static_cast<Acc<T>>(v), j};
      if (replaces<T>(r, p, q)) p = q;
    }
  }
}

// a with the elements of b added.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline void combine(TypedReduction r, Partial<T>& a, const Partial<T>& b) {
  switch (r) {
    case TypedReduction::sum:
    case TypedReduction::mean: a.value = wrapping_add(a.value, b.value); return;
    case TypedReduction::prod: a.value = wrapping_mul(a.value, b.value); return;
    case TypedReduction::all: a.value = a.value && b.value; return;
    case TypedReduction::any: a.value = a.value || b.value; return;
    default:
      if (replaces<T>(r, a, b)) a = b;
  }
}

// Thread `t` of `threads` reducing output k: reduced elements t, t + threads, ...
template <class T>
ASYNCSCOPE_HOST_DEVICE inline Partial<T> partial(TypedReduction r, const T* x, const ReduceLayout& l, int64_t k,
                                                 int64_t t, int64_t threads) {
  Partial<T> p = start<T>(r);
  const int64_t base = offset_at(k, l.kept, l.kept_step);
  for (int64_t j = t; j < l.count; j += threads) step<T>(r, p, x[base + offset_at(j, l.reduced, l.reduced_step)], j);
  return p;
}

// Output k's value from its combined partial, as type `out`.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline void finish(TypedReduction r, void* y, Type out, int64_t k, const Partial<T>& p,
                                          int64_t count) {
  switch (r) {
    case TypedReduction::argmax:
    case TypedReduction::argmin: store<int64_t>(y, out, k, p.index == kNoIndex ? 0 : p.index); return;
    case TypedReduction::mean:
      store<double>(y, out, k, count ? static_cast<double>(p.value) / static_cast<double>(count) : NAN);
      return;
    case TypedReduction::all:
    case TypedReduction::any: store<bool>(y, out, k, p.value != 0); return;
    default: store<Acc<T>>(y, out, k, p.value);
  }
}

// ---- running sums and selections ---------------------------------------------

// Line (b, c) of a running sum along an axis of length len (outer b, inner c).
template <class T, class R>
ASYNCSCOPE_HOST_DEVICE inline void cumsum_line(R* y, const T* x, int64_t line, int64_t len, int64_t inner,
                                               bool reverse) {
  const int64_t b = line / inner, c = line % inner;
  Acc<T> run{};
  for (int64_t k = 0; k < len; ++k) {
    const int64_t j = reverse ? len - 1 - k : k;
    const int64_t at = (b * len + j) * inner + c;
    run += static_cast<Acc<T>>(x[at]);
    y[at] = static_cast<R>(run);
  }
}

// The array offset of element k (row-major) of a strided selection.
ASYNCSCOPE_HOST_DEVICE inline int64_t selected_offset(int64_t k, const StridedLayout& s) {
  int64_t at = s.offset;
  for (int d = s.ndim - 1; d >= 0; --d) {
    at += (k % s.shape[d]) * s.strides[d];
    k /= s.shape[d];
  }
  return at;
}

// The offset in a value broadcast over a selection (strides sv over the
// selection's padded dimensions) of the selection's element k.
ASYNCSCOPE_HOST_DEVICE inline int64_t value_offset(int64_t k, const StridedLayout& s, const Strides4& sv) {
  Dims4 dims;
  for (int d = 0; d < s.ndim; ++d) dims.d[4 - s.ndim + d] = s.shape[d];
  return offset_at(k, dims, sv);
}

// The block that index element j picks (negative indices count from the
// end), or -1 when an index is out of range (the CPU op's error; a kernel
// skips it).
ASYNCSCOPE_HOST_DEVICE inline int64_t block_at(int64_t j, const IndexArrays& ix) {
  int64_t at = 0;
  for (int d = 0; d < ix.count; ++d) {
    int64_t i = ix.index[d][j];
    if (i < -ix.dims[d] || i >= ix.dims[d]) return -1;
    if (i < 0) i += ix.dims[d];
    at += i * ix.strides[d];
  }
  return at;
}

// ---- picking along an axis ----------------------------------------------------

// The offset in the array of output element i of take_along_axis (indices
// below 0 count from the end), or -1 for an index out of range.
ASYNCSCOPE_HOST_DEVICE inline int64_t along_offset(int64_t i, const AlongLayout& l, const int64_t* index) {
  int64_t c[4];
  for (int d = 3; d >= 0; --d) {
    c[d] = i % l.out.d[d];
    i /= l.out.d[d];
  }
  int64_t at = 0, k = 0;
  for (int d = 0; d < 4; ++d) {
    k += c[d] * l.index.s[d];
    if (d != l.axis) at += c[d] * l.array.s[d];
  }
  k = index[k];
  if (k < 0) k += l.len;
  if (k < 0 || k >= l.len) return -1;
  return at + k * l.array.s[l.axis];
}

// ---- sorting ---------------------------------------------------------------

// Whether a comes before b in ascending (or descending) order, a NaN being
// larger than every number: last when ascending, as NumPy sorts, and first
// when descending, as PyTorch does.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline bool sorts_before(T a, T b, bool descending) {
  if constexpr (kFloat<T>) {
    const bool a_nan = a != a, b_nan = b != b;
    if (a_nan || b_nan) return descending ? a_nan && !b_nan : !a_nan && b_nan;
  }
  return descending ? b < a : a < b;
}

// The place of element i of line `line` (outer b, inner c, as cumsum_line)
// in its stable sorted order: how many elements sort before it, equal ones
// before it included. Every pair is compared: a GPU thread per element.
template <class T>
ASYNCSCOPE_HOST_DEVICE inline int64_t sorted_place(const T* x, int64_t line, int64_t len, int64_t inner, int64_t i,
                                                   bool descending) {
  const T* p = x + (line / inner) * len * inner + line % inner;
  const T v = p[i * inner];
  int64_t place = 0;
  for (int64_t j = 0; j < len; ++j) {
    const T w = p[j * inner];
    if (sorts_before(w, v, descending) || (j < i && !sorts_before(v, w, descending))) ++place;
  }
  return place;
}

}  // namespace elements
}  // namespace asyncscope::cuda
