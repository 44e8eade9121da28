// Run-ahead hold-back, a scheduling policy of ThreadedEngine.
//
// Why: a CPU worker that has caught up with a frontend running ahead takes
// each op the moment it is pushed, and the two threads then trade the
// queue's, the op record's and the vars' cache lines at every op. A Python
// loop of one-element adds runs about half as fast in that state as with
// the worker a few ops behind (bench: BM_TinyOpLoopQuietVsLoaded,
// PythonAddLoop; docs/PERFORMANCE.md). Held back a moment, the frontend
// pushes the next ops onto lines only it has touched, and the worker then
// runs them as a chain behind it.
//
// What: a thread that pushed more than kRunAheadAfter ops since its last
// wait marks its pushes to CPU pools run_ahead (note_push). A worker that
// takes such an op from the queue or its mailbox (not one its own last op
// handed it, and never a free) holds it (hold_back) until kHoldBackOps more
// ops were pushed, at most kHoldBackNs, and no longer than kHoldBackIdleNs
// without a push, unless some thread is in a wait that blocks: a waiter
// must never wait for a hold. The threshold is high enough that a loop with
// a sync in every iteration of a few dozen ops never has one held.
//
// Threading: note_push and WaitScope on the pushing or waiting thread;
// hold_back on the worker that owns the WorkerState.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/core/op_record.h"
#include "engine/core/pusher_state.h"
#include "engine/core/spin_lock.h"
#include "engine/trace_record/clock.h"

namespace asyncscope {

class RunAhead {
 public:
  static constexpr uint32_t kRunAheadAfter = 64;
  static constexpr uint64_t kHoldBackOps = 16;
  static constexpr int64_t kHoldBackNs = 5'000;
  static constexpr int64_t kHoldBackIdleNs = 1'000;

  // A worker's own part: written by that worker, held_back read by stats().
  struct WorkerState {
    uint64_t seen_last_op = 0;            // the engine's last op id when this worker last read it
    std::atomic<uint64_t> held_back{0};   // ops it held back
  };

  // Counts a push of the calling thread; true once it ran ahead (more than
  // kRunAheadAfter pushes since its last wait).
  static bool note_push(PusherState& pusher) noexcept {
    if (pusher.since_wait > kRunAheadAfter) return true;
    return ++pusher.since_wait > kRunAheadAfter;
  }

  // A wait of the calling thread: starts its run-ahead count again and, for
  // a wait that blocks, counts as a waiter until it ends (no op is held
  // while there is one).
  class WaitScope {
   public:
    WaitScope(RunAhead& policy, uint64_t engine_serial, bool blocking) noexcept {
      pusher_state(engine_serial).since_wait = 0;
      if (!blocking) return;
      policy_ = &policy;
      policy.waiting_.fetch_add(1, std::memory_order_relaxed);
    }
    WaitScope(const WaitScope&) = delete;
    WaitScope& operator=(const WaitScope&) = delete;
    ~WaitScope() {
      if (policy_ != nullptr) policy_->waiting_.fetch_sub(1, std::memory_order_relaxed);
    }

   private:
    RunAhead* policy_ = nullptr;
  };

  // Holds `op` (taken by the worker, run_ahead) as described above.
  // last_op_id() reads the engine's last pushed id; `running` is the
  // worker's running flag, set for the hold: the op is the worker's
  // already, so a frontend that sees ops queued behind it does not take the
  // workers for starved of a core (starvation_yield.h).
  template <class LastOpId>
  void hold_back(WorkerState& worker, const OpRecord& op, LastOpId&& last_op_id,
                 std::atomic<uint32_t>& running) const noexcept {
    const uint64_t enough = op.id + kHoldBackOps;  // the last op id once that many more were pushed
    // Far behind the frontend already (the last look says so): no hold, and
    // no read of the id counter the frontend writes at every push.
    if (worker.seen_last_op >= enough) return;
    if (somebody_waits()) return;
    uint64_t last = worker.seen_last_op = last_op_id();
    if (last >= enough) return;
    worker.held_back.store(worker.held_back.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    running.store(1, std::memory_order_relaxed);
    const int64_t start = trace::now_ns();
    int64_t last_push_seen = start;
    for (;;) {
      // A wait ends the hold within a pause (about 10-40 ns).
      bool waits = false;
      for (int i = 0; i < 8 && !(waits = somebody_waits()); ++i) cpu_relax();
      const uint64_t now_last = last_op_id();
      const int64_t now = trace::now_ns();
      if (now_last != last) {
        last = now_last;
        last_push_seen = now;
      }
      // Enough pushed behind it, somebody waits, held for long enough, or
      // the pushes stopped (the frontend does something else, and nothing
      // is gained by waiting for it).
      if (waits || last >= enough || now - start > kHoldBackNs || now - last_push_seen > kHoldBackIdleNs) break;
    }
    worker.seen_last_op = last;
  }

 private:
  bool somebody_waits() const noexcept { return waiting_.load(std::memory_order_relaxed) != 0; }

  // Waits under way that block, of any thread. Written twice per such
  // wait, read by a worker only while it holds or is about to hold an op:
  // on a line of its own.
  alignas(64) std::atomic<int> waiting_{0};
};

}  // namespace asyncscope
