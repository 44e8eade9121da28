// Template definitions for wait_slot.h.
#pragma once

#include <thread>

#include "engine/core/spin_lock.h"
#include "engine/trace/clock.h"

namespace asyncscope {

template <class Pred>
bool spin_until(Pred pred, int64_t spin_ns) {
  const int64_t deadline = trace::now_ns() + spin_ns;
  for (unsigned i = 1;; ++i) {
    if (pred()) return true;
    if ((i & 63) == 0) {
      if (trace::now_ns() > deadline) return false;
      std::this_thread::yield();  // lets a worker sharing this core make progress
    } else {
      cpu_relax();
    }
  }
}

}  // namespace asyncscope
