// Tensor storage allocation: a size-class pool with exact byte accounting and
// a memory budget, generic over where raw blocks come from (host memory, or a
// CUDA device and pinned host memory through engine/cuda).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace asyncscope {

// A snapshot of one allocator's counters, taken under its lock.
//   live_bytes:      sum of the bytes *requested* by blocks handed out and not
//                    yet deallocated (not their rounded capacity), so tests and
//                    the memory view see exactly what ops asked for.
//   pooled_bytes:    sum of the rounded capacities of blocks cached for reuse.
//   peak_live_bytes: the largest live_bytes since construction or reset_peak().
//   charged_bytes:   memory the run grows with besides arrays (trace buffers,
//                    pending op records), charged through charge(); it counts
//                    against the budget like live bytes.
//   allocations == pool_hits + pool_misses; zero-byte requests count nowhere.
struct MemoryStats {
  int64_t live_bytes = 0;
  int64_t charged_bytes = 0;
  int64_t pooled_bytes = 0;
  int64_t peak_live_bytes = 0;
  int64_t budget_bytes = 0;
  int64_t max_pooled_bytes = 0;
  uint64_t allocations = 0;
  uint64_t pool_hits = 0;
  uint64_t pool_misses = 0;
};

// Thrown when an allocation would take live memory past the budget. The
// message gives the sizes and says how to free memory or raise the budget.
class MemoryBudgetError : public std::runtime_error {
 public:
  MemoryBudgetError(const char* source_name, int64_t requested_bytes,
                    int64_t budget_bytes, int64_t live_bytes);
  // The same refusal, its message led by what was being allocated ("the 4000x4000 array").
  MemoryBudgetError(const std::string& what, const MemoryBudgetError& refusal);
  int64_t requested_bytes() const noexcept { return requested_bytes_; }
  int64_t budget_bytes() const noexcept { return budget_bytes_; }
  int64_t live_bytes() const noexcept { return live_bytes_; }

 private:
  int64_t requested_bytes_;
  int64_t budget_bytes_;
  int64_t live_bytes_;
};

// Where raw blocks come from (host memory here; cudaMalloc and cudaHostAlloc
// in engine/cuda/runtime.cpp). allocate() receives a non-zero multiple of
// PooledAllocator::kAlignment, returns a block aligned to it or throws
// (std::bad_alloc); release() gets the same size back.
// Threading: any thread; release() may run concurrently with allocate().
class BlockSource {
 public:
  virtual ~BlockSource();
  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* p, size_t bytes) noexcept = 0;
  virtual const char* name() const = 0;
};

// Host memory, 64-byte aligned: blocks under 4 MiB from std::aligned_alloc;
// larger ones mapped on their own at a 2 MiB boundary with transparent huge
// pages requested (madvise; plain pages where the kernel gives none).
// release() must get the size allocate() was given. Failure throws
// std::bad_alloc. Threading: any thread.
class HostBlockSource final : public BlockSource {
 public:
  void* allocate(size_t bytes) override;
  void release(void* p, size_t bytes) noexcept override;
  const char* name() const override { return "host"; }
};

// Hands out blocks from a BlockSource, caches freed blocks per size class so a
// loop of same-size ops reuses memory, and refuses allocations past a budget.
// Budget rule: a request of rounded size R fails with MemoryBudgetError, and
// changes no counter, if live + charged + R > budget; otherwise, on a pool
// miss, cached blocks are evicted (largest class first) until
// live + charged + pooled + R <= budget. `charged` is what charge() counted:
// memory that is not an array but grows with a run (trace buffers, op
// records), so one budget bounds all of it.
// A freed block is released to the source instead of cached when caching it
// would take pooled_bytes past max_pooled_bytes.
// Threading: any thread. One mutex guards the free lists and every counter
// update (one allocation per tensor op, not per element, so it is not hot);
// the counters are also atomics so live_bytes()/pooled_bytes() never block.
class PooledAllocator {
 public:
  static constexpr size_t kAlignment = 64;      // cache line; also AVX-512 loads
  static constexpr size_t kPageBytes = 4096;
  static constexpr size_t kSmallLimit = 4096;   // up to here classes step by kAlignment
  static constexpr size_t kMaxRequestBytes = size_t{1} << 62;  // beyond it: MemoryBudgetError
  static constexpr int64_t kDefault = -1;

  struct Options {
    int64_t budget_bytes = kDefault;      // kDefault: default_budget_bytes()
    int64_t max_pooled_bytes = kDefault;  // kDefault: min(budget / 4, 2 GiB); 0 disables caching
  };

