// RunInsight read live: a run read again and again as it grows, the way the
// app reads one. Each read gives the frontier of a fresh insight (and of a
// plain definition of it), the finished run gives what one pass over the
// whole trace gives, and a read that brings nothing new looks at no op.
#include "engine/trace/insight.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/live_read.h"
#include "support/model_vars.h"

namespace asyncscope::trace {
namespace {

// A random run with `frontends` threads pushing ops (ids in push order, as
// the engine gives them) onto `cpu_workers` CPU lanes and, with `gpu`, one
// CUDA stream (a launch lane and the stream's lane), the first frontend
// waiting now and then for everything pushed.
TraceModel random_live_run(uint32_t seed, int frontends, int cpu_workers, bool gpu, int ops) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> gap(0, 2000), dur(1, 4000), coin(0, 9);
  TraceModel m;
  m.names = {"", "add", "dot", "free"};
  for (int f = 0; f < frontends; ++f) m.frontends.push_back(FrontendLane{"frontend " + std::to_string(f), {}, {}, {}});
  for (int w = 0; w < cpu_workers; ++w) {
    m.workers.push_back(WorkerLane{"CPU worker " + std::to_string(w), DeviceKind::cpu, 0, static_cast<uint16_t>(w),
                                   SpanKind::execute, {}, {}});
  }
  const size_t launch_lane = m.workers.size(), stream_lane = launch_lane + 1;
  if (gpu) {
    m.workers.push_back(WorkerLane{"cuda:0 launch 0", DeviceKind::cuda, 0, 0, SpanKind::launch, {}, {}});
    m.workers.push_back(WorkerLane{"cuda:0 stream 0", DeviceKind::cuda, 0, 0, SpanKind::execute, {}, {}});
  }
  std::vector<int64_t> lane_free(m.workers.size(), 0);
  int64_t t = 500;
  for (int i = 0; i < ops; ++i) {
    t += gap(rng);
    OpInfo op;
    op.id = m.first_op_id + m.ops.size();
    op.frontend = static_cast<uint32_t>(static_cast<int>(rng() % 4) < 3 ? 0 : rng() % frontends);
    op.enqueue = t;
    op.push_ns = static_cast<uint32_t>(gap(rng) / 20);
    op.internal = coin(rng) < 2;
    op.name = op.internal ? 3 : 1;
    op.out_bytes = op.internal ? 0 : 16;
    testing::set_vars(m, op, {}, {uint64_t(i % 7 + 1)});  // a free returns the buffer of an earlier op
    if (gpu && coin(rng) < 3) {
      op.device = DeviceKind::cuda;
      op.name = 2;
      op.launch_start = std::max(t + gap(rng) / 10, lane_free[launch_lane]);
      op.launch_end = op.launch_start + dur(rng) / 10 + 1;
      lane_free[launch_lane] = op.launch_end;
      op.launch_worker = static_cast<uint16_t>(launch_lane);
      op.worker = static_cast<uint16_t>(stream_lane);
    } else {
      op.worker = static_cast<uint16_t>(rng() % cpu_workers);
    }
    const int64_t ready = op.launch_end != kNoTime ? op.launch_end : t + gap(rng) / 10;
    op.start = std::max(ready, lane_free[op.worker]) + (coin(rng) == 0 ? gap(rng) : 0);
    op.end = op.start + dur(rng);
    lane_free[op.worker] = op.end;
    m.frontends[op.frontend].enqueues.push_back(static_cast<uint32_t>(m.ops.size()));
    m.ops.push_back(op);
    if (coin(rng) == 0) {  // the first frontend waits for what was pushed
      const int64_t until = *std::max_element(lane_free.begin(), lane_free.end());
      if (until > t) {
        m.frontends[0].syncs.push_back(static_cast<uint32_t>(m.syncs.size()));
        m.syncs.push_back(SyncSpan{t + 1, until + 1, 0, 0, 0, coin(rng) < 5 ? SyncKind::wait_all : SyncKind::item});
        t = until + 1;
      }
    }
  }
  // Each lane's spans in start order.
  std::vector<uint32_t> order(m.ops.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return m.ops[a].start < m.ops[b].start; });
  for (uint32_t i : order) m.workers[m.ops[i].worker].ops.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return m.ops[a].launch_start < m.ops[b].launch_start; });
  for (uint32_t i : order) {
    if (m.ops[i].launch_end != kNoTime) m.workers[launch_lane].ops.push_back(i);
  }
  return m;
}

