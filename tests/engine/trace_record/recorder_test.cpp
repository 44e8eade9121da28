// Recorder: per-thread buffers, the thread-local buffer cache, the error table,
// the enabled switch (as the engine honours it) and the drop accounting.
#include "engine/trace_record/recorder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "engine/tensor/context.h"
#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

using testing::run_with_timeout;

uint64_t events_in(const ThreadBuffer& b) {
  return b.enqueues.size() + b.vars.size() + b.execs.size() + b.syncs.size() + b.markers.size();
}

uint64_t total_events(const Recorder& r) {
  uint64_t n = r.counter_log().size();
  for (const ThreadBuffer* b : r.threads()) n += events_in(*b);
  return n;
}

TEST(Recorder, OriginIsTakenAtConstruction) {
  const int64_t before = now_ns();
  Recorder r;
  EXPECT_GE(r.origin_ns(), before);
  EXPECT_LE(r.origin_ns(), now_ns());
}

TEST(Recorder, NoBufferUntilAThreadRecords) {
  Recorder r;
  EXPECT_TRUE(r.threads().empty());
  EXPECT_EQ(r.dropped(), 0u);
}

TEST(Recorder, OneThreadKeepsOneBuffer) {
  run_with_timeout([] {
    Recorder r;
    ThreadBuffer& first = r.local();
    for (int i = 0; i < 100; ++i) {
      r.record_marker(intern("recorder_test.m"), i);
      ASSERT_EQ(&r.local(), &first);
    }
    r.record_exec(ExecEvent{7, 1, 2});
    r.record_sync(SyncEvent{1, 2, 3, 4, SyncKind::item});
    const auto threads = r.threads();
    ASSERT_EQ(threads.size(), 1u);
    EXPECT_EQ(threads[0], &first);
    EXPECT_EQ(first.index, 0u);
    EXPECT_EQ(first.markers.size(), 100u);
    ASSERT_EQ(first.execs.size(), 1u);
    EXPECT_EQ(first.execs[0].op, 7u);
    ASSERT_EQ(first.syncs.size(), 1u);
    EXPECT_EQ(first.syncs[0].kind, SyncKind::item);
    EXPECT_EQ(first.syncs[0].target, 3u);
  });
}

TEST(Recorder, MarkersCarryNameValueAndTime) {
  run_with_timeout([] {
    Recorder r;
    const NameId name = intern("recorder_test.phase");
    const int64_t before = now_ns();
    r.record_marker(name, 42);
    const int64_t after = now_ns();
    const ThreadBuffer& b = r.local();
    ASSERT_EQ(b.markers.size(), 1u);
    EXPECT_EQ(b.markers[0].name, name);
    EXPECT_EQ(b.markers[0].value, 42);
    EXPECT_GE(b.markers[0].t, before);
    EXPECT_LE(b.markers[0].t, after);
  });
}

TEST(Recorder, EachThreadGetsItsOwnBuffer) {
  run_with_timeout([] {
    constexpr int kThreads = 6;
    constexpr int kEvents = 5000;
    Recorder r;
    const NameId name = intern("recorder_test.per_thread");
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();  // all record at once
        for (int i = 0; i < kEvents; ++i) r.record_marker(name, t * kEvents + i);
      });
    }
    for (auto& th : threads) th.join();
    const auto buffers = r.threads();
    ASSERT_EQ(buffers.size(), static_cast<size_t>(kThreads));
    std::set<int64_t> owners;
    std::set<uint32_t> indices;
    for (const ThreadBuffer* b : buffers) {
      indices.insert(b->index);
      ASSERT_EQ(b->markers.size(), static_cast<size_t>(kEvents));
      // A buffer holds exactly one thread's events, in that thread's order.
      const int64_t owner = b->markers[0].value / kEvents;
      owners.insert(owner);
      for (size_t i = 0; i < b->markers.size(); ++i) {
        ASSERT_EQ(b->markers[i].value, owner * kEvents + static_cast<int64_t>(i));
      }
    }
    EXPECT_EQ(owners.size(), static_cast<size_t>(kThreads));
    EXPECT_EQ(indices, (std::set<uint32_t>{0, 1, 2, 3, 4, 5}));
  });
}

TEST(Recorder, SetThreadNameNamesTheBuffersOfThatThread) {
  run_with_timeout([] {
    Recorder r;
    r.record_marker(0);  // this thread has no name: "frontend"
    std::thread named([&r] {
      set_thread_name("recorder_test worker");
      r.record_marker(0);
    });
    named.join();
    std::thread other([&r] { r.record_marker(0); });  // names do not leak across threads
    other.join();
    const auto buffers = r.threads();
    ASSERT_EQ(buffers.size(), 3u);
    EXPECT_EQ(buffers[0]->name, "frontend");
    EXPECT_EQ(buffers[1]->name, "recorder_test worker");
    EXPECT_EQ(buffers[2]->name, "frontend");
  });
}

