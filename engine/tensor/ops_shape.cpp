// Joining and cutting along an axis: concat (arrays side by side), stack
// (along a new axis: views, then concat) and slice_axis (a range of one
// axis, a copy); each with its gradient. On the CPU (a GPU array is refused
// at the call, naming the op).
#include <cstring>
#include <numeric>
#include <string>

#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using Grads = std::vector<NDArray>;
using Need = std::span<const bool>;

namespace {

// An axis as NumPy takes it (negative from the end), checked against ndim.
int normalized_axis(int axis, int ndim, const char* op) {
  if (axis < -ndim || axis >= ndim) {
    throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for " +
                                std::to_string(ndim) + " dimensions");
  }
  return axis < 0 ? axis + ndim : axis;
}

// The product of dims [from, to).
int64_t span_size(const Shape& s, int from, int to) {
  int64_t n = 1;
  for (int i = from; i < to; ++i) n *= s[i];
  return n;
}

// `rows` rows of `width` elements of `item` bytes from src (row stride
// src_stride elements) to dst (row stride dst_stride).
void copy_block(void* dst_, int64_t dst_stride, const void* src_, int64_t src_stride, int64_t rows, int64_t width,
                size_t item) {
  if (width == 0) return;
  auto* dst = static_cast<std::byte*>(dst_);
  const auto* src = static_cast<const std::byte*>(src_);
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(dst + static_cast<size_t>(r * dst_stride) * item, src + static_cast<size_t>(r * src_stride) * item,
                static_cast<size_t>(width) * item);
  }
}

// out = zeros of `shape` with dy in [begin, begin + dy's length) of `axis`:
// slice_axis's gradient.
NDArray slice_backward(const NDArray& dy, const Shape& shape, int axis, int64_t begin) {
  static const trace::NameId kName = trace::intern("slice_backward");
  NDArray out = NDArray::empty(dy.context_ptr(), shape, dy.device(), dy.dtype());
  Chunk* o = out.chunk();
  ChunkRef g = ops_detail::storage(dy, "slice_backward");
  const size_t item = item_size(dy.dtype());
  const int64_t rows = span_size(shape, 0, axis), inner = span_size(shape, axis + 1, shape.ndim());
  const int64_t full = shape[axis] * inner, part = dy.shape()[axis] * inner;
  const NDArray in[] = {dy};
  ops_detail::launch_many(
      kName, "slice_backward", in, out,
      [o, g, rows, inner, full, part, begin, item](const RunContext&) {
        auto* y = static_cast<std::byte*>(o->raw_for_write());
        std::fill(y, y + static_cast<size_t>(rows * full) * item, std::byte{0});  // 0.0 in every floating type
        copy_block(y + static_cast<size_t>(begin * inner) * item, full, g->raw_for_read(), part, rows, part, item);
      },
      [o, g, rows, inner, full, part, begin, item](const RunContext& rc) {
        auto* y = static_cast<std::byte*>(o->raw_for_write());
        cuda::zero(rc.stream, y, static_cast<size_t>(rows * full) * item);
        cuda::copy_rows(rc.stream, y + static_cast<size_t>(begin * inner) * item, static_cast<size_t>(full) * item,
                        g->raw_for_read(), static_cast<size_t>(part) * item, static_cast<size_t>(part) * item, rows);
      });
  return out;
}

}  // namespace

