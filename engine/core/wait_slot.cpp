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

WaitSlot* take_slot() {
  SlotPool& p = slot_pool();
  std::lock_guard lock(p.mutex);
  if (p.free.empty()) return new WaitSlot;
  WaitSlot* slot = p.free.back();
  p.free.pop_back();
  return slot;
}

void give_slot(WaitSlot* slot) {
  SlotPool& p = slot_pool();
  std::lock_guard lock(p.mutex);
  p.free.push_back(slot);
}

struct ThreadSlot {
  WaitSlot* slot = take_slot();
  ~ThreadSlot() { give_slot(slot); }
};

thread_local ThreadSlot tls_slot;
thread_local SleepHook* tls_sleep_hook = nullptr;

}  // namespace

bool WaitSlot::abandon() noexcept {
  WaitSlot* fresh = take_slot();
  uint32_t sleeping = kSleeping;
  if (!state.compare_exchange_strong(sleeping, kAbandoned, std::memory_order_acq_rel)) {
    give_slot(fresh);
    return false;
  }
  // This slot now belongs to its signaller, who recycles it.
  tls_slot.slot = fresh;
  return true;
}

void WaitSlot::recycle() noexcept {
  error = nullptr;
  // Seen: a signaller still looking at it (unseen()) is not made to yield.
  state.store(kSeen, std::memory_order_relaxed);
  give_slot(this);
}

ScopedSpareWaitSlot::ScopedSpareWaitSlot() : saved_(tls_slot.slot) { tls_slot.slot = take_slot(); }

ScopedSpareWaitSlot::~ScopedSpareWaitSlot() {
  // The spare, or the fresh one a wait given up inside the scope took instead.
  give_slot(tls_slot.slot);
  tls_slot.slot = saved_;
}

ScopedSleepHook::ScopedSleepHook(SleepHook& hook) noexcept : previous_(tls_sleep_hook) { tls_sleep_hook = &hook; }

ScopedSleepHook::~ScopedSleepHook() { tls_sleep_hook = previous_; }

SleepHook* this_thread_sleep_hook() noexcept { return tls_sleep_hook; }

WaitSlot& this_thread_wait_slot() { return *tls_slot.slot; }

}  // namespace asyncscope
