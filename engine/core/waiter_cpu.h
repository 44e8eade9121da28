// Leaving a waiter's CPU, a scheduling policy of ThreadedEngine.
//
// Why: a futex wake-up may place a woken thread beside its waker; the
// frontend and a worker that hand ops back and forth then share one CPU,
// yield it to each other every few microseconds, and the kernel's balancer
// does not separate them while another CPU idles: a one-element push and
// wait is then markedly slower than with the two apart, and the state can
// last the whole run (bench: BM_PushWaitRoundTripQuietVsLoaded;
// cpu_placement.h, docs/PERFORMANCE.md).
//
// What: a CPU worker about to idle after it signalled a waiter that armed
// its wait on the worker's own CPU moves to another CPU, if other processes
// leave two CPUs free (cpus_free_for). It looks at most once per
// move_every_ns, which starts at kMoveEveryNs and doubles (up to
// kMoveEveryMaxNs) after each move that took longer than kSlowMoveNs: such
// a move found no free CPU and only queued the worker behind another
// thread, where sharing the waiter's CPU was the better place.
//
// Threading: the owning worker; moves() from any thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/core/wait_slot.h"

namespace asyncscope {

class WaiterCpu {
 public:
  static constexpr int64_t kMoveEveryNs = 1'000'000;
  static constexpr int64_t kMoveEveryMaxNs = 1'000'000'000;
  // A free CPU takes the moving thread within microseconds; a busy one only
  // after the running thread's slice.
  static constexpr int64_t kSlowMoveNs = 200'000;

  // Called by the worker about to idle after it signalled `waiter`.
  void after_signal(const WaitSlot& waiter) noexcept;
  // Times the worker moved.
  uint64_t moves() const noexcept { return moves_.load(std::memory_order_relaxed); }

 private:
  int64_t last_look_ns_ = INT64_MIN / 2;  // trace clock
  int64_t look_every_ns_ = kMoveEveryNs;
  std::atomic<uint64_t> moves_{0};
};

}  // namespace asyncscope
