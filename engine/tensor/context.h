// Context: what the arrays of one run share: the engine their ops are pushed
// to, the device creation ops put arrays on, the allocators their storage
// comes from (host, and device memory when the engine has a GPU), the random
// seed, and the demo iteration ops are tagged with. It also sets the BLAS
// thread policy.
//
// The current context: a ContextScope installs a context for the calling
// thread, so that creation ops need no context argument (ones({2, 3}), as
// nd.ones((2, 3)) in the chapter). Scopes nest; the innermost wins.
//
// Lifetimes are shared: every array holds its context, and the context holds
// its engine and allocators, so an array kept after its run (a Python global)
// never touches freed memory. A run that has ended closes its context: the
// values of its arrays stay readable, and pushing a new op through it throws.
//
// Stop: stop() (from any thread, e.g. the GUI's Stop button) drops the
// pending work and makes the next op pushed or wait made through this context
// throw StoppedError, so even a program that never polls ends promptly.
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
// Threading: frontend only, except engine(), allocator(), allocator_for(),
// stop() and the state queries, which any thread may use.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/base/allocator.h"
#include "engine/core/engine.h"

namespace asyncscope {

class TorchGenerator;

class Context {
 public:
  struct Options {
    EngineOptions engine;
    uint64_t seed = 0;
    int blas_threads = 0;  // 0: max(1, cores / cpu workers)
    // Host memory for arrays; null: the process-wide host_allocator().
    std::shared_ptr<PooledAllocator> allocator;
    Device device = Device::cpu();  // where zeros/uniform/from_host/... put arrays
    // Device memory for arrays on the engine's GPU; null: cuda::device_allocator().
    std::shared_ptr<PooledAllocator> device_allocator;
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
  // The simulated GPUs' allocators, cuda:i's at [i] (empty without them).
  std::vector<PooledAllocator*> simulated_allocators() const;
  int blas_threads() const noexcept { return blas_threads_; }

  // A fresh key for the next random op: a function of the seed and how many
  // random ops were pushed before, so results never depend on the workers.
  uint64_t next_random_key() noexcept;
  uint64_t seed() const noexcept { return seed_; }
  // Starts the random stream again from `seed` (torch.manual_seed,
  // np.random.seed): the random ops pushed after it give what a run made
  // with that seed gives for its first ones. Frontend thread.
  // The torch edition's CPU stream starts again from it too.
  void reseed(uint64_t seed) noexcept;
  // PyTorch's default CPU generator (engine/tensor/torch_random.h), seeded
  // with the context's seed. Frontend thread.
  TorchGenerator& torch_generator() noexcept { return *torch_generator_; }

  // Floating-point operations of the matrix products pushed through this
  // context so far (2mnk each, counted by dot at push): the demos divide the
  // difference over a phase by the products' busy time for their GFLOP/s.
  // Any thread.
  void count_matmul_flops(uint64_t flops) noexcept { matmul_flops_.fetch_add(flops, std::memory_order_relaxed); }
  uint64_t matmul_flops() const noexcept { return matmul_flops_.load(std::memory_order_relaxed); }

  // The demo iteration recorded on every op pushed from now on.
  void set_iteration(uint32_t iteration) noexcept { iteration_ = iteration; }
  uint32_t iteration() const noexcept { return iteration_; }

  // Any thread: drops the pending work (Engine::cancel) and makes every later
  // push or wait through this context throw StoppedError. Idempotent.
  void stop();
  // Frontend: waits for everything pushed (errors are dropped: they were the
  // run's to report), then refuses new ops with std::logic_error. Arrays
  // stay readable. Idempotent.
  void close() noexcept;
  bool stopped() const noexcept { return state_.load(std::memory_order_relaxed) == State::stopped; }
  bool closed() const noexcept { return state_.load(std::memory_order_relaxed) == State::closed; }

  // Called before every push: throws StoppedError after stop(), and
  // std::logic_error naming `op` after close(). One relaxed load when open.
  void check_open(const char* op) const {
    if (state_.load(std::memory_order_relaxed) != State::open) [[unlikely]] throw_not_open(op);
  }
  // Called before and after every wait: throws StoppedError after stop().
  // (After close() there is nothing left to wait for: waits return at once.)
  void check_not_stopped() const {
    if (stopped()) [[unlikely]] throw_not_open("wait");
  }
  // Waits for every op pushed through this context (a sync point: rethrows
  // the first error since the last wait_all).
  void wait_all();

 private:
  enum class State : uint8_t { open, stopped, closed };
  explicit Context(const Options& options);
  [[noreturn]] void throw_not_open(const char* op) const;

  // Declared before engine_: destroyed after it, once its ops (which free
  // into them) have drained.
  std::shared_ptr<PooledAllocator> allocator_;
  std::shared_ptr<PooledAllocator> device_allocator_;  // when the engine has a GPU pool
  // Simulated GPUs (engine/core/device.h): each device's memory, host blocks
  // counted apart, cuda:i's at [i].
  std::vector<std::shared_ptr<PooledAllocator>> simulated_allocators_;
  Device device_;
  std::shared_ptr<Engine> engine_;
  uint64_t seed_;
  uint64_t random_ops_ = 0;
  std::unique_ptr<TorchGenerator> torch_generator_;
  uint32_t iteration_ = 0;
  int blas_threads_ = 1;
  std::atomic<State> state_{State::open};
  std::atomic<uint64_t> matmul_flops_{0};
};

using ContextPtr = std::shared_ptr<Context>;

// A run's memory budget for what is not an array (the trace's buffers, the
// records of ops waiting to run), over the allocator its arrays come from,
// so one budget bounds both; a refusal is the allocator's MemoryBudgetError.
// Threading: any thread.
class AllocatorAccount final : public trace::MemoryAccount {
 public:
  explicit AllocatorAccount(std::shared_ptr<PooledAllocator> allocator) : allocator_(std::move(allocator)) {}
  bool charge(int64_t bytes, const char* what, bool force = false) override {
    try {
      return allocator_->charge(bytes, what, force);
    } catch (const MemoryBudgetError&) {
      refused_.store(true, std::memory_order_relaxed);
      throw;
    }
  }
  void uncharge(int64_t bytes) noexcept override { allocator_->uncharge(bytes); }
  int64_t charged_bytes() const noexcept override { return allocator_->charged_bytes(); }
  // Whether a charge was ever refused (the run was stopped by its budget).
  bool refused() const noexcept { return refused_.load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<PooledAllocator> allocator_;
  std::atomic<bool> refused_{false};
};

// Installs a context as the calling thread's current one for the scope's
// lifetime (the previous one comes back after). Create and destroy it on the
// same thread, innermost first.
class ContextScope {
 public:
  explicit ContextScope(ContextPtr context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  ContextPtr previous_;
};

// The calling thread's current context; std::logic_error saying how to
// install one if there is none.
const ContextPtr& current_context();
// The same, or null.
const ContextPtr& current_context_or_null() noexcept;

}  // namespace asyncscope
