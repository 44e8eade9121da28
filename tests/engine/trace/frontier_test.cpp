// The frontier of a growing trace: held by an op still to run, by a
// frontend's latest event, moved to the end by a complete read; the ops it
// settles; lane indices that stay when a lane appears between others.
#include "engine/trace/frontier.h"

#include <gtest/gtest.h>

#include "support/help_trace_model.h"

namespace asyncscope::trace {
namespace {

TraceModel one_frontend_one_worker() {
  TraceModel m;
  m.names = {"", "add"};
  m.frontends.push_back(FrontendLane{"main", {}, {}, {}});
  m.workers.push_back(WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {}, {}});
  return m;
}

TEST(Frontier, AnOpStillToRunHoldsItAtItsEnqueue) {
  TraceModel m = one_frontend_one_worker();
  testing::add_op(m, {1, 10, 20, 30, 0, {}, {1}});
  testing::add_op(m, {1, 40, kNoTime, kNoTime, 0, {}, {2}});  // pushed, not run yet
  testing::add_op(m, {1, 50, kNoTime, kNoTime, 0, {}, {3}});
  m.frontends[0].enqueues = {0, 1, 2};
  m.workers[0].ops = {0};
  Frontier f;
  EXPECT_EQ(f.advance(m, false), 40);
  EXPECT_EQ(f.settled(), 1u);
  // The second runs: the third holds it now.
  m.ops[1].start = 60;
  m.ops[1].end = 70;
  m.workers[0].ops.push_back(1);
  EXPECT_EQ(f.advance(m, false), 50);
  EXPECT_EQ(f.settled(), 2u);
  // All ran: the frontend's latest event (its last push) bounds it.
  m.ops[2].start = 80;
  m.ops[2].end = 90;
  m.workers[0].ops.push_back(2);
  EXPECT_EQ(f.advance(m, false), 50);
  EXPECT_EQ(f.settled(), 3u);
  // The run ended: everything up to its end is final.
  EXPECT_EQ(f.advance(m, true), 90);
}

TEST(Frontier, NeverMovesBackAndReadsOnlyWhatIsNew) {
  TraceModel m = one_frontend_one_worker();
  testing::add_op(m, {1, 10, 20, 30, 0, {}, {1}});
  m.frontends[0].enqueues = {0};
  m.workers[0].ops = {0};
  Frontier f;
  const int64_t first = f.advance(m, false);
  const uint64_t visits = f.visits();
  EXPECT_EQ(f.advance(m, false), first);
  EXPECT_EQ(f.visits(), visits) << "nothing new, nothing read";
  // A later push of an op still to run cannot move it back.
  testing::add_op(m, {1, 5, kNoTime, kNoTime, 0, {}, {2}});
  m.frontends[0].enqueues.push_back(1);
  EXPECT_GE(f.advance(m, false), first);
}

TEST(Frontier, LaneIndicesStayWhenALaneAppearsBetweenOthers) {
  TraceModel m = one_frontend_one_worker();
  m.workers.push_back(WorkerLane{"CPU worker 2", DeviceKind::cpu, 0, 2, SpanKind::execute, {}, {}});
  Frontier f;
  f.map_lanes(m);
  ASSERT_EQ(f.lane_count(), 2u);
  EXPECT_EQ(f.stable_lane(0), 0u);
  EXPECT_EQ(f.stable_lane(1), 1u);
  // Worker 1 appears, between 0 and 2 in the model's order.
  m.workers.insert(m.workers.begin() + 1,
                   WorkerLane{"CPU worker 1", DeviceKind::cpu, 0, 1, SpanKind::execute, {}, {}});
  f.map_lanes(m);
  ASSERT_EQ(f.lane_count(), 3u);
  EXPECT_EQ(f.stable_lane(0), 0u);
  EXPECT_EQ(f.stable_lane(1), 2u) << "the new lane takes the next index";
  EXPECT_EQ(f.stable_lane(2), 1u) << "worker 2 keeps its index";
  EXPECT_EQ(f.lane_key(2), worker_lane_key(m.workers[1]));
}

}  // namespace
}  // namespace asyncscope::trace
