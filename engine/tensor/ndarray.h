// NDArray: an array (float32 unless made with another DType, see
// engine/tensor/dtype.h) whose every operation is pushed to the engine; the
// call returns at once with the output array, and the value is computed later
// on a worker. Sync points make the frontend wait for exactly the work the
// array depends on: wait_to_read(), to_host() (the asnumpy analogue), item()
// (asscalar) and printing; wait_all() waits for everything.
//
// Storage is allocated by the first op that writes the array (on a worker),
// from the context's allocator; a refused allocation (memory budget) becomes
// that op's error, rethrown at the next sync point. When the last handle to
// an array goes away, freeing its storage is itself pushed as an op, so it
// happens after every op already pushed that uses the array. An array made by
// reshape() is a view: it shares the storage (and the engine var) of the
// array it was made from, and keeps that array alive. So is a contiguous
// part of an array (view_of in ops.h, what basic indexing gives): ops on it
// read and write its part of the storage, in place, as writes of the one
// var, so the engine orders them with every op on the whole array.
//
// Autograd belongs to the arrays (engine/tensor/autograd.h): attach_grad()
// makes an array a leaf with a gradient; an op recorded on it remembers, in
// its output, how to push its gradient; backward() walks that graph. The
// graph lives as long as the arrays that can reach it.
//
// Threading: frontend only (a handle is not shared between threads without
// synchronisation); the data is only touched by ops and by sync points.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/var.h"
#include "engine/tensor/context.h"
#include "engine/tensor/dtype.h"
#include "engine/tensor/shape.h"

namespace asyncscope {

namespace autograd {
struct ArrayGrad;
// How backward stores a leaf's gradient (MXNet's grad_req).
//   write: grad() becomes the freshly computed gradient (a new array each
//          backward; read grad() after backward, not before)
//   add:   the gradient is added into grad() in place (zero it to reset)
//   null:  no gradient; ops on it alone are not recorded
//   accumulate: PyTorch's: grad() is null until the first backward, which
//          sets it; each later backward adds to it (set_grad resets it)
enum class GradReq : uint8_t { write, add, null, accumulate };
}  // namespace autograd

namespace detail {

// The state behind NDArray handles. Ops capture a raw pointer to the chunk
// that owns the storage (storage()): the engine frees it only after every op
// pushed on its var has run. A view owns no storage and holds a reference on
// its base's storage (not on the base array: a view that a gradient function
// keeps of an op's output must not keep the output's autograd state alive).
// A view of the whole storage (reshape) is freed on the frontend when its
// last handle goes: ops capture the storage's chunk. A view of a part
// (`slice`) is captured itself, for its offset and shape, so it also counts
// the ops holding it (`holders`) and goes when the last of them and its last
// handle are gone, on whichever thread that is. A `strided` part (x[:, 1])
// has its elements apart in the storage: an op reading or writing it works
// on the view's own buffer (`data`, which only it has), which an op
// writing the one var fills from the storage first ("strided_read"), and
// one more writes back after an op changed it ("strided_write").
// Layout: three parts on cache lines of their own, by who writes them. The
// first is the frontend's (handle counts, ownership); the second is written
// when the array is made and only read after; the third holds the buffer
// pointer, which the first op writing the array sets on a worker. With all
// of it on one line, that one write sent the line to the worker, and the
// frontend's next handle count, and every read of the var or the shape,
// waited for it to come back.
struct alignas(64) Chunk {
  Chunk() = default;
  ~Chunk();
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;

  std::atomic<int> handles{1};       // NDArray handles (frontend side)
  int storage_refs = 1;              // storage owners: 1 for all the handles together, + 1 per view (frontend only)
  std::shared_ptr<Context> context;  // held while any handle lives; frontend only
  // Autograd, frontend only: made the first time autograd touches the array
  // (the recorded op that computed it, its gradient after attach_grad).
  std::unique_ptr<autograd::ArrayGrad> grad;
  Chunk* next_free = nullptr;        // the chunk recycler's link while the chunk is pooled
  // A part view's owners: 1 for all its handles together, + 1 per op
  // capture (ops_detail::ChunkRef); the frontend and workers both count.
  std::atomic<int> holders{1};

  alignas(64) Shape shape;
  size_t bytes = 0;
  Device device;
  PooledAllocator* allocator = nullptr;
  Var* var = nullptr;
  Chunk* base = nullptr;             // a view: the chunk that owns the storage (never itself a view)
  size_t offset = 0;                 // a view: where its values start in the storage, in bytes
  // A strided view: the storage elements between its elements, per dimension.
  std::unique_ptr<int64_t[]> strides;
  DType dtype = DType::float32;
  bool slice = false;                // a view of a part of the storage (see above)
  bool strided = false;              // ... whose elements lie apart (strides)

