// RunInsight on hand-built traces with known answers: the states of every
// lane, their sums, the verdict, memory holders at an instant and at the
// peak, the difference of two runs; and the incremental update against one
// pass over the finished trace.
#include "engine/trace/insight.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>
#include <vector>

#include "engine/trace/counters.h"
#include "support/help_trace_model.h"
#include "support/insight_models.h"
#include "support/live_read.h"
#include "support/model_vars.h"

namespace asyncscope::trace {
namespace {

using testing::set_vars;

using testing::build;
using testing::Row;
using testing::small;

struct Seg {
  int64_t begin, end;
  LaneState state;
  friend bool operator==(const Seg&, const Seg&) = default;
};
std::vector<Seg> segments(const LaneStates& s) {
  std::vector<Seg> out;
  for (size_t i = 0; i < s.size(); ++i) {
    // The last segment may have no length yet: the state from its begin on.
    if (s.segment_end(i) > s.segment_begin(i)) out.push_back({s.segment_begin(i), s.segment_end(i), s.segment_state(i)});
  }
  return out;
}

void PrintTo(const Seg& s, std::ostream* os) { *os << "[" << s.begin << "," << s.end << ") " << to_string(s.state); }

TEST(LaneStates, SumsOverAnyRange) {
  LaneStates s;
  // More segments than one checkpoint stride, alternating.
  for (int i = 0; i < 40; ++i) s.append(i * 10, i % 2 == 0 ? LaneState::busy : LaneState::starved);
  s.extend(400);
  EXPECT_EQ(s.size(), 40u);
  EXPECT_EQ(s.time_in(0, 400)[LaneState::busy], 200);
  EXPECT_EQ(s.time_in(0, 400)[LaneState::starved], 200);
  EXPECT_EQ(s.time_in(5, 25)[LaneState::busy], 5 + 5);  // [5,10) and [20,25)
  EXPECT_EQ(s.time_in(5, 25)[LaneState::starved], 10);
  EXPECT_EQ(s.time_in(175, 335)[LaneState::busy], 80);  // [180,190) ... [320,330)
  EXPECT_EQ(s.time_in(175, 335).total(), 160);
  EXPECT_EQ(s.time_in(-100, 1000).total(), 400);  // clipped to what is classified
  EXPECT_EQ(s.state_at(399), LaneState::starved);
  EXPECT_EQ(s.state_at(400), std::nullopt);
  // The same state again extends; a zero-length segment takes the new state.
  LaneStates t;
  t.append(0, LaneState::busy);
  t.append(10, LaneState::busy);
  t.append(10, LaneState::held);
  t.append(10, LaneState::busy);
  t.extend(20);
  EXPECT_EQ(segments(t), (std::vector<Seg>{{0, 20, LaneState::busy}}));
}

TEST(RunInsight, ClassifiesEveryMomentOfEveryLane) {
  const TraceModel m = small();
  RunInsight insight;
  insight.update(m, true);
  EXPECT_EQ(insight.frontier(), 51000);
  using L = LaneState;
  EXPECT_EQ(segments(insight.worker(0)), (std::vector<Seg>{{0, 1000, L::starved},
                                                          {1000, 2000, L::held},
                                                          {2000, 12000, L::busy},
                                                          {12000, 13000, L::held},
                                                          {13000, 40000, L::busy},
                                                          {40000, 41000, L::held},
                                                          {41000, 42000, L::busy},
                                                          {42000, 51000, L::starved}}));
  EXPECT_EQ(segments(insight.worker(1)), (std::vector<Seg>{{0, 1000, L::starved},
                                                          {1000, 2500, L::held},
                                                          {2500, 11000, L::busy},
                                                          {11000, 41000, L::held},
                                                          {41000, 50000, L::busy},
                                                          {50000, 51000, L::starved}}));
  EXPECT_EQ(segments(insight.frontend(0)),
            (std::vector<Seg>{{0, 3500, L::running}, {3500, 51000, L::wait_to_read}}));

  const Breakdown all = insight.breakdown(0, 51000);
  EXPECT_EQ(all.worker_lane_ns, 2 * 51000);
  EXPECT_EQ(all.workers[L::busy], 38000 + 17500);
  EXPECT_EQ(all.workers[L::held], 3000 + 31500);
  EXPECT_EQ(all.workers[L::starved], 10000 + 2000);
  EXPECT_EQ(all.frontends[L::running], 3500);
  EXPECT_EQ(all.frontends.waiting(), 47500);
  // A visible range: [10000, 20000).
  const Breakdown part = insight.breakdown(10000, 20000);
  EXPECT_EQ(part.workers[L::busy], 2000 + 7000 + 1000);  // w0 [10000,12000) [13000,20000); w1 [10000,11000)
  EXPECT_EQ(part.workers[L::held], 1000 + 9000);
  EXPECT_EQ(part.frontends[L::wait_to_read], 10000);
}

TEST(RunInsight, AWorkerHelpingWithAnotherWorkersOpIsBusy) {
  const TraceModel m = asyncscope::testing::help_test_model();
  RunInsight insight;
  insight.update(m, true);
  EXPECT_EQ(insight.frontier(), 9700);
  using L = LaneState;
  EXPECT_EQ(segments(insight.worker(0)), (std::vector<Seg>{{0, 100, L::starved},
                                                          {100, 1000, L::held},
                                                          {1000, 9000, L::busy},
                                                          {9000, 9500, L::held},
                                                          {9500, 9700, L::busy}}));
  EXPECT_EQ(segments(insight.worker(1)), (std::vector<Seg>{{0, 100, L::starved},
                                                          {100, 500, L::held},
                                                          {500, 900, L::busy},
                                                          {900, 1200, L::held},
                                                          {1200, 8000, L::busy},
                                                          {8000, 9500, L::held},
                                                          {9500, 9700, L::starved}}));
  // Read in two steps, the help span arriving after the frontier passed
  // its start: it counts from the frontier on, and nothing is counted twice.
  TraceModel early = m;
  early.workers[1].helps.clear();
  early.ops[1].start = early.ops[1].end = kNoTime;  // the split op still running: the frontier stays at its enqueue
  early.workers[0].ops = {2};
  RunInsight stepwise;
  stepwise.update(early, false);
  stepwise.update(m, true);
  EXPECT_EQ(segments(stepwise.worker(1)), segments(insight.worker(1)));
  EXPECT_EQ(stepwise.breakdown(0, 9700).workers[L::busy], insight.breakdown(0, 9700).workers[L::busy]);
}

TEST(RunInsight, VerdictComparesTheFrontendsTimePerOpWithTheBackends) {
  RunInsight insight;
  insight.update(small(), true);
  const Verdict v = insight.verdict();
  EXPECT_EQ(v.ops, 4u);  // the free is bookkeeping
  // The active part: from the first push (1000) to the end of the wait (51000).
  EXPECT_EQ(v.from, 1000);
  EXPECT_EQ(v.to, 51000);
  EXPECT_DOUBLE_EQ(v.t1_ns, 2500.0 / 4);
  // Busy somewhere: [2000,12000) [13000,40000) [41000,50000).
  EXPECT_DOUBLE_EQ(v.t2_ns, 46000.0 / 4);
  EXPECT_EQ(v.bound, Bound::backend);
  EXPECT_DOUBLE_EQ(v.worker_busy_frac, 55500.0 / 100000);
  EXPECT_DOUBLE_EQ(v.worker_held_frac, 34500.0 / 100000);
  EXPECT_DOUBLE_EQ(v.worker_starved_frac, 10000.0 / 100000);
  EXPECT_DOUBLE_EQ(v.frontend_wait_frac, 47500.0 / 50000);
  EXPECT_NE(v.text().find("backend-bound"), std::string::npos) << v.text();

  // A frontend that takes longer per op than the ops: the workers starve.
  std::vector<Row> rows;
  for (int i = 0; i < 10; ++i) {
    const int64_t e = 1000 + i * 10000;
    rows.push_back({3, e, e + 100, e + 600, 0, {}, {static_cast<uint64_t>(10 + i)}, 4});
  }
  RunInsight slow;
  slow.update(build(rows, 1), true);
  const Verdict f = slow.verdict();
  EXPECT_EQ(f.bound, Bound::frontend);
  EXPECT_DOUBLE_EQ(f.t2_ns, 500);
  EXPECT_GT(f.worker_starved_frac, 0.9);
  EXPECT_NE(f.text().find("frontend-bound"), std::string::npos);
}

TEST(RunInsight, TheFrontendEnqueuesInsidePushRunsBetweenAndWaitsInSyncs) {
  TraceModel m = small();
  // Each push took 200 ns after its enqueue timestamp.
  for (OpInfo& op : m.ops) op.push_ns = 200;
  RunInsight insight;
  insight.update(m, true);
  using L = LaneState;
  EXPECT_EQ(segments(insight.frontend(0)), (std::vector<Seg>{{0, 1000, L::running},
                                                            {1000, 1200, L::enqueuing},
                                                            {1200, 1500, L::running},
                                                            {1500, 1700, L::enqueuing},
                                                            {1700, 2000, L::running},
                                                            {2000, 2200, L::enqueuing},
                                                            {2200, 2500, L::running},
                                                            {2500, 2700, L::enqueuing},
                                                            {2700, 3000, L::running},
                                                            {3000, 3200, L::enqueuing},
                                                            {3200, 3500, L::running},
                                                            {3500, 51000, L::wait_to_read}}));
  const Verdict v = insight.verdict();
  // t1 counts pushes and the frontend's own work: 2500 ns over 4 ops.
  EXPECT_DOUBLE_EQ(v.t1_ns, 2500.0 / 4);
  EXPECT_DOUBLE_EQ(v.frontend_enqueue_frac, 1000.0 / 50000);
  // Live: a push that goes on past the frontier is finished by the next update.
  RunInsight live;
  TraceModel part = m;
  part.syncs.clear();
  part.frontends[0].syncs.clear();
  for (OpInfo& op : part.ops) op.start = op.end = kNoTime;
  for (WorkerLane& w : part.workers) w.ops.clear();
  part.ops.resize(1);
  part.frontends[0].enqueues = {0};
  live.update(part, false);
  EXPECT_EQ(live.frontier(), 1000);  // op 1 not run yet: nothing after its enqueue is final
  live.update(m, true);
  EXPECT_EQ(segments(live.frontend(0)), segments(insight.frontend(0)));
}

TEST(RunInsight, GpuOpsQueueForTheirLaunchLaneAndTheirGpuLane) {
  TraceModel m;
  m.names = {"", "matmul"};
  m.frontends.push_back(FrontendLane{"frontend", {}, {}, {}});
  m.workers.push_back(WorkerLane{"cuda:0 launch 0", DeviceKind::cuda, 0, 0, SpanKind::launch, {0}, {}});
  m.workers.push_back(WorkerLane{"cuda:0 stream 0", DeviceKind::cuda, 0, 0, SpanKind::execute, {0}, {}});
  OpInfo op;
  op.id = 1;
  op.name = 1;
  op.device = DeviceKind::cuda;
  op.enqueue = 100;
  op.launch_start = 200;
  op.launch_end = 300;
  op.start = 1000;
  op.end = 5000;
  set_vars(m, op, {}, {7});
  m.ops.push_back(op);
  m.frontends[0].enqueues.push_back(0);
  RunInsight insight;
  insight.update(m, true);
  using L = LaneState;
  EXPECT_EQ(segments(insight.worker(0)),
            (std::vector<Seg>{{0, 100, L::starved}, {100, 200, L::held}, {200, 300, L::busy}, {300, 5000, L::starved}}));
  EXPECT_EQ(segments(insight.worker(1)),
            (std::vector<Seg>{{0, 100, L::starved}, {100, 1000, L::held}, {1000, 5000, L::busy}}));
  // The backend's time is the GPU's, not the launch's.
  EXPECT_DOUBLE_EQ(insight.verdict().t2_ns, 4000);
}

// A random run: a frontend pushing ops onto `workers` lanes with waits in
// between; spans never overlap on a lane and never start before their enqueue.
TraceModel random_run(uint32_t seed, int workers, int ops) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> gap(0, 3000), dur(1, 5000), who(0, workers - 1), coin(0, 9);
  std::vector<Row> rows;
  std::vector<int64_t> lane_free(workers, 0);
  std::vector<SyncSpan> syncs;
  int64_t t = 500;
  for (int i = 0; i < ops; ++i) {
    t += gap(rng);
    const uint16_t w = static_cast<uint16_t>(who(rng));
    const int64_t start = std::max(t + gap(rng) / 10, lane_free[w]) + (coin(rng) == 0 ? gap(rng) : 0);
    const int64_t end = start + dur(rng);
    lane_free[w] = end;
    rows.push_back({static_cast<NameId>(coin(rng) < 2 ? 4 : 3), t, start, end, w, {}, {uint64_t(i % 7 + 1)}, 16});
    if (coin(rng) == 0) {  // the frontend waits for what it pushed
      const int64_t until = *std::max_element(lane_free.begin(), lane_free.end());
      if (until > t) {
        syncs.push_back(SyncSpan{t + 1, until + 1, 0, 0, 0, coin(rng) < 5 ? SyncKind::wait_all : SyncKind::item});
        t = until + 1;
      }
    }
  }
  TraceModel m = build(rows, workers);
  for (size_t i = 0; i < syncs.size(); ++i) {
    m.syncs.push_back(syncs[i]);
    m.frontends[0].syncs.push_back(static_cast<uint32_t>(i));
  }
  return m;
}

TEST(RunInsight, UpdatedAsTheTraceGrowsItAgreesWithOnePassOverTheWhole) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const int workers = 1 + static_cast<int>(seed % 3);
    const TraceModel full = random_run(seed, workers, 400);
    RunInsight once;
    once.update(full, true);
    RunInsight live;
    const int64_t end = full.end_time();
    int64_t last_frontier = 0;
    int advanced = 0;
    for (int64_t cut = 1; cut < end; cut += 1 + end / 37) {
      const TraceModel seen = testing::read_by(full, cut);
      live.update(seen, false);
      ASSERT_GE(live.frontier(), last_frontier);
      ASSERT_LE(live.frontier(), cut);
      advanced += live.frontier() > last_frontier;
      last_frontier = live.frontier();
      // What it has classified is final: the same as the whole run's answer there.
      for (size_t w = 0; w < seen.workers.size(); ++w) {
        size_t wf = 0;
        while (full.workers[wf].worker != seen.workers[w].worker) ++wf;
        EXPECT_EQ(live.worker(w).time_in(0, live.frontier()).ns, once.worker(wf).time_in(0, live.frontier()).ns)
            << "seed " << seed << " cut " << cut << " lane " << w;
      }
      EXPECT_EQ(live.frontend(0).time_in(0, live.frontier()).ns, once.frontend(0).time_in(0, live.frontier()).ns)
          << "seed " << seed << " cut " << cut;
    }
    EXPECT_GT(advanced, 20) << "the frontier should follow the run, seed " << seed;
    live.update(full, true);
    for (size_t w = 0; w < full.workers.size(); ++w) {
      EXPECT_EQ(segments(live.worker(w)), segments(once.worker(w))) << "seed " << seed << " lane " << w;
    }
    EXPECT_EQ(segments(live.frontend(0)), segments(once.frontend(0)));
    EXPECT_DOUBLE_EQ(live.verdict().t2_ns, once.verdict().t2_ns);
    EXPECT_DOUBLE_EQ(live.verdict().t1_ns, once.verdict().t1_ns);
    // Every lane covers the run exactly once.
    for (size_t w = 0; w < full.workers.size(); ++w) EXPECT_EQ(once.worker(w).time_in(0, end).total(), end);
  }
}

