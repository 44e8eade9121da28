// Trace time base: int64 nanoseconds on std::chrono::steady_clock.
// Threading: any thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace asyncscope::trace {

// Absolute steady_clock time in ns. Events store absolute times (cheapest for
// writers); readers subtract the recorder's origin to get "ns since run start".
inline int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace asyncscope::trace