  alignas(64) void* data = nullptr;  // allocated by the first writing op (storage owners only)

  Chunk* storage() noexcept { return base ? base : this; }
  const Chunk* storage() const noexcept { return base ? base : this; }
  // For ops: the buffer, allocated on first use (the op holds the write grant).
  void* raw_for_write();
  // For in-place ops: the existing buffer (throws if nothing wrote the array yet).
  void* raw_for_update();
  // For ops and sync points holding a read grant.
  const void* raw_for_read() const;
  // The same as float32 values, for the float32 kernels (launch() checks the type).
  float* data_for_write() { return static_cast<float*>(raw_for_write()); }
  float* data_for_update() { return static_cast<float*>(raw_for_update()); }
  const float* data_for_read() const { return static_cast<const float*>(raw_for_read()); }
  // As values of type T (the kernels of other dtypes).
  template <class T>
  T* typed_for_write() {
    return static_cast<T*>(raw_for_write());
  }
  template <class T>
  T* typed_for_update() {
    return static_cast<T*>(raw_for_update());
  }
  template <class T>
  const T* typed_for_read() const {
    return static_cast<const T*>(raw_for_read());
  }
};
// Every array takes a chunk on the frontend and the free of its storage
// gives it back, mostly on a worker: they are recycled (ndarray.cpp), not
// malloc'd, so that neither thread meets the other in malloc's lists and
// the frontend's next chunk is fetched ahead.
Chunk* new_chunk();
void recycle_chunk(Chunk* chunk) noexcept;
// One owner of a part view less (its handles, or an op that captured it);
// the last one recycles it. Any thread.
void drop_holder(Chunk* view) noexcept;

}  // namespace detail

class NDArray {
 public:
  NDArray() = default;  // a null array: every operation on it throws
  NDArray(const NDArray& other) noexcept;
  NDArray(NDArray&& other) noexcept : chunk_(std::exchange(other.chunk_, nullptr)) {}
  NDArray& operator=(const NDArray& other) noexcept;
  NDArray& operator=(NDArray&& other) noexcept;
  ~NDArray() { release(); }

  // A new array of this shape on `device`, not yet written by any op
  // (reading it before an op writes it is an error at the reading op).
  // std::invalid_argument if the context cannot use the device.
  static NDArray empty(const std::shared_ptr<Context>& context, const Shape& shape, Device device,
                       DType dtype = DType::float32);
  // The same on the context's device.
  static NDArray empty(const std::shared_ptr<Context>& context, const Shape& shape);

  bool is_null() const noexcept { return chunk_ == nullptr; }
  // These throw std::logic_error for a null array.
  const Shape& shape() const { return chunk()->shape; }
  int64_t size() const { return shape().size(); }
  size_t bytes() const { return chunk()->bytes; }
  DType dtype() const { return chunk()->dtype; }
  Device device() const { return chunk()->device; }
  Var* var() const { return chunk()->var; }
  Context& context() const { return *chunk()->context; }
  const std::shared_ptr<Context>& context_ptr() const { return chunk()->context; }
  // Whether this array is a view of another's storage (made by reshape or view_of).
  bool is_view() const { return chunk()->base != nullptr; }
  // Whether two arrays share storage (one is a view of the other, or both of a third).
  bool shares_storage(const NDArray& other) const { return chunk()->storage() == other.chunk()->storage(); }

  // Sync points: block until every op pushed so far that writes this array has
  // finished; rethrow its error (OpError naming the op, or CancelledError).
  // For an array on a GPU, to_host(), item() and printing first push a copy
  // to host memory onto the array's stream, and wait for that.
  void wait_to_read() const;
  // The values, as a host copy converted to float (exact for float32; the
  // app's views and the float32 frontends read them so). `kind` labels the
  // wait in the trace (a frontend that prints through its own formatter says
  // print).
  std::vector<float> to_host(trace::SyncKind kind = trace::SyncKind::to_host) const;
  // The values as stored, item_size(dtype()) bytes each, in row-major order.
  std::vector<std::byte> to_host_bytes(trace::SyncKind kind = trace::SyncKind::to_host) const;
  // The single value of a one-element array (std::invalid_argument otherwise).
  float item() const;
  // Waits, then prints shape, device and values (long arrays elided).
  friend std::ostream& operator<<(std::ostream& out, const NDArray& array);