// The frontier by its definition: the model's end, held back by every op
// read whose spans are not all read (from its enqueue) and by the latest
// event of each frontend.
int64_t defined_frontier(const TraceModel& m) {
  int64_t f = m.end_time();
  for (const OpInfo& op : m.ops) {
    if (!op.known() || (op.executed() && (op.device == DeviceKind::cpu || op.launched()))) continue;
    f = std::min(f, op.enqueue != kNoTime ? op.enqueue : op.launch_start != kNoTime ? op.launch_start : op.start);
  }
  for (const FrontendLane& lane : m.frontends) {
    int64_t latest = -1;
    if (!lane.enqueues.empty()) latest = m.ops[lane.enqueues.back()].enqueue;
    if (!lane.syncs.empty()) latest = std::max(latest, m.syncs[lane.syncs.back()].end);
    if (latest >= 0) f = std::min(f, latest);
  }
  return f;
}

bool same_states(const LaneStates& a, const LaneStates& b) {
  if (a.size() != b.size() || a.until() != b.until()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.segment_begin(i) != b.segment_begin(i) || a.segment_state(i) != b.segment_state(i)) return false;
  }
  return true;
}

TEST(RunInsightLive, EachReadFindsTheFrontierOfAFreshInsightAndTheEndIsOnePassOverTheWhole) {
  struct Shape {
    int frontends, cpu_workers;
    bool gpu;
  };
  for (const Shape shape : {Shape{1, 1, false}, Shape{1, 3, false}, Shape{2, 2, false}, Shape{1, 2, true},
                            Shape{3, 2, true}}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      const std::string what = "frontends " + std::to_string(shape.frontends) + ", workers " +
                               std::to_string(shape.cpu_workers) + (shape.gpu ? ", gpu" : "") + ", seed " +
                               std::to_string(seed);
      const TraceModel full = random_live_run(seed, shape.frontends, shape.cpu_workers, shape.gpu, 300);
      const int64_t end = full.end_time();
      RunInsight live;
      int64_t before = 0;
      for (int64_t cut = 1; cut < end; cut += 1 + end / 53) {
        const TraceModel seen = testing::read_by(full, cut);
        live.update(seen, false);
        RunInsight fresh;
        fresh.update(seen, false);
        ASSERT_EQ(live.frontier(), fresh.frontier()) << what << ", cut " << cut;
        ASSERT_EQ(live.frontier(), std::max(before, defined_frontier(seen))) << what << ", cut " << cut;
        before = live.frontier();
        // The same model again: nothing new, nothing looked at.
        const uint64_t visits = live.visits();
        EXPECT_FALSE(live.update(seen, false));
        ASSERT_EQ(live.visits(), visits) << what << ", cut " << cut;
      }
      live.update(full, true);
      RunInsight once;
      once.update(full, true);
      ASSERT_EQ(live.frontier(), once.frontier()) << what;
      for (size_t w = 0; w < full.workers.size(); ++w) {
        EXPECT_TRUE(same_states(live.worker(w), once.worker(w))) << what << ", lane " << w;
      }
      for (size_t f = 0; f < full.frontends.size(); ++f) {
        EXPECT_TRUE(same_states(live.frontend(f), once.frontend(f))) << what << ", frontend " << f;
      }
      const Verdict a = live.verdict(), b = once.verdict();
      EXPECT_EQ(a.bound, b.bound) << what;
      EXPECT_DOUBLE_EQ(a.t1_ns, b.t1_ns) << what;
      EXPECT_DOUBLE_EQ(a.t2_ns, b.t2_ns) << what;
      EXPECT_EQ(a.ops, b.ops) << what;
      EXPECT_EQ(live.peak_holders(full).t, once.peak_holders(full).t) << what;
      EXPECT_EQ(live.peak_holders(full).live_bytes, once.peak_holders(full).live_bytes) << what;
    }
  }
}

