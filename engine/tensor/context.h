// Context: what the arrays of one run share: the engine their ops are pushed
// to, the device creation ops put arrays on, the allocators their storage
// comes from (host, and device memory when the engine has a GPU), the random
// seed, and the demo iteration ops are tagged with. It also sets the BLAS
// thread policy.
//
// A context on a GPU device (Options::device = Device::cuda()) gives its
// engine one stream worker for that device unless the engine options ask for
// more; creating it throws std::invalid_argument, saying why, when CUDA is
// not available.
//
// BLAS threads and engine workers share the cores: OpenBLAS's thread count is
// process-wide, so a Context sets it to blas_threads, by default
// max(1, cores / cpu_workers). With one worker per core (the default) each
// GEMM runs single-threaded and two GEMMs run side by side; with one worker,
// a GEMM uses every core. Either way no more threads compute than there are
// cores.
//
// Threading: frontend only, except engine() and allocator(), which any thread
// may use. Arrays keep their Context alive.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/core/engine.h"
#include "engine/base/allocator.h"

namespace asyncscope {

class Context {
 public:
  struct Options {
    EngineOptions engine;
    uint64_t seed = 0;
    int blas_threads = 0;                  // 0: max(1, cores / cpu workers)
    PooledAllocator* allocator = nullptr;  // null: the process-wide host_allocator(); must outlive the context
    Device device = Device::cpu();         // where zeros/uniform/from_host/... put arrays
    // Device memory for arrays on the engine's GPU; null: cuda::device_allocator(). Must outlive the context.
    PooledAllocator* device_allocator = nullptr;
  };

  static std::shared_ptr<Context> create();
  static std::shared_ptr<Context> create(const Options& options);
  ~Context();  // waits for every op pushed through it
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Engine& engine() const noexcept { return *engine_; }
  PooledAllocator& allocator() const noexcept { return *allocator_; }
  // The device creation ops use.
  Device device() const noexcept { return device_; }
  // The allocator for arrays on `device`: host memory for the CPU; for a GPU
  // the device allocator, if the engine has stream workers for it, else
  // std::invalid_argument saying why the device cannot be used.
  PooledAllocator& allocator_for(Device device) const;
  int blas_threads() const noexcept { return blas_threads_; }

  // A fresh key for the next random op: a function of the seed and how many
  // random ops were pushed before, so results never depend on the workers.
  uint64_t next_random_key() noexcept;
  uint64_t seed() const noexcept { return seed_; }

  // The demo iteration recorded on every op pushed from now on.
  void set_iteration(uint32_t iteration) noexcept { iteration_ = iteration; }
  uint32_t iteration() const noexcept { return iteration_; }

 private:
  explicit Context(const Options& options);

  PooledAllocator* allocator_;
  PooledAllocator* device_allocator_ = nullptr;  // when the engine has a GPU pool
  Device device_;
  std::shared_ptr<Engine> engine_;  // destroyed first: drains ops that still use the allocator
  uint64_t seed_;
  uint64_t random_ops_ = 0;
  uint32_t iteration_ = 0;
  int blas_threads_ = 1;
};

using ContextPtr = std::shared_ptr<Context>;

}  // namespace asyncscope