  // Throws std::invalid_argument for a null source or a budget <= 0. (Two
  // overloads, not `Options opts = {}`: a nested struct's default member
  // initializers cannot be used before the enclosing class is complete.)
  explicit PooledAllocator(std::unique_ptr<BlockSource> source);
  PooledAllocator(std::unique_ptr<BlockSource> source, Options opts);
  // Releases cached blocks. Blocks still live are leaked (their sizes are
  // unknown here); freeing them later through this allocator is undefined.
  ~PooledAllocator();
  PooledAllocator(const PooledAllocator&) = delete;
  PooledAllocator& operator=(const PooledAllocator&) = delete;

  // A kAlignment-aligned block of at least `bytes`. Zero bytes returns
  // zero_size_block(), a shared non-null sentinel that must not be
  // dereferenced and counts nowhere. Throws MemoryBudgetError with no counter
  // changed. If the source fails, the cache is trimmed and the source asked
  // once more; its second failure (std::bad_alloc) propagates.
  void* allocate(size_t bytes);
  // `bytes` must be what allocate() was asked for. Null or zero bytes: no-op.
  void deallocate(void* p, size_t bytes) noexcept;

  // Counts `bytes` of non-array memory (named by `what`, e.g. "the trace
  // buffers") against the budget before the caller allocates it. Throws
  // MemoryBudgetError, charging nothing, if live + charged + bytes > budget;
  // cached blocks are evicted first so the footprint stays within it.
  // force: count it even past the budget (memory already allocated, or that
  // must not fail, such as freeing an array); returns whether it fit.
  bool charge(int64_t bytes, const char* what, bool force = false);
  // Gives back what charge() counted.
  void uncharge(int64_t bytes) noexcept;

  MemoryStats stats() const;
  // Lock-free, cheap: the trace sampler polls these at >= 1 kHz.
  int64_t live_bytes() const noexcept;
  int64_t pooled_bytes() const noexcept;
  int64_t charged_bytes() const noexcept;
  int64_t budget_bytes() const noexcept;

  void trim() noexcept;         // release every cached block to the source
  void reset_peak() noexcept;   // peak_live_bytes := live_bytes
  // Throws std::invalid_argument if bytes <= 0. Does not touch live blocks; if
  // max_pooled_bytes was defaulted it follows the new budget, and cached
  // blocks beyond it are released now.
  void set_budget(int64_t bytes);

  const BlockSource& source() const noexcept { return *source_; }

  // The capacity a request is rounded up to, which is also its pool key:
  // multiples of kAlignment up to kSmallLimit, multiples of kPageBytes above
  // (waste under 64 B or 4 KiB). size_class(0) == 0; bytes <= kMaxRequestBytes.
  static size_t size_class(size_t bytes);
  // Half of the usable RAM: physical RAM (4 GiB if sysconf cannot tell), or
  // the cgroup memory limit if lower, so that the rest of the process and the
  // OS never push the machine into swap or the OOM killer.
  // ASYNCSCOPE_MEMORY_BUDGET_MB overrides it; a malformed value throws
  // std::invalid_argument naming the variable.
  static int64_t default_budget_bytes();
  static void* zero_size_block() noexcept;

 private:
  using FreeLists = std::map<size_t, std::vector<void*>>;

  int64_t effective_max_pooled() const noexcept;
  // Releases cached blocks, largest class first, until pooled <= target.
  void evict_locked(int64_t target_pooled) noexcept;
  void release_all(FreeLists& blocks) noexcept;
  void add_live_locked(int64_t bytes) noexcept;

  std::unique_ptr<BlockSource> source_;
  int64_t max_pooled_option_;

  mutable std::mutex mutex_;
  FreeLists free_lists_;  // guarded by mutex_; key = size_class, LIFO so hits are cache-warm
  uint64_t allocations_ = 0;
  uint64_t pool_hits_ = 0;
  uint64_t pool_misses_ = 0;
  // Written only under mutex_, read anywhere.
  std::atomic<int64_t> live_bytes_{0};
  std::atomic<int64_t> pooled_bytes_{0};
  std::atomic<int64_t> charged_bytes_{0};
  std::atomic<int64_t> peak_live_bytes_{0};
  std::atomic<int64_t> budget_bytes_{0};
};

// The process-wide host allocator with default options.
// Threading: any thread. Never destroyed, so tensors freed during static
// destruction or by threads still running at exit stay safe.
PooledAllocator& host_allocator();

}  // namespace asyncscope
