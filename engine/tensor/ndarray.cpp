#include "engine/tensor/ndarray.h"

#include <algorithm>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <type_traits>

#include "engine/core/recycler.h"
#include "engine/tensor/autograd_graph.h"
#include "engine/tensor/ops.h"

namespace asyncscope {
namespace detail {

Chunk::~Chunk() = default;

namespace {
// Chains of 64; at most 64 chains (4,096 chunks, about half a megabyte)
// kept process-wide, the rest deleted.
using Chunks = Recycler<Chunk, &Chunk::next_free, 64, 64>;
}  // namespace

Chunk* new_chunk() { return Chunks::take(); }

void drop_holder(Chunk* view) noexcept {
  if (view->holders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (view->data != nullptr) view->allocator->deallocate(view->data, view->bytes);  // a strided view's own buffer
  recycle_chunk(view);
}

void recycle_chunk(Chunk* chunk) noexcept {
  // Made anew in place: a new chunk's state is its default one, whatever
  // fields it gains.
  std::destroy_at(chunk);
  std::construct_at(chunk);
  Chunks::give(chunk);
}

void* Chunk::raw_for_write() {
  // A strided view's own buffer, which strided_read made.
  if (strided) [[unlikely]] return raw_for_update();
  Chunk* s = storage();
  if (s->data == nullptr) {
    try {
      s->data = s->allocator->allocate(s->bytes);
    } catch (const MemoryBudgetError& refusal) {
      throw MemoryBudgetError("the " + shape.to_string() + " array", refusal);  // the op's error names the shape
    }
  }
  return static_cast<std::byte*>(s->data) + offset;
}

void* Chunk::raw_for_update() {
  if (strided) [[unlikely]] {
    if (data == nullptr) throw std::logic_error("strided view " + shape.to_string() + " used before it was read");
    return data;
  }
  Chunk* s = storage();
  if (s->data == nullptr) throw std::logic_error("array " + shape.to_string() + " was updated before any op wrote it");
  return static_cast<std::byte*>(s->data) + offset;
}

const void* Chunk::raw_for_read() const {
  if (strided) [[unlikely]] return const_cast<Chunk*>(this)->raw_for_update();
  const Chunk* s = storage();
  if (s->data == nullptr) throw std::logic_error("array " + shape.to_string() + " was read before any op wrote it");
  return static_cast<const std::byte*>(s->data) + offset;
}

}  // namespace detail

NDArray NDArray::empty(const std::shared_ptr<Context>& context, const Shape& shape, Device device, DType dtype) {
  if (!context) throw std::invalid_argument("NDArray: null context");
  PooledAllocator& allocator = context->allocator_for(device);  // throws if the device cannot be used
  detail::Chunk* chunk = detail::new_chunk();
  chunk->context = context;
  chunk->allocator = &allocator;
  chunk->shape = shape;
  chunk->device = device;
  chunk->dtype = dtype;
  chunk->bytes = static_cast<size_t>(shape.size()) * item_size(dtype);
  // An empty array has no values for an op to write: its (empty) buffer is
  // there from the start, so an op that writes nothing leaves it readable.
  if (chunk->bytes == 0) chunk->data = allocator.allocate(0);
  chunk->var = context->engine().new_var();
  return NDArray(chunk);
}

NDArray NDArray::empty(const std::shared_ptr<Context>& context, const Shape& shape) {
  if (!context) throw std::invalid_argument("NDArray: null context");
  return empty(context, shape, context->device());
}

NDArray make_view(const NDArray& base, const Shape& shape) {
  const detail::Chunk* c = base.chunk("reshape");
  if (shape.size() != c->shape.size()) {
    throw std::invalid_argument("reshape: cannot view " + c->shape.to_string() + " (" +
                                std::to_string(c->shape.size()) + " elements) as " + shape.to_string() + " (" +
                                std::to_string(shape.size()) + " elements)");
  }
  return make_view(base, shape, 0);
}

NDArray make_view(const NDArray& base, const Shape& shape, int64_t offset) {
  if (base.chunk("view")->strided) return make_view(copy(base), shape, offset);
  detail::Chunk* c = base.chunk("view");
  detail::Chunk* b = c->storage();
  const size_t item = item_size(c->dtype);
  if (offset < 0 || shape.size() < 0 || offset + shape.size() > c->shape.size()) {
    throw std::out_of_range("view: elements " + std::to_string(offset) + " to " + std::to_string(offset + shape.size()) +
                            " are outside a " + c->shape.to_string() + " array");
  }
  detail::Chunk* view = detail::new_chunk();
  ++b->storage_refs;  // the view's reference on the storage
  view->base = b;
  view->context = b->context;
  view->allocator = b->allocator;
  view->var = b->var;
  view->shape = shape;
  view->device = b->device;
  view->dtype = b->dtype;
  view->offset = c->offset + static_cast<size_t>(offset) * item;
  view->bytes = static_cast<size_t>(shape.size()) * item;
  view->slice = view->offset != 0 || view->bytes != b->bytes;
  return NDArray(view);
}

NDArray make_strided_view(const NDArray& base, const Shape& shape, int64_t offset, const int64_t* strides) {
  detail::Chunk* c = base.chunk("view");
  if (c->strided) {
    throw std::invalid_argument("view: a strided view is made of an array whose elements lie in row-major order");
  }
  NDArray view = make_view(base, Shape{}, 0);  // the storage reference, context and var
  detail::Chunk* v = view.chunk_;
  const size_t item = item_size(c->dtype);
  v->shape = shape;
  v->offset = c->offset + static_cast<size_t>(offset) * item;
  v->bytes = static_cast<size_t>(shape.size()) * item;
  v->slice = true;
  v->strided = true;
  v->strides.reset(new int64_t[static_cast<size_t>(std::max(shape.ndim(), 1))]);
  for (int d = 0; d < shape.ndim(); ++d) v->strides[d] = strides[d];
  return view;
}

NDArray::NDArray(const NDArray& other) noexcept : chunk_(other.chunk_) {
  if (chunk_) chunk_->handles.fetch_add(1, std::memory_order_relaxed);
}

NDArray& NDArray::operator=(const NDArray& other) noexcept {
  if (other.chunk_) other.chunk_->handles.fetch_add(1, std::memory_order_relaxed);
  release();
  chunk_ = other.chunk_;
  return *this;
}

NDArray& NDArray::operator=(NDArray&& other) noexcept {
  if (this != &other) {
    release();
    chunk_ = std::exchange(other.chunk_, nullptr);
  }
  return *this;
}

namespace {

// Drops one reference on a storage owner's buffer; the last one frees it
// once every op already pushed on it has run. The context is released here,
// on the frontend, so an engine is never destroyed from one of its own workers.
void release_storage(detail::Chunk* chunk) noexcept {
  if (--chunk->storage_refs != 0) return;
  std::shared_ptr<Context> context = std::move(chunk->context);
  context->engine().delete_var(chunk->var, [chunk](const RunContext&) {
    if (chunk->data) chunk->allocator->deallocate(chunk->data, chunk->bytes);
    detail::recycle_chunk(chunk);
  });
}

}  // namespace

void NDArray::release() noexcept {
  detail::Chunk* chunk = std::exchange(chunk_, nullptr);
  if (chunk == nullptr || chunk->handles.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // Last handle. The autograd state goes now, on the frontend: it holds
  // other arrays, whose release pushes ops.
  std::unique_ptr<autograd::ArrayGrad> grad = std::move(chunk->grad);
  if (chunk->base != nullptr) {
    // A whole view: no op uses its chunk (ops hold the storage's), so it
    // goes now. A part view goes when the ops holding it have run too.
    detail::Chunk* base = chunk->base;
    if (!chunk->slice) {
      detail::recycle_chunk(chunk);
    } else {
      chunk->context.reset();  // here, not on a worker (see release_storage)
      detail::drop_holder(chunk);
    }
    release_storage(base);
  } else {
    release_storage(chunk);
  }
  if (grad) {
    std::shared_ptr<autograd::Node> node = std::move(grad->node);
    grad.reset();
    autograd::detail::discard(std::move(node));
  }
}

void NDArray::throw_null(const char* op) {
  if (op == nullptr) throw std::logic_error("operation on a null NDArray");
  throw std::logic_error(std::string(op) + ": the array is null (default-constructed, or moved from)");
}

void NDArray::wait_to_read() const {
  const detail::Chunk* c = chunk("wait_to_read");
  c->context->check_not_stopped();
  c->context->engine().wait_for_var(c->var, trace::SyncKind::wait_to_read);
  c->context->check_not_stopped();
}

NDArray NDArray::readable_on_host(trace::SyncKind kind, const char* op) const {
  const detail::Chunk* c = chunk(op);
  Context& ctx = *c->context;
  ctx.check_not_stopped();
  // A device array is first copied to host memory by an op on its stream;
  // the wait then covers the device work and the copy.
  // A strided view's values are gathered first, by a copy (a row-major array).
  NDArray host = c->device.kind == DeviceKind::cpu ? (c->strided ? copy(*this) : *this) : to(*this, Device::cpu());
  ctx.engine().wait_for_var(host.var(), kind);
  ctx.check_not_stopped();
  return host;
}

namespace {

// n values of type `dtype` at p, as floats.
std::vector<float> as_floats(DType dtype, const void* p, int64_t n) {
  return visit_dtype(dtype, [&]<class T>(T) {
    const T* v = static_cast<const T*>(p);
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<float>(v[i]);
    return out;
  });
}

}  // namespace

std::vector<float> NDArray::to_host(trace::SyncKind kind) const {
  const NDArray host = readable_on_host(kind, "to_host");
  const detail::Chunk* c = host.chunk();
  if (c->dtype != DType::float32) return as_floats(c->dtype, c->raw_for_read(), c->shape.size());
  const float* data = c->data_for_read();
  return std::vector<float>(data, data + c->shape.size());
}

std::vector<std::byte> NDArray::to_host_bytes(trace::SyncKind kind) const {
  const NDArray host = readable_on_host(kind, "to_host");
  const detail::Chunk* c = host.chunk();
  const auto* data = static_cast<const std::byte*>(c->raw_for_read());
  return std::vector<std::byte>(data, data + c->bytes);
}

float NDArray::item() const {
  if (size() != 1) {
    throw std::invalid_argument("item() needs a one-element array, this one is " + shape().to_string());
  }
  const detail::Chunk* c = readable_on_host(trace::SyncKind::item, "item").chunk();
  if (c->dtype != DType::float32) return as_floats(c->dtype, c->raw_for_read(), 1)[0];
  return c->data_for_read()[0];
}

std::ostream& operator<<(std::ostream& out, const NDArray& array) {
  if (array.is_null()) return out << "<NDArray null>";
  const NDArray host = array.readable_on_host(trace::SyncKind::print, "print");
  const detail::Chunk* c = host.chunk();
  out << format_values(c->shape, c->dtype, c->raw_for_read()) << " <NDArray " << c->shape.to_string();
  if (c->dtype != DType::float32) out << " " << name(c->dtype);
  return out << " @" << to_string(array.device()) << ">";
}

void NDArray::attach_grad(autograd::GradReq req) {
  detail::Chunk* c = chunk("attach_grad");
  NDArray grad;
  if (req != autograd::GradReq::null && req != autograd::GradReq::accumulate) {
    autograd::Pause pause;
    grad = zeros(c->context, c->shape);
    if (c->device != c->context->device()) grad = to(grad, c->device);
  }
  if (!c->grad) c->grad = std::make_unique<autograd::ArrayGrad>();
  c->grad->leaf = true;
  c->grad->req = req;
  c->grad->grad = std::move(grad);
  autograd::detail::discard(std::move(c->grad->node));  // a leaf starts a graph: what computed it is forgotten
}

const NDArray& NDArray::grad() const {
  const detail::Chunk* c = chunk("grad");
  if (!c->grad || !c->grad->wants_grad()) {
    throw std::logic_error("grad: this array has no gradient; call attach_grad() on it before recording");
  }
  return c->grad->grad;
}

void NDArray::set_grad(NDArray grad) {
  detail::Chunk* c = chunk("grad");
  if (!c->grad || !c->grad->wants_grad()) {
    throw std::logic_error("grad: only a leaf that requires a gradient has one to set");
  }
  if (!grad.is_null() && !(grad.shape() == c->shape)) {
    throw std::invalid_argument("grad: assigned a gradient of shape " + grad.shape().to_string() + " to an array of " +
                                c->shape.to_string());
  }
  c->grad->grad = std::move(grad);
}

autograd::GradReq NDArray::grad_req() const {
  const detail::Chunk* c = chunk("grad_req");
  return c->grad && c->grad->leaf ? c->grad->req : autograd::GradReq::null;
}

bool NDArray::requires_grad() const noexcept {
  const autograd::ArrayGrad* g = chunk_ != nullptr ? chunk_->grad.get() : nullptr;
  return g != nullptr && (g->node != nullptr || g->wants_grad());
}

void NDArray::backward() const { autograd::backward(*this); }

void NDArray::backward(const NDArray& head_grad, bool retain_graph) const {
  autograd::backward(*this, head_grad, retain_graph);
}

namespace {

template <class T>
void format_dim(std::string& out, const Shape& shape, const T* data, int dim, int64_t offset, int64_t edge) {
  if (dim == shape.ndim()) {
    char buf[32];
    if constexpr (std::is_same_v<T, bool>) {
      std::snprintf(buf, sizeof(buf), "%s", data[offset] ? "true" : "false");
    } else if constexpr (std::is_floating_point_v<T>) {
      std::snprintf(buf, sizeof(buf), "%.6g", static_cast<double>(data[offset]));
    } else {
      std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(data[offset]));
    }
    out += buf;
    return;
  }
  int64_t stride = 1;
  for (int d = dim + 1; d < shape.ndim(); ++d) stride *= shape[d];
  const int64_t n = shape[dim];
  out += '[';
  for (int64_t i = 0; i < n; ++i) {
    if (n > 2 * edge && i == edge) {
      out += "..., ";
      i = n - edge - 1;
      continue;
    }
    format_dim(out, shape, data, dim + 1, offset + i * stride, edge);
    if (i + 1 < n) out += ", ";
  }
  out += ']';
}

}  // namespace

std::string format_values(const Shape& shape, const float* data, int64_t edge) {
  std::string out;
  format_dim(out, shape, data, 0, 0, edge);
  return out;
}

std::string format_values(const Shape& shape, DType dtype, const void* data, int64_t edge) {
  return visit_dtype(dtype, [&]<class T>(T) {
    std::string out;
    format_dim(out, shape, static_cast<const T*>(data), 0, 0, edge);
    return out;
  });
}

}  // namespace asyncscope
