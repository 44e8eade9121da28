#include "engine/core/cpu_placement.h"

#if defined(__linux__)
#include <sched.h>
#endif

namespace asyncscope {

int current_cpu() noexcept {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

bool move_to_another_cpu() noexcept {
#if defined(__linux__)
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  if (!CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) return false;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  // Leaving the CPU is immediate: the call returns on another one.
  if (sched_setaffinity(0, sizeof others, &others) != 0) return false;
  sched_setaffinity(0, sizeof allowed, &allowed);
  return true;
#else
  return false;
#endif
}

}  // namespace asyncscope
