// The selections of every dtype (engine/tensor/dtype.h): strided ones
// (basic indexing's take and assignment, the views that gather and scatter
// their elements) and integer-array ones (gather and its gradient's
// scatter-add), on the CPU and the GPU.
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

}  // namespace

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

