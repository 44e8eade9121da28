// ReadyQueue: ops whose dependencies are all granted, waiting for a worker of
// one device pool. A FIFO linked through OpRecord::next (no allocation) under
// a mutex; workers that find it empty spin briefly on size_ and then sleep on
// the condition variable, and push notifies only when someone sleeps.
// Threading: any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "engine/core/op_record.h"

namespace asyncscope {

class ReadyQueue {
 public:
  void push(OpRecord* op) {
    op->next = nullptr;
    bool wake;
    {
      std::lock_guard lock(mutex_);
      if (tail_) {
        tail_ = tail_->next = op;
      } else {
        head_ = tail_ = op;
      }
      size_.fetch_add(1, std::memory_order_relaxed);
      wake = sleepers_ > 0;  // read under the lock: a sleeper registers under it too
    }
    if (wake) cv_.notify_one();
  }

  OpRecord* try_pop() {
    if (size_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard lock(mutex_);
    return pop_locked();
  }

  // Sleeps until an op arrives; returns null once stop() was called and the queue is empty.
  OpRecord* pop_or_sleep() {
    std::unique_lock lock(mutex_);
    ++sleepers_;
    cv_.wait(lock, [this] { return head_ != nullptr || stopped_; });
    --sleepers_;
    return pop_locked();
  }

  // A hint for spinning workers; may be stale.
  bool maybe_nonempty() const noexcept { return size_.load(std::memory_order_relaxed) > 0; }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    cv_.notify_all();
  }

 private:
  OpRecord* pop_locked() {
    OpRecord* op = head_;
    if (op) {
      head_ = op->next;
      if (head_ == nullptr) tail_ = nullptr;
      size_.fetch_sub(1, std::memory_order_relaxed);
    }
    return op;
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  OpRecord* head_ = nullptr;
  OpRecord* tail_ = nullptr;
  int sleepers_ = 0;
  bool stopped_ = false;
  alignas(64) std::atomic<int64_t> size_{0};  // read by spinning workers; apart from the lock's line
};

}  // namespace asyncscope
