// WaitSlot on its own: a waiter and a signalling thread, no engine. What is
// checked holds on a loaded machine: who sees which signal and error, and
// that no signal is lost, never how long a wait took.
#include "engine/core/wait_slot.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::run_with_timeout;

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Signals `slot` once per round, `delay(round)` after the waiter said it armed.
template <class Delay>
void signal_rounds(WaitSlot& slot, std::atomic<int>& armed, int rounds, Delay delay) {
  for (int r = 0; r < rounds; ++r) {
    while (armed.load(std::memory_order_acquire) <= r) std::this_thread::yield();
    std::this_thread::sleep_for(delay(r));
    slot.signal(r % 3 == 0 ? std::make_exception_ptr(std::runtime_error("round " + std::to_string(r))) : nullptr);
  }
}

// Waits `rounds` times on `slot` and checks each round's error. A failed
// check does not end the rounds early: the signaller would wait for them.
void wait_rounds(WaitSlot& slot, std::atomic<int>& armed, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    slot.arm();
    armed.store(r + 1, std::memory_order_release);
    slot.wait();
    if (r % 3 == 0) {
      EXPECT_TRUE(slot.error) << "round " << r;
      if (slot.error) {
        EXPECT_EQ(message_of(slot.error), "round " + std::to_string(r));
      }
    } else {
      EXPECT_FALSE(slot.error) << "round " << r;
    }
  }
}

TEST(WaitSlot, ASignalGivenBeforeTheWaitEndsItAtOnce) {
  WaitSlot slot;
  slot.arm();
  slot.signal(std::make_exception_ptr(std::runtime_error("early")));
  slot.wait();
  EXPECT_EQ(message_of(slot.error), "early");
}

TEST(WaitSlot, AWaiterThatFellAsleepIsWokenWithTheError) {
  run_with_timeout([] {
    WaitSlot slot;
    std::atomic<int> armed{0};
    std::thread signaller([&] { signal_rounds(slot, armed, 3, [](int) { return std::chrono::milliseconds(30); }); });
    wait_rounds(slot, armed, 3);  // each outlasts the spin (30 ms against 20 us)
    signaller.join();
  });
}

TEST(WaitSlot, NoSignalIsLostWhereverItLandsInTheWait) {
  // Phases of long, short and mixed waits, so that signals land in every
  // part of a wait: early in the spin, around its end, while the waiter
  // falls asleep and once it sleeps. A lost one would hang: the timeout fails it.
  run_with_timeout([] {
    WaitSlot slot;
    std::atomic<int> armed{0};
    constexpr int kRounds = 600;
    std::thread signaller([&] {
      std::mt19937 rng(7);
      signal_rounds(slot, armed, kRounds, [&rng](int r) -> std::chrono::microseconds {
        const int phase = (r / 50) % 3;
        if (phase == 0) return std::chrono::microseconds(2'000 + static_cast<int>(rng() % 1'000));
        if (phase == 1) return std::chrono::microseconds(rng() % 60);
        return std::chrono::microseconds(rng() % 2'500);
      });
    });
    wait_rounds(slot, armed, kRounds);
    signaller.join();
  });
}

// Counts its calls, and whether they came in pairs on the thread that set it.
struct CountingHook final : SleepHook {
  std::thread::id owner = std::this_thread::get_id();
  int before = 0;
  int after = 0;
  bool paired = true;
  void before_sleep() noexcept override {
    paired = paired && before == after && std::this_thread::get_id() == owner;
    ++before;
  }
  void after_sleep() noexcept override {
    ++after;
    paired = paired && before == after && std::this_thread::get_id() == owner;
  }
};

TEST(SleepHook, RunsAroundAWaitThatSleepsAndNotAroundOneThatEndsInItsSpin) {
  run_with_timeout([] {
    CountingHook hook;
    {
      ScopedSleepHook scope(hook);
      EXPECT_EQ(this_thread_sleep_hook(), &hook);
      WaitSlot slot;
      slot.arm();
      slot.signal(nullptr);
      slot.wait();  // signalled already: no sleep
      EXPECT_EQ(hook.before, 0);
      std::atomic<int> armed{0};
      std::thread signaller([&] { signal_rounds(slot, armed, 2, [](int) { return std::chrono::milliseconds(30); }); });
      wait_rounds(slot, armed, 2);  // each outlasts the spin
      signaller.join();
    }
    EXPECT_EQ(this_thread_sleep_hook(), nullptr);
    EXPECT_EQ(hook.before, 2);
    EXPECT_EQ(hook.after, 2);
    EXPECT_TRUE(hook.paired);
  });
}

TEST(SleepHook, ScopesNestAndEachThreadHasItsOwn) {
  CountingHook outer;
  CountingHook inner;
  ScopedSleepHook a(outer);
  {
    ScopedSleepHook b(inner);
    EXPECT_EQ(this_thread_sleep_hook(), &inner);
    SleepHook* seen = &inner;
    std::thread([&seen] { seen = this_thread_sleep_hook(); }).join();
    EXPECT_EQ(seen, nullptr);
  }
  EXPECT_EQ(this_thread_sleep_hook(), &outer);
}

}  // namespace
}  // namespace asyncscope
