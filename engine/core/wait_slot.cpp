#include "engine/core/wait_slot.h"

#include <mutex>
#include <vector>

namespace asyncscope {
namespace {

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

WaitSlot& this_thread_wait_slot() {
  thread_local ThreadSlot slot;
  return *slot.slot;
}

}  // namespace asyncscope
