// Broadcasting and reductions: NumPy's shape rules, broadcast_to and its
// inverse sum_to, and sum/mean/norm of the whole array or along axes
// (accumulated in double); each with its gradient for autograd.
#include <cmath>
#include <vector>

#include "engine/base/vector_clones.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch;
using Grads = std::vector<NDArray>;
using Need = std::span<const bool>;

namespace ops_detail {

Shape broadcast_shape(const Shape& a, const Shape& b, const char* op) {
  if (a == b) return a;
  const int n = std::max(a.ndim(), b.ndim());
  int64_t dims[Shape::kMaxDims];
  for (int i = 0; i < n; ++i) {
    const int ia = a.ndim() - n + i;
    const int ib = b.ndim() - n + i;
    const int64_t da = ia >= 0 ? a[ia] : 1;
    const int64_t db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      throw std::invalid_argument(std::string(op) + ": shapes " + a.to_string() + " and " + b.to_string() +
                                  " do not broadcast (aligned at the last dimension, each pair of sizes must be "
                                  "equal or one of them 1)");
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::span<const int64_t>(dims, static_cast<size_t>(n)));
}

std::array<bool, Shape::kMaxDims> axes_mask(const Shape& a, std::span<const int> axes, const char* op) {
  std::array<bool, Shape::kMaxDims> mask{};
  if (axes.empty()) {
    for (int i = 0; i < a.ndim(); ++i) mask[static_cast<size_t>(i)] = true;
    return mask;
  }
  for (int axis : axes) {
    const int k = axis < 0 ? axis + a.ndim() : axis;
    if (k < 0 || k >= a.ndim()) {
      throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for " +
                                  a.to_string() + " (" + std::to_string(a.ndim()) + " dimensions)");
    }
    if (mask[static_cast<size_t>(k)]) {
      throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) + " is given twice");
    }
    mask[static_cast<size_t>(k)] = true;
  }
  return mask;
}

}  // namespace ops_detail

namespace {

using cuda::ReduceOp;

double finish(ReduceOp op, double acc, int64_t count) {
  if (op == ReduceOp::mean) return count ? acc / static_cast<double>(count) : 0.0;
  if (op == ReduceOp::norm) return std::sqrt(acc);
  return acc;
}

// y (in's layout with the reduced dimensions set to 1) = op over x (layout
// `in`) along `reduced`. Reads x once, in order; rows whose last dimension is
// kept accumulate as whole rows, which vectorises.
void reduce_kernel(ReduceOp op, float* y, const float* x, const Dims4& in, StretchMask reduced) {
  Dims4 out = in;
  int64_t count = 1;
  for (int i = 0; i < 4; ++i) {
    if ((reduced >> i) & 1u) {
      count *= in.d[i];
      out.d[i] = 1;
    }
  }
  std::vector<double> acc(static_cast<size_t>(out.size()), 0.0);
  const Strides4 so = stretched_strides(in, reduced);
  const bool squares = op == ReduceOp::norm;
  const int64_t inner = in.d[3];
  for (int64_t i0 = 0; i0 < in.d[0]; ++i0) {
    for (int64_t i1 = 0; i1 < in.d[1]; ++i1) {
      for (int64_t i2 = 0; i2 < in.d[2]; ++i2) {
        double* row = acc.data() + offset_of(so, i0, i1, i2, 0);
        if (so.s[3] == 0) {
          double s = 0.0;
          for (int64_t c = 0; c < inner; ++c) s += squares ? static_cast<double>(x[c]) * x[c] : x[c];
          row[0] += s;
        } else {
          for (int64_t c = 0; c < inner; ++c) row[c] += squares ? static_cast<double>(x[c]) * x[c] : x[c];
        }
        x += inner;
      }
    }
  }
  for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<float>(finish(op, acc[i], count));
}

// The sum of p[0..n) (of their squares when `squares`), in double. One
// running sum is a chain of dependent additions, one element per add
// latency (several times slower than NumPy on large arrays); kLanes
// independent sums, added together at the end, vectorise and keep several
// adds in flight.
// The result differs from the sequential sum only by rounding, and is
// nearer the exact sum than NumPy's float32 pairwise one.
template <bool kSquares>
ASYNCSCOPE_VECTOR_CLONES double lane_sum(const float* p, int64_t n) {
  constexpr int64_t kLanes = 16;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const double v = p[i + j];
      lanes[j] += kSquares ? v * v : v;
    }
  }
  for (int64_t j = 0; i < n; ++i, ++j) {
    const double v = p[i];
    lanes[j] += kSquares ? v * v : v;
  }
  double total = 0.0;
  for (const double lane : lanes) total += lane;
  return total;
}

