// Template definitions for wait_slot.h.
#pragma once

#include <thread>

#include "engine/core/spin_lock.h"
#include "engine/trace_record/clock.h"

namespace asyncscope {

template <class Pred, class YieldNow>
bool spin_until(Pred pred, int64_t spin_ns, YieldNow yield_now) {
  const int64_t deadline = trace::now_ns() + spin_ns;
  for (unsigned i = 1;; ++i) {
    if (pred()) return true;
    if ((i & 63) == 0) {
      if (trace::now_ns() > deadline) return false;
      std::this_thread::yield();  // lets a worker sharing this core make progress
    } else if ((i & 7) == 0 && yield_now()) {
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
  }
}

template <class Asleep, class GiveUp>
bool sleep_on(const std::atomic<uint32_t>& word, Asleep asleep, GiveUp give_up) noexcept {
  SleepHook* hook = this_thread_sleep_hook();
  const int64_t poll_ns = hook != nullptr ? hook->poll_every_ns() : -1;
  if (hook != nullptr) hook->before_sleep();
  bool ended = true;
  for (;;) {
    const uint32_t seen = word.load(std::memory_order_acquire);
    if (!asleep(seen)) break;
    futex_wait(word, seen, poll_ns);
    if (poll_ns >= 0 && asleep(word.load(std::memory_order_acquire)) && hook->interrupted() && give_up()) {
      ended = false;
      break;
    }
  }
  if (hook != nullptr) hook->after_sleep();
  return ended;
}

template <class Stalled>
bool WaitSlot::wait(int64_t spin_ns, Stalled stalled) noexcept {
  const auto signalled = [this] {
    const uint32_t s = state.load(std::memory_order_acquire);
    return s == kSignalled;
  };
  if (!spin_until(signalled, spin_ns, stalled)) {
    uint32_t expected = kWaiting;
    // Asleep from here: the signaller, seeing kSleeping, makes the wake-up call.
    if (state.compare_exchange_strong(expected, kSleeping, std::memory_order_acq_rel)) {
      const bool ended = sleep_on(
          state, [](uint32_t s) { return s == kSleeping; },
          [this] {
            // Only a thread's own slot can be left behind (it has a pool slot to take instead).
            return this == &this_thread_wait_slot() && abandon();
          });
      if (!ended) return false;
    }
  }
  // Tells a signaller that may be spinning on this core that it can stop
  // yielding to us (see unseen()).
  state.store(kSeen, std::memory_order_relaxed);
  return true;
}

}  // namespace asyncscope