// A thread the reader has not met yet pushed a GPU op whose launch is read
// first (the threads' buffers are read one after another): the launch is
// what holds the frontier until the op's enqueue and execution are read.
TEST(RunInsightLive, AnOpFirstReadFromItsLaunchHoldsTheFrontier) {
  TraceModel m;
  m.names = {"", "dot"};
  m.frontends.push_back(FrontendLane{"main", {}, {0}, {}});
  m.syncs.push_back(SyncSpan{50, 10000, 0, 0, 0, SyncKind::wait_all});
  m.workers.push_back(WorkerLane{"cuda:0 launch 0", DeviceKind::cuda, 0, 0, SpanKind::launch, {0}, {}});
  OpInfo& op = m.ops.emplace_back();
  op.id = m.first_op_id;
  op.name = 1;
  op.device = DeviceKind::cuda;
  op.launch_start = 500;
  op.launch_end = 600;
  RunInsight live;
  live.update(m, false);
  EXPECT_EQ(live.frontier(), 500);
  // Its enqueue, on a new frontend: held where it was.
  m.frontends.push_back(FrontendLane{"script thread", {0}, {}, {}});
  m.ops[0].enqueue = 400;
  m.ops[0].frontend = 1;
  live.update(m, false);
  EXPECT_EQ(live.frontier(), 500);
  // Its execution: still held by the new frontend's push, the latest it has.
  m.workers.push_back(WorkerLane{"cuda:0 stream 0", DeviceKind::cuda, 0, 0, SpanKind::execute, {0}, {}});
  m.ops[0].start = 700;
  m.ops[0].end = 5000;
  live.update(m, false);
  EXPECT_EQ(live.frontier(), 500);
  live.update(m, true);
  EXPECT_EQ(live.frontier(), 10000);
}

// The reader reads the threads' buffers one after another, so another
// frontend's op may be read after later ids: the first read passes its id
// as unknown. Once read, the op holds the frontier like any other until it
// runs, even after its frontend has moved on (a wait ending later).
TEST(RunInsightLive, AnotherFrontendsOpReadLateHoldsTheFrontierUntilItRuns) {
  TraceModel m;
  m.names = {"", "add"};
  m.frontends.push_back(FrontendLane{"main", {}, {}, {}});
  m.workers.push_back(WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {}, {}});
  testing::add_op(m, {1, 10, 20, 30, 0, {}, {1}});
  testing::add_op(m, {1, 15, kNoTime, kNoTime, 0, {}, {2}});  // the other frontend's, not read yet
  testing::add_op(m, {1, 40, 50, 60, 0, {}, {3}});
  m.frontends[0].enqueues = {0, 2};
  m.workers[0].ops = {0, 2};
  OpInfo late = m.ops[1];
  m.ops[1] = OpInfo{};
  m.ops[1].id = late.id;
  ASSERT_FALSE(m.ops[1].known());
  RunInsight live;
  live.update(m, false);
  EXPECT_EQ(live.frontier(), 40);  // the main frontend's latest push
  // Read now: the other thread pushed it at 15, then waited until 200; it
  // has not run. The main frontend pushed again at 100, and that op ran.
  late.frontend = 1;
  m.ops[1] = late;
  m.frontends.push_back(FrontendLane{"thread", {1}, {0}, {}});
  m.syncs.push_back(SyncSpan{16, 200, 0, 0, 1, SyncKind::wait_to_read});
  testing::add_op(m, {1, 100, 110, 120, 0, {}, {4}});
  m.workers[0].ops.push_back(3);
  live.update(m, false);
  RunInsight fresh;
  fresh.update(m, false);
  EXPECT_EQ(fresh.frontier(), 15) << "a fresh insight is held by the late op's push";
  EXPECT_EQ(live.frontier(), 40) << "the late op, still to run, holds the frontier";
  // It ran: nothing holds the frontier but the frontends' latest events.
  m.ops[1].start = 130;
  m.ops[1].end = 140;
  m.workers[0].ops.push_back(1);
  live.update(m, false);
  EXPECT_EQ(live.frontier(), 100);
}

