// WaitSlot: where a thread blocked in a sync point waits to be signalled.
// Each thread owns one slot at a time; slots come from a process-wide pool
// and are never freed, so a signaller that wakes a little late never touches
// freed memory (a late wake is only a spurious wake-up).
//
// A wait whose thread is interrupted while it sleeps (Ctrl+C in Python, a
// stopped run) leaves the slot to its signaller: the owner marks it
// abandoned and takes a fresh slot from the pool; the signaller, finding it
// abandoned, puts it back in the pool instead of waking anyone.
//
// Threading: wait() from the owning thread; signal() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

#include "engine/core/cpu_placement.h"
#include "engine/core/futex.h"

namespace asyncscope {

// How long a waiter spins before it sleeps on the futex.
inline constexpr int64_t kWaitSlotSpinNs = 20'000;
// The same on an engine with GPU streams: a waited tiny GPU op takes a
// launch (a few microseconds per CUDA call), its time on the device and the
// completer's look, often more than kWaitSlotSpinNs, and a futex wake-up
// would add several microseconds more.
inline constexpr int64_t kGpuWaitSpinNs = 100'000;
// How long a GPU stream's completer looks for the next launched op before it
// sleeps (threaded_engine.cpp).
inline constexpr int64_t kCompleterSpinNs = 50'000;

class SleepHook;

struct alignas(64) WaitSlot {  // own cache line: the signaller writes it while the owner spins on it
  // The owner's and the signaller's states.
  static constexpr uint32_t kWaiting = 0;    // armed; the owner spins
  static constexpr uint32_t kSignalled = 1;  // the signaller is done; the owner has not seen it yet
  static constexpr uint32_t kSeen = 2;       // the owner saw the signal
  static constexpr uint32_t kSleeping = 3;   // armed; the owner sleeps on the futex (a signal must wake it)
  static constexpr uint32_t kAbandoned = 4;  // the owner's wait was interrupted: the signaller recycles the slot

  std::atomic<uint32_t> state{kWaiting};
  std::exception_ptr error;  // the waited-on var's error, copied while its read was granted
  // The CPU the owner armed the slot on (-1: unknown); on this line, which
  // the signaller reads anyway, it tells the signaller whether the two share
  // a CPU (ThreadedEngine then moves its worker away). Atomic: the owner may
  // arm its next wait while the last signaller still reads it.
  std::atomic<int> cpu{-1};

  void arm() noexcept {
    error = nullptr;
    cpu.store(current_cpu(), std::memory_order_relaxed);
    state.store(kWaiting, std::memory_order_relaxed);
  }
  // The system call is made only for an owner that went to sleep.
  void signal(std::exception_ptr e) noexcept {
    error = std::move(e);
    const uint32_t before = state.exchange(kSignalled, std::memory_order_acq_rel);
    if (before == kSleeping) {
      futex_wake(state, 1);
    } else if (before == kAbandoned) {
      recycle();
    }
  }
  // Spins briefly (a short op often finishes within microseconds), then
  // sleeps. stalled() is asked every few spins; true says that whoever must
  // signal cannot run while this thread spins (it waits for this core), so
  // the thread yields at once instead of after its usual stretch of spinning.
  // Returns false if the thread's sleep hook ended the wait before the
  // signal (SleepHook::interrupted): the slot is then abandoned to its
  // signaller and the thread has a fresh one. Only the thread's own slot
  // (this_thread_wait_slot) is ever given up; a wait on another goes on.
  template <class Stalled>
  [[nodiscard]] bool wait(int64_t spin_ns, Stalled stalled) noexcept;
  template <class Stalled>
  [[nodiscard]] bool wait(Stalled stalled) noexcept {
    return wait(kWaitSlotSpinNs, stalled);
  }
  [[nodiscard]] bool wait() noexcept {
    return wait([] { return false; });
  }
  // Whether the owner has not seen the signal yet: it was not running since.
  // A signaller that sees this while it spins on the same core should yield.
  bool unseen() const noexcept { return state.load(std::memory_order_relaxed) == kSignalled; }

 private:
  // The owner gives its sleeping wait up: false if the signal came first.
  // Otherwise the thread's slot is a fresh one, taken before the signaller
  // can see the abandonment (so never this slot, recycled meanwhile).
  bool abandon() noexcept;
  // Back to the pool, by the signaller of an abandoned slot.
  void recycle() noexcept;
};

// The calling thread's slot.
WaitSlot& this_thread_wait_slot();

// While it lives, the calling thread has another slot of its own: for code
// that runs inside a wait's sleep (a Python signal handler, which a sleep
// hook runs) and may wait itself, on a slot that the outer wait is not using.
class ScopedSpareWaitSlot {
 public:
  ScopedSpareWaitSlot();
  ~ScopedSpareWaitSlot();
  ScopedSpareWaitSlot(const ScopedSpareWaitSlot&) = delete;
  ScopedSpareWaitSlot& operator=(const ScopedSpareWaitSlot&) = delete;

 private:
  WaitSlot* saved_;
};

// What a thread does around the sleep of a sync point (a wait that spun
// its while and now blocks in the kernel): a Python thread keeps the
// interpreter lock through the spin, since most waits end within
// microseconds and the lock's release and re-take are a sizeable share of a
// short round trip, and releases it only to sleep. A hook may also ask the
// sleep to wake now and then to look for a reason to give up the wait
// (Python's Ctrl+C, a stopped run).
// Threading: each thread sets its own hook (ScopedSleepHook) and only that
// thread runs it.
class SleepHook {
 public:
  virtual void before_sleep() noexcept = 0;
  virtual void after_sleep() noexcept = 0;
  // How often a sleeping wait wakes to ask interrupted(), in ns (< 0: never).
  virtual int64_t poll_every_ns() const noexcept { return -1; }
  // Asked between before_sleep() and after_sleep(), at each wake-up that
  // found the wait not over: true gives the wait up (after_sleep() still
  // follows). The hook keeps the reason (a Python exception) for its caller.
  virtual bool interrupted() noexcept { return false; }

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

// Sleeps on `word` while asleep(word's value) holds, inside the calling
// thread's hook (before_sleep, after_sleep), waking as the hook asks to look
// at interrupted(). Returns false if the hook gave the wait up; then
// give_up(), called first, decides: it returns false if the wait ended after
// all (the sleep then ends as a normal one).
template <class Asleep, class GiveUp>
bool sleep_on(const std::atomic<uint32_t>& word, Asleep asleep, GiveUp give_up) noexcept;

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
