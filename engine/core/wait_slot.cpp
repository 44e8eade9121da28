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

thread_local SleepHook* tls_sleep_hook = nullptr;

}  // namespace

ScopedSleepHook::ScopedSleepHook(SleepHook& hook) noexcept : previous_(tls_sleep_hook) { tls_sleep_hook = &hook; }

ScopedSleepHook::~ScopedSleepHook() { tls_sleep_hook = previous_; }

SleepHook* this_thread_sleep_hook() noexcept { return tls_sleep_hook; }

WaitSlot& this_thread_wait_slot() {
  thread_local ThreadSlot slot;
  return *slot.slot;
}

}  // namespace asyncscope
