// WaitSlot: where a thread blocked in a sync point waits to be signalled.
// Each thread owns one slot for its lifetime; slots come from a process-wide
// pool and are never freed, so a signaller that notifies a little late never
// touches freed memory (a late notify is only a spurious wake-up).
// Threading: wait() from the owning thread; signal() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

namespace asyncscope {

struct alignas(64) WaitSlot {  // own cache line: the signaller writes it while the owner spins on it
  std::atomic<uint32_t> state{0};  // 0: waiting, 1: signalled
  std::exception_ptr error;        // the waited-on var's error, copied while its read was granted

  void arm() noexcept {
    error = nullptr;
    state.store(0, std::memory_order_relaxed);
  }
  void signal(std::exception_ptr e) noexcept {
    error = std::move(e);
    state.store(1, std::memory_order_release);
    state.notify_one();
  }
  // Spins briefly (a short op often finishes within microseconds), then sleeps.
  void wait() noexcept;
};

// The calling thread's slot.
WaitSlot& this_thread_wait_slot();

// Spins for up to `spin_ns` on pred() (yielding now and then), returning true
// as soon as it holds; false if the time ran out.
template <class Pred>
bool spin_until(Pred pred, int64_t spin_ns);

}  // namespace asyncscope

#include "engine/core/wait_slot_inl.h"
