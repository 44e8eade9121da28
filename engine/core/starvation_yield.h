// Starvation yield, a scheduling policy of ThreadedEngine.
//
// Why: on a machine with no idle core, a worker woken by the frontend can
// wait behind it on its core until the kernel's scheduler moves it, up to a
// scheduler tick (milliseconds), which can be the frontend's whole run-ahead
// loop: the ops pile up and run only at the next sync point (bench:
// BM_TinyOpLoopQuietVsLoaded, under a competing load; docs/PERFORMANCE.md).
//
// What: every kLookEvery-th push of a thread looks whether ops wait, no
// worker runs one, and none finished since its last look; the second such
// look in a row means the workers get no core, and the thread gives its own
// away once (std::this_thread::yield).
//
// Threading: the pushing thread (its PusherState).
#pragma once

#include <cstdint>
#include <thread>

#include "engine/core/pusher_state.h"

namespace asyncscope {

struct StarvationYield {
  static constexpr uint32_t kLookEvery = 32;

  // After a push. starved() says whether ops wait while no worker runs one;
  // finished() reads the engine's finished count. Both are read only at a
  // look.
  template <class Starved, class Finished>
  static void after_push(PusherState& pusher, Starved&& starved, Finished&& finished) noexcept {
    if (++pusher.pushes % kLookEvery != 0) [[likely]] return;
    look(pusher, starved, finished);
  }

 private:
  // Out of line: 31 pushes in 32 do not look, and push stays small.
  template <class Starved, class Finished>
  [[gnu::noinline]] static void look(PusherState& pusher, Starved& starved, Finished& finished) noexcept {
    if (!starved()) {
      pusher.finished = UINT64_MAX;
      return;
    }
    const uint64_t done = finished();
    if (done == pusher.finished) std::this_thread::yield();
    pusher.finished = done;
  }
};

}  // namespace asyncscope
