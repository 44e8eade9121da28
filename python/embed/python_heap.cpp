#include "python/embed/python_heap.h"

#include <Python.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <mutex>

namespace asyncscope::python {
namespace {

constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
constexpr int64_t kNoFloor = std::numeric_limits<int64_t>::min();
// Relaxed throughout: the counts are totals, not guards of other data; a hook
// that reads a bound a moment stale charges or gives back on its next call.
constexpr auto kRelaxed = std::memory_order_relaxed;
// Larger requests fail at once (CPython refuses them before the hooks too).
constexpr size_t kMaxRequest = static_cast<size_t>(kNoLimit / 2);

// What every hook touches, on its own cache line: the live count and the
// two bounds whose crossing calls for the account.
struct alignas(64) Counts {
  std::atomic<int64_t> live{0};
  std::atomic<int64_t> limit{kNoLimit};  // an allocation taking live past it calls grow()
  std::atomic<int64_t> floor{kNoFloor};  // a free taking live below it calls shrink()
};
constinit Counts counts;

// The active charge's state, guarded by its mutex. Never destroyed: frees
// made while the process exits still reach the hooks.
struct Charge {
  std::mutex mutex;
  std::shared_ptr<trace::MemoryAccount> account;  // null: no charge active
  const char* what = "";
  int64_t base = 0;     // live bytes at the charge's start
  int64_t granted = 0;  // granules charged to the account
  std::optional<MemoryBudgetError> refusal;
};
Charge& charge_state() {
  static Charge* const state = new Charge();
  return *state;
}

constinit bool hooked = false;
constinit PyMemAllocatorEx raw_next{};
constinit PyObjectArenaAllocator arena_next{};

void set_bounds_locked(const Charge& c) {
  if (!c.account) {
    counts.limit.store(kNoLimit, kRelaxed);
    counts.floor.store(kNoFloor, kRelaxed);
    return;
  }
  counts.limit.store(c.base + c.granted * kHeapGranuleBytes, kRelaxed);
  // A granule goes back once the growth fits in one granule fewer than are
  // charged, less one more: the slack that keeps a boundary from thrashing.
  counts.floor.store(c.granted >= 2 ? c.base + (c.granted - 2) * kHeapGranuleBytes + 1 : kNoFloor, kRelaxed);
}

// Charges granules until the live count fits; false when one was refused.
bool grow() noexcept {
  Charge& c = charge_state();
  std::lock_guard lock(c.mutex);
  if (!c.account) return true;  // the charge ended meanwhile
  while (counts.live.load(kRelaxed) > c.base + c.granted * kHeapGranuleBytes) {
    try {
      c.account->charge(kHeapGranuleBytes, c.what);
    } catch (const MemoryBudgetError& e) {
      if (!c.refusal) c.refusal.emplace(e);
      return false;
    } catch (...) {
      return false;
    }
    ++c.granted;
    set_bounds_locked(c);
  }
  return true;
}

void shrink() noexcept {
  Charge& c = charge_state();
  std::lock_guard lock(c.mutex);
  if (!c.account) return;
  while (c.granted >= 2 && counts.live.load(kRelaxed) <= c.base + (c.granted - 2) * kHeapGranuleBytes) {
    c.account->uncharge(kHeapGranuleBytes);
    --c.granted;
  }
  set_bounds_locked(c);
}

// Counts `bytes` before they are taken; false, counting nothing, when the
// budget refused the granule they need.
bool reserve(int64_t bytes) noexcept {
  const int64_t now = counts.live.fetch_add(bytes, kRelaxed) + bytes;
  if (now <= counts.limit.load(kRelaxed)) [[likely]] return true;
  if (grow()) return true;
  counts.live.fetch_sub(bytes, kRelaxed);
  return false;
}

void release(int64_t bytes) noexcept {
  const int64_t now = counts.live.fetch_sub(bytes, kRelaxed) - bytes;
  if (now < counts.floor.load(kRelaxed)) [[unlikely]] shrink();
}

// After the block exists: the difference between what was reserved and
// what malloc handed out is added without a check (tens of bytes past the
// charge at most; a few KiB for a block malloc mmaps).
void settle(int64_t delta) noexcept {
  if (delta == 0) return;
  if (delta > 0) {
    counts.live.fetch_add(delta, kRelaxed);
  } else {
    release(-delta);
  }
}

int64_t usable(void* p) noexcept { return static_cast<int64_t>(malloc_usable_size(p)); }

// What glibc's malloc will most likely give for `size` (16-byte chunks with
// an 8-byte header, 24 usable at least), reserved up front so that the
// common block needs no second update of the count; settle() corrects it.
int64_t likely_usable(size_t size) noexcept {
  return std::max<int64_t>(24, static_cast<int64_t>(((size + 8 + 15) & ~size_t{15}) - 8));
}

// The raw domain's hooks. CPython's own raw functions (called through
// raw_next) already turn a zero-byte request into a one-byte one, so a
// distinct non-null pointer comes back for it as the C API asks.
void* raw_malloc(void*, size_t size) {
  if (size > kMaxRequest) return nullptr;
  const int64_t bytes = likely_usable(size);
  if (!reserve(bytes)) return nullptr;
  void* p = raw_next.malloc(raw_next.ctx, size);
  if (p == nullptr) {
    release(bytes);
    return nullptr;
  }
  settle(usable(p) - bytes);
  return p;
}

void* raw_calloc(void*, size_t nelem, size_t elsize) {
  size_t size = 0;
  if (__builtin_mul_overflow(nelem, elsize, &size) || size > kMaxRequest) return nullptr;
  const int64_t bytes = likely_usable(size);
  if (!reserve(bytes)) return nullptr;
  void* p = raw_next.calloc(raw_next.ctx, nelem, elsize);
  if (p == nullptr) {
    release(bytes);
    return nullptr;
  }
  settle(usable(p) - bytes);
  return p;
}

// Failure leaves the old block as it was, so the growth is reserved first.
void* raw_realloc(void*, void* ptr, size_t size) {
  if (size > kMaxRequest) return nullptr;
  const int64_t old = ptr != nullptr ? usable(ptr) : 0;
  const int64_t more = std::max<int64_t>(0, static_cast<int64_t>(size) - old);
  if (more > 0 && !reserve(more)) return nullptr;
  void* p = raw_next.realloc(raw_next.ctx, ptr, size);
  if (p == nullptr) {
    release(more);
    return nullptr;
  }
  settle(usable(p) - old - more);
  return p;
}

void raw_free(void*, void* ptr) {
  if (ptr == nullptr) return;
  const int64_t bytes = usable(ptr);
  raw_next.free(raw_next.ctx, ptr);
  release(bytes);
}

void* arena_alloc(void*, size_t size) {
  const auto bytes = static_cast<int64_t>(size);
  if (!reserve(bytes)) return nullptr;
  void* p = arena_next.alloc(arena_next.ctx, size);
  if (p == nullptr) release(bytes);
  return p;
}

void arena_free(void*, void* ptr, size_t size) {
  arena_next.free(arena_next.ctx, ptr, size);
  if (ptr != nullptr) release(static_cast<int64_t>(size));
}

}  // namespace

bool install_heap_hooks() {
  if (hooked) return true;
  if (const char* env = std::getenv("PYTHONMALLOC"); env != nullptr && *env != '\0') return false;
  charge_state();  // made now, not inside a hook
  PyMem_GetAllocator(PYMEM_DOMAIN_RAW, &raw_next);
  PyMemAllocatorEx raw{nullptr, raw_malloc, raw_calloc, raw_realloc, raw_free};
  PyMem_SetAllocator(PYMEM_DOMAIN_RAW, &raw);
  PyObject_GetArenaAllocator(&arena_next);
  PyObjectArenaAllocator arena{nullptr, arena_alloc, arena_free};
  PyObject_SetArenaAllocator(&arena);
  hooked = true;
  return true;
}

HeapStats heap_stats() noexcept {
  HeapStats stats;
  stats.hooked = hooked;
  stats.live_bytes = counts.live.load(kRelaxed);
  Charge& c = charge_state();
  std::lock_guard lock(c.mutex);
  stats.charged_bytes = c.account ? c.granted * kHeapGranuleBytes : 0;
  return stats;
}

HeapCharge::HeapCharge(std::shared_ptr<trace::MemoryAccount> account, const char* what) {
  if (!hooked || !account) return;
  Charge& c = charge_state();
  std::lock_guard lock(c.mutex);
  if (c.account) return;  // another run's charge is active
  c.account = std::move(account);
  c.what = what;
  c.base = counts.live.load(kRelaxed);
  c.granted = 0;
  c.refusal.reset();
  set_bounds_locked(c);
  active_ = true;
}

HeapCharge::~HeapCharge() { end(); }

void HeapCharge::end() noexcept {
  if (!active_) return;
  Charge& c = charge_state();
  std::lock_guard lock(c.mutex);
  c.account->uncharge(c.granted * kHeapGranuleBytes);
  c.account.reset();
  c.granted = 0;
  set_bounds_locked(c);
  refusal_ = std::move(c.refusal);
  c.refusal.reset();
  active_ = false;
}

std::optional<MemoryBudgetError> HeapCharge::refusal() const {
  if (!active_) return refusal_;
  Charge& c = charge_state();
  std::lock_guard lock(c.mutex);
  return c.refusal;
}

}  // namespace asyncscope::python