NDArray concat(std::span<const NDArray> arrays, int axis) {
  static const trace::NameId kName = trace::intern("concat");
  if (arrays.empty()) throw std::invalid_argument("concat: needs at least one array");
  const Shape& first = arrays[0].shape();
  const int ndim = first.ndim();
  if (ndim == 0) throw std::invalid_argument("concat: 0-d arrays cannot be joined (stack them)");
  axis = normalized_axis(axis, ndim, "concat");
  std::vector<int64_t> dims(first.begin(), first.end());
  dims[axis] = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const NDArray& a = arrays[i];
    if (i > 0) ops_detail::check_pair(arrays[0], a, "concat");
    if (a.dtype() != arrays[0].dtype()) {
      throw std::invalid_argument("concat: array " + std::to_string(i) + " is " + name(a.dtype()) + ", array 0 " +
                                  name(arrays[0].dtype()) + " (cast them to one type)");
    }
    bool fits = a.shape().ndim() == ndim;
    for (int d = 0; fits && d < ndim; ++d) fits = d == axis || a.shape()[d] == first[d];
    if (!fits) {
      throw std::invalid_argument("concat: array " + std::to_string(i) + " is " + a.shape().to_string() +
                                  " where " + first.to_string() + " (but for axis " + std::to_string(axis) +
                                  ") is needed");
    }
    dims[axis] += a.shape()[axis];
  }
  NDArray out = NDArray::empty(arrays[0].context_ptr(), Shape(dims), arrays[0].device(), arrays[0].dtype());
  Chunk* o = out.chunk();
  const size_t item = item_size(arrays[0].dtype());
  std::vector<std::pair<ChunkRef, int64_t>> parts;  // storage, width of its rows
  const int64_t rows = span_size(first, 0, axis), inner = span_size(first, axis + 1, ndim);
  for (const NDArray& a : arrays) parts.emplace_back(ops_detail::storage(a, "concat"), a.shape()[axis] * inner);
  const int64_t width = dims[axis] * inner;
  ops_detail::launch_many(
      kName, "concat", arrays, out,
      [o, parts, rows, width, item](const RunContext&) {
        auto* y = static_cast<std::byte*>(o->raw_for_write());
        int64_t offset = 0;
        for (const auto& [c, w] : parts) {
          copy_block(y + static_cast<size_t>(offset) * item, width, c->raw_for_read(), w, rows, w, item);
          offset += w;
        }
      },
      [o, parts, rows, width, item](const RunContext& rc) {
        auto* y = static_cast<std::byte*>(o->raw_for_write());
        int64_t offset = 0;
        for (const auto& [c, w] : parts) {
          cuda::copy_rows(rc.stream, y + static_cast<size_t>(offset) * item, static_cast<size_t>(width) * item,
                          c->raw_for_read(), static_cast<size_t>(w) * item, static_cast<size_t>(w) * item, rows);
          offset += w;
        }
      });
  if (is_floating(arrays[0].dtype()) && autograd::should_record(arrays)) {
    std::vector<int64_t> lengths;
    for (const NDArray& a : arrays) lengths.push_back(a.shape()[axis]);
    autograd::record(kName, arrays, out, [axis, lengths](const NDArray& dy, Need need) {
      Grads g(lengths.size());
      int64_t begin = 0;
      for (size_t i = 0; i < lengths.size(); ++i) {
        if (need[i]) g[i] = slice_axis(dy, axis, begin, begin + lengths[i]);
        begin += lengths[i];
      }
      return g;
    });
  }
  return out;
}

NDArray stack(std::span<const NDArray> arrays, int axis) {
  if (arrays.empty()) throw std::invalid_argument("stack: needs at least one array");
  const Shape& first = arrays[0].shape();
  axis = normalized_axis(axis, first.ndim() + 1, "stack");
  std::vector<NDArray> expanded;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!(arrays[i].shape() == first)) {
      throw std::invalid_argument("stack: array " + std::to_string(i) + " is " + arrays[i].shape().to_string() +
                                  ", array 0 " + first.to_string() + ": stacked arrays need one shape");
    }
    std::vector<int64_t> dims(first.begin(), first.end());
    dims.insert(dims.begin() + axis, 1);
    expanded.push_back(reshape(arrays[i], Shape(dims)));
  }
  return concat(expanded, axis);
}

NDArray slice_axis(const NDArray& a, int axis, int64_t begin, int64_t end) {
  static const trace::NameId kName = trace::intern("slice_axis");
  const Shape& s = a.shape();
  axis = normalized_axis(axis, s.ndim(), "slice_axis");
  if (begin < 0 || end < begin || end > s[axis]) {
    throw std::invalid_argument("slice_axis: range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") is not within axis " + std::to_string(axis) + " of " + s.to_string());
  }
  std::vector<int64_t> dims(s.begin(), s.end());
  dims[axis] = end - begin;
  NDArray out = NDArray::empty(a.context_ptr(), Shape(dims), a.device(), a.dtype());
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(a, "slice_axis");
  const size_t item = item_size(a.dtype());
  const int64_t rows = span_size(s, 0, axis), inner = span_size(s, axis + 1, s.ndim());
  const int64_t full = s[axis] * inner, part = (end - begin) * inner, from = begin * inner;
  const NDArray in[] = {a};
  ops_detail::launch_many(
      kName, "slice_axis", in, out,
      [o, x, rows, full, part, from, item](const RunContext&) {
        copy_block(o->raw_for_write(), part,
                   static_cast<const std::byte*>(x->raw_for_read()) + static_cast<size_t>(from) * item, full, rows,
                   part, item);
      },
      [o, x, rows, full, part, from, item](const RunContext& rc) {
        cuda::copy_rows(rc.stream, o->raw_for_write(), static_cast<size_t>(part) * item,
                        static_cast<const std::byte*>(x->raw_for_read()) + static_cast<size_t>(from) * item,
                        static_cast<size_t>(full) * item, static_cast<size_t>(part) * item, rows);
      });
  if (is_floating(a.dtype()) && autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [shape = s, axis, begin](const NDArray& dy, Need) {
      return Grads{slice_backward(dy, shape, axis, begin)};
    });
  }
  return out;
}

}  // namespace asyncscope