TEST(RunInsight, AttributesLiveBuffersToTheOpAndLineThatAllocatedThem) {
  // Lines: 1 "x = ones", 2 "y = ones", 3 "z = x * y" (in a loop).
  std::vector<Row> rows = {
      {1, 100, 200, 300, 0, {}, {1}, 4000, 1},         // x = ones            live [300, 5000)
      {1, 110, 300, 400, 0, {}, {2}, 4000, 2},         // y = ones            live [400, ...)
      {2, 120, 400, 500, 0, {1, 2}, {3}, 4000, 3},     // z = x * y           live [500, 2000)
      {3, 130, 500, 600, 0, {3}, {3}, 4000, 3},        // z += 1, in place: no new buffer
      {2, 140, 600, 700, 0, {1, 2}, {4}, 4000, 3},     // z2 = x * y          live [700, ...)
      {2, 150, 700, 800, 0, {1, 2}, {5}, 4000, 3, OpStatus::skipped},  // did not run: nothing allocated
      {4, 160, 2000, 2000, 0, {}, {3}, 0},             // free z
      {4, 170, 5000, 5000, 0, {}, {1}, 0},             // free x
  };
  TraceModel m = build(rows, 1);
  m.names.push_back("script.py");
  const NameId file = static_cast<NameId>(m.names.size() - 1);
  for (uint32_t line = 1; line <= 3; ++line) {
    m.source_lines.push_back(SourceLine{file, line * 10});
    m.source_points.push_back(SourcePoint{static_cast<int64_t>(90 + line), line - 1, 0});
  }
  RunInsight insight;
  insight.update(m, true);

  const HolderTable at650 = insight.holders_at(m, 750);
  EXPECT_EQ(at650.live_bytes, 16000u);
  EXPECT_EQ(at650.buffers, 4u);
  ASSERT_EQ(at650.rows.size(), 3u);
  EXPECT_EQ(at650.rows[0].op, "mul");
  EXPECT_EQ(at650.rows[0].line, "script.py:30");
  EXPECT_EQ(at650.rows[0].bytes, 8000u);
  EXPECT_EQ(at650.rows[0].count, 2u);
  EXPECT_EQ(at650.rows[1].bytes, 4000u);
  EXPECT_EQ(at650.rows[1].op, "ones");

  const HolderTable at3000 = insight.holders_at(m, 3000);
  EXPECT_EQ(at3000.live_bytes, 12000u);  // z freed at 2000
  const HolderTable at6000 = insight.holders_at(m, 6000);
  EXPECT_EQ(at6000.live_bytes, 8000u);  // x freed too
  EXPECT_EQ(insight.holders_at(m, 250).buffers, 0u);  // x is being written: not certainly allocated yet
  EXPECT_EQ(insight.holders_at(m, 650).live_bytes, 12000u);  // z2 neither

  // The peak: [700, 2000) holds x, y, z, z2. Its first instant is 700.
  const HolderTable peak = insight.peak_holders(m);
  EXPECT_EQ(peak.t, 700);
  EXPECT_EQ(peak.live_bytes, 16000u);
  EXPECT_EQ(insight.peak_holders(m, DeviceKind::cuda).buffers, 0u);
  // Only the top rows when asked for fewer.
  EXPECT_EQ(insight.holders_at(m, 750, DeviceKind::cpu, 0, 1).rows.size(), 1u);
}

