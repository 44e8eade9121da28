// NDArray: a float32 array whose every operation is pushed to the engine; the
// call returns at once with the output array, and the value is computed later
// on a worker. Sync points make the frontend wait for exactly the work the
// array depends on: wait_to_read(), to_host() (the asnumpy analogue), item()
// (asscalar) and printing; Engine::wait_all() waits for everything.
//
// Storage is allocated by the first op that writes the array (on a worker),
// from the context's allocator; a refused allocation (memory budget) becomes
// that op's error, rethrown at the next sync point. When the last handle to
// an array goes away, freeing its storage is itself pushed as an op, so it
// happens after every op already pushed that uses the array.
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
#include "engine/tensor/shape.h"

namespace asyncscope {

namespace detail {

// The state behind NDArray handles. Ops capture a raw pointer to it: the
// engine frees it only after every op pushed on its var has run.
struct Chunk {
  std::atomic<int> handles{1};       // NDArray handles (frontend side)
  std::shared_ptr<Context> context;  // held while any handle lives; frontend only
  PooledAllocator* allocator = nullptr;
  Var* var = nullptr;
  float* data = nullptr;             // allocated by the first writing op
  Shape shape;
  Device device;
  size_t bytes = 0;

  // For ops: the buffer, allocated on first use (the op holds the write grant).
  float* data_for_write();
  // For in-place ops: the existing buffer (throws if nothing wrote the array yet).
  float* data_for_update();
  // For ops and sync points holding a read grant.
  const float* data_for_read() const;
};

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
  static NDArray empty(const std::shared_ptr<Context>& context, const Shape& shape, Device device);
  // The same on the context's device.
  static NDArray empty(const std::shared_ptr<Context>& context, const Shape& shape);

  bool is_null() const noexcept { return chunk_ == nullptr; }
  const Shape& shape() const;
  int64_t size() const { return shape().size(); }
  size_t bytes() const;
  Device device() const;
  Var* var() const;
  Context& context() const;
  const std::shared_ptr<Context>& context_ptr() const;

  // Sync points: block until every op pushed so far that writes this array has
  // finished; rethrow its error (OpError naming the op, or CancelledError).
  // For an array on a GPU, to_host(), item() and printing first push a copy
  // to host memory onto the array's stream, and wait for that.
  void wait_to_read() const;
  std::vector<float> to_host() const;
  // The single value of a one-element array (std::invalid_argument otherwise).
  float item() const;
  // Waits, then prints shape, device and values (long arrays elided).
  friend std::ostream& operator<<(std::ostream& out, const NDArray& array);

  // In-place updates (they write this array's var): this = this op other.
  NDArray& operator+=(const NDArray& other);
  NDArray& operator-=(const NDArray& other);
  NDArray& operator*=(float scalar);
  // this += alpha * other (the SGD update).
  NDArray& add_scaled(const NDArray& other, float alpha);

  detail::Chunk* chunk() const;  // for op implementations

 private:
  explicit NDArray(detail::Chunk* chunk) noexcept : chunk_(chunk) {}
  void release() noexcept;
  // Waits (recorded as `kind`) until this array's values are readable on the
  // host, and returns the host array that holds them (this one on the CPU).
  NDArray readable_on_host(trace::SyncKind kind) const;
  detail::Chunk* chunk_ = nullptr;
};

// Values as text, e.g. "[[1, 2], [3, 4]]"; at most `edge` items per side of each dimension.
std::string format_values(const Shape& shape, const float* data, int64_t edge = 3);

}  // namespace asyncscope
