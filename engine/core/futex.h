// A thread sleeping on a 32-bit atomic until another thread changes it and
// wakes it, with a time limit: what std::atomic::wait/notify do, plus the
// timeout that a sync point needs to look at Ctrl+C and a stop now and then.
// The sleeper and the waker must both use these functions (libstdc++'s
// notify skips the system call when its own records show no sleeper).
// Threading: any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace asyncscope {

// Sleeps while `word` holds `expected`, for at most `timeout_ns` (< 0: no
// limit). Returns after a wake, a timeout, a signal delivered to the thread
// or a spurious wake-up: the caller looks at `word` again.
void futex_wait(const std::atomic<uint32_t>& word, uint32_t expected, int64_t timeout_ns) noexcept;

// Wakes up to `count` threads sleeping on `word` (INT32_MAX: all).
void futex_wake(const std::atomic<uint32_t>& word, int count) noexcept;

}  // namespace asyncscope
