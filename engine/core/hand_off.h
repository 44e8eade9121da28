// Hand-offs, scheduling policies of ThreadedEngine that send a ready op to a
// chosen worker instead of the pool's shared queue.
//
// LocalRun: an op made ready by a worker's own completion runs next on that
// same worker when the pool's queue is empty, and a free it made ready
// always does, before anything else. Why: a chain of dependent ops then
// runs without queue traffic or a wake-up; a free is cheap and its lines
// are the ones the worker just touched, while queued it would go to
// another worker, which would then take the chain's next op from the queue
// too, so the chain would alternate between workers with every op's lines
// crossing cores (bench: BM_TinyOpChainTwoWorkersVsOne).
//
// Mailbox: an op the frontend makes ready goes to the mailbox of the worker
// that finished the pool's last op, if that worker is spinning idle and its
// mailbox is empty. Why: that op most likely reads what the last op wrote,
// and with only a shared queue consecutive ops alternate between the idle
// workers, each op's lines crossing cores (bench: BM_PushWaitRoundTrip/2,
// BM_NDArrayTinyAddAsync/2). Pools of one worker have no mailbox: the queue
// has one consumer there, and a mailbox measured no gain.
//
// Threading: a LocalRun belongs to its worker. A Mailbox is offered to by
// any dispatching thread and opened, closed and emptied by its worker.
#pragma once

#include <atomic>
#include <utility>

#include "engine/core/op_record.h"
#include "engine/core/ready_queue.h"

namespace asyncscope {

struct LocalRun {
  OpRecord* next = nullptr;   // granted by this worker's last op: runs next, here
  OpRecord* frees = nullptr;  // frees granted by this worker's ops (linked by next): run first, here

  // Keeps an op this worker's completion made ready; false if it must go
  // elsewhere (an op while one is kept already, or while queue_busy() says
  // the pool's queue has work: other workers would idle while this one ran
  // a chain). queue_busy is only called for an op that could be kept.
  template <class QueueBusy>
  bool keep(OpRecord* op, bool is_free, QueueBusy&& queue_busy) noexcept {
    if (is_free) {
      op->next = frees;
      frees = op;
      return true;
    }
    if (next != nullptr || queue_busy()) return false;
    next = op;
    return true;
  }
  // The op to run now, frees first; null if none was kept.
  OpRecord* take() noexcept {
    if (OpRecord* op = frees) {
      frees = op->next;
      return op;
    }
    return std::exchange(next, nullptr);
  }
};

// At most one op handed to a worker while it spins idle. The worker opens
// the mailbox when it starts spinning and closes it before it runs or
// sleeps, then empties it; a dispatcher that sees it closed after filling
// it takes its op back (both sides seq_cst: one of them gets it). On a
// cache line of its own: written by the frontend too.
class alignas(64) Mailbox {
 public:
  // The dispatcher's side: true if the worker will take `op`; false if
  // `op` must go to the queue. An op another dispatcher left behind after
  // the worker closed goes to `queue` here.
  bool offer(OpRecord* op, ReadyQueue& queue) noexcept {
    if (!open_.load(std::memory_order_relaxed) || op_.load(std::memory_order_relaxed) != nullptr) return false;
    OpRecord* empty = nullptr;
    if (!op_.compare_exchange_strong(empty, op, std::memory_order_seq_cst)) return false;
    if (open_.load(std::memory_order_seq_cst)) return true;  // the worker looks at its mailbox before it closes
    // It closed meanwhile and may not look again: take the op back, unless
    // it already took it (then the mailbox is empty, or holds the op of
    // another dispatcher that filled it after, which is ours to queue now).
    OpRecord* back = op_.exchange(nullptr, std::memory_order_seq_cst);
    if (back == op) return false;
    if (back != nullptr) queue.push(back);
    return true;
  }

  // The worker's side.
  void open() noexcept { open_.store(true, std::memory_order_seq_cst); }
  // Closes and returns what it holds (null if nothing).
  OpRecord* close() noexcept {
    open_.store(false, std::memory_order_seq_cst);
    return op_.exchange(nullptr, std::memory_order_seq_cst);  // after the store: nothing comes later
  }
  // A hint for any thread (relaxed).
  bool holds() const noexcept { return op_.load(std::memory_order_relaxed) != nullptr; }

 private:
  std::atomic<OpRecord*> op_{nullptr};
  std::atomic<bool> open_{false};
};

}  // namespace asyncscope
