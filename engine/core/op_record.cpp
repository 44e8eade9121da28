#include "engine/core/op_record.h"

#include <mutex>
#include <utility>
#include <vector>

#include "engine/core/prefetch.h"
#include "engine/core/spin_lock.h"

namespace asyncscope {
namespace {

// Records move between a thread cache and the global pool a chain of up to
// kBatch at a time. A chain is handed over whole (its head and its length),
// so neither side walks records under the lock: a walk would read each
// record's link from the cache of the core that released it, and the
// frontend held the lock through dozens of such misses while workers queued
// behind it.
constexpr size_t kBatch = 64;
// Chains kept for later (at most 16,384 records, 6.5 MB, process-wide);
// beyond, memory is freed, and a burst of more ops in flight allocates its
// extra records again the next time. Measured with BM_TinyOpLoopQuietVsLoaded
// (10,000 ops in flight per batch when the worker lags): 100-105 ns per op
// keeping 65,536 records (26 MB), 125 ns keeping 4,096 (1.6 MB, the rest
// malloc'd each batch).
constexpr size_t kGlobalKeepBatches = 256;

struct Chain {
  OpRecord* head = nullptr;
  size_t size = 0;

  void push(OpRecord* op) noexcept {
    op->next = head;
    head = op;
    ++size;
  }
  OpRecord* pop() noexcept {
    OpRecord* op = head;
    head = op->next;
    --size;
    return op;
  }
};

void delete_chain(OpRecord* op) noexcept {
  while (op != nullptr) {
    OpRecord* next = op->next;
    delete op;
    op = next;
  }
}

class GlobalPool {
 public:
  GlobalPool() { chains_.reserve(kGlobalKeepBatches); }

  void put(Chain chain) noexcept {
    if (chain.head == nullptr) return;
    {
      std::lock_guard lock(lock_);
      if (chains_.size() < kGlobalKeepBatches) {
        chains_.push_back(chain);  // within the reserved capacity: no allocation
        return;
      }
    }
    delete_chain(chain.head);
  }

  Chain take() noexcept {
    std::lock_guard lock(lock_);
    if (chains_.empty()) return {};
    const Chain chain = chains_.back();
    chains_.pop_back();
    return chain;
  }

 private:
  // A spin lock: each hold is a push_back or pop_back of two words. With
  // std::mutex the frontend taking a chain and a worker returning one met
  // often enough in a burst of pushes that the worker's unlock was a futex
  // wake (a tenth of its samples in BM_PushTinyOp/1).
  SpinLock lock_;
  std::vector<Chain> chains_;
};

GlobalPool& global_pool() {
  static GlobalPool* pool = new GlobalPool;  // leaked: thread caches may flush into it during exit
  return *pool;
}

// Per thread: the chain records are taken from and released to, and one
// full chain in reserve, so that a thread alternating around a chain
// boundary does not touch the global pool each time.
struct ThreadCache {
  Chain current;
  Chain spare;

  ~ThreadCache() {
    global_pool().put(current);
    global_pool().put(spare);
  }
};

thread_local ThreadCache tls_cache;

}  // namespace

OpRecord* acquire_op_record() {
  ThreadCache& cache = tls_cache;
  if (cache.current.head == nullptr) {
    if (cache.spare.head != nullptr) {
      cache.current = std::exchange(cache.spare, Chain{});
    } else {
      cache.current = global_pool().take();
      if (cache.current.head == nullptr) return new OpRecord;
    }
  }
  OpRecord* op = cache.current.pop();
  op->next = nullptr;
  // Records come back from the workers, so their lines sit modified in
  // another core's cache; fetching the next one for writing now hides that
  // transfer from the next push (otherwise its first atomic waits for these
  // stores to land).
  if (OpRecord* next = cache.current.head) {
    const char* p = reinterpret_cast<const char*>(next);
    for (size_t offset = 0; offset < sizeof(OpRecord); offset += 64) prefetch_for_write(p + offset);
  }
  return op;
}

void release_op_record(OpRecord* op) noexcept {
  op->fn.reset();
  op->heap_links.reset();
  op->slot = nullptr;
  ThreadCache& cache = tls_cache;
  if (cache.current.size >= kBatch) {
    global_pool().put(cache.spare);  // an empty spare is not stored
    cache.spare = std::exchange(cache.current, Chain{});
  }
  cache.current.push(op);
}

}  // namespace asyncscope