TEST(Recorder, TwoRecordersUsedAlternatelyKeepTheirEventsApart) {
  run_with_timeout([] {
    Recorder a;
    Recorder b;
    const NameId na = intern("recorder_test.a");
    const NameId nb = intern("recorder_test.b");
    for (int i = 0; i < 1000; ++i) {
      a.record_marker(na, i);
      b.record_marker(nb, -i);
    }
    for (const Recorder* r : {&a, &b}) {
      const auto buffers = r->threads();
      ASSERT_EQ(buffers.size(), 1u);
      ASSERT_EQ(buffers[0]->markers.size(), 1000u);
    }
    const ThreadBuffer& ba = *a.threads()[0];
    const ThreadBuffer& bb = *b.threads()[0];
    EXPECT_NE(&ba, &bb);
    for (size_t i = 0; i < 1000; ++i) {
      ASSERT_EQ(ba.markers[i].name, na);
      ASSERT_EQ(ba.markers[i].value, static_cast<int64_t>(i));
      ASSERT_EQ(bb.markers[i].name, nb);
      ASSERT_EQ(bb.markers[i].value, -static_cast<int64_t>(i));
    }
  });
}

// The thread-local cache holds a few recorders; a thread writing to more of
// them in turn must still keep one buffer per recorder, not register a new one
// on every miss.
TEST(Recorder, ManyRecordersUsedInTurnKeepOneBufferEach) {
  run_with_timeout([] {
    constexpr int kRecorders = 7;
    constexpr int kRounds = 50;
    std::vector<std::unique_ptr<Recorder>> recorders;
    for (int i = 0; i < kRecorders; ++i) recorders.push_back(std::make_unique<Recorder>());
    for (int round = 0; round < kRounds; ++round) {
      for (int i = 0; i < kRecorders; ++i) recorders[static_cast<size_t>(i)]->record_marker(0, i * 1000 + round);
    }
    for (int i = 0; i < kRecorders; ++i) {
      const auto buffers = recorders[static_cast<size_t>(i)]->threads();
      ASSERT_EQ(buffers.size(), 1u) << "recorder " << i;
      ASSERT_EQ(buffers[0]->markers.size(), static_cast<size_t>(kRounds));
      for (int round = 0; round < kRounds; ++round) {
        EXPECT_EQ(buffers[0]->markers[static_cast<size_t>(round)].value, i * 1000 + round);
      }
    }
  });
}

// A recorder built where a destroyed one lived must not inherit its buffer
// through a stale thread-local cache slot.
TEST(Recorder, ANewRecorderNeverReusesADestroyedOnesBuffer) {
  run_with_timeout([] {
    for (int i = 0; i < 10; ++i) {
      auto r = std::make_unique<Recorder>();
      r->record_marker(0, i);
      const auto buffers = r->threads();
      ASSERT_EQ(buffers.size(), 1u);
      ASSERT_EQ(buffers[0]->markers.size(), 1u);
      EXPECT_EQ(buffers[0]->markers[0].value, i);
    }
  });
}

TEST(Recorder, ErrorsAreKeptInOrderAndReadFromAnIndex) {
  Recorder r;
  EXPECT_TRUE(r.errors().empty());
  r.record_error(3, "three");
  r.record_error(5, "five");
  r.record_error(9, "nine");
  const auto all = r.errors();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0], (std::pair<uint64_t, std::string>{3, "three"}));
  EXPECT_EQ(all[2], (std::pair<uint64_t, std::string>{9, "nine"}));
  const auto tail = r.errors(1);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[0].first, 5u);
  EXPECT_EQ(tail[1].second, "nine");
  EXPECT_TRUE(r.errors(3).empty());
  EXPECT_TRUE(r.errors(100).empty());
}

TEST(Recorder, ErrorsFromManyThreadsAreAllKept) {
  run_with_timeout([] {
    constexpr int kThreads = 4;
    constexpr int kErrors = 200;
    Recorder r;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&r, t] {
        for (int i = 0; i < kErrors; ++i) r.record_error(static_cast<uint64_t>(t * kErrors + i), "e");
      });
    }
    // A reader polling errors(from) while they are written sees each once.
    std::set<uint64_t> seen;
    constexpr size_t kTotal = size_t{kThreads} * kErrors;
    size_t read = 0;
    while (read < kTotal) {
      for (const auto& entry : r.errors(read)) {
        EXPECT_TRUE(seen.insert(entry.first).second) << "op " << entry.first << " read twice";
        ++read;
      }
      std::this_thread::yield();
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(seen.size(), kTotal);
    EXPECT_TRUE(r.errors(read).empty());
  });
}

