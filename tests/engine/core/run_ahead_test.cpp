// The run-ahead policy's unit: when a thread counts as running ahead, what a
// wait resets, and when a worker holds an op (and when it must not).
#include "engine/core/run_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace asyncscope {
namespace {

TEST(RunAhead, AThreadRunsAheadAfterItsThresholdOfPushesUntilItWaits) {
  RunAhead policy;
  const uint64_t engine = new_engine_serial();
  PusherState& pusher = pusher_state(engine);
  for (uint32_t i = 0; i < RunAhead::kRunAheadAfter; ++i) ASSERT_FALSE(RunAhead::note_push(pusher)) << i;
  EXPECT_TRUE(RunAhead::note_push(pusher));
  EXPECT_TRUE(RunAhead::note_push(pusher));
  { const RunAhead::WaitScope wait(policy, engine, /*blocking=*/false); }
  EXPECT_FALSE(RunAhead::note_push(pusher)) << "a wait starts the count again";
}

// The frontend pushes while the worker holds (the pushes start once the
// hold has: pushed before, they would leave nothing to hold for). The hold
// ends, on those pushes or at its idle limit, whichever comes first.
TEST(RunAhead, AHoldEndsOnceEnoughOpsWerePushedBehindIt) {
  RunAhead policy;
  RunAhead::WorkerState worker;
  std::atomic<uint32_t> running{0};
  OpRecord op;
  op.id = 100;
  std::atomic<uint64_t> last{100};
  std::thread pusher([&] {
    for (int i = 0; running.load() == 0 && i < 1000000; ++i) std::this_thread::yield();  // bounded: a test, not a hang
    for (uint64_t i = 0; i < RunAhead::kHoldBackOps; ++i) last.fetch_add(1);
  });
  policy.hold_back(worker, op, [&last] { return last.load(); }, running);
  pusher.join();
  EXPECT_EQ(worker.held_back.load(), 1u);
  EXPECT_EQ(running.load(), 1u) << "a held op counts as running";
}

TEST(RunAhead, NoHoldWhileSomebodyWaitsOrWhenFarBehind) {
  RunAhead policy;
  std::atomic<uint32_t> running{0};
  OpRecord op;
  op.id = 10;
  {
    RunAhead::WorkerState worker;
    const RunAhead::WaitScope wait(policy, new_engine_serial(), /*blocking=*/true);
    policy.hold_back(worker, op, [] { return uint64_t{10}; }, running);
    EXPECT_EQ(worker.held_back.load(), 0u) << "a waiter never waits for a hold";
  }
  {
    RunAhead::WorkerState worker;
    policy.hold_back(worker, op, [] { return uint64_t{10} + RunAhead::kHoldBackOps; }, running);
    EXPECT_EQ(worker.held_back.load(), 0u) << "enough pushed behind it already";
  }
  {
    // Nothing more is pushed: the hold ends after kHoldBackIdleNs.
    RunAhead::WorkerState worker;
    policy.hold_back(worker, op, [] { return uint64_t{10}; }, running);
    EXPECT_EQ(worker.held_back.load(), 1u);
  }
}

TEST(PusherState, ARecordIsAboutOneEngineAndStartsAgainForAnother) {
  const uint64_t a = new_engine_serial();
  const uint64_t b = new_engine_serial();
  EXPECT_NE(a, b);
  pusher_state(a).since_wait = 7;
  EXPECT_EQ(pusher_state(a).since_wait, 7u);
  EXPECT_EQ(pusher_state(b).since_wait, 0u);
  EXPECT_EQ(pusher_state(a).since_wait, 0u) << "one record per thread: back to a starts again";
  uint32_t other_thread = 99;
  pusher_state(a).since_wait = 5;
  std::thread([&] { other_thread = pusher_state(a).since_wait; }).join();
  EXPECT_EQ(other_thread, 0u) << "each thread has its own record";
}

}  // namespace
}  // namespace asyncscope
