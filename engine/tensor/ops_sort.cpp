// Sorting along an axis: sort, argsort, topk, and take_along_axis, which
// picks values by the indices they give. One op sorts every line of the
// axis and writes the first k of each: their values, their places in the
// line, or both. On a CPU worker a line is sorted with ties broken by
// position (so the order is stable); on a GPU a thread per element counts
// what sorts before it (engine/cuda/elements.h's sorted_place, the same
// order). NaN sorts as the largest value.
//
// While autograd records, the values are taken with take_along_axis (an op
// of its own, differentiable) from the indices the op gives, so the
// gradient goes back to where each value came from.
#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/cuda/elements.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch_typed;

namespace {

// An axis of s (a 0-d array counts as 1-d), from the end when negative.
int axis_of(const Shape& s, int axis, const char* op) {
  const int ndim = s.ndim() == 0 ? 1 : s.ndim();
  if (axis < -ndim || axis >= ndim) {
    throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for an array of shape " +
                                s.to_string());
  }
  return axis < 0 ? axis + ndim : axis;
}

// The lines along an axis: `outer` blocks of `len` elements `inner` apart.
struct Lines {
  int64_t outer = 1, len = 1, inner = 1;
};

Lines lines_of(const Shape& s, int axis) {
  Lines l;
  for (int i = 0; i < s.ndim(); ++i) {
    if (i < axis) l.outer *= s[i];
    if (i == axis) l.len = s[i];
    if (i > axis) l.inner *= s[i];
  }
  return l;
}

// Whether x is NaN (never, for the integer types and bool).
template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

// Line after line: the first k of each in sorted order, to yv and yi (either
// null). The NaNs of a line are put in their place first (at the end
// ascending, at the start descending, in their order), so the rest is sorted
// with a plain comparison, which std::sort runs much faster than one that
// asks about NaN every time.
template <class T>
void sort_on_cpu(const T* x, T* yv, int64_t* yi, Lines l, int64_t k, bool descending) {
  const auto line = std::make_unique<T[]>(static_cast<size_t>(l.len));
  const auto order = std::make_unique<int64_t[]>(static_cast<size_t>(l.len));
  const auto before = [descending](T a, T b) { return descending ? b < a : a < b; };
  const auto place_first = [&](int64_t i, int64_t j) {
    if (before(line[i], line[j])) return true;
    if (before(line[j], line[i])) return false;
    return i < j;  // ties in their order in the line
  };
  for (int64_t b = 0; b < l.outer; ++b) {
    for (int64_t c = 0; c < l.inner; ++c) {
      const T* from = x + b * l.len * l.inner + c;
      for (int64_t j = 0; j < l.len; ++j) line[j] = from[j * l.inner];
      const int64_t base = b * k * l.inner + c;
      if (yi == nullptr && k == l.len) {
        // Values alone: equal values cannot be told apart, so any order of them will do.
        T* first = line.get();
        T* last = line.get() + l.len;
        if (descending) {
          first = std::partition(first, last, [](T v) { return is_nan(v); });
        } else {
          last = std::partition(first, last, [](T v) { return !is_nan(v); });
        }
        std::sort(first, last, before);
        for (int64_t p = 0; p < k; ++p) yv[base + p * l.inner] = line[p];
        continue;
      }
      std::iota(order.get(), order.get() + l.len, int64_t{0});
      int64_t* first = order.get();
      int64_t* last = order.get() + l.len;
      if (descending) {
        first = std::stable_partition(first, last, [&](int64_t i) { return is_nan(line[i]); });
      } else {
        last = std::stable_partition(first, last, [&](int64_t i) { return !is_nan(line[i]); });
      }
      // The numbers lie in [first, last); sort as many of them as the first k reach.
      const int64_t wanted = std::min<int64_t>(last - first, k - (first - order.get()));
      if (wanted > 0 && wanted < last - first) {
        std::partial_sort(first, first + wanted, last, place_first);
      } else if (wanted > 0) {
        std::sort(first, last, place_first);
      }
      for (int64_t p = 0; p < k; ++p) {
        if (yv != nullptr) yv[base + p * l.inner] = line[order[p]];
        if (yi != nullptr) yi[base + p * l.inner] = order[p];
      }
    }
  }
}

