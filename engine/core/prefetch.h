// prefetch_for_write: asks for a cache line in exclusive state ahead of a
// store or an atomic on it, so that the transfer from another core's cache
// overlaps with other work.
//
// GCC emits PREFETCHW for __builtin_prefetch(p, 1) only when told the CPU
// has it (-mprfchw); a plain read prefetch brings the line shared, and the
// first store then waits for a second round trip to invalidate the other
// core's copy. PREFETCHW is in the 0F 0D group, which x86-64 CPUs without it
// execute as a no-op.
// Threading: any thread; it is only a hint and never faults.
#pragma once

namespace asyncscope {

inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

}  // namespace asyncscope
