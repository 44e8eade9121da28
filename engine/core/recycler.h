// Recycler<T, Link>: a process-wide pool for objects that one thread makes
// and another finishes with. The frontend takes an op record and an array's
// chunk for every op it pushes; a worker gives them back when the op (or the
// array's free) has run. Through malloc, every such object came back as a
// line modified in the worker's cache, written first by the frontend, and
// small enough to fall into glibc's per-thread caches on the wrong thread.
//
// Objects move between a per-thread cache and one global list a chain of up
// to kBatch at a time. A chain is handed over whole (its head and its
// length), so neither side walks objects under the lock: a walk would read
// each object's link from the cache of the core that gave it back. When an
// object is taken, the next one in the chain is prefetched for writing, so
// that its transfer from the other core overlaps with the caller's work
// before the next take.
//
// Objects stay constructed while pooled: give() takes an object its owner
// has reset to what take()'s callers expect (the link is the pool's), and a
// pool that is empty makes a new T. Beyond kKeepBatches chains kept in the
// global list, given objects are deleted.
//
// T: default-constructible; `Link` names a `T*` member the pool may use
// while the object is pooled.
// Threading: take() and give() from any thread; each thread's cache is its
// own, and goes to the global list when the thread ends.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "engine/core/prefetch.h"
#include "engine/core/spin_lock.h"

namespace asyncscope {

template <class T, T* T::*Link, size_t kBatch = 64, size_t kKeepBatches = 256>
class Recycler {
 public:
  static T* take() {
    Cache& cache = cache_;
    if (cache.current.head == nullptr) {
      if (cache.spare.head != nullptr) {
        cache.current = std::exchange(cache.spare, Chain{});
      } else {
        cache.current = global().take();
        if (cache.current.head == nullptr) return new T;
      }
    }
    T* object = cache.current.pop();
    object->*Link = nullptr;
    if (const T* next = cache.current.head) prefetch_lines_for_write(next, sizeof(T));
    return object;
  }

  static void give(T* object) noexcept {
    Cache& cache = cache_;
    if (cache.current.size >= kBatch) {
      global().put(cache.spare);  // an empty spare is not stored
      cache.spare = std::exchange(cache.current, Chain{});
    }
    cache.current.push(object);
  }

 private:
  struct Chain {
    T* head = nullptr;
    size_t size = 0;

    void push(T* object) noexcept {
      object->*Link = head;
      head = object;
      ++size;
    }
    T* pop() noexcept {
      T* object = head;
      head = object->*Link;
      --size;
      return object;
    }
  };

  static void delete_chain(T* object) noexcept {
    while (object != nullptr) {
      T* next = object->*Link;
      delete object;
      object = next;
    }
  }

  class Global {
   public:
    Global() { chains_.reserve(kKeepBatches); }

    void put(Chain chain) noexcept {
      if (chain.head == nullptr) return;
      {
        std::lock_guard lock(lock_);
        if (chains_.size() < kKeepBatches) {
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
    // std::mutex the frontend taking a chain and a worker giving one back
    // meet often enough in a burst of pushes that the worker's unlock becomes
    // a futex wake, a system call that costs far more than the hold itself.
    SpinLock lock_;
    std::vector<Chain> chains_;
  };

  static Global& global() {
    static Global* pool = new Global;  // leaked: thread caches may flush into it during exit
    return *pool;
  }

  // Per thread: the chain objects are taken from and given to, and one full
  // chain in reserve, so that a thread alternating around a chain boundary
  // does not touch the global list each time.
  struct Cache {
    Chain current;
    Chain spare;

    ~Cache() {
      global().put(current);
      global().put(spare);
    }
  };

  static inline thread_local Cache cache_;
};

}  // namespace asyncscope