// The sorting op: the first k of each line along `axis` (k = the axis
// length for a whole sort), values and indices as asked.
Sorted sort_lines(const NDArray& a, int axis, bool descending, int64_t k, bool want_values, bool want_indices,
                  trace::NameId name, const char* op) {
  const Shape& s = a.chunk(op)->shape;
  axis = axis_of(s, axis, op);
  const Lines l = lines_of(s, axis);
  if (k < 0 || k > l.len) {
    throw std::invalid_argument(std::string(op) + ": k = " + std::to_string(k) + " is out of range for an axis of " +
                                std::to_string(l.len) + " elements");
  }
  Shape out_shape = s;
  if (s.ndim() > 0) {
    std::vector<int64_t> dims(s.begin(), s.end());
    dims[static_cast<size_t>(axis)] = k;
    out_shape = Shape(std::span<const int64_t>(dims));
  }
  const DType t = a.dtype();
  Sorted out;
  if (want_values) out.values = NDArray::empty(a.context_ptr(), out_shape, a.device(), t);
  if (want_indices) out.indices = NDArray::empty(a.context_ptr(), out_shape, a.device(), DType::int64);
  Chunk* v = want_values ? out.values.chunk() : nullptr;
  Chunk* i = want_indices ? out.indices.chunk() : nullptr;
  ChunkRef x = ops_detail::storage(a, op);
  const auto cpu = [x, v, i, l, k, t, descending](const RunContext&) {
    visit_dtype(t, [&]<class T>(T) {
      sort_on_cpu<T>(x->typed_for_read<T>(), v != nullptr ? v->typed_for_write<T>() : nullptr,
                     i != nullptr ? i->typed_for_write<int64_t>() : nullptr, l, k, descending);
    });
  };
  const auto gpu = [x, v, i, l, k, t, descending](const RunContext& rc) {
    // cuda::Type follows DType's order (checked in ops_dtype.cpp).
    cuda::sort(rc.stream, static_cast<cuda::Type>(t), v != nullptr ? v->raw_for_write() : nullptr,
               i != nullptr ? i->typed_for_write<int64_t>() : nullptr, x->raw_for_read(), l.outer, l.len, l.inner, k,
               descending);
  };
  if (want_values && want_indices) {
    launch_typed(name, op, {&a}, {&out.values, &out.indices}, cpu, gpu);
  } else if (want_values) {
    launch_typed(name, op, {&a}, {&out.values}, cpu, gpu);
  } else {
    launch_typed(name, op, {&a}, {&out.indices}, cpu, gpu);
  }
  return out;
}

const trace::NameId& sort_name() {
  static const trace::NameId kName = trace::intern("sort");
  return kName;
}
const trace::NameId& argsort_name() {
  static const trace::NameId kName = trace::intern("argsort");
  return kName;
}
const trace::NameId& topk_name() {
  static const trace::NameId kName = trace::intern("topk");
  return kName;
}

bool differentiated(const NDArray& a) { return is_floating(a.dtype()) && autograd::should_record({&a}); }

int64_t axis_length(const NDArray& a, int axis, const char* op) {
  const Shape& s = a.shape();
  return s.ndim() == 0 ? 1 : s[axis_of(s, axis, op)];
}

}  // namespace

NDArray sort(const NDArray& a, int axis, bool descending) {
  const int64_t len = axis_length(a, axis, "sort");
  if (differentiated(a)) return take_along_axis(a, argsort(a, axis, descending), axis);
  return sort_lines(a, axis, descending, len, true, false, sort_name(), "sort").values;
}

NDArray argsort(const NDArray& a, int axis, bool descending) {
  const int64_t len = axis_length(a, axis, "argsort");
  return sort_lines(a, axis, descending, len, false, true, argsort_name(), "argsort").indices;
}

