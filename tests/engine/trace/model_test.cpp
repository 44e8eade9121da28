// TraceModel / TraceReader: first on hand-written recorder contents (exact
// cases: lane order, late enqueues, dropped var ids), then on what a real
// ThreadedEngine records. Ordering claims are causal (an op ends before the
// wait that depends on it returns), never about durations.
#include "engine/trace/model.h"

#include <gtest/gtest.h>

#include <tuple>

#include <algorithm>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "engine/trace_record/clock.h"
#include "engine/trace_record/counter_sampler.h"
#include "support/timeout.h"
#include "engine/trace/model_checks.h"

namespace asyncscope::trace {
namespace {

using testing::eventually;
using testing::run_with_timeout;

// Hand-written recorder contents.

// Appends an enqueue (and its var ids, inline or in the var log as the engine
// does) to the calling thread's buffer; t is relative to the recorder's origin.
void enqueue(Recorder& r, uint64_t op, int64_t t, std::vector<uint64_t> reads, std::vector<uint64_t> writes,
             NameId name = 0, DeviceKind device = DeviceKind::cpu) {
  ThreadBuffer& b = r.local();
  std::vector<uint64_t> ids = reads;
  ids.insert(ids.end(), writes.begin(), writes.end());
  EnqueueEvent e;
  if (ids.size() <= static_cast<size_t>(kInlineVarIds)) {
    std::copy(ids.begin(), ids.end(), e.inline_vars);
  } else {
    e.vars_offset = b.vars.size();
    for (uint64_t v : ids) b.vars.append(v);
  }
  e.op = op;
  e.t = r.origin_ns() + t;
  e.name = name;
  e.num_reads = static_cast<uint16_t>(reads.size());
  e.num_writes = static_cast<uint16_t>(writes.size());
  e.device = device;
  b.enqueues.append(e);
}

void exec(Recorder& r, uint64_t op, int64_t start, int64_t end, uint16_t worker,
          OpStatus status = OpStatus::ok) {
  r.record_exec(ExecEvent{op, r.origin_ns() + start, r.origin_ns() + end, worker, DeviceKind::cpu, 0, status});
}

// One span of a GPU op on stream `stream` of GPU `gpu`, as the engine records
// it: the launch from the stream's host thread, the execution from the thread
// that saw the stream's events complete.
void gpu_span(Recorder& r, SpanKind kind, uint64_t op, int64_t start, int64_t end, uint16_t stream, uint8_t gpu = 0,
              OpStatus status = OpStatus::ok) {
  r.record_exec(ExecEvent{op, r.origin_ns() + start, r.origin_ns() + end, stream, DeviceKind::cuda, gpu, status, kind});
}
std::string launch_thread(int gpu, int stream) {
  return "cuda:" + std::to_string(gpu) + " launch " + std::to_string(stream);
}
std::string stream_thread(int gpu, int stream) {
  return "cuda:" + std::to_string(gpu) + " stream " + std::to_string(stream);
}

std::vector<std::string> lane_names(const TraceModel& m) {
  std::vector<std::string> out;
  for (const WorkerLane& lane : m.workers) out.push_back(lane.name);
  return out;
}

// Runs f on a new thread named `name` (its own buffer in every recorder).
template <class F>
void on_thread(const std::string& name, F f) {
  std::thread t([&] {
    set_thread_name(name);
    f();
  });
  t.join();
}

TEST(TraceModel, EmptyRecorderGivesAnEmptyModel) {
  Recorder r;
  const TraceModel m = snapshot(r);
  EXPECT_EQ(m.origin_ns, r.origin_ns());
  EXPECT_EQ(m.first_op_id, 1u);
  EXPECT_TRUE(m.ops.empty());
  EXPECT_TRUE(m.workers.empty());
  EXPECT_TRUE(m.frontends.empty());
  EXPECT_EQ(m.end_time(), 0);
  EXPECT_EQ(m.find_op(1), nullptr);
  EXPECT_EQ(m.counter_index("rss_bytes"), -1);
}

TEST(TraceModel, OpsAreIndexedFromFirstOpIdAndTimesAreRelative) {
  run_with_timeout([] {
    Recorder r;
    r.set_first_op_id(100);
    const NameId name = intern("model_test.hand");
    enqueue(r, 99, 5, {}, {1});  // before the first id: not this engine's, ignored
    enqueue(r, 100, 10, {1, 2}, {3}, name);
    enqueue(r, 102, 20, {}, {4});  // 101 never recorded
    on_thread("CPU worker 0", [&] {
      exec(r, 100, 30, 40, 0);
      exec(r, 102, 50, 60, 0, OpStatus::failed);
    });
    r.record_error(102, "model_test: hand failure");
    const TraceModel m = snapshot(r);
    EXPECT_EQ(m.first_op_id, 100u);
    ASSERT_EQ(m.ops.size(), 3u);
    EXPECT_EQ(m.find_op(99), nullptr);
    EXPECT_EQ(m.find_op(101), nullptr);  // a hole: slot exists, op unknown
    const OpInfo* a = m.find_op(100);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->id, 100u);
    EXPECT_EQ(a->enqueue, 10);
    EXPECT_EQ(a->start, 30);
    EXPECT_EQ(a->end, 40);
    EXPECT_EQ(m.op_name(*a), "model_test.hand");
    EXPECT_EQ(var_list(m.reads_of(*a), a->num_reads), (std::vector<uint64_t>{1, 2}));
    EXPECT_EQ(var_list(m.writes_of(*a), a->num_writes), (std::vector<uint64_t>{3}));
    const OpInfo* c = m.find_op(102);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->status, OpStatus::failed);
    EXPECT_EQ(m.errors.at(102), "model_test: hand failure");
    EXPECT_EQ(var_list(m.writes_of(*c), c->num_writes), (std::vector<uint64_t>{4}));
    ASSERT_EQ(m.frontends.size(), 1u);
    EXPECT_EQ(m.frontends[0].enqueues, (std::vector<uint32_t>{0, 2}));
    ASSERT_EQ(m.workers.size(), 1u);
    EXPECT_EQ(m.workers[0].name, "CPU worker 0");
    EXPECT_EQ(m.workers[0].ops, (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(m.end_time(), 60);
  });
}

TEST(TraceReader, AnExecutionReadBeforeItsEnqueueIsCompletedLater) {
  run_with_timeout([] {
    Recorder r;
    TraceModel m;
    TraceReader reader(r);
    on_thread("CPU worker 0", [&] { exec(r, 1, 30, 40, 0); });
    ASSERT_TRUE(reader.update(m));
    ASSERT_NE(m.find_op(1), nullptr);
    EXPECT_EQ(m.find_op(1)->enqueue, kNoTime);
    EXPECT_TRUE(m.find_op(1)->executed());
    enqueue(r, 1, 10, {7}, {8});
    ASSERT_TRUE(reader.update(m));
    const OpInfo* op = m.find_op(1);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->enqueue, 10);
    EXPECT_EQ(op->start, 30);
    EXPECT_EQ(var_list(m.reads_of(*op), op->num_reads), (std::vector<uint64_t>{7}));
    EXPECT_EQ(var_list(m.writes_of(*op), op->num_writes), (std::vector<uint64_t>{8}));
    EXPECT_FALSE(reader.update(m));
  });
}

// Worker lanes stay sorted by worker; a lane that appears before existing ones
// moves them down, and their ops must follow.
TEST(TraceReader, ALaneInsertedBeforeOthersRenumbersTheirOps) {
  run_with_timeout([] {
    Recorder r;
    TraceModel m;
    TraceReader reader(r);
    for (uint64_t op = 1; op <= 3; ++op) enqueue(r, op, 0, {}, {op});
    on_thread("CPU worker 2", [&] { exec(r, 1, 1, 2, 2); });
    ASSERT_TRUE(reader.update(m));
    on_thread("CPU worker 1", [&] { exec(r, 2, 1, 2, 1); });
    ASSERT_TRUE(reader.update(m));
    on_thread("CPU worker 0", [&] { exec(r, 3, 1, 2, 0); });
    ASSERT_TRUE(reader.update(m));
    ASSERT_EQ(m.workers.size(), 3u);
    for (uint16_t lane = 0; lane < 3; ++lane) {
      EXPECT_EQ(m.workers[lane].worker, lane);
      EXPECT_EQ(m.workers[lane].name, "CPU worker " + std::to_string(lane));
      ASSERT_EQ(m.workers[lane].ops.size(), 1u);
      EXPECT_EQ(m.ops[m.workers[lane].ops[0]].worker, lane);
    }
    expect_same_model(m, snapshot(r));
  });
}

// A GPU op has two spans: its launch on the stream worker's host thread, and
// its execution on the GPU. Each gets a lane, the launch lane directly above
// the GPU lane, after the CPU lanes.
TEST(TraceModel, GpuOpHasALaunchLaneAboveItsGpuLane) {
  run_with_timeout([] {
    Recorder r;
    const NameId dot = intern("model_test.dot");
    enqueue(r, 1, 5, {}, {1});
    enqueue(r, 2, 10, {1}, {2}, dot, DeviceKind::cuda);
    enqueue(r, 3, 12, {2}, {3}, dot, DeviceKind::cuda);
    on_thread(stream_thread(0, 0), [&] {
      gpu_span(r, SpanKind::execute, 2, 19, 40, 0);
      gpu_span(r, SpanKind::execute, 3, 40, 70, 0);
    });
    on_thread(launch_thread(0, 0), [&] {
      gpu_span(r, SpanKind::launch, 2, 15, 18, 0);
      gpu_span(r, SpanKind::launch, 3, 18, 22, 0);
    });
    on_thread("CPU worker 0", [&] { exec(r, 1, 20, 30, 0); });
    const TraceModel m = snapshot(r);
    EXPECT_EQ(lane_names(m), (std::vector<std::string>{"CPU worker 0", "cuda:0 launch 0", "cuda:0 stream 0"}));
    ASSERT_EQ(m.workers.size(), 3u);
    EXPECT_EQ(m.workers[1].span, SpanKind::launch);
    EXPECT_EQ(m.workers[1].device, DeviceKind::cuda);
    EXPECT_EQ(m.workers[2].span, SpanKind::execute);
    EXPECT_EQ(m.workers[1].ops, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(m.workers[2].ops, (std::vector<uint32_t>{1, 2}));

    const OpInfo* cpu = m.find_op(1);
    ASSERT_NE(cpu, nullptr);
    EXPECT_FALSE(cpu->launched());
    EXPECT_EQ(cpu->launch_start, kNoTime);
    EXPECT_EQ(cpu->launch_end, kNoTime);
    EXPECT_EQ(cpu->worker, 0);
    const OpInfo* gpu = m.find_op(2);
    ASSERT_NE(gpu, nullptr);
    EXPECT_TRUE(gpu->launched());
    EXPECT_TRUE(gpu->executed());
    EXPECT_EQ(gpu->device, DeviceKind::cuda);
    EXPECT_EQ(gpu->launch_start, 15);
    EXPECT_EQ(gpu->launch_end, 18);
    EXPECT_EQ(gpu->start, 19);
    EXPECT_EQ(gpu->end, 40);
    EXPECT_EQ(gpu->launch_worker, 1);
    EXPECT_EQ(gpu->worker, 2);
    EXPECT_EQ(m.workers[1].start_of(*gpu), 15);
    EXPECT_EQ(m.workers[1].end_of(*gpu), 18);
    EXPECT_EQ(m.workers[2].start_of(*gpu), 19);
    EXPECT_EQ(m.end_time(), 70);
    expect_worker_lanes_consistent(m, 3);  // a GPU op counts once
  });
}

// While the GPU has not finished an op, only its launch is known: the op
// exists, the trace ends no earlier than the launch, and its status is the launch's.
TEST(TraceModel, ALaunchedOpNotYetFinishedIsKnownAndEndsTheTrace) {
  run_with_timeout([] {
    Recorder r;
    on_thread(launch_thread(1, 2), [&] { gpu_span(r, SpanKind::launch, 1, 50, 95, 2, 1, OpStatus::failed); });
    const TraceModel m = snapshot(r);
    const OpInfo* op = m.find_op(1);
    ASSERT_NE(op, nullptr);
    EXPECT_TRUE(op->known());
    EXPECT_TRUE(op->launched());
    EXPECT_FALSE(op->executed());
    EXPECT_EQ(op->status, OpStatus::failed);
    ASSERT_EQ(m.workers.size(), 1u);
    EXPECT_EQ(m.workers[0].name, "cuda:1 launch 2");
    EXPECT_EQ(m.workers[0].device_index, 1);
    EXPECT_EQ(m.workers[0].worker, 2);
    EXPECT_EQ(m.end_time(), 95);
    expect_worker_lanes_consistent(m, 0);
  });
}

// The launch and the execution come from two threads: a reader may see either
// first. The model is the same both ways, and the execution's status wins.
TEST(TraceReader, EitherSpanOfAGpuOpMayBeReadFirst) {
  run_with_timeout([] {
    Recorder r;
    TraceModel m;
    TraceReader reader(r);
    enqueue(r, 1, 1, {}, {1}, 0, DeviceKind::cuda);
    enqueue(r, 2, 2, {}, {2}, 0, DeviceKind::cuda);
    on_thread(stream_thread(0, 0), [&] { gpu_span(r, SpanKind::execute, 1, 20, 30, 0, 0, OpStatus::failed); });
    ASSERT_TRUE(reader.update(m));
    EXPECT_FALSE(m.find_op(1)->launched());
    EXPECT_EQ(m.find_op(1)->worker, 0);
    on_thread(launch_thread(0, 0), [&] {
      gpu_span(r, SpanKind::launch, 1, 10, 12, 0);
      gpu_span(r, SpanKind::launch, 2, 12, 14, 0);
    });
    ASSERT_TRUE(reader.update(m));
    // The launch lane went in above the GPU lane, which moved down.
    EXPECT_EQ(lane_names(m), (std::vector<std::string>{"cuda:0 launch 0", "cuda:0 stream 0"}));
    EXPECT_EQ(m.find_op(1)->worker, 1);
    EXPECT_EQ(m.find_op(1)->launch_worker, 0);
    EXPECT_EQ(m.find_op(1)->status, OpStatus::failed) << "a launch read later must not overwrite the execution's status";
    EXPECT_TRUE(m.find_op(2)->launched());
    EXPECT_FALSE(m.find_op(2)->executed());
    EXPECT_EQ(m.find_op(2)->status, OpStatus::ok);
    on_thread(stream_thread(0, 0), [&] { gpu_span(r, SpanKind::execute, 2, 30, 45, 0, 0, OpStatus::cancelled); });
    ASSERT_TRUE(reader.update(m));
    EXPECT_EQ(m.find_op(2)->status, OpStatus::cancelled);
    EXPECT_EQ(m.find_op(2)->start, 30);
    EXPECT_FALSE(reader.update(m));
    expect_worker_lanes_consistent(m, 2);
    expect_same_model(m, snapshot(r));
  });
}

// Lanes inserted above existing ones move them down; the ops on the moved
// lanes, launch lanes included, must follow.
TEST(TraceReader, LanesInsertedAboveLaunchLanesRenumberTheirOps) {
  run_with_timeout([] {
    Recorder r;
    TraceModel m;
    TraceReader reader(r);
    for (uint64_t op = 1; op <= 3; ++op) enqueue(r, op, 0, {}, {op}, 0, op == 3 ? DeviceKind::cpu : DeviceKind::cuda);
    const auto step = [&](const std::string& thread, auto record) {
      on_thread(thread, record);
      ASSERT_TRUE(reader.update(m));
      expect_worker_lanes_consistent(m, 0);
    };
    step(stream_thread(1, 0), [&] { gpu_span(r, SpanKind::execute, 1, 5, 6, 0, 1); });
    step(launch_thread(0, 1), [&] { gpu_span(r, SpanKind::launch, 2, 1, 2, 1, 0); });
    step(launch_thread(1, 0), [&] { gpu_span(r, SpanKind::launch, 1, 1, 3, 0, 1); });
    step(stream_thread(0, 1), [&] { gpu_span(r, SpanKind::execute, 2, 3, 4, 1, 0); });
    step("CPU worker 0", [&] { exec(r, 3, 1, 2, 0); });
    EXPECT_EQ(lane_names(m), (std::vector<std::string>{"CPU worker 0", "cuda:0 launch 1", "cuda:0 stream 1",
                                                       "cuda:1 launch 0", "cuda:1 stream 0"}));
    EXPECT_EQ(m.find_op(1)->launch_worker, 3);
    EXPECT_EQ(m.find_op(1)->worker, 4);
    EXPECT_EQ(m.find_op(2)->launch_worker, 1);
    EXPECT_EQ(m.find_op(2)->worker, 2);
    EXPECT_EQ(m.find_op(3)->worker, 0);
    expect_worker_lanes_consistent(m, 3);
    expect_same_model(m, snapshot(r));
  });
}

TEST(TraceReader, SecondUpdateWithNothingNewReturnsFalse) {
  run_with_timeout([] {
    Recorder r;
    TraceModel m;
    TraceReader reader(r);
    EXPECT_FALSE(reader.update(m));
    enqueue(r, 1, 0, {}, {1});
    EXPECT_TRUE(reader.update(m));
    EXPECT_FALSE(reader.update(m));
    r.record_marker(intern("model_test.marker"), 5);
    EXPECT_TRUE(reader.update(m));
    EXPECT_FALSE(reader.update(m));
    r.record_error(1, "late error");
    EXPECT_TRUE(reader.update(m));
    EXPECT_FALSE(reader.update(m));
  });
}

TEST(TraceReader, MarkersAndCountersAreReadWithRelativeTimes) {
  run_with_timeout([] {
    Recorder r;
    r.set_counter_names({"a", "b"});
    const NameId phase = intern("model_test.phase");
    r.record_marker(phase, 3);
    CounterSample s;
    s.t = r.origin_ns() + 1000;
    s.values[0] = 11;
    s.values[1] = 22;
    r.counter_log().append(s);
    s.t = r.origin_ns() + 2000;
    r.counter_log().append(s);
    const TraceModel m = snapshot(r);
    ASSERT_EQ(m.markers.size(), 1u);
    EXPECT_EQ(m.markers[0].name, phase);
    EXPECT_EQ(m.markers[0].value, 3);
    EXPECT_GE(m.markers[0].t, 0);
    EXPECT_EQ(m.name(m.markers[0].name), "model_test.phase");
    EXPECT_EQ(m.counter_names, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(m.counter_index("b"), 1);
    ASSERT_EQ(m.counters.size(), 2u);
    EXPECT_EQ(m.counters[0].t, 1000);
    EXPECT_EQ(m.counters[1].t, 2000);
    EXPECT_EQ(m.counters[1].values[1], 22);
    EXPECT_GE(m.end_time(), 2000);
  });
}

// The var log is bounded like the others: an op whose ids were dropped keeps
// its enqueue but has no var ids, and the drop is counted.
TEST(TraceReader, OpWhoseVarIdsWereDroppedHasNone) {
  run_with_timeout([] {
    Recorder r(Recorder::Options{.max_events_per_thread = 1});
    ThreadBuffer& b = r.local();
    while (b.vars.size() + 1 < b.vars.capacity()) b.vars.append(0);
    enqueue(r, 1, 5, {10, 11, 12}, {13, 14});  // more than fit inline; the second id no longer fits the log
    const TraceModel m = snapshot(r);
    const OpInfo* op = m.find_op(1);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->enqueue, 5);
    EXPECT_EQ(op->num_reads, 0);
    EXPECT_EQ(op->num_writes, 0);
    EXPECT_EQ(m.dropped, 4u);  // the four ids that did not fit
  });
}

// Once a log is full, new events only raise the drop count; the reader must
// still report that as a change, or a view refreshing on change shows a stale count.
TEST(TraceReader, MoreDropsAloneCountAsAChange) {
  run_with_timeout([] {
    Recorder r(Recorder::Options{.max_events_per_thread = 1});
    TraceModel m;
    TraceReader reader(r);
    const size_t cap = r.local().markers.capacity();
    for (size_t i = 0; i < cap; ++i) r.record_marker(0);
    EXPECT_TRUE(reader.update(m));
    EXPECT_EQ(m.dropped, 0u);
    r.record_marker(0);
    EXPECT_TRUE(reader.update(m));
    EXPECT_EQ(m.dropped, 1u);
    EXPECT_FALSE(reader.update(m));
  });
}

// What a real ThreadedEngine records.

struct Traced {
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
  std::shared_ptr<Engine> engine;
  explicit Traced(int workers, int64_t max_inflight = 0) {
    EngineOptions options;
    options.cpu_workers = workers;
    options.max_inflight = max_inflight;
    options.recorder = recorder;
    engine = make_engine(options);
  }
  TraceModel model() const { return snapshot(*recorder); }
};

OpFn spin(int iterations = 20000) {
  return [iterations](const RunContext&) {
    volatile uint64_t x = 0;
    for (int i = 0; i < iterations; ++i) x = x + static_cast<uint64_t>(i);
  };
}

TEST(TraceModel, EngineOpsHaveOrderedTimesAndNonOverlappingLanes) {
  run_with_timeout([] {
    Traced t(3);
    std::vector<Var*> vars;
    for (int i = 0; i < 8; ++i) vars.push_back(t.engine->new_var());
    std::vector<uint64_t> ids;
    for (int i = 0; i < 300; ++i) {
      Var* r = vars[static_cast<size_t>(i * 5 % 8)];
      Var* w = vars[static_cast<size_t>(i * 3 % 8)];
      ids.push_back(t.engine->push(spin(), {r}, {w}, OpMeta("model_test.op")));
    }
    t.engine->wait_all();
    const TraceModel m = t.model();
    ASSERT_EQ(m.ops.size(), ids.size());
    for (uint64_t id : ids) {
      const OpInfo* op = m.find_op(id);
      ASSERT_NE(op, nullptr) << id;
      ASSERT_TRUE(op->executed()) << id;
      EXPECT_LE(op->enqueue, op->start) << id;
      EXPECT_LE(op->start, op->end) << id;
      EXPECT_EQ(op->status, OpStatus::ok);
      EXPECT_EQ(m.op_name(*op), "model_test.op");
    }
    expect_worker_lanes_consistent(m, ids.size());
    // One frontend lane: this thread, its enqueues in push order.
    ASSERT_EQ(m.frontends.size(), 1u);
    EXPECT_EQ(m.frontends[0].name, "frontend");
    ASSERT_EQ(m.frontends[0].enqueues.size(), ids.size());
    for (size_t k = 0; k < ids.size(); ++k) {
      EXPECT_EQ(m.frontends[0].enqueues[k] + m.first_op_id, ids[k]);
      EXPECT_EQ(m.ops[m.frontends[0].enqueues[k]].frontend, 0u);
      if (k > 0) {
        EXPECT_LE(m.ops[m.frontends[0].enqueues[k - 1]].enqueue, m.ops[m.frontends[0].enqueues[k]].enqueue);
      }
    }
  });
}

TEST(TraceModel, VarIdsAndMetadataMatchWhatWasPushed) {
  run_with_timeout([] {
    Traced t(2);
    Var* a = t.engine->new_var();
    Var* b = t.engine->new_var();
    Var* c = t.engine->new_var();
    OpMeta meta("model_test.meta");
    meta.iteration = 7;
    meta.out_bytes = 4096;
    const uint64_t first = t.engine->push(spin(), {a, b}, {c}, meta);
    // Duplicates collapse; a var both read and written counts as written.
    const uint64_t second = t.engine->push(spin(), {a, c, a, b}, {b, b}, OpMeta("model_test.dup"));
    const uint64_t third = t.engine->push(spin(), {}, {a, c}, OpMeta("model_test.writes"));
    const uint64_t freed_id = c->id();
    t.engine->delete_var(c);
    t.engine->wait_all();
    const TraceModel m = t.model();

    const OpInfo* op = m.find_op(first);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(var_list(m.reads_of(*op), op->num_reads), (std::vector<uint64_t>{a->id(), b->id()}));
    EXPECT_EQ(var_list(m.writes_of(*op), op->num_writes), (std::vector<uint64_t>{freed_id}));
    EXPECT_EQ(op->iteration, 7u);
    EXPECT_EQ(op->out_bytes, 4096u);
    EXPECT_EQ(op->device, DeviceKind::cpu);
    EXPECT_FALSE(op->internal);

    op = m.find_op(second);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(var_list(m.reads_of(*op), op->num_reads), (std::vector<uint64_t>{a->id(), freed_id}));
    EXPECT_EQ(var_list(m.writes_of(*op), op->num_writes), (std::vector<uint64_t>{b->id()}));

    op = m.find_op(third);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->num_reads, 0);
    EXPECT_EQ(var_list(m.writes_of(*op), op->num_writes), (std::vector<uint64_t>{a->id(), freed_id}));

    // delete_var is an internal op named "free" that writes the var.
    op = m.find_op(third + 1);
    ASSERT_NE(op, nullptr);
    EXPECT_TRUE(op->internal);
    EXPECT_EQ(m.op_name(*op), "free");
    EXPECT_EQ(var_list(m.writes_of(*op), op->num_writes), (std::vector<uint64_t>{freed_id}));
    EXPECT_TRUE(op->executed());
  });
}

TEST(TraceModel, SyncSpansHaveTheirKindTargetAndLastOp) {
  run_with_timeout([] {
    Traced t(2);
    Var* v = t.engine->new_var();
    Var* w = t.engine->new_var();
    const uint64_t p = t.engine->push(spin(), {}, {v}, OpMeta("model_test.p"));
    t.engine->wait_for_var(v);
    const uint64_t q = t.engine->push(spin(), {}, {w}, OpMeta("model_test.q"));
    t.engine->wait_for_var(w, SyncKind::to_host);
    const uint64_t r = t.engine->push(spin(), {v}, {w}, OpMeta("model_test.r"));
    t.engine->wait_all();
    const TraceModel m = t.model();

    ASSERT_EQ(m.syncs.size(), 3u);
    const struct {
      SyncKind kind;
      uint64_t target;
      uint64_t last_op;
    } expected[] = {{SyncKind::wait_to_read, v->id(), p}, {SyncKind::to_host, w->id(), q}, {SyncKind::wait_all, 0, r}};
    for (size_t i = 0; i < 3; ++i) {
      const SyncSpan& s = m.syncs[i];
      EXPECT_EQ(s.kind, expected[i].kind) << to_string(s.kind);
      EXPECT_EQ(s.target, expected[i].target);
      EXPECT_EQ(s.last_op, expected[i].last_op);
      EXPECT_EQ(s.frontend, 0u);
      EXPECT_LE(s.begin, s.end);
      // The wait began after the push it follows and ended after the op it waited for.
      const OpInfo* waited = m.find_op(expected[i].last_op);
      ASSERT_NE(waited, nullptr);
      EXPECT_GE(s.begin, waited->enqueue);
      EXPECT_GE(s.end, waited->end);
    }
    for (const OpInfo& op : m.ops) EXPECT_GE(m.syncs[2].end, op.end) << "wait_all returned before op " << op.id;
    ASSERT_EQ(m.frontends.size(), 1u);
    EXPECT_EQ(m.frontends[0].syncs, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_GE(m.end_time(), m.syncs[2].end);
  });
}

// Backpressure is traced as a wait. Whether the second push finds the first
// op still running depends on timing (it almost always does: the op is held
// until the frontend has begun that push), so rounds repeat until one waited.
TEST(TraceModel, BlockedPushIsAnInflightBoundSync) {
  run_with_timeout([] {
    Traced t(1, 1);
    Var* v = t.engine->new_var();
    bool seen = false;
    for (int round = 0; round < 200 && !seen; ++round) {
      std::atomic<bool> started{false};
      std::atomic<bool> pushing{false};
      std::atomic<bool> release{false};
      std::thread releaser([&] {
        while (!started.load() || !pushing.load()) std::this_thread::yield();
        release = true;
      });
      t.engine->push(
          [&](const RunContext&) {
            started = true;
            while (!release.load()) std::this_thread::yield();
          },
          {}, {v}, OpMeta("model_test.hold"));
      pushing = true;
      const uint64_t second = t.engine->push(spin(10), {}, {v}, OpMeta("model_test.next"));
      releaser.join();
      t.engine->wait_all();
      const TraceModel m = t.model();
      for (const SyncSpan& s : m.syncs) {
        if (s.kind != SyncKind::inflight_bound) continue;
        seen = true;
        EXPECT_EQ(s.target, 0u);
        EXPECT_EQ(s.last_op, second - 1);  // recorded before the blocked op got its id
        EXPECT_LE(s.begin, s.end);
        const OpInfo* held = m.find_op(second - 1);
        ASSERT_NE(held, nullptr);
        EXPECT_GE(s.end, held->end);  // the push waited for the op holding the only slot
      }
    }
    EXPECT_TRUE(seen) << "no push ever waited for the in-flight bound";
  });
}

TEST(TraceModel, FailedAndSkippedOpsHaveTheirStatusAndErrorText) {
  run_with_timeout([] {
    Traced t(2);
    Var* a = t.engine->new_var();
    Var* b = t.engine->new_var();
    Var* c = t.engine->new_var();
    const uint64_t fails = t.engine->push(
        [](const RunContext&) { throw std::runtime_error("model_test: boom"); }, {}, {a}, OpMeta("model_test.fails"));
    const uint64_t skipped = t.engine->push(spin(), {a}, {b}, OpMeta("model_test.skipped"));
    const uint64_t inherits = t.engine->push(spin(), {b}, {c}, OpMeta("model_test.inherits"));
    const uint64_t rewrites = t.engine->push(spin(), {}, {a}, OpMeta("model_test.rewrites"));
    EXPECT_THROW(t.engine->wait_all(), OpError);
    const TraceModel m = t.model();
    const struct {
      uint64_t id;
      OpStatus status;
    } expected[] = {{fails, OpStatus::failed}, {skipped, OpStatus::skipped}, {inherits, OpStatus::skipped},
                    {rewrites, OpStatus::ok}};
    for (const auto& e : expected) {
      const OpInfo* op = m.find_op(e.id);
      ASSERT_NE(op, nullptr);
      EXPECT_TRUE(op->executed());
      EXPECT_EQ(op->status, e.status) << m.op_name(*op) << ": " << to_string(op->status);
    }
    ASSERT_EQ(m.errors.size(), 1u);  // only the op that threw has an error text
    EXPECT_EQ(m.errors.at(fails), "model_test: boom");
  });
}

TEST(TraceModel, CancelledOpsAreMarkedCancelled) {
  run_with_timeout([] {
    Traced t(1);
    Var* v = t.engine->new_var();
    std::atomic<bool> started{false};
    std::atomic<bool> release{false};
    const uint64_t blocker = t.engine->push(
        [&](const RunContext&) {
          started = true;
          eventually([&] { return release.load(); });
        },
        {}, {v}, OpMeta("model_test.blocker"));
    std::vector<uint64_t> dropped;
    for (int i = 0; i < 5; ++i) dropped.push_back(t.engine->push(spin(), {v}, {}, OpMeta("model_test.dropped")));
    ASSERT_TRUE(eventually([&] { return started.load(); }));
    t.engine->cancel();
    const uint64_t after = t.engine->push(spin(), {}, {v}, OpMeta("model_test.after"));
    release = true;
    EXPECT_THROW(t.engine->wait_all(), CancelledError);
    const TraceModel m = t.model();
    ASSERT_NE(m.find_op(blocker), nullptr);
    EXPECT_EQ(m.find_op(blocker)->status, OpStatus::ok);
    for (uint64_t id : dropped) {
      const OpInfo* op = m.find_op(id);
      ASSERT_NE(op, nullptr);
      EXPECT_TRUE(op->executed());
      EXPECT_EQ(op->status, OpStatus::cancelled) << to_string(op->status);
    }
    ASSERT_NE(m.find_op(after), nullptr);
    EXPECT_EQ(m.find_op(after)->status, OpStatus::ok);  // pushed after cancel(): runs
  });
}

// Three ops that wait for each other to start must run on three workers, so
// every lane appears.
TEST(TraceModel, WorkerLanesAreNamedAfterTheirWorkers) {
  run_with_timeout([] {
    constexpr int kWorkers = 3;
    Traced t(kWorkers);
    std::atomic<int> started{0};
    for (int i = 0; i < kWorkers; ++i) {
      Var* v = t.engine->new_var();
      t.engine->push(
          [&started](const RunContext&) {
            started.fetch_add(1);
            eventually([&] { return started.load() == kWorkers; }, std::chrono::milliseconds(10000));
          },
          {}, {v}, OpMeta("model_test.meet"));
    }
    t.engine->wait_all();
    const TraceModel m = t.model();
    ASSERT_EQ(m.workers.size(), static_cast<size_t>(kWorkers));
    for (int i = 0; i < kWorkers; ++i) {
      const WorkerLane& lane = m.workers[static_cast<size_t>(i)];
      EXPECT_EQ(lane.name, "CPU worker " + std::to_string(i));
      EXPECT_EQ(lane.worker, i);
      EXPECT_EQ(lane.device, DeviceKind::cpu);
      EXPECT_EQ(lane.ops.size(), 1u);
    }
  });
}

// A reader refreshing while the engine runs (as the GUI does every frame)
// ends with the same model as one snapshot taken at the end.
TEST(TraceReader, IncrementalUpdatesWhileRunningEqualOneSnapshot) {
  run_with_timeout([] {
    Traced t(3);
    CounterSampler sampler(t.recorder, {Counter{"pending", [e = t.engine.get()] {
                                          return static_cast<int64_t>(e->stats().pending);
                                        }}});
    sampler.start();
    std::atomic<bool> done{false};
    std::thread pusher([&] {
      std::vector<Var*> vars;
      for (int i = 0; i < 16; ++i) vars.push_back(t.engine->new_var());
      for (int i = 0; i < 4000; ++i) {
        Var* r = vars[static_cast<size_t>(i * 7 % 16)];
        Var* w = vars[static_cast<size_t>(i * 11 % 16)];
        if (i % 301 == 0) {
          t.engine->push([](const RunContext&) { throw std::runtime_error("model_test: live"); }, {}, {w},
                         OpMeta("model_test.live_fail"));
        } else {
          t.engine->push(spin(200), {r}, {w}, OpMeta("model_test.live"));
        }
        if (i % 500 == 0) {
          try {
            t.engine->wait_for_var(r);
          } catch (const OpError&) {
          }
        }
      }
      try {
        t.engine->wait_all();
      } catch (const OpError&) {
      }
      done = true;
    });
    TraceModel live;
    TraceReader reader(*t.recorder);
    int updates = 0;
    while (!done.load()) {
      if (reader.update(live) && ++updates % 16 == 0) expect_worker_lanes_consistent(live, 0);
    }
    pusher.join();
    sampler.stop();
    reader.update(live);
    EXPECT_FALSE(reader.update(live)) << "nothing new, yet the model changed";
    EXPECT_GE(updates, 1);
    const TraceModel full = t.model();
    expect_same_model(live, full);
    EXPECT_EQ(full.ops.size(), 4000u);
    expect_worker_lanes_consistent(full, full.ops.size());
  });
}

// The same with GPU streams, on synthetic events recorded the way the CUDA
// backend does (no GPU needed): a frontend pushes CPU and GPU ops; a CPU
// worker runs its ops; per stream, a launch thread launches its ops in order
// and a completion thread records their GPU spans once launched. Both spans of
// a GPU op come from different threads, so a live reader sees them in either
// order; it must still end with the snapshot's model.
TEST(TraceReader, IncrementalUpdatesWithGpuStreamsEqualOneSnapshot) {
  run_with_timeout([] {
    constexpr int kOps = 6000;
    constexpr int kStreams = 2;
    Recorder r;
    const NameId add = intern("model_test.gpu_add");
    const auto now = [&r] { return now_ns() - r.origin_ns(); };
    const auto on_gpu = [](int i) { return i % 3 != 0; };
    const auto stream_of = [](int i) { return static_cast<uint16_t>(i % kStreams); };
    const auto wait_for = [](const std::atomic<int>& count, int wanted) {
      while (count.load(std::memory_order_acquire) < wanted) std::this_thread::yield();
    };
    std::atomic<int> pushed{0};
    std::atomic<int> launched[kStreams] = {};  // ops of each stream launched so far
    std::atomic<int> finished{0};              // threads done recording
    std::vector<std::thread> threads;
    threads.emplace_back([&] {
      set_thread_name("frontend");
      for (int i = 0; i < kOps; ++i) {
        enqueue(r, static_cast<uint64_t>(i + 1), now(), {static_cast<uint64_t>(i % 16)}, {static_cast<uint64_t>(i % 7)},
                add, on_gpu(i) ? DeviceKind::cuda : DeviceKind::cpu);
        pushed.store(i + 1, std::memory_order_release);
      }
      finished.fetch_add(1);
    });
    threads.emplace_back([&] {
      set_thread_name("CPU worker 0");
      for (int i = 0; i < kOps; ++i) {
        if (on_gpu(i)) continue;
        wait_for(pushed, i + 1);
        const int64_t start = now();
        exec(r, static_cast<uint64_t>(i + 1), start, now(), 0);
      }
      finished.fetch_add(1);
    });
    for (int s = 0; s < kStreams; ++s) {
      threads.emplace_back([&, s] {
        set_thread_name(launch_thread(0, s));
        for (int i = 0, k = 0; i < kOps; ++i) {
          if (!on_gpu(i) || stream_of(i) != s) continue;
          wait_for(pushed, i + 1);
          const int64_t start = now();
          gpu_span(r, SpanKind::launch, static_cast<uint64_t>(i + 1), start, now(), stream_of(i));
          launched[s].store(++k, std::memory_order_release);
        }
        finished.fetch_add(1);
      });
      threads.emplace_back([&, s] {
        set_thread_name(stream_thread(0, s));
        for (int i = 0, k = 0; i < kOps; ++i) {
          if (!on_gpu(i) || stream_of(i) != s) continue;
          wait_for(launched[s], ++k);
          const int64_t start = now();
          gpu_span(r, SpanKind::execute, static_cast<uint64_t>(i + 1), start, now(), stream_of(i), 0,
                   i % 101 == 0 ? OpStatus::failed : OpStatus::ok);
        }
        finished.fetch_add(1);
      });
    }
    TraceModel live;
    TraceReader reader(r);
    int updates = 0;
    while (finished.load() < static_cast<int>(threads.size())) {
      if (reader.update(live) && ++updates % 16 == 0) expect_worker_lanes_consistent(live, 0);
    }
    for (std::thread& t : threads) t.join();
    // (On a loaded machine the writers may all finish before the first live
    // update: how many updates ran is not asserted, only what they built.)
    reader.update(live);
    EXPECT_FALSE(reader.update(live));
    const TraceModel full = snapshot(r);
    expect_same_model(live, full);
    ASSERT_EQ(full.ops.size(), static_cast<size_t>(kOps));
    expect_worker_lanes_consistent(full, kOps);
    EXPECT_EQ(lane_names(full), (std::vector<std::string>{"CPU worker 0", "cuda:0 launch 0", "cuda:0 stream 0",
                                                          "cuda:0 launch 1", "cuda:0 stream 1"}));
    for (const OpInfo& op : full.ops) {
      EXPECT_EQ(op.launched(), op.device == DeviceKind::cuda) << op.id;
      EXPECT_TRUE(op.executed()) << op.id;
    }
  });
}

// What the memory panel, the run summary and the memory demo ask of a counter.
TEST(TraceModel, ACountersPeakAndItsValueAtATime) {
  TraceModel m;
  m.counter_names = {"rss_bytes", "pooled_bytes"};
  for (const auto& [t, rss, pooled] : {std::tuple{10, 5, 1}, {20, 9, 2}, {30, 7, 3}}) {
    CounterSample s;
    s.t = t;
    s.values[0] = rss;
    s.values[1] = pooled;
    m.counters.push_back(s);
  }
  EXPECT_EQ(m.counter_peak("rss_bytes"), 9);
  EXPECT_EQ(m.counter_peak("missing"), std::nullopt);
  EXPECT_EQ(m.counter_at("pooled_bytes", 25), 2);
  EXPECT_EQ(m.counter_at("pooled_bytes", 30), 3);
  EXPECT_EQ(m.counter_at("pooled_bytes", 5), std::nullopt);
  EXPECT_EQ(TraceModel().counter_peak("rss_bytes"), std::nullopt);
}

}  // namespace
}  // namespace asyncscope::trace