void reduce_all_kernel(ReduceOp op, float* y, const float* p, int64_t n) {
  const double acc = op == ReduceOp::norm ? lane_sum<true>(p, n) : lane_sum<false>(p, n);
  y[0] = static_cast<float>(finish(op, acc, n));
}

const char* op_text(ReduceOp op) { return op == ReduceOp::sum ? "sum" : op == ReduceOp::mean ? "mean" : "norm"; }

trace::NameId op_name(ReduceOp op, bool axes) {
  static const trace::NameId kAll[] = {trace::intern("sum"), trace::intern("mean"), trace::intern("norm")};
  static const trace::NameId kAxes[] = {trace::intern("sum_axis"), trace::intern("mean_axis"),
                                        trace::intern("norm_axis")};
  return (axes ? kAxes : kAll)[static_cast<int>(op)];
}

NDArray reduce_all(const NDArray& a, ReduceOp op) {
  const char* text = op_text(op);
  if (a.chunk(text)->dtype != DType::float32 && op != ReduceOp::norm) {
    return reduce(a, op == ReduceOp::sum ? Reduction::sum : Reduction::mean, {}, false);
  }
  ChunkRef x = ops_detail::storage(a, text);
  NDArray out = NDArray::empty(a.context_ptr(), Shape{}, a.device());
  Chunk* o = out.chunk();
  launch(
      op_name(op, false), text, {&a}, {&out},
      [o, x, op](const RunContext&) {
        reduce_all_kernel(op, o->data_for_write(), x->data_for_read(), x->shape.size());
      },
      [o, x, op](const RunContext& rc) {
        cuda::reduce_all(rc.stream, op, o->data_for_write(), x->data_for_read(), x->shape.size());
      });
  return out;
}

// Reduces a along `mask` into an array of shape `out_shape` (the kept
// dimensions in order, with or without the reduced ones as 1).
NDArray reduce_axes(const NDArray& a, ReduceOp op, StretchMask reduced, const Shape& out_shape, trace::NameId name,
                    const char* text) {
  ChunkRef x = ops_detail::storage(a, text);
  const Dims4 in = ops_detail::padded(a.shape());
  NDArray out = NDArray::empty(a.context_ptr(), out_shape, a.device());
  Chunk* o = out.chunk();
  launch(
      name, text, {&a}, {&out},
      [o, x, op, in, reduced](const RunContext&) {
        reduce_kernel(op, o->data_for_write(), x->data_for_read(), in, reduced);
      },
      [o, x, op, in, reduced](const RunContext& rc) {
        cuda::reduce(rc.stream, op, o->data_for_write(), x->data_for_read(), in, reduced);
      });
  return out;
}

// The reduction of a along axes: the output shape, keepdims or not, and the mask in the padded layout.
struct AxesPlan {
  Shape out;
  Shape kept;  // the output with the reduced dimensions as 1
  StretchMask mask = 0;
  int64_t count = 1;
};