TEST(Recorder, FirstOpIdAndCounterNames) {
  Recorder r;
  EXPECT_EQ(r.first_op_id(), 1u);
  r.set_first_op_id(77);
  EXPECT_EQ(r.first_op_id(), 77u);
  EXPECT_TRUE(r.counter_names().empty());
  r.set_counter_names({"a", "b"});
  EXPECT_EQ(r.counter_names(), (std::vector<std::string>{"a", "b"}));
}

TEST(Recorder, EnabledFollowsOptionsAndSetEnabled) {
  EXPECT_TRUE(Recorder().enabled());
  Recorder r(Recorder::Options{.enabled = false});
  EXPECT_FALSE(r.enabled());
  r.set_enabled(true);
  EXPECT_TRUE(r.enabled());
}

// Pushes ops of every kind through an engine: plain, failing, waited on.
void run_ops(Engine& engine, int n) {
  Var* v = engine.new_var();
  Var* w = engine.new_var();
  for (int i = 0; i < n; ++i) engine.push([](const RunContext&) {}, {v}, {w}, OpMeta("recorder_test.op"));
  engine.push([](const RunContext&) { throw std::runtime_error("recorder_test failure"); }, {}, {v},
              OpMeta("recorder_test.fail"));
  EXPECT_THROW(engine.wait_for_var(v), OpError);
  EXPECT_NO_THROW(engine.wait_for_var(w));
  EXPECT_THROW(engine.wait_all(), OpError);
  engine.delete_var(v);
  engine.delete_var(w);
  EXPECT_NO_THROW(engine.wait_all());
}

TEST(Recorder, DisabledRecorderGetsNoEventsFromTheEngine) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    recorder->set_enabled(false);
    EngineOptions options;
    options.cpu_workers = 2;
    options.recorder = recorder;
    auto engine = make_engine(options);
    run_ops(*engine, 200);
    EXPECT_EQ(total_events(*recorder), 0u);
    EXPECT_TRUE(recorder->errors().empty());

    // Switched on mid-run, it records from then on.
    recorder->set_enabled(true);
    run_ops(*engine, 10);
    uint64_t enqueues = 0;
    uint64_t execs = 0;
    uint64_t syncs = 0;
    for (const ThreadBuffer* b : recorder->threads()) {
      enqueues += b->enqueues.size();
      execs += b->execs.size();
      syncs += b->syncs.size();
    }
    // 10 ops, the failing one and two frees: a traced engine pushes every
    // free, idle var or not, so the trace shows when each buffer went.
    EXPECT_EQ(enqueues, 13u);
    EXPECT_EQ(execs, 13u);
    EXPECT_EQ(syncs, 4u);  // two wait_for_var, two wait_all
    EXPECT_EQ(recorder->errors().size(), 1u);
  });
}

TEST(Recorder, DroppedSumsEveryBoundedLog) {
  run_with_timeout([] {
    Recorder r(Recorder::Options{.max_events_per_thread = 1});  // one chunk per log
    const size_t cap = r.local().markers.capacity();
    ASSERT_EQ(cap, ChunkedLog<MarkerEvent>::kChunkSize);
    for (size_t i = 0; i < cap + 10; ++i) r.record_marker(0);
    EXPECT_EQ(r.dropped(), 10u);
    std::thread other([&r, cap] {
      for (size_t i = 0; i < cap + 5; ++i) r.record_exec(ExecEvent{});
      for (size_t i = 0; i < cap + 3; ++i) r.record_sync(SyncEvent{});
    });
    other.join();
    EXPECT_EQ(r.dropped(), 18u);
    for (size_t i = 0; i < r.counter_log().capacity() + 2; ++i) r.counter_log().append(CounterSample{});
    EXPECT_EQ(r.dropped(), 20u);
    for (const ThreadBuffer* b : r.threads()) {
      EXPECT_LE(b->markers.size(), cap);
      EXPECT_LE(b->execs.size(), cap);
      EXPECT_LE(b->syncs.size(), cap);
    }
  });
}

