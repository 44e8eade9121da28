#include "engine/tensor/ndarray.h"

#include <ostream>
#include <stdexcept>

#include "engine/tensor/ops.h"

namespace asyncscope {
namespace detail {

float* Chunk::data_for_write() {
  if (data == nullptr) data = static_cast<float*>(allocator->allocate(bytes));
  return data;
}

float* Chunk::data_for_update() {
  if (data == nullptr) throw std::logic_error("array " + shape.to_string() + " was updated before any op wrote it");
  return data;
}

const float* Chunk::data_for_read() const {
  if (data == nullptr) throw std::logic_error("array " + shape.to_string() + " was read before any op wrote it");
  return data;
}

}  // namespace detail

NDArray NDArray::empty(const std::shared_ptr<Context>& context, const Shape& shape, Device device) {
  if (!context) throw std::invalid_argument("NDArray: null context");
  PooledAllocator& allocator = context->allocator_for(device);  // throws if the device cannot be used
  auto* chunk = new detail::Chunk;
  chunk->context = context;
  chunk->allocator = &allocator;
  chunk->shape = shape;
  chunk->device = device;
  chunk->bytes = static_cast<size_t>(shape.size()) * sizeof(float);
  chunk->var = context->engine().new_var();
  return NDArray(chunk);
}

NDArray NDArray::empty(const std::shared_ptr<Context>& context, const Shape& shape) {
  if (!context) throw std::invalid_argument("NDArray: null context");
  return empty(context, shape, context->device());
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

void NDArray::release() noexcept {
  detail::Chunk* chunk = std::exchange(chunk_, nullptr);
  if (chunk == nullptr || chunk->handles.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // Last handle: free the storage once every op already pushed on it has run.
  // The context is released here, on the frontend, so an engine is never
  // destroyed from one of its own workers.
  std::shared_ptr<Context> context = std::move(chunk->context);
  context->engine().delete_var(chunk->var, [chunk](const RunContext&) {
    if (chunk->data) chunk->allocator->deallocate(chunk->data, chunk->bytes);
    delete chunk;
  });
}

detail::Chunk* NDArray::chunk() const {
  if (chunk_ == nullptr) throw std::logic_error("operation on a null NDArray");
  return chunk_;
}

const Shape& NDArray::shape() const { return chunk()->shape; }
size_t NDArray::bytes() const { return chunk()->bytes; }
Device NDArray::device() const { return chunk()->device; }
Var* NDArray::var() const { return chunk()->var; }
Context& NDArray::context() const { return *chunk()->context; }
const std::shared_ptr<Context>& NDArray::context_ptr() const { return chunk()->context; }

void NDArray::wait_to_read() const { context().engine().wait_for_var(var(), trace::SyncKind::wait_to_read); }

NDArray NDArray::readable_on_host(trace::SyncKind kind) const {
  // A device array is first copied to host memory by an op on its stream;
  // the wait then covers the device work and the copy.
  NDArray host = device().kind == DeviceKind::cpu ? *this : to(*this, Device::cpu());
  context().engine().wait_for_var(host.var(), kind);
  return host;
}

std::vector<float> NDArray::to_host() const {
  const NDArray host = readable_on_host(trace::SyncKind::to_host);
  const detail::Chunk* c = host.chunk();
  const float* data = c->data_for_read();
  return std::vector<float>(data, data + c->shape.size());
}

float NDArray::item() const {
  if (size() != 1) {
    throw std::invalid_argument("item() needs a one-element array, this one is " + shape().to_string());
  }
  return readable_on_host(trace::SyncKind::item).chunk()->data_for_read()[0];
}

std::ostream& operator<<(std::ostream& out, const NDArray& array) {
  if (array.is_null()) return out << "<NDArray null>";
  const NDArray host = array.readable_on_host(trace::SyncKind::print);
  const detail::Chunk* c = host.chunk();
  return out << format_values(c->shape, c->data_for_read()) << " <NDArray " << c->shape.to_string() << " @"
             << to_string(array.device()) << ">";
}

namespace {

void format_dim(std::string& out, const Shape& shape, const float* data, int dim, int64_t offset, int64_t edge) {
  if (dim == shape.ndim()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.6g", static_cast<double>(data[offset]));
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

}  // namespace asyncscope
