// The hand-off policies' units: a worker's LocalRun (frees first, one op kept
// only while the queue is empty) and the Mailbox protocol between a
// dispatcher and a worker that opens, closes and empties it, also when the
// two race.
#include "engine/core/hand_off.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace asyncscope {
namespace {

TEST(LocalRun, FreesRunFirstThenTheOneKeptOp) {
  LocalRun local;
  OpRecord op, free1, free2;
  const auto idle_queue = [] { return false; };
  EXPECT_TRUE(local.keep(&op, false, idle_queue));
  EXPECT_TRUE(local.keep(&free1, true, idle_queue));
  EXPECT_TRUE(local.keep(&free2, true, idle_queue));
  EXPECT_EQ(local.take(), &free2);
  EXPECT_EQ(local.take(), &free1);
  EXPECT_EQ(local.take(), &op);
  EXPECT_EQ(local.take(), nullptr);
}

TEST(LocalRun, KeepsOneOpAndNoneWhileTheQueueHasWork) {
  LocalRun local;
  OpRecord a, b, f;
  bool asked = false;
  EXPECT_FALSE(local.keep(&a, false, [&asked] { return asked = true; })) << "the queue has work: others would idle";
  EXPECT_TRUE(asked);
  EXPECT_TRUE(local.keep(&a, false, [] { return false; }));
  asked = false;
  EXPECT_FALSE(local.keep(&b, false, [&asked] { return asked = true; })) << "one op at a time";
  EXPECT_FALSE(asked) << "the queue is not looked at when nothing could be kept";
  EXPECT_TRUE(local.keep(&f, true, [] { return true; })) << "a free is always kept";
}

TEST(Mailbox, AClosedMailboxRefusesAndAnOpenOneTakesOneOp) {
  Mailbox box;
  ReadyQueue queue;
  OpRecord a, b;
  EXPECT_FALSE(box.offer(&a, queue));
  box.open();
  EXPECT_TRUE(box.offer(&a, queue));
  EXPECT_TRUE(box.holds());
  EXPECT_FALSE(box.offer(&b, queue)) << "one op at a time";
  EXPECT_EQ(box.close(), &a);
  EXPECT_FALSE(box.holds());
  EXPECT_EQ(box.close(), nullptr);
  EXPECT_FALSE(queue.maybe_nonempty());
}

// Dispatchers offer while the worker opens and closes its mailbox: every op
// ends up exactly once either with the worker (close) or refused (the
// dispatcher queues it) or in the queue (taken back for another).
TEST(Mailbox, RacingOffersAndClosesLoseAndDuplicateNoOp) {
  constexpr int kOps = 20000;
  std::vector<OpRecord> ops(kOps);
  Mailbox box;
  ReadyQueue queue;
  std::atomic<bool> done{false};
  std::atomic<bool> started{false};
  std::vector<OpRecord*> taken;
  std::thread worker([&] {
    while (!done.load()) {
      box.open();
      started.store(true);
      for (int i = 0; i < 20; ++i) std::this_thread::yield();
      if (OpRecord* op = box.close()) taken.push_back(op);
    }
    if (OpRecord* op = box.close()) taken.push_back(op);
  });
  while (!started.load()) std::this_thread::yield();
  std::vector<OpRecord*> refused;
  for (OpRecord& op : ops) {
    if (!box.offer(&op, queue)) refused.push_back(&op);
  }
  done.store(true);
  worker.join();
  std::vector<int> seen(kOps, 0);
  const auto count = [&](OpRecord* op) { ++seen[op - ops.data()]; };
  for (OpRecord* op : taken) count(op);
  for (OpRecord* op : refused) count(op);
  while (OpRecord* op = queue.try_pop()) count(op);
  for (int i = 0; i < kOps; ++i) ASSERT_EQ(seen[i], 1) << "op " << i;
}

}  // namespace
}  // namespace asyncscope
