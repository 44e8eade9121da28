#include "engine/core/waiter_cpu.h"

#include <algorithm>

#include "engine/core/cpu_placement.h"
#include "engine/trace_record/clock.h"

namespace asyncscope {

void WaiterCpu::after_signal(const WaitSlot& waiter) noexcept {
  const int cpu = waiter.cpu.load(std::memory_order_relaxed);
  if (cpu < 0 || current_cpu() != cpu) return;
  const int64_t now = trace::now_ns();
  if (now - last_look_ns_ < look_every_ns_) return;
  last_look_ns_ = now;  // a look, moved or not: the files below are read at most this often
  // Apart, the worker and the waiter need a CPU each; with other processes
  // holding the rest, the two are better off sharing one.
  if (!cpus_free_for(2) || !move_to_another_cpu()) return;
  moves_.fetch_add(1, std::memory_order_relaxed);
  // The call returns once this thread runs on its new CPU.
  const int64_t took = trace::now_ns() - now;
  look_every_ns_ = took > kSlowMoveNs ? std::min(look_every_ns_ * 2, kMoveEveryMaxNs) : kMoveEveryNs;
}

}  // namespace asyncscope
