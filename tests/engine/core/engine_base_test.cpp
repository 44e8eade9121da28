// VarPool: vars given back are taken again a batch at a time (so the pool
// stays near the most vars ever in use), every var taken is a new var to the
// trace, and threads taking and giving at once never share a var.
#include "engine/core/engine_base.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace asyncscope {
namespace {

TEST(VarPool, OneVarInUseAtATimeCyclesThroughAFewBatchesWithNewIds) {
  VarPool pool;
  std::set<Var*> seen;
  uint64_t last_id = 0;
  for (int i = 0; i < 10'000; ++i) {
    Var* var = pool.acquire();
    EXPECT_GT(var->id(), last_id);
    last_id = var->id();
    EXPECT_EQ(var->error, nullptr);
    var->error = std::make_exception_ptr(1);  // what a failed op leaves
    seen.insert(var);
    pool.release(var);
  }
  // A batch is 32: the first two are made before the given stack holds a
  // batch, after that the pool takes back what was given.
  EXPECT_LE(seen.size(), 96u);
}

TEST(VarPool, ManyInUseAreRecycledOnceGivenBack) {
  VarPool pool;
  std::vector<Var*> held;
  for (int i = 0; i < 1000; ++i) held.push_back(pool.acquire());
  const std::set<Var*> first(held.begin(), held.end());
  ASSERT_EQ(first.size(), held.size());
  for (Var* v : held) pool.release(v);
  held.clear();
  for (int i = 0; i < 1000; ++i) held.push_back(pool.acquire());
  const std::set<Var*> second(held.begin(), held.end());
  EXPECT_EQ(second.size(), held.size()) << "a var was handed out twice";
  size_t reused = 0;
  for (Var* v : second) reused += first.count(v);
  EXPECT_GE(reused, 1000u - 64u) << "the given vars are taken again before new ones are made";
}

// Two takers (frontends) hand vars to two givers (workers), as an engine
// does; a registry of held vars catches one handed out twice.
TEST(VarPool, ConcurrentTakersAndGiversNeverShareAVar) {
  VarPool pool;
  constexpr int kPairs = 2;
  constexpr int kPerPair = 50'000;
  std::mutex held_mutex;
  std::set<Var*> held;
  std::atomic<int> duplicates{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < kPairs; ++p) {
    auto handoff = std::make_shared<std::vector<Var*>>();
    auto mutex = std::make_shared<std::mutex>();
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads.emplace_back([&, handoff, mutex, done] {
      for (int i = 0; i < kPerPair; ++i) {
        Var* var = pool.acquire();
        {
          std::lock_guard lock(held_mutex);
          if (!held.insert(var).second) duplicates.fetch_add(1);
        }
        std::lock_guard lock(*mutex);
        handoff->push_back(var);
      }
      done->store(true);
    });
    threads.emplace_back([&, handoff, mutex, done] {
      std::vector<Var*> batch;
      for (bool last = false; !last;) {
        last = done->load();
        {
          std::lock_guard lock(*mutex);
          batch.swap(*handoff);
        }
        for (Var* var : batch) {
          {
            std::lock_guard lock(held_mutex);
            held.erase(var);
          }
          pool.release(var);
        }
        batch.clear();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(duplicates.load(), 0);
  EXPECT_TRUE(held.empty());
}

}  // namespace
}  // namespace asyncscope
