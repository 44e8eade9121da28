#include "engine/base/allocator.h"

#include <sys/mman.h>

#include <cstdint>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "engine/base/format.h"

namespace asyncscope {
namespace {

constexpr int64_t kKiB = int64_t{1} << 10;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kFallbackRamBytes = 4 * kGiB;
constexpr int64_t kDefaultPoolCapBytes = 2 * kGiB;
constexpr const char* kBudgetEnv = "ASYNCSCOPE_MEMORY_BUDGET_MB";

// Relaxed everywhere: counters are written only under the mutex, which orders
// the writers; lock-free readers want a recent value and publish nothing.
constexpr auto kRelaxed = std::memory_order_relaxed;

alignas(PooledAllocator::kAlignment) char zero_size_sentinel;


// Containers often get far less memory than the host has; 50% of the host's
// RAM could then still be an OOM kill. "max" (v2) fails to parse: no limit.
int64_t cgroup_limit_bytes() {
  for (const char* path : {"/sys/fs/cgroup/memory.max",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    long long limit = 0;
    if (in >> limit && limit > 0) return limit;
  }
  return std::numeric_limits<int64_t>::max();
}

int64_t budget_from_env(const char* value) {
  errno = 0;
  char* end = nullptr;
  const long long mib = std::strtoll(value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || mib <= 0 ||
      mib > std::numeric_limits<int64_t>::max() / kMiB) {
    throw std::invalid_argument(std::string(kBudgetEnv) + "='" + value +
                                "' is not a positive whole number of MiB; set it to e.g. "
                                "4096 for 4 GiB, or unset it for half of the RAM");
  }
  return mib * kMiB;
}

}  // namespace

MemoryBudgetError::MemoryBudgetError(const char* source_name, int64_t requested_bytes,
                                     int64_t budget_bytes, int64_t live_bytes)
    : std::runtime_error(std::string(source_name) + " allocator: allocating " +
                         format_bytes(requested_bytes) + " would exceed the memory budget of " +
                         format_bytes(budget_bytes) + " (" + format_bytes(live_bytes) +
                         " live); free arrays you no longer need or sync more often so finished "
                         "ops release their buffers, or raise the budget with the environment variable " +
                         kBudgetEnv + " (MB)"),
      requested_bytes_(requested_bytes),
      budget_bytes_(budget_bytes),
      live_bytes_(live_bytes) {}

MemoryBudgetError::MemoryBudgetError(const std::string& what, const MemoryBudgetError& refusal)
    : std::runtime_error(what + ": " + refusal.what()),
      requested_bytes_(refusal.requested_bytes_),
      budget_bytes_(refusal.budget_bytes_),
      live_bytes_(refusal.live_bytes_) {}

BlockSource::~BlockSource() = default;

namespace {

// Blocks from this size on are mapped on their own, starting on a 2 MiB
// boundary, with the kernel asked for transparent huge pages: an op's first
// write of a fresh 16 MB output then takes 8 page faults instead of 4096 (each
// 4 KiB fault costs around a microsecond besides the zeroing, more in a VM:
// thousands of them are a visible share of a large product). The size is not
// rounded up to huge pages, so the tail, and every block where the kernel
// gives no huge pages, costs no more memory than plain pages would.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kMappedFrom = size_t{4} << 20;

size_t mapped_length(size_t bytes) { return (bytes + PooledAllocator::kPageBytes - 1) / PooledAllocator::kPageBytes * PooledAllocator::kPageBytes; }

void* map_aligned(size_t bytes) {
  const size_t length = mapped_length(bytes);
  void* raw = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t start = (base + kHugePage - 1) / kHugePage * kHugePage;
  if (start > base) munmap(raw, start - base);
  const uintptr_t end = base + length + kHugePage;
  if (end > start + length) munmap(reinterpret_cast<void*>(start + length), end - (start + length));
  void* p = reinterpret_cast<void*>(start);
#ifdef MADV_HUGEPAGE
  madvise(p, length, MADV_HUGEPAGE);  // advice only: without THP the block is plain pages
#endif
  return p;
}

}  // namespace

void* HostBlockSource::allocate(size_t bytes) {
  if (bytes >= kMappedFrom) return map_aligned(bytes);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t a = PooledAllocator::kAlignment;
  void* p = std::aligned_alloc(a, (std::max<size_t>(bytes, 1) + a - 1) / a * a);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void HostBlockSource::release(void* p, size_t bytes) noexcept {
  if (bytes >= kMappedFrom) {
    munmap(p, mapped_length(bytes));
    return;
  }
  std::free(p);
}

PooledAllocator::PooledAllocator(std::unique_ptr<BlockSource> source)
    : PooledAllocator(std::move(source), Options{}) {}

PooledAllocator::PooledAllocator(std::unique_ptr<BlockSource> source, Options opts)
    : source_(std::move(source)), max_pooled_option_(opts.max_pooled_bytes) {
  if (!source_) throw std::invalid_argument("PooledAllocator: the BlockSource is null");
  const int64_t budget =
      opts.budget_bytes == kDefault ? default_budget_bytes() : opts.budget_bytes;
  if (budget <= 0) {
    throw std::invalid_argument("PooledAllocator: budget_bytes must be > 0 or kDefault, got " +
                                std::to_string(budget));
  }
  if (max_pooled_option_ < kDefault) {
    throw std::invalid_argument("PooledAllocator: max_pooled_bytes must be >= 0 or kDefault, got " +
                                std::to_string(max_pooled_option_));
  }
  budget_bytes_.store(budget, kRelaxed);
}

PooledAllocator::~PooledAllocator() { release_all(free_lists_); }

void* PooledAllocator::allocate(size_t bytes) {
  if (bytes == 0) return zero_size_block();
  std::lock_guard lock(mutex_);
  const int64_t budget = budget_bytes_.load(kRelaxed);
  const int64_t live = live_bytes_.load(kRelaxed);
  const int64_t used = live + charged_bytes_.load(kRelaxed);
  if (bytes > kMaxRequestBytes || used + static_cast<int64_t>(size_class(bytes)) > budget) {
    const auto requested = static_cast<int64_t>(std::min<size_t>(bytes, INT64_MAX));
    throw MemoryBudgetError(source_->name(), requested, budget, used);
  }
  const size_t cls = size_class(bytes);
  const auto icls = static_cast<int64_t>(cls);

  void* p = nullptr;
  if (auto it = free_lists_.find(cls); it != free_lists_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    pooled_bytes_.fetch_sub(icls, kRelaxed);
    ++pool_hits_;
  } else {
    // A miss grows the footprint by cls; cached blocks give way first. The
    // source is called under the lock so the budget check and the counters
    // stay one step; misses are rare once the pool is warm.
    evict_locked(budget - used - icls);
    try {
      p = source_->allocate(cls);
    } catch (const std::bad_alloc&) {
      // The OS can run short before our budget does; our cache is what we can give back.
      if (pooled_bytes_.load(kRelaxed) == 0) throw;
      evict_locked(0);
      p = source_->allocate(cls);
    }
    if (p == nullptr) throw std::bad_alloc();
    ++pool_misses_;
  }
  ++allocations_;
  add_live_locked(static_cast<int64_t>(bytes));
  return p;
}

void PooledAllocator::deallocate(void* p, size_t bytes) noexcept {
  if (p == nullptr || bytes == 0) return;
  const size_t cls = size_class(bytes);
  const auto icls = static_cast<int64_t>(cls);
  {
    std::lock_guard lock(mutex_);
    live_bytes_.fetch_sub(static_cast<int64_t>(bytes), kRelaxed);
    if (pooled_bytes_.load(kRelaxed) + icls <= effective_max_pooled()) {
      try {
        free_lists_[cls].push_back(p);
        pooled_bytes_.fetch_add(icls, kRelaxed);
        return;
      } catch (const std::bad_alloc&) {
        // No memory to remember the block: release it instead.
      }
    }
  }
  // Outside the lock: returning pages to the OS (munmap) can be slow.
  source_->release(p, cls);
}

bool PooledAllocator::charge(int64_t bytes, const char* what, bool force) {
  if (bytes <= 0) return true;
  std::lock_guard lock(mutex_);
  const int64_t budget = budget_bytes_.load(kRelaxed);
  const int64_t used = live_bytes_.load(kRelaxed) + charged_bytes_.load(kRelaxed);
  const bool fits = used + bytes <= budget;
  if (!fits && !force) throw MemoryBudgetError(std::string(what), MemoryBudgetError(source_->name(), bytes, budget, used));
  evict_locked(std::max<int64_t>(0, budget - used - bytes));
  charged_bytes_.fetch_add(bytes, kRelaxed);
  return fits;
}

void PooledAllocator::uncharge(int64_t bytes) noexcept {
  if (bytes <= 0) return;
  charged_bytes_.fetch_sub(bytes, kRelaxed);
}

MemoryStats PooledAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return {live_bytes_.load(kRelaxed),   charged_bytes_.load(kRelaxed), pooled_bytes_.load(kRelaxed),
          peak_live_bytes_.load(kRelaxed), budget_bytes_.load(kRelaxed),
          effective_max_pooled(),          allocations_,
          pool_hits_,                      pool_misses_};
}

int64_t PooledAllocator::live_bytes() const noexcept { return live_bytes_.load(kRelaxed); }
int64_t PooledAllocator::pooled_bytes() const noexcept { return pooled_bytes_.load(kRelaxed); }
int64_t PooledAllocator::charged_bytes() const noexcept { return charged_bytes_.load(kRelaxed); }
int64_t PooledAllocator::budget_bytes() const noexcept { return budget_bytes_.load(kRelaxed); }

void PooledAllocator::trim() noexcept {
  FreeLists blocks;
  {
    std::lock_guard lock(mutex_);
    blocks.swap(free_lists_);
    pooled_bytes_.store(0, kRelaxed);
  }
  release_all(blocks);
}

void PooledAllocator::reset_peak() noexcept {
  std::lock_guard lock(mutex_);
  peak_live_bytes_.store(live_bytes_.load(kRelaxed), kRelaxed);
}

void PooledAllocator::set_budget(int64_t bytes) {
  if (bytes <= 0) {
    throw std::invalid_argument("PooledAllocator::set_budget: bytes must be > 0, got " +
                                std::to_string(bytes));
  }
  std::lock_guard lock(mutex_);
  budget_bytes_.store(bytes, kRelaxed);
  evict_locked(effective_max_pooled());
}

size_t PooledAllocator::size_class(size_t bytes) {
  const size_t step = bytes <= kSmallLimit ? kAlignment : kPageBytes;
  return (bytes + step - 1) / step * step;
}

int64_t PooledAllocator::default_budget_bytes() {
  if (const char* env = std::getenv(kBudgetEnv)) return budget_from_env(env);
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  const int64_t ram = pages > 0 && page_size > 0 ? static_cast<int64_t>(pages) * page_size
                                                 : kFallbackRamBytes;
  return std::min(ram, cgroup_limit_bytes()) / 2;
}

void* PooledAllocator::zero_size_block() noexcept { return &zero_size_sentinel; }

int64_t PooledAllocator::effective_max_pooled() const noexcept {
  if (max_pooled_option_ != kDefault) return max_pooled_option_;
  return std::min(budget_bytes_.load(kRelaxed) / 4, kDefaultPoolCapBytes);
}

void PooledAllocator::evict_locked(int64_t target_pooled) noexcept {
  // Largest class first: the fewest source calls per byte freed.
  while (pooled_bytes_.load(kRelaxed) > target_pooled && !free_lists_.empty()) {
    const auto last = std::prev(free_lists_.end());
    auto& [cls, blocks] = *last;
    while (!blocks.empty() && pooled_bytes_.load(kRelaxed) > target_pooled) {
      source_->release(blocks.back(), cls);
      blocks.pop_back();
      pooled_bytes_.fetch_sub(static_cast<int64_t>(cls), kRelaxed);
    }
    if (blocks.empty()) free_lists_.erase(last);
  }
}

void PooledAllocator::release_all(FreeLists& blocks) noexcept {
  for (auto& [cls, list] : blocks) {
    for (void* p : list) source_->release(p, cls);
  }
  blocks.clear();
}

void PooledAllocator::add_live_locked(int64_t bytes) noexcept {
  const int64_t live = live_bytes_.fetch_add(bytes, kRelaxed) + bytes;
  if (live > peak_live_bytes_.load(kRelaxed)) peak_live_bytes_.store(live, kRelaxed);
}

PooledAllocator& host_allocator() {
  // Leaked on purpose: a function-local static would be destroyed at exit
  // while tensors owned by other statics or late threads still free into it.
  static PooledAllocator* const allocator =
      new PooledAllocator(std::make_unique<HostBlockSource>());
  return *allocator;
}

}  // namespace asyncscope