AxesPlan plan_axes(const Shape& a, std::span<const int> axes, bool keepdims, const char* op) {
  const auto reduce = ops_detail::axes_mask(a, axes, op);
  int64_t out_dims[Shape::kMaxDims], kept_dims[Shape::kMaxDims];
  size_t n_out = 0;
  AxesPlan plan;
  const int pad = 4 - a.ndim();
  for (int i = 0; i < a.ndim(); ++i) {
    const bool r = reduce[static_cast<size_t>(i)];
    kept_dims[i] = r ? 1 : a[i];
    if (r) {
      plan.count *= a[i];
      plan.mask = static_cast<StretchMask>(plan.mask | (1u << (pad + i)));
    }
    if (!r || keepdims) out_dims[n_out++] = r ? 1 : a[i];
  }
  plan.out = Shape(std::span<const int64_t>(out_dims, n_out));
  plan.kept = Shape(std::span<const int64_t>(kept_dims, static_cast<size_t>(a.ndim())));
  return plan;
}

NDArray reduce_along(const NDArray& a, std::span<const int> axes, bool keepdims, ReduceOp op) {
  const char* text = op_text(op);
  if (a.chunk(text)->dtype != DType::float32 && op != ReduceOp::norm) {
    return reduce(a, op == ReduceOp::sum ? Reduction::sum : Reduction::mean, axes, keepdims);
  }
  const AxesPlan plan = plan_axes(a.chunk(text)->shape, axes, keepdims, text);
  NDArray out = reduce_axes(a, op, plan.mask, plan.out, op_name(op, true), text);
  const trace::NameId name = op_name(op, true);
  if (!autograd::should_record({&a})) return out;
  if (op == ReduceOp::norm) {
    autograd::record(name, {&a}, out, [a, out = ops_detail::detached(out), kept = plan.kept](const NDArray& dy, Need) {
      return Grads{a * reshape(dy / out, kept)};  // d|a|/da = a / |a|
    });
    return out;
  }
  const float scale = op == ReduceOp::sum ? 1.0f : plan.count ? 1.0f / static_cast<float>(plan.count) : 0.0f;
  autograd::record(name, {&a}, out, [in = a.shape(), kept = plan.kept, scale](const NDArray& dy, Need) {
    NDArray g = broadcast_to(reshape(dy, kept), in);
    return Grads{scale == 1.0f ? g : g * scale};
  });
  return out;
}

}  // namespace

NDArray broadcast_to(const NDArray& a, const Shape& shape) {
  static const trace::NameId kName = trace::intern("broadcast_to");
  ChunkRef x = ops_detail::storage(a, "broadcast_to");
  if (!(ops_detail::broadcast_shape(a.shape(), shape, "broadcast_to") == shape)) {
    throw std::invalid_argument("broadcast_to: " + a.shape().to_string() + " cannot be stretched to " +
                                shape.to_string());
  }
  if (a.shape() == shape) return a;
  const Dims4 out_dims = ops_detail::padded(shape);
  const StretchMask mask = ops_detail::stretch_mask(a.shape(), out_dims);
  if (a.dtype() != DType::float32) {
    // A selection with stride 0 along the stretched dimensions.
    const Strides4 st = stretched_strides(out_dims, mask);
    Selection sel;
    sel.shape = shape;
    for (int i = 0; i < shape.ndim(); ++i) sel.strides[i] = st.s[4 - shape.ndim() + i];
    return take(a, sel);
  }
  NDArray out = NDArray::empty(a.context_ptr(), shape, a.device());
  Chunk* o = out.chunk();
  launch(
      kName, "broadcast_to", {&a}, {&out},
      [o, x, out_dims, mask](const RunContext&) {
        float* y = o->data_for_write();
        const float* p = x->data_for_read();
        const Strides4 s = stretched_strides(out_dims, mask);
        for (int64_t i0 = 0; i0 < out_dims.d[0]; ++i0) {
          for (int64_t i1 = 0; i1 < out_dims.d[1]; ++i1) {
            for (int64_t i2 = 0; i2 < out_dims.d[2]; ++i2) {
              const float* row = p + offset_of(s, i0, i1, i2, 0);
              for (int64_t c = 0; c < out_dims.d[3]; ++c) *y++ = row[c * s.s[3]];
            }
          }
        }
      },
      [o, x, out_dims, mask](const RunContext& rc) {
        cuda::broadcast(rc.stream, o->data_for_write(), out_dims, x->data_for_read(), mask);
      });
  if (autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [in = a.shape()](const NDArray& dy, Need) { return Grads{sum_to(dy, in)}; });
  }
  return out;
}