  // In-place updates (one op that writes this array's var, on its own
  // buffer): this = this op other, broadcasting `other` to this array's
  // shape (std::invalid_argument if the result would have another shape, as
  // in NumPy). Refused while recording when either side needs a gradient
  // (the graph would see the changed values).
  NDArray& operator+=(const NDArray& other);
  NDArray& operator-=(const NDArray& other);
  NDArray& operator*=(const NDArray& other);
  NDArray& operator/=(const NDArray& other);
  NDArray& operator+=(float scalar);
  NDArray& operator-=(float scalar);
  NDArray& operator*=(float scalar);
  NDArray& operator/=(float scalar);
  // this = value everywhere (zero_() and fill_() in PyTorch).
  NDArray& fill(float value);
  // this += alpha * other (the SGD update).
  NDArray& add_scaled(const NDArray& other, float alpha);

  // Autograd (see engine/tensor/autograd.h). attach_grad makes this array a
  // leaf: its gradient, zeros until a backward writes it, is grad(); any
  // graph that computed it is forgotten. grad() throws std::logic_error if
  // attach_grad was not called.
  void attach_grad(autograd::GradReq req = autograd::GradReq::write);
  // The gradient (null under GradReq::accumulate before a backward).
  const NDArray& grad() const;
  // Replaces a leaf's gradient (null: none, as `x.grad = None` in PyTorch);
  // std::logic_error if this array is not a leaf with a gradient,
  // std::invalid_argument for another shape.
  void set_grad(NDArray grad);
  autograd::GradReq grad_req() const;
  // Whether an op recorded on this array would be part of a graph: a leaf
  // with a gradient, or the output of a recorded op.
  bool requires_grad() const noexcept;
  // Whether autograd ever touched this array (attach_grad, or recorded as an
  // op's output): false means requires_grad() is false, and costs one load.
  bool has_autograd_state() const noexcept { return chunk_ != nullptr && chunk_->grad != nullptr; }
  // autograd::backward(*this, head_grad, retain_graph); head_grad null: ones.
  void backward() const;
  void backward(const NDArray& head_grad, bool retain_graph = false) const;

  // For op implementations; std::logic_error for a null array (naming the op when given).
  detail::Chunk* chunk() const {
    if (chunk_ == nullptr) [[unlikely]] throw_null(nullptr);
    return chunk_;
  }
  detail::Chunk* chunk(const char* op) const {
    if (chunk_ == nullptr) [[unlikely]] throw_null(op);
    return chunk_;
  }

 private:
  friend NDArray make_view(const NDArray& base, const Shape& shape, int64_t offset);
  friend NDArray make_strided_view(const NDArray& base, const Shape& shape, int64_t offset, const int64_t* strides);
// A view of the elements of `base` (a storage owner or a view of a
// contiguous part, on any device) at offset + i0 * strides[0] + ... of base's
// row-major order, for i in `shape` (view_of in ops.h decides when).
NDArray make_strided_view(const NDArray& base, const Shape& shape, int64_t offset, const int64_t* strides);
  explicit NDArray(detail::Chunk* chunk) noexcept : chunk_(chunk) {}
  void release() noexcept;
  [[noreturn]] static void throw_null(const char* op);
  // Waits (recorded as `kind`) until this array's values are readable on the
  // host, and returns the host array that holds them (this one on the CPU).
  NDArray readable_on_host(trace::SyncKind kind, const char* op) const;
  detail::Chunk* chunk_ = nullptr;
};

// A view of `base` with another shape of the same size (no op is pushed;
// a strided view is copied first: its elements do not lie in row-major order).
NDArray make_view(const NDArray& base, const Shape& shape);
// A view of `shape`'s size elements of `base`, from element `offset` of
// base's row-major order (std::out_of_range past base's end).
NDArray make_view(const NDArray& base, const Shape& shape, int64_t offset);
// A view of the elements of `base` (a storage owner or a view of a
// contiguous part, on any device) at offset + i0 * strides[0] + ... of base's
// row-major order, for i in `shape` (view_of in ops.h decides when).
NDArray make_strided_view(const NDArray& base, const Shape& shape, int64_t offset, const int64_t* strides);

// Values as text, e.g. "[[1, 2], [3, 4]]"; at most `edge` items per side of each dimension.
std::string format_values(const Shape& shape, const float* data, int64_t edge = 3);
// The same for values of any dtype (integers as integers, bools as true/false).
std::string format_values(const Shape& shape, DType dtype, const void* data, int64_t edge = 3);

}  // namespace asyncscope
