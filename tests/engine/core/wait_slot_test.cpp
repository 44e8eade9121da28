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
#include <utility>

#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::run_with_timeout;

// An error whose text is its own copy: std::runtime_error shares its text
// between copies through a reference count inside libstdc++, which
// ThreadSanitizer cannot see, so a signaller dropping its copy while the
// waiter reads the slot's would be reported as a race.
class RoundError : public std::exception {
 public:
  explicit RoundError(std::string text) : text_(std::move(text)) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

std::exception_ptr round_error(const std::string& text) { return std::make_exception_ptr(RoundError(text)); }

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
    slot.signal(r % 3 == 0 ? round_error("round " + std::to_string(r)) : nullptr);
  }
}

// Waits `rounds` times on `slot` and checks each round's error. A failed
// check does not end the rounds early: the signaller would wait for them.
void wait_rounds(WaitSlot& slot, std::atomic<int>& armed, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    slot.arm();
    armed.store(r + 1, std::memory_order_release);
    EXPECT_TRUE(slot.wait());
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
  slot.signal(round_error("early"));
  EXPECT_TRUE(slot.wait());
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
      EXPECT_TRUE(slot.wait());  // signalled already: no sleep
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

// Asks the sleep to wake every millisecond and gives the wait up at its
// `give_up_at`-th look (0: never).
struct InterruptingHook final : SleepHook {
  int give_up_at = 0;
  int looks = 0;
  int before = 0;
  int after = 0;
  void before_sleep() noexcept override { ++before; }
  void after_sleep() noexcept override { ++after; }
  int64_t poll_every_ns() const noexcept override { return 1'000'000; }
  bool interrupted() noexcept override { return ++looks == give_up_at; }
};

TEST(SleepHook, AWaitGivenUpLeavesItsSlotToTheSignallerAndTheThreadWaitsOnAFreshOne) {
  run_with_timeout([] {
    InterruptingHook hook;
    hook.give_up_at = 3;
    ScopedSleepHook scope(hook);
    WaitSlot& first = this_thread_wait_slot();
    first.arm();
    std::atomic<bool> given_up{false};
    std::thread late([&] {
      while (!given_up.load()) std::this_thread::yield();
      first.signal(round_error("late"));  // recycles the abandoned slot
    });
    EXPECT_FALSE(first.wait());
    given_up.store(true);
    late.join();
    EXPECT_EQ(hook.looks, 3);
    EXPECT_EQ(hook.before, 1);
    EXPECT_EQ(hook.after, 1);
    WaitSlot& second = this_thread_wait_slot();
    EXPECT_NE(&second, &first);
    // The fresh slot works as any: a wait that sleeps and is signalled.
    hook.give_up_at = 0;
    std::atomic<int> armed{0};
    std::thread signaller([&] { signal_rounds(second, armed, 3, [](int) { return std::chrono::milliseconds(5); }); });
    wait_rounds(second, armed, 3);
    signaller.join();
  });
}

TEST(SleepHook, ASignalThatBeatsTheGivingUpEndsTheWaitNormally) {
  // Many rounds in which the signal and the hook's look race: each wait
  // either ends with its signal or is given up, and no signal is lost or
  // delivered to the wrong wait (a lost one would hang the signaller's join).
  run_with_timeout([] {
    InterruptingHook hook;
    ScopedSleepHook scope(hook);
    std::mt19937 rng(11);
    int ended = 0;
    int given_up = 0;
    for (int r = 0; r < 200; ++r) {
      hook.looks = 0;
      hook.give_up_at = 1 + static_cast<int>(rng() % 2);
      WaitSlot& slot = this_thread_wait_slot();
      slot.arm();
      const auto delay = std::chrono::microseconds(500 + rng() % 2'500);
      std::thread signaller([&slot, delay, r] {
        std::this_thread::sleep_for(delay);
        slot.signal(round_error("round " + std::to_string(r)));
      });
      if (slot.wait()) {
        ++ended;
        EXPECT_EQ(message_of(slot.error), "round " + std::to_string(r));
      } else {
        ++given_up;
        EXPECT_NE(&this_thread_wait_slot(), &slot);
      }
      signaller.join();
    }
    EXPECT_EQ(ended + given_up, 200);
  });
}

// Code that a sleep hook runs inside a wait (a Python signal handler) and
// that waits itself gets a slot of its own; the outer wait's comes back.
TEST(SleepHook, ASpareSlotStandsInForTheThreadsOwnWhileItLives) {
  WaitSlot& own = this_thread_wait_slot();
  {
    const ScopedSpareWaitSlot spare;
    WaitSlot& inner = this_thread_wait_slot();
    EXPECT_NE(&inner, &own);
    inner.arm();
    inner.signal(nullptr);
    EXPECT_TRUE(inner.wait());
  }
  EXPECT_EQ(&this_thread_wait_slot(), &own);
}

TEST(SleepHook, AWaitOnASlotThatIsNotTheThreadsOwnIsNeverGivenUp) {
  run_with_timeout([] {
    InterruptingHook hook;
    hook.give_up_at = 1;
    ScopedSleepHook scope(hook);
    WaitSlot slot;  // not this thread's
    std::atomic<int> armed{0};
    std::thread signaller([&] { signal_rounds(slot, armed, 1, [](int) { return std::chrono::milliseconds(20); }); });
    wait_rounds(slot, armed, 1);
    signaller.join();
    EXPECT_GE(hook.looks, 1);
  });
}

}  // namespace
}  // namespace asyncscope