NDArray sum_to(const NDArray& a, const Shape& shape) {
  static const trace::NameId kName = trace::intern("sum_to");
  const Shape& from = a.chunk("sum_to")->shape;
  if (!(ops_detail::broadcast_shape(shape, from, "sum_to") == from)) {
    throw std::invalid_argument("sum_to: " + shape.to_string() + " does not broadcast to " + from.to_string() +
                                ", so " + from.to_string() + " cannot be summed back to it");
  }
  if (from == shape) return a;
  const StretchMask mask = ops_detail::stretch_mask(shape, ops_detail::padded(from));
  if (mask == 0) return reshape(a, shape);  // only leading 1s differ
  if (a.dtype() != DType::float32) {
    // The typed reduction over the stretched dimensions (kept as 1), then
    // the leading 1s dropped.
    std::vector<int> axes;
    for (int i = 0; i < from.ndim(); ++i) {
      if ((mask >> (4 - from.ndim() + i)) & 1u) axes.push_back(i);
    }
    return reshape(reduce(a, Reduction::sum, axes, true), shape);
  }
  NDArray out = reduce_axes(a, ReduceOp::sum, mask, shape, kName, "sum_to");
  if (autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [from](const NDArray& dy, Need) { return Grads{broadcast_to(dy, from)}; });
  }
  return out;
}

NDArray sum(const NDArray& a) {
  if (a.chunk("sum")->dtype != DType::float32) return reduce(a, Reduction::sum, {}, false);
  NDArray out = reduce_all(a, ReduceOp::sum);
  autograd::record(op_name(ReduceOp::sum, false), {&a}, out,
                   [in = a.shape()](const NDArray& dy, Need) { return Grads{broadcast_to(dy, in)}; });
  return out;
}

NDArray mean(const NDArray& a) {
  if (a.chunk("mean")->dtype != DType::float32) return reduce(a, Reduction::mean, {}, false);
  NDArray out = reduce_all(a, ReduceOp::mean);
  autograd::record(op_name(ReduceOp::mean, false), {&a}, out, [in = a.shape()](const NDArray& dy, Need) {
    const float inv = in.size() > 0 ? 1.0f / static_cast<float>(in.size()) : 0.0f;
    return Grads{broadcast_to(dy * inv, in)};
  });
  return out;
}

NDArray norm(const NDArray& a) {
  // float64: the root of the typed sum of squares (the float32 kernel's own gradient is the composition's).
  if (a.chunk("norm")->dtype == DType::float64) return sqrt(sum(square(a)));
  NDArray out = reduce_all(a, ReduceOp::norm);
  autograd::record(op_name(ReduceOp::norm, false), {&a}, out,
                   [a, out = ops_detail::detached(out)](const NDArray& dy, Need) { return Grads{a * (dy / out)}; });
  return out;
}

NDArray sum(const NDArray& a, std::span<const int> axes, bool keepdims) {
  return reduce_along(a, axes, keepdims, ReduceOp::sum);
}
NDArray mean(const NDArray& a, std::span<const int> axes, bool keepdims) {
  return reduce_along(a, axes, keepdims, ReduceOp::mean);
}
NDArray norm(const NDArray& a, std::span<const int> axes, bool keepdims) {
  if (a.chunk("norm")->dtype == DType::float64) return sqrt(sum(square(a), axes, keepdims));
  return reduce_along(a, axes, keepdims, ReduceOp::norm);
}
NDArray sum(const NDArray& a, int axis, bool keepdims) { return sum(a, std::span<const int>(&axis, 1), keepdims); }
NDArray mean(const NDArray& a, int axis, bool keepdims) { return mean(a, std::span<const int>(&axis, 1), keepdims); }
NDArray norm(const NDArray& a, int axis, bool keepdims) { return norm(a, std::span<const int>(&axis, 1), keepdims); }

}  // namespace asyncscope
