// ReadyQueue: ops whose dependencies are all granted, waiting for a worker of
// one device pool. A FIFO linked through OpRecord::next (no allocation) under
// a spin lock: the frontend pushes and workers pop a few pointers at a time,
// and a blocking mutex here turned contention into futex sleeps. Workers that
// find it empty spin briefly on size_, then sleep on a futex word (C++20
// atomic wait); push wakes one only when someone sleeps.
// Threading: any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "engine/core/op_record.h"
#include "engine/core/spin_lock.h"

namespace asyncscope {

class ReadyQueue {
 public:
  // Appends op; at_front puts it before everything waiting (used for freeing
  // memory, which is cheap and lets the ops behind it reuse the buffers).
  void push(OpRecord* op, bool at_front = false) {
    op->next = nullptr;
    {
      std::lock_guard lock(lock_);
      if (OpRecord* head = head_.load(std::memory_order_relaxed); head == nullptr) {
        head_.store(op, std::memory_order_relaxed);
        tail_ = op;
      } else if (at_front) {
        op->next = head;
        head_.store(op, std::memory_order_relaxed);
      } else {
        tail_ = tail_->next = op;
      }
      // seq_cst with sleepers_ below: either a worker about to sleep sees
      // this op, or we see it registered and wake it (Dekker).
      size_.fetch_add(1, std::memory_order_seq_cst);
    }
    if (sleepers_.load(std::memory_order_seq_cst) > 0) wake_one();
  }

  OpRecord* try_pop() {
    if (size_.load(std::memory_order_seq_cst) == 0) return nullptr;
    // The lock is held as briefly as possible: the frontend pushing the next
    // op waits for it. The first op's link, written by its pusher on another
    // core, is asked for before the lock is taken (a racy peek: a stale
    // head only wastes the prefetch), and the count is lowered after the
    // lock is let go. Inside the lock both would be cache misses, and the
    // pusher's spin on the lock would be most of its dispatch time in a loop
    // of tiny ops.
    if (const OpRecord* peek = head_.load(std::memory_order_relaxed)) __builtin_prefetch(&peek->next);
    OpRecord* op = nullptr;
    {
      std::lock_guard lock(lock_);
      op = head_.load(std::memory_order_relaxed);
      if (op == nullptr) return nullptr;
      head_.store(op->next, std::memory_order_relaxed);
      if (op->next == nullptr) tail_ = nullptr;
    }
    // size_ never counts fewer ops than the list holds: a spinner may find it
    // too high for a moment and try_pop find nothing, never the reverse.
    size_.fetch_sub(1, std::memory_order_relaxed);
    return op;
  }

  // Sleeps until an op arrives or other() holds; returns null once stop()
  // was called and the queue is empty, or when other() holds. other() is
  // checked after registering as a sleeper: whoever makes it true and then
  // calls nudge() never leaves this thread asleep.
  template <class Other>
  OpRecord* pop_or_sleep(Other other) {
    for (;;) {
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      const uint32_t seen = signal_.load(std::memory_order_seq_cst);
      OpRecord* op = try_pop();
      const bool woken = op == nullptr && other();
      if (op == nullptr && !woken && !stopped_.load(std::memory_order_seq_cst)) {
        signal_.wait(seen, std::memory_order_seq_cst);
      }
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
      if (op != nullptr) return op;
      if (woken) return nullptr;
      if (stopped_.load(std::memory_order_seq_cst)) return try_pop();
    }
  }
  OpRecord* pop_or_sleep() {
    return pop_or_sleep([] { return false; });
  }

  // Wakes every sleeping worker (to look at something other than the queue).
  void nudge() {
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    signal_.fetch_add(1, std::memory_order_seq_cst);
    signal_.notify_all();
  }

  bool stopped() const noexcept { return stopped_.load(std::memory_order_seq_cst); }

  // A hint for spinning workers; may be stale.
  bool maybe_nonempty() const noexcept { return size_.load(std::memory_order_relaxed) > 0; }

  void stop() {
    stopped_.store(true, std::memory_order_seq_cst);
    signal_.fetch_add(1, std::memory_order_seq_cst);
    signal_.notify_all();
  }

 private:
  void wake_one() {
    signal_.fetch_add(1, std::memory_order_seq_cst);
    signal_.notify_one();
  }

  SpinLock lock_;
  std::atomic<OpRecord*> head_{nullptr};  // written under the lock; read without it only to prefetch
  OpRecord* tail_ = nullptr;
  std::atomic<bool> stopped_{false};
  alignas(64) std::atomic<int64_t> size_{0};  // read by spinning workers; apart from the lock's line
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<uint32_t> signal_{0};  // futex word: bumped to wake sleepers
};

}  // namespace asyncscope