Sorted sort_with_indices(const NDArray& a, int axis, bool descending) {
  const int64_t len = axis_length(a, axis, "sort");
  if (differentiated(a)) {
    Sorted out;
    out.indices = argsort(a, axis, descending);
    out.values = take_along_axis(a, out.indices, axis);
    return out;
  }
  return sort_lines(a, axis, descending, len, true, true, sort_name(), "sort");
}

Sorted topk(const NDArray& a, int64_t k, int axis, bool largest) {
  if (differentiated(a)) {
    Sorted out;
    out.indices = sort_lines(a, axis, largest, k, false, true, topk_name(), "topk").indices;
    out.values = take_along_axis(a, out.indices, axis);
    return out;
  }
  return sort_lines(a, axis, largest, k, true, true, topk_name(), "topk");
}

namespace {

// take_along_axis's layout (engine/cuda/elements.h) for an array of shape
// `a`, indices of shape `idx` and the output `out`, all of one rank.
cuda::AlongLayout along_layout(const Shape& a, const Shape& idx, const Shape& out, int axis) {
  cuda::AlongLayout l;
  const int pad = 4 - out.ndim();
  for (int d = 0; d < out.ndim(); ++d) l.out.d[pad + d] = out[d];
  l.axis = pad + axis;
  l.len = a[axis];
  int64_t sa = 1, si = 1;
  for (int d = out.ndim() - 1; d >= 0; --d) {
    l.array.s[pad + d] = d != axis && a[d] == 1 && out[d] != 1 ? 0 : sa;  // broadcast: the same element
    l.index.s[pad + d] = idx[d] == 1 && out[d] != 1 ? 0 : si;
    sa *= a[d];
    si *= idx[d];
  }
  return l;
}

[[noreturn]] void index_out_of_range(int64_t k, int64_t len) {
  throw std::out_of_range("take_along_axis: index " + std::to_string(k) + " is out of range for an axis of " +
                          std::to_string(len) + " elements");
}

// Every output element in row-major order: f(output index, array offset),
// the array's offset kept as running sums (no division per element).
template <class F>
void along_each(const int64_t* index, const cuda::AlongLayout& l, F&& f) {
  const int ax = l.axis;
  Strides4 walk = l.array;
  walk.s[ax] = 0;
  const int64_t step = l.array.s[ax];
  int64_t i = 0;
  for (int64_t c0 = 0; c0 < l.out.d[0]; ++c0) {
    for (int64_t c1 = 0; c1 < l.out.d[1]; ++c1) {
      for (int64_t c2 = 0; c2 < l.out.d[2]; ++c2) {
        const int64_t base = c0 * walk.s[0] + c1 * walk.s[1] + c2 * walk.s[2];
        const int64_t ibase = c0 * l.index.s[0] + c1 * l.index.s[1] + c2 * l.index.s[2];
        for (int64_t c3 = 0; c3 < l.out.d[3]; ++c3) {
          int64_t k = index[ibase + c3 * l.index.s[3]];
          if (k < 0) k += l.len;
          if (k < 0 || k >= l.len) [[unlikely]] index_out_of_range(index[ibase + c3 * l.index.s[3]], l.len);
          f(i++, base + c3 * walk.s[3] + k * step);
        }
      }
    }
  }
}

// take_along_axis's gradient: zeros of the array's shape with dy added where
// each output element came from (broadcast elements and repeated indices sum).
NDArray take_along_backward(const NDArray& dy, const NDArray& index, const Shape& base, const cuda::AlongLayout& l) {
  static const trace::NameId kName = trace::intern("take_along_axis_backward");
  NDArray out = NDArray::empty(dy.context_ptr(), base, dy.device(), dy.dtype());
  Chunk* o = out.chunk();
  ChunkRef g = ops_detail::storage(dy, "take_along_axis_backward");
  ChunkRef ix = ops_detail::storage(index, "take_along_axis_backward");
  const DType t = dy.dtype();
  launch_typed(
      kName, "take_along_axis_backward", {&dy, &index}, {&out},
      [o, g, ix, t, l](const RunContext&) {
        visit_dtype(t, [&]<class T>(T) {
          T* y = o->typed_for_write<T>();
          std::fill(y, y + o->shape.size(), T{});
          const T* d = g->typed_for_read<T>();
          along_each(ix->typed_for_read<int64_t>(), l, [&](int64_t i, int64_t at) { y[at] = static_cast<T>(y[at] + d[i]); });
        });
      },
      [o, g, ix, t, l](const RunContext& rc) {
        cuda::take_along_backward(rc.stream, static_cast<cuda::Type>(t), o->raw_for_write(), o->shape.size(),
                                  g->raw_for_read(), ix->typed_for_read<int64_t>(), l, l.out.size());
      });
  return out;
}

}  // namespace

