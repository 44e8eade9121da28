// What a thread that pushes ops keeps about the engine it pushes to: the
// per-thread state of the scheduling policies that watch the frontend (the
// run-ahead hold-back counts pushes since the thread's last wait; the
// starvation yield counts pushes between its looks). One record per
// thread, for the engine it pushed to last: a thread that alternates
// between engines starts again at each switch, which only delays a policy
// by a few dozen pushes.
//
// Engines are told apart by a serial number, never reused, so an engine
// made where a destroyed one lived does not inherit its counts.
// Threading: each thread reads and writes its own record only.
#pragma once

#include <cstdint>

namespace asyncscope {

struct PusherState {
  uint64_t engine = 0;             // the serial of the engine this record is about
  uint32_t pushes = 0;             // pushes, for the starvation look (starvation_yield.h)
  uint64_t finished = UINT64_MAX;  // the engine's finished count at the last look that found it starved
  uint32_t since_wait = 0;         // pushes since the thread's last wait (run_ahead.h)
};

// A serial number for a new engine (never 0).
uint64_t new_engine_serial() noexcept;

namespace detail {
inline thread_local PusherState tls_pusher_state;
}  // namespace detail

// The calling thread's record for the engine `serial`, reset if it was
// about another engine. Inline: push reads it once per op.
inline PusherState& pusher_state(uint64_t serial) noexcept {
  PusherState& p = detail::tls_pusher_state;
  if (p.engine != serial) [[unlikely]] p = PusherState{serial};
  return p;
}

}  // namespace asyncscope
