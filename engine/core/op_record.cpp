#include "engine/core/op_record.h"

#include <mutex>

namespace asyncscope {
namespace {

constexpr size_t kBatch = 64;         // records moved between a thread cache and the global list at once
constexpr size_t kGlobalKeep = 65536;  // beyond this many idle records, free memory instead of pooling

struct GlobalPool {
  std::mutex mutex;
  OpRecord* head = nullptr;
  size_t size = 0;
};

GlobalPool& global_pool() {
  static GlobalPool* pool = new GlobalPool;  // leaked: thread caches may flush into it during exit
  return *pool;
}

struct ThreadCache {
  OpRecord* head = nullptr;
  size_t size = 0;

  ~ThreadCache() { flush(size); }

  // Moves n records (from the head) to the global list, or frees them past its cap.
  void flush(size_t n) {
    GlobalPool& g = global_pool();
    std::lock_guard lock(g.mutex);
    for (; n > 0 && head; --n, --size) {
      OpRecord* op = head;
      head = op->next;
      if (g.size >= kGlobalKeep) {
        delete op;
      } else {
        op->next = g.head;
        g.head = op;
        ++g.size;
      }
    }
  }
};

thread_local ThreadCache tls_cache;

}  // namespace

OpRecord* acquire_op_record() {
  ThreadCache& cache = tls_cache;
  if (cache.head == nullptr) {
    GlobalPool& g = global_pool();
    std::lock_guard lock(g.mutex);
    for (size_t i = 0; i < kBatch && g.head; ++i) {
      OpRecord* op = g.head;
      g.head = op->next;
      --g.size;
      op->next = cache.head;
      cache.head = op;
      ++cache.size;
    }
  }
  if (cache.head == nullptr) return new OpRecord;
  OpRecord* op = cache.head;
  cache.head = op->next;
  --cache.size;
  op->next = nullptr;
  // Records come back from the workers, so their lines sit in another core's
  // cache; fetching the next one for writing now hides that transfer from the
  // next push (otherwise its first atomic waits for these stores to land).
  if (OpRecord* next = cache.head) {
    const char* p = reinterpret_cast<const char*>(next);
    for (size_t offset = 0; offset < sizeof(OpRecord); offset += 64) __builtin_prefetch(p + offset, 1, 3);
  }
  return op;
}

void release_op_record(OpRecord* op) noexcept {
  op->fn.reset();
  op->heap_links.reset();
  op->slot = nullptr;
  ThreadCache& cache = tls_cache;
  op->next = cache.head;
  cache.head = op;
  if (++cache.size >= 2 * kBatch) cache.flush(kBatch);
}

}  // namespace asyncscope