NDArray take_along_axis(const NDArray& a, const NDArray& indices, int axis) {
  static const trace::NameId kName = trace::intern("take_along_axis");
  const Shape& s = a.shape();
  const Shape& is = indices.shape();
  if (s.ndim() == 0) throw std::invalid_argument("take_along_axis: needs an array of at least one dimension, got a 0-d one");
  if (is.ndim() != s.ndim()) {
    throw std::invalid_argument("take_along_axis: the indices have " + std::to_string(is.ndim()) +
                                " dimensions and the array " + std::to_string(s.ndim()) + "; they must have the same number");
  }
  if (!is_integral(indices.dtype())) {
    throw std::invalid_argument(std::string("take_along_axis: indices must be integers, got ") + name(indices.dtype()));
  }
  axis = axis_of(s, axis, "take_along_axis");
  std::vector<int64_t> dims(static_cast<size_t>(s.ndim()));
  for (int d = 0; d < s.ndim(); ++d) {
    if (d != axis && is[d] != s[d] && is[d] != 1 && s[d] != 1) {
      throw std::invalid_argument("take_along_axis: indices of shape " + is.to_string() +
                                  " do not fit an array of shape " + s.to_string() + " outside axis " +
                                  std::to_string(axis));
    }
    dims[static_cast<size_t>(d)] = d == axis ? is[d] : std::max(s[d], is[d]);
    if (d != axis && (s[d] == 0 || is[d] == 0)) dims[static_cast<size_t>(d)] = 0;
  }
  const Shape out_shape = Shape(std::span<const int64_t>(dims.data(), dims.size()));
  const NDArray index = indices.dtype() == DType::int64 ? indices : astype(indices, DType::int64);
  NDArray out = NDArray::empty(a.context_ptr(), out_shape, a.device(), a.dtype());
  const cuda::AlongLayout l = along_layout(s, is, out_shape, axis);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, "take_along_axis");
  ChunkRef ix = ops_detail::storage(index, "take_along_axis");
  const size_t item = item_size(a.dtype());
  launch_typed(
      kName, "take_along_axis", {&a, &index}, {&out},
      [o, x, ix, l, item](const RunContext&) {
        if (l.out.size() == 0) return;
        const auto copy = [&]<class W>(W) {
          W* y = static_cast<W*>(o->raw_for_write());
          const W* src = static_cast<const W*>(x->raw_for_read());
          along_each(ix->typed_for_read<int64_t>(), l, [&](int64_t i, int64_t at) { y[i] = src[at]; });
        };
        if (item == 1) {
          copy(uint8_t{});
        } else if (item == 4) {
          copy(uint32_t{});
        } else {
          copy(uint64_t{});
        }
      },
      [o, x, ix, l, item](const RunContext& rc) {
        cuda::take_along(rc.stream, o->raw_for_write(), x->raw_for_read(), ix->typed_for_read<int64_t>(), l,
                         l.out.size(), item);
      });
  if (is_floating(a.dtype()) && autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [index, base = s, l](const NDArray& dy, std::span<const bool>) {
      return std::vector<NDArray>{take_along_backward(dy, index, base, l)};
    });
  }
  return out;
}

}  // namespace asyncscope