TEST(RunInsight, ManyBuffersAcrossBlocksAreCountedOnce) {
  // 2000 buffers, each alive for 1000 ns, one allocated every 100 ns: ten live at once.
  std::vector<Row> rows;
  for (int i = 0; i < 2000; ++i) {
    const int64_t s = 1000 + i * 100;
    rows.push_back({1, s - 10, s, s + 1, 0, {}, {uint64_t(100 + i)}, 8});
  }
  for (int i = 0; i < 2000; ++i) {
    const int64_t f = 1000 + i * 100 + 1000;
    rows.push_back({4, f - 5, f, f, 1, {}, {uint64_t(100 + i)}, 0});
  }
  TraceModel m = build(rows, 2);
  RunInsight insight;
  insight.update(m, true);
  EXPECT_EQ(insight.holders_at(m, 150050).buffers, 10u);
  EXPECT_EQ(insight.holders_at(m, 150050).live_bytes, 80u);
  EXPECT_EQ(insight.peak_holders(m).live_bytes, 80u);
}

TEST(RunInsight, HoldersAtAnyInstantMatchACountOfTheIntervals) {
  // Two workers finish ops out of push order; frees come later, in any order.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dur(1, 3000), size(1, 64);
  std::vector<Row> rows;
  int64_t lane_free[2] = {0, 0};
  for (int i = 0; i < 3000; ++i) {
    const uint16_t w = static_cast<uint16_t>(i % 2);
    const int64_t e = 100 + i * 200;
    const int64_t start = std::max(e + 50, lane_free[w]);
    const bool frees = i > 50 && i % 3 == 0;
    const int64_t end = start + (frees ? 10 : dur(rng));
    lane_free[w] = end;
    // A free returns the array written 40 to 50 ops before.
    const uint64_t var = frees ? uint64_t(i - 40 - i % 11) : uint64_t(i);
    rows.push_back({static_cast<NameId>(frees ? 4 : 1 + i % 3), e, start, end, w, {}, {var},
                    frees ? 0u : uint64_t(size(rng)) * 1024});
  }
  const TraceModel m = build(rows, 2);
  RunInsight insight;
  insight.update(m, true);
  // The same from the intervals, one by one.
  struct Interval {
    int64_t a, b;
    uint64_t bytes;
  };
  std::vector<Interval> intervals;
  std::unordered_map<uint64_t, size_t> open;
  for (const OpInfo& op : m.ops) {
    const uint64_t var = m.writes_of(op)[0];
    if (op.internal) {
      if (auto it = open.find(var); it != open.end()) {
        intervals[it->second].b = std::max(op.start, intervals[it->second].a);
        open.erase(it);
      }
    } else if (!open.count(var)) {
      open[var] = intervals.size();
      intervals.push_back({op.end, INT64_MAX, op.out_bytes});
    }
  }
  uint64_t peak = 0;
  for (int64_t t = 0; t < m.end_time(); t += 997) {
    uint64_t bytes = 0, count = 0;
    for (const Interval& v : intervals) {
      if (v.a <= t && t < v.b) {
        bytes += v.bytes;
        ++count;
      }
    }
    peak = std::max(peak, bytes);
    const HolderTable h = insight.holders_at(m, t, DeviceKind::cpu, 0, 2);
    ASSERT_EQ(h.live_bytes, bytes) << "t " << t;
    ASSERT_EQ(h.buffers, count) << "t " << t;
    uint64_t rows_bytes = 0;
    for (const Holder& r : insight.holders_at(m, t).rows) rows_bytes += r.bytes;
    ASSERT_EQ(rows_bytes, bytes);  // three holders, all listed
  }
  EXPECT_GE(insight.peak_holders(m).live_bytes, peak);  // the exact peak, not only at the sampled instants
}

}  // namespace
}  // namespace asyncscope::trace