// Ops of `n` pushed a microsecond apart onto one worker that keeps up, after
// a first op that runs on a worker of its own until `first_end`.
TraceModel behind_one_long_op(int n, int64_t first_end) {
  TraceModel m;
  m.names = {"", "add"};
  m.frontends.push_back(FrontendLane{"frontend", {}, {}, {}});
  for (uint16_t w = 0; w < 2; ++w) {
    m.workers.push_back(WorkerLane{"CPU worker " + std::to_string(w), DeviceKind::cpu, 0, w, SpanKind::execute, {}, {}});
  }
  testing::add_op(m, {1, 100, 200, first_end, 0, {}, {1}});
  m.workers[0].ops.push_back(0);
  for (int i = 1; i < n; ++i) {
    const int64_t t = 1000 * int64_t{i};
    testing::add_op(m, {1, t, t + 100, t + 600, 1, {}, {uint64_t(i + 1)}});
    m.workers[1].ops.push_back(static_cast<uint32_t>(i));
  }
  return m;
}

TEST(RunInsightLive, AReadThatBringsNothingNewLooksAtNoOp) {
  constexpr int kOps = 200'000;
  // A long op still running while everything after it ran: every op after
  // it is unsettled work for a scan, none for the insight.
  const TraceModel full = behind_one_long_op(kOps, int64_t{1} << 40);
  const int64_t cut = 1000 * int64_t{kOps - 100};
  RunInsight live;
  live.update(testing::read_by(full, cut), false);
  EXPECT_EQ(live.frontier(), 100);  // the long op's enqueue
  const uint64_t first = live.visits();
  EXPECT_GE(first, uint64_t{kOps - 100});  // the first read reads everything

  const TraceModel same = testing::read_by(full, cut);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(live.update(same, false));
  EXPECT_EQ(live.visits(), first);

  // Ten more ops pushed and run: a few visits each, not a pass over the run.
  live.update(testing::read_by(full, cut + 10'000), false);
  EXPECT_LE(live.visits() - first, 10u * 4) << "visits for ten new ops";
  EXPECT_EQ(live.frontier(), 100);

  // The long op ends: the frontier jumps to the end and the states behind it
  // are classified once.
  TraceModel ended = full;
  ended.ops[0].end = 1000 * int64_t{kOps} + 5000;
  live.update(ended, false);
  EXPECT_EQ(live.frontier(), 1000 * int64_t{kOps - 1});  // the frontend's last push
  const uint64_t after = live.visits();
  EXPECT_FALSE(live.update(ended, false));
  EXPECT_EQ(live.visits(), after);
}

TEST(RunInsightLive, AReadWithABacklogOfPendingOpsLooksAtNoOp) {
  // Pushed every 100 ns, run in 1 µs: when read, most have not run yet.
  TraceModel full;
  full.names = {"", "add"};
  full.frontends.push_back(FrontendLane{"frontend", {}, {}, {}});
  full.workers.push_back(WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {}, {}});
  constexpr int kOps = 100'000;
  for (int i = 0; i < kOps; ++i) {
    testing::add_op(full, {1, 100 * int64_t{i + 1}, 1000 * int64_t{i + 1}, 1000 * int64_t{i + 1} + 900, 0, {}, {uint64_t(i + 1)}});
    full.workers[0].ops.push_back(static_cast<uint32_t>(i));
  }
  const TraceModel seen = testing::read_by(full, 100 * int64_t{kOps} + 1);  // all pushed, a tenth run
  RunInsight live;
  live.update(seen, false);
  EXPECT_EQ(live.frontier(), seen.ops[kOps / 10 - 1].enqueue);  // the first op that has not run
  const uint64_t visits = live.visits();
  EXPECT_FALSE(live.update(seen, false));
  EXPECT_EQ(live.visits(), visits);
}

}  // namespace
}  // namespace asyncscope::trace
