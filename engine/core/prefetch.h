// prefetch_for_write: asks for a cache line in exclusive state ahead of a
// store or an atomic on it, so that the transfer from another core's cache
// overlaps with other work.
//
// GCC emits PREFETCHW for __builtin_prefetch(p, 1) only when told the CPU
// has it (-mprfchw); a plain read prefetch brings the line shared, and the
// first store then waits for a second round trip to invalidate the other
// core's copy. PREFETCHW is in the 0F 0D group, which x86-64 CPUs without it
// execute as a no-op.
// prefetch_lines / prefetch_lines_for_write: the same for every cache line
// an object of `bytes` at `p` touches, asked for all at once.
// Threading: any thread; it is only a hint and never faults.
#pragma once

#include <cstddef>
#include <cstdint>

namespace asyncscope {

inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

namespace detail {

template <class Prefetch>
void each_line(const void* p, size_t bytes, Prefetch prefetch) noexcept {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{63};
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  for (uintptr_t line = begin; line < end; line += 64) prefetch(reinterpret_cast<const char*>(line));
}

}  // namespace detail

inline void prefetch_lines(const void* p, size_t bytes) noexcept {
  detail::each_line(p, bytes, [](const char* line) { __builtin_prefetch(line); });
}

inline void prefetch_lines_for_write(const void* p, size_t bytes) noexcept {
  detail::each_line(p, bytes, [](const char* line) { prefetch_for_write(line); });
}

}  // namespace asyncscope