// The trace's buffers count against a memory budget: every chunk is charged
// before it is mapped, a refused chunk drops its events (counted), and from
// then on the recorder says it is over budget, with the refusal's message.
TEST(Recorder, BuffersAreChargedToTheBudgetAndStopGrowingAtIt) {
  constexpr int64_t kBudget = 2 << 20;
  auto budget = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>(),
                                                  PooledAllocator::Options{kBudget, 0});
  {
    Recorder r;
    r.set_memory_budget(std::make_shared<AllocatorAccount>(budget));
    const int64_t before = budget->charged_bytes();  // the counter log's directory
    EXPECT_EQ(before, static_cast<int64_t>(r.bytes()));
    size_t recorded = 0;
    for (int i = 0; i < (1 << 20) && !r.over_budget(); ++i) {
      r.record_exec(ExecEvent{static_cast<uint64_t>(i + 1), i, i + 1});
      recorded = r.local().execs.size();
    }
    ASSERT_TRUE(r.over_budget());
    EXPECT_EQ(budget->charged_bytes(), static_cast<int64_t>(r.bytes())) << "every byte the trace holds is charged";
    EXPECT_LE(budget->charged_bytes(), kBudget);
    EXPECT_GT(budget->charged_bytes(), kBudget - static_cast<int64_t>(ChunkedLog<ExecEvent>::kChunkBytes) -
                                           static_cast<int64_t>(r.local().fixed_bytes()));
    EXPECT_EQ(recorded % ChunkedLog<ExecEvent>::kChunkSize, 0u);  // whole chunks kept, the rest dropped
    EXPECT_GE(r.dropped(), 1u);
    try {
      r.throw_if_over_budget();
      FAIL() << "expected MemoryBudgetError";
    } catch (const MemoryBudgetError& e) {
      EXPECT_NE(std::string(e.what()).find("recording the trace"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("memory budget of 2.00 MB"), std::string::npos) << e.what();
    }
    // Refused from now on without asking again: more events are dropped, nothing is charged.
    const int64_t charged = budget->charged_bytes();
    for (size_t i = 0; i < 3 * ChunkedLog<ExecEvent>::kChunkSize; ++i) r.record_exec(ExecEvent{1, 0, 1});
    EXPECT_EQ(budget->charged_bytes(), charged);
    EXPECT_EQ(r.local().execs.size(), recorded);
  }
  EXPECT_EQ(budget->charged_bytes(), 0) << "a destroyed recorder gives everything back";
}

// An enqueue chunk also reserves what reading its ops at the end will need
// (model and export), so a run stopped by its budget can still be exported
// within it; the reserve goes back with the recorder.
TEST(Recorder, AnEnqueueChunkReservesWhatReadingItsOpsWillNeed) {
  auto budget = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>(),
                                                  PooledAllocator::Options{int64_t{64} << 20, 0});
  {
    Recorder r;
    r.set_memory_budget(std::make_shared<AllocatorAccount>(budget));
    ThreadBuffer& b = r.local();
    const int64_t before = budget->charged_bytes();
    b.enqueues.append(EnqueueEvent{});
    EXPECT_EQ(budget->charged_bytes() - before,
              static_cast<int64_t>(ChunkedLog<EnqueueEvent>::kChunkBytes +
                                   ChunkedLog<EnqueueEvent>::kChunkSize * kReadReserveBytesPerOp));
  }
  EXPECT_EQ(budget->charged_bytes(), 0);
}

// The app reserves more per op (its live model, insight and timeline):
// set before recording, the reserve is what each enqueue chunk charges, and
// all of it comes back; set too late, it is refused.
TEST(Recorder, AReadReserveSetBeforeRecordingIsChargedWithEachEnqueueChunk) {
  auto budget = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>(),
                                                  PooledAllocator::Options{int64_t{64} << 20, 0});
  {
    Recorder r;
    r.set_read_reserve(1000);
    EXPECT_EQ(r.read_reserve(), 1000u);
    r.set_memory_budget(std::make_shared<AllocatorAccount>(budget));
    EXPECT_THROW(r.set_read_reserve(2000), std::logic_error);
    ThreadBuffer& b = r.local();
    const int64_t before = budget->charged_bytes();
    b.enqueues.append(EnqueueEvent{});
    EXPECT_EQ(budget->charged_bytes() - before,
              static_cast<int64_t>(ChunkedLog<EnqueueEvent>::kChunkBytes + ChunkedLog<EnqueueEvent>::kChunkSize * 1000));
  }
  EXPECT_EQ(budget->charged_bytes(), 0);
}

// What one recorded op costs in the trace: an enqueue (64 B) and an exec
// (32 B). docs/PERFORMANCE.md states it; this holds it.
TEST(Recorder, AnOpCostsUnderOneHundredBytesOfTrace) {
  Recorder r;
  constexpr size_t kOps = 100000;
  ThreadBuffer& b = r.local();
  const size_t fixed = r.bytes();
  for (size_t i = 0; i < kOps; ++i) {
    EnqueueEvent e;
    e.op = i + 1;
    b.enqueues.append(e);
    r.record_exec(ExecEvent{i + 1, 0, 1});
  }
  const double per_op = static_cast<double>(r.bytes() - fixed) / kOps;
  EXPECT_LE(per_op, 100.0);
  EXPECT_GE(per_op, 96.0);
}

}  // namespace
}  // namespace asyncscope::trace
