// Template definitions for wait_slot.h.
#pragma once

#include <thread>

#include "engine/core/spin_lock.h"
#include "engine/trace/clock.h"

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

template <class Stalled>
void WaitSlot::wait(Stalled stalled) noexcept {
  const auto signalled = [this] { return state.load(std::memory_order_acquire) != 0; };
  if (!spin_until(signalled, kWaitSlotSpinNs, stalled)) {
    around_sleep([this] {
      while (state.load(std::memory_order_acquire) == 0) state.wait(0, std::memory_order_acquire);
    });
  }
  // Tells a signaller that may be spinning on this core that it can stop
  // yielding to us (see unseen()).
  state.store(2, std::memory_order_relaxed);
}

}  // namespace asyncscope
