#include "engine/core/wait_slot.h"

#include <mutex>
#include <vector>

namespace asyncscope {
namespace {

constexpr int64_t kSpinNs = 20'000;

struct SlotPool {
  std::mutex mutex;
  std::vector<WaitSlot*> free;
};

SlotPool& slot_pool() {
  static SlotPool* pool = new SlotPool;  // leaked on purpose: slots must outlive every signaller
  return *pool;
}

struct ThreadSlot {
  WaitSlot* slot;
  ThreadSlot() {
    SlotPool& p = slot_pool();
    std::lock_guard lock(p.mutex);
    if (p.free.empty()) {
      slot = new WaitSlot;
    } else {
      slot = p.free.back();
      p.free.pop_back();
    }
  }
  ~ThreadSlot() {
    SlotPool& p = slot_pool();
    std::lock_guard lock(p.mutex);
    p.free.push_back(slot);
  }
};

}  // namespace

void WaitSlot::wait() noexcept {
  if (spin_until([this] { return state.load(std::memory_order_acquire) != 0; }, kSpinNs)) return;
  while (state.load(std::memory_order_acquire) == 0) state.wait(0, std::memory_order_acquire);
}

WaitSlot& this_thread_wait_slot() {
  thread_local ThreadSlot slot;
  return *slot.slot;
}

}  // namespace asyncscope
