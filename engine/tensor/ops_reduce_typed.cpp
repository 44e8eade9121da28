// The reductions of every dtype (engine/tensor/dtype.h) on the CPU and,
// where the GPU has a kernel, on the GPU: sum, prod, max, min, argmax,
// argmin, all, any, mean in the type each reduction gives (reduction_type),
// and cumsum. The float32 ops keep their own kernels; they come here for
// arrays of other types.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/base/vector_clones.h"
#include "engine/cuda/kernels.h"
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

static_assert(static_cast<int>(cuda::TypedReduction::mean) == static_cast<int>(Reduction::mean) &&
              static_cast<int>(cuda::TypedReduction::argmin) == static_cast<int>(Reduction::argmin));

cuda::Type gpu_type(DType t) { return static_cast<cuda::Type>(t); }

}  // namespace

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

}  // namespace asyncscope
