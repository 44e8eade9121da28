// Dependency semantics of the threaded engine, checked through the trace
// (which op started after which ended), never through sleeps.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "engine/core/engine.h"
#include "engine/trace/model.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::eventually;
using testing::run_with_timeout;

struct Traced {
  std::shared_ptr<trace::Recorder> recorder = std::make_shared<trace::Recorder>();
  std::shared_ptr<Engine> engine;
  explicit Traced(int workers) {
    EngineOptions options;
    options.cpu_workers = workers;
    options.recorder = recorder;
    engine = make_engine(options);
  }
  trace::TraceModel model() const { return trace::snapshot(*recorder); }
};

// An op that does some real work, so overlaps would be visible if allowed.
OpFn busy() {
  return [](const RunContext&) {
    volatile uint64_t x = 0;
    for (int i = 0; i < 200000; ++i) x = x + static_cast<uint64_t>(i);
  };
}

void expect_after(const trace::TraceModel& m, uint64_t first, uint64_t second) {
  const trace::OpInfo* a = m.find_op(first);
  const trace::OpInfo* b = m.find_op(second);
  ASSERT_TRUE(a && b && a->executed() && b->executed());
  EXPECT_GE(b->start, a->end) << "op " << second << " started before op " << first << " ended";
}

TEST(Dependency, ReadAfterWriteWaitsForTheWrite) {
  run_with_timeout([] {
    Traced t(4);
    Var* v = t.engine->new_var();
    const uint64_t w = t.engine->push(busy(), {}, {v}, OpMeta("write"));
    std::vector<uint64_t> readers;
    for (int i = 0; i < 3; ++i) readers.push_back(t.engine->push(busy(), {v}, {}, OpMeta("read")));
    t.engine->wait_all();
    const auto m = t.model();
    for (uint64_t r : readers) expect_after(m, w, r);
  });
}

TEST(Dependency, WriteAfterReadWaitsForEveryEarlierRead) {
  run_with_timeout([] {
    Traced t(4);
    Var* v = t.engine->new_var();
    std::vector<uint64_t> readers;
    for (int i = 0; i < 3; ++i) readers.push_back(t.engine->push(busy(), {v}, {}, OpMeta("read")));
    const uint64_t w = t.engine->push(busy(), {}, {v}, OpMeta("write"));
    t.engine->wait_all();
    const auto m = t.model();
    for (uint64_t r : readers) expect_after(m, r, w);
  });
}

TEST(Dependency, WriteAfterWriteRunsInPushOrder) {
  run_with_timeout([] {
    Traced t(4);
    Var* v = t.engine->new_var();
    std::vector<int> order;
    std::vector<uint64_t> ids;
    for (int i = 0; i < 50; ++i) {
      ids.push_back(t.engine->push([&order, i](const RunContext&) { order.push_back(i); }, {}, {v}, OpMeta("write")));
    }
    t.engine->wait_all();
    ASSERT_EQ(order.size(), 50u);
    for (int i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
    const auto m = t.model();
    for (size_t i = 1; i < ids.size(); ++i) expect_after(m, ids[i - 1], ids[i]);
  });
}

TEST(Dependency, ReadsAfterAWriteWaitForItButNotForLaterWrites) {
  run_with_timeout([] {
    Traced t(2);
    Var* v = t.engine->new_var();
    const uint64_t w1 = t.engine->push(busy(), {}, {v}, OpMeta("w1"));
    const uint64_t r = t.engine->push(busy(), {v}, {}, OpMeta("r"));
    const uint64_t w2 = t.engine->push(busy(), {}, {v}, OpMeta("w2"));
    t.engine->wait_all();
    const auto m = t.model();
    expect_after(m, w1, r);
    expect_after(m, r, w2);
  });
}

// Two ops that each wait until the other has started can only both finish if
// the engine runs them at the same time. A serialising engine deadlocks here,
// which the in-op timeout turns into a failure.
void expect_run_together(Engine& engine, std::span<Var* const> reads_a, std::span<Var* const> writes_a,
                         std::span<Var* const> reads_b, std::span<Var* const> writes_b) {
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  auto rendezvous = [&started, &met](const RunContext&) {
    started.fetch_add(1);
    if (eventually([&] { return started.load() == 2; }, std::chrono::milliseconds(10000))) met.fetch_add(1);
  };
  engine.push(rendezvous, reads_a, writes_a, OpMeta("a"));
  engine.push(rendezvous, reads_b, writes_b, OpMeta("b"));
  engine.wait_all();
  EXPECT_EQ(met.load(), 2) << "the two ops did not run concurrently";
}

TEST(Dependency, ConcurrentReadersRunTogether) {
  run_with_timeout([] {
    Traced t(2);
    Var* v = t.engine->new_var();
    Var* const reads[] = {v};
    expect_run_together(*t.engine, reads, {}, reads, {});
    const auto m = t.model();
    const trace::OpInfo* a = m.find_op(1);
    const trace::OpInfo* b = m.find_op(2);
    ASSERT_TRUE(a && b);
    EXPECT_LT(a->start, b->end);
    EXPECT_LT(b->start, a->end);
    EXPECT_NE(a->worker, b->worker);
  });
}

TEST(Dependency, IndependentWritesRunTogether) {
  run_with_timeout([] {
    Traced t(2);
    Var* x = t.engine->new_var();
    Var* y = t.engine->new_var();
    Var* const wx[] = {x};
    Var* const wy[] = {y};
    expect_run_together(*t.engine, {}, wx, {}, wy);
  });
}

TEST(Dependency, DuplicateAndReadWriteVarsAreTreatedAsOneWrite) {
  run_with_timeout([] {
    Traced t(2);
    Var* v = t.engine->new_var();
    int value = 0;
    for (int i = 0; i < 100; ++i) {
      Var* const reads[] = {v, v};
      Var* const writes[] = {v, v};
      t.engine->push([&value](const RunContext&) { ++value; }, reads, writes, OpMeta("inc"));
    }
    t.engine->wait_for_var(v);
    EXPECT_EQ(value, 100);
    const auto m = t.model();
    const trace::OpInfo* op = m.find_op(1);
    ASSERT_TRUE(op);
    EXPECT_EQ(op->num_reads, 0);
    EXPECT_EQ(op->num_writes, 1);
  });
}

TEST(Dependency, WaitForVarWaitsOnlyForItsWriters) {
  run_with_timeout([] {
    Traced t(2);
    Var* fast = t.engine->new_var();
    Var* slow = t.engine->new_var();
    std::atomic<bool> release{false};
    t.engine->push([&release](const RunContext&) { eventually([&] { return release.load(); }); }, {}, {slow},
                   OpMeta("blocked"));
    t.engine->push(busy(), {}, {fast}, OpMeta("quick"));
    t.engine->wait_for_var(fast);  // must not wait for `slow`
    // The worker counts an op finished just after releasing its vars, so the
    // count catches up a moment after the wait returns.
    EXPECT_TRUE(eventually([&] { return t.engine->stats().pending == 1; }));
    EXPECT_FALSE(release.load());
    release = true;
    t.engine->wait_for_var(slow);
    EXPECT_TRUE(eventually([&] { return t.engine->stats().pending == 0; }));
  });
}

}  // namespace
}  // namespace asyncscope
