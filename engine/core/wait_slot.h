// WaitSlot: where a thread blocked in a sync point waits to be signalled.
// Each thread owns one slot for its lifetime; slots come from a process-wide
// pool and are never freed, so a signaller that notifies a little late never
// touches freed memory (a late notify is only a spurious wake-up).
// Threading: wait() from the owning thread; signal() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

#include "engine/core/cpu_placement.h"

namespace asyncscope {

// How long a waiter spins before it sleeps on the futex.
inline constexpr int64_t kWaitSlotSpinNs = 20'000;

struct alignas(64) WaitSlot {  // own cache line: the signaller writes it while the owner spins on it
  std::atomic<uint32_t> state{0};  // 0: waiting, 1: signalled, 2: the owner saw the signal
  std::exception_ptr error;        // the waited-on var's error, copied while its read was granted
  // The CPU the owner armed the slot on (-1: unknown); on this line, which
  // the signaller reads anyway, it tells the signaller whether the two share
  // a CPU (ThreadedEngine then moves its worker away). Atomic: the owner may
  // arm its next wait while the last signaller still reads it.
  std::atomic<int> cpu{-1};

  void arm() noexcept {
    error = nullptr;
    cpu.store(current_cpu(), std::memory_order_relaxed);
    state.store(0, std::memory_order_relaxed);
  }
  void signal(std::exception_ptr e) noexcept {
    error = std::move(e);
    state.store(1, std::memory_order_release);
    state.notify_one();
  }
  // Spins briefly (a short op often finishes within microseconds), then
  // sleeps. stalled() is asked every few spins; true says that whoever must
  // signal cannot run while this thread spins (it waits for this core), so
  // the thread yields at once instead of after its usual stretch of spinning.
  template <class Stalled>
  void wait(Stalled stalled) noexcept;
  void wait() noexcept {
    wait([] { return false; });
  }
  // Whether the owner has not seen the signal yet: it was not running since.
  // A signaller that sees this while it spins on the same core should yield.
  bool unseen() const noexcept { return state.load(std::memory_order_relaxed) == 1; }
};

// The calling thread's slot.
WaitSlot& this_thread_wait_slot();

// What a thread does around the sleep of a sync point (a wait that spun
// its while and now blocks in the kernel): a Python thread keeps the
// interpreter lock through the spin, since most waits end within
// microseconds and the lock's release and re-take cost a tenth of a short
// round trip, and releases it only to sleep.
// Threading: each thread sets its own hook (ScopedSleepHook) and only that
// thread runs it.
class SleepHook {
 public:
  virtual void before_sleep() noexcept = 0;
  virtual void after_sleep() noexcept = 0;

 protected:
  ~SleepHook() = default;
};

// Makes `hook` the calling thread's for the scope's lifetime.
class ScopedSleepHook {
 public:
  explicit ScopedSleepHook(SleepHook& hook) noexcept;
  ~ScopedSleepHook();
  ScopedSleepHook(const ScopedSleepHook&) = delete;
  ScopedSleepHook& operator=(const ScopedSleepHook&) = delete;

 private:
  SleepHook* previous_;
};

// The calling thread's hook, or null.
SleepHook* this_thread_sleep_hook() noexcept;

// Runs sleep() (a block in the kernel) inside the calling thread's hook.
template <class F>
void around_sleep(F&& sleep) noexcept {
  SleepHook* hook = this_thread_sleep_hook();
  if (hook != nullptr) hook->before_sleep();
  sleep();
  if (hook != nullptr) hook->after_sleep();
}

// Spins for up to `spin_ns` on pred() (yielding now and then), returning true
// as soon as it holds; false if the time ran out. yield_now() is asked every
// 8 spins (about 0.4 us on a CPU whose pause takes 45 ns) and makes the thread
// yield at once when true; otherwise it yields every 64 spins.
template <class Pred, class YieldNow>
bool spin_until(Pred pred, int64_t spin_ns, YieldNow yield_now);
template <class Pred>
bool spin_until(Pred pred, int64_t spin_ns) {
  return spin_until(pred, spin_ns, [] { return false; });
}

}  // namespace asyncscope

#include "engine/core/wait_slot_inl.h"
