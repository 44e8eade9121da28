// Lane classification on hand-built traces with known answers: the states
// of every lane, their sums over any range, the verdict; read whole and as
// the trace grows (with its frontier, frontier.h).
#include "engine/trace/lane_classifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/trace/frontier.h"
#include "support/help_trace_model.h"
#include "support/insight_models.h"
#include "support/model_vars.h"

namespace asyncscope::trace {
namespace {

using testing::build;
using testing::Row;
using testing::Seg;
using testing::segments;
using testing::set_vars;
using testing::small;

// A classifier with the frontier it classifies up to, read by model lane.
struct Classified {
  Frontier frontier_;
  LaneClassifier lanes;

  void update(const TraceModel& m, bool complete) {
    const int64_t from = frontier_.time();
    lanes.update(m, frontier_, from, frontier_.advance(m, complete));
  }
  int64_t frontier() const { return frontier_.time(); }
  const LaneStates& worker(size_t w) const { return lanes.worker(frontier_.stable_lane(w)); }
  const LaneStates& frontend(size_t f) const { return lanes.frontend(f); }
  Breakdown breakdown(int64_t a, int64_t b) const { return lanes.breakdown(a, b); }
  Verdict verdict() const { return lanes.verdict(); }
};

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

TEST(LaneClassifier, ClassifiesEveryMomentOfEveryLane) {
  const TraceModel m = small();
  Classified insight;
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

TEST(LaneClassifier, AWorkerHelpingWithAnotherWorkersOpIsBusy) {
  const TraceModel m = asyncscope::testing::help_test_model();
  Classified insight;
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
  Classified stepwise;
  stepwise.update(early, false);
  stepwise.update(m, true);
  EXPECT_EQ(segments(stepwise.worker(1)), segments(insight.worker(1)));
  EXPECT_EQ(stepwise.breakdown(0, 9700).workers[L::busy], insight.breakdown(0, 9700).workers[L::busy]);
}

TEST(LaneClassifier, VerdictComparesTheFrontendsTimePerOpWithTheBackends) {
  Classified insight;
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
  Classified slow;
  slow.update(build(rows, 1), true);
  const Verdict f = slow.verdict();
  EXPECT_EQ(f.bound, Bound::frontend);
  EXPECT_DOUBLE_EQ(f.t2_ns, 500);
  EXPECT_GT(f.worker_starved_frac, 0.9);
  EXPECT_NE(f.text().find("frontend-bound"), std::string::npos);
}

TEST(LaneClassifier, TheFrontendEnqueuesInsidePushRunsBetweenAndWaitsInSyncs) {
  TraceModel m = small();
  // Each push took 200 ns after its enqueue timestamp.
  for (OpInfo& op : m.ops) op.push_ns = 200;
  Classified insight;
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
  Classified live;
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

TEST(LaneClassifier, GpuOpsQueueForTheirLaunchLaneAndTheirGpuLane) {
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
  Classified insight;
  insight.update(m, true);
  using L = LaneState;
  EXPECT_EQ(segments(insight.worker(0)),
            (std::vector<Seg>{{0, 100, L::starved}, {100, 200, L::held}, {200, 300, L::busy}, {300, 5000, L::starved}}));
  EXPECT_EQ(segments(insight.worker(1)),
            (std::vector<Seg>{{0, 100, L::starved}, {100, 1000, L::held}, {1000, 5000, L::busy}}));
  // The backend's time is the GPU's, not the launch's.
  EXPECT_DOUBLE_EQ(insight.verdict().t2_ns, 4000);
}

}  // namespace
}  // namespace asyncscope::trace
