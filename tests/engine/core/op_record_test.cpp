// The op-record pool: records released on one thread (a worker) come back to
// another (the frontend) through the global pool, a chain at a time, reset,
// and concurrent churn loses or duplicates none.
#include "engine/core/op_record.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace asyncscope {
namespace {

std::vector<OpRecord*> acquire_on_new_thread(size_t n) {
  std::vector<OpRecord*> out;
  std::thread([&] {
    for (size_t i = 0; i < n; ++i) out.push_back(acquire_op_record());
  }).join();
  return out;
}

void release_on_new_thread(const std::vector<OpRecord*>& records) {
  std::thread([&] {
    for (OpRecord* op : records) release_op_record(op);
  }).join();  // the thread's cache goes to the global pool when it exits
}

TEST(OpRecordPool, RecordsReleasedOnOneThreadAreReusedOnAnother) {
  // 1000 is not a multiple of the chain length, so partial chains travel too.
  const std::vector<OpRecord*> first = acquire_on_new_thread(1000);
  release_on_new_thread(first);
  const std::set<OpRecord*> released(first.begin(), first.end());
  ASSERT_EQ(released.size(), first.size());

  // The released chains are the newest in the global pool, and a fresh thread
  // starts with an empty cache: everything it gets is one of them.
  const std::vector<OpRecord*> second = acquire_on_new_thread(1000);
  const std::set<OpRecord*> reused(second.begin(), second.end());
  EXPECT_EQ(reused.size(), second.size()) << "a record was handed out twice";
  EXPECT_EQ(reused, released);
  release_on_new_thread(second);
}

TEST(OpRecordPool, ARecycledRecordIsReset) {
  auto owner = std::make_shared<int>(7);
  std::vector<OpRecord*> records = acquire_on_new_thread(300);
  for (OpRecord* op : records) {
    op->fn = [owner](const RunContext&) {};
    op->heap_links = std::make_unique<VarLink[]>(9);
  }
  EXPECT_EQ(owner.use_count(), 301);
  release_on_new_thread(records);
  EXPECT_EQ(owner.use_count(), 1) << "release must drop the function and what it captured";
  records = acquire_on_new_thread(300);
  for (OpRecord* op : records) {
    EXPECT_FALSE(op->fn);
    EXPECT_EQ(op->heap_links, nullptr);
    EXPECT_EQ(op->slot, nullptr);
    EXPECT_EQ(op->next, nullptr);
  }
  release_on_new_thread(records);
}

// Frontends acquire and hand records to workers that release them, as the
// engine does. A shared registry of the records currently held catches a
// record handed out while someone still holds it.
TEST(OpRecordPool, ConcurrentChurnNeverHandsOutAHeldRecord) {
  constexpr int kPairs = 2;
  constexpr int kPerPair = 100'000;
  std::mutex held_mutex;
  std::set<OpRecord*> held;
  int duplicates = 0;
  const auto take = [&](OpRecord* op) {
    std::lock_guard lock(held_mutex);
    if (!held.insert(op).second) ++duplicates;
  };
  const auto give_back = [&](OpRecord* op) {
    std::lock_guard lock(held_mutex);
    held.erase(op);
  };

  std::vector<std::thread> threads;
  for (int p = 0; p < kPairs; ++p) {
    auto handoff = std::make_shared<std::vector<OpRecord*>>();
    auto mutex = std::make_shared<std::mutex>();
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads.emplace_back([=, &take] {
      for (int i = 0; i < kPerPair; ++i) {
        OpRecord* op = acquire_op_record();
        take(op);
        std::lock_guard lock(*mutex);
        handoff->push_back(op);
      }
      done->store(true);
    });
    threads.emplace_back([=, &give_back] {
      std::vector<OpRecord*> batch;
      for (bool last = false; !last;) {
        last = done->load();  // whatever was pushed before done is in handoff now
        {
          std::lock_guard lock(*mutex);
          batch.swap(*handoff);
        }
        for (OpRecord* op : batch) {
          give_back(op);  // before release: the next owner may take it at once
          release_op_record(op);
        }
        batch.clear();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(duplicates, 0);
  EXPECT_TRUE(held.empty());
}

}  // namespace
}  // namespace asyncscope
