// The state strip under a lane: pixel runs of the lane's states as
// RunInsight classified them, the dominant state in a mixed column, the
// strips the default lanes add with an insight, and hover.
#include "widgets/lanes/state_strip_lane.h"

#include <gtest/gtest.h>

#include "support/timeline_fixtures.h"
#include "widgets/lanes/default_lanes.h"

namespace asyncscope::widgets {
namespace {

using trace::LaneState;

struct R {
  float x0, x1;
  LaneState s;
};

std::vector<R> runs_of(const StateStripLane& lane) {
  std::vector<R> out;
  for (const auto& r : lane.runs()) out.push_back({r.x0, r.x1, r.state});
  return out;
}

TEST(StateStripLane, DrawsEachStateOverItsPixels) {
  const trace::TraceModel m = small_model();
  trace::RunInsight insight;
  insight.update(m, true);
  StateStripLane lane(m, insight, StateStripLane::Of::worker, 0);
  // 50 ns per pixel, lanes from x = 100.
  lane.prepare(lane_context(TimeView{0, 50000}));
  const std::vector<R> runs = runs_of(lane);
  // Worker 0: starved [0,1000) held [1000,2000) busy [2000,12000) held
  // [12000,13000) busy [13000,40000) held [40000,41000) busy [41000,42000) starved after.
  const std::vector<R> want = {{100, 120, LaneState::starved}, {120, 140, LaneState::held}, {140, 340, LaneState::busy},
                               {340, 360, LaneState::held},    {360, 900, LaneState::busy}, {900, 920, LaneState::held},
                               {920, 940, LaneState::busy},    {940, 1100, LaneState::starved}};
  ASSERT_EQ(runs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_FLOAT_EQ(runs[i].x0, want[i].x0) << i;
    EXPECT_FLOAT_EQ(runs[i].x1, want[i].x1) << i;
    EXPECT_EQ(runs[i].s, want[i].s) << i;
  }
}

TEST(StateStripLane, AMixedColumnShowsTheStateThatTookMostOfIt) {
  const trace::TraceModel m = small_model();
  trace::RunInsight insight;
  insight.update(m, true);
  StateStripLane lane(m, insight, StateStripLane::Of::worker, 0);
  // 1000 ns per pixel from t = 300: column 0 is [300,1300) (700 starved, 300
  // held), column 1 [1300,2300) (700 held, 300 busy).
  lane.prepare(lane_context(TimeView{300, 1'000'300}));
  const std::vector<R> runs = runs_of(lane);
  ASSERT_GE(runs.size(), 3u);
  EXPECT_EQ(runs[0].s, LaneState::starved);
  EXPECT_FLOAT_EQ(runs[0].x1, 101);
  EXPECT_EQ(runs[1].s, LaneState::held);
  EXPECT_FLOAT_EQ(runs[1].x1, 102);
  EXPECT_EQ(runs[2].s, LaneState::busy);
  // Nothing is drawn past the classified end (the model's end, 60000 ns: x = 159.7).
  EXPECT_FLOAT_EQ(runs.back().x1, 159.7f);
}

TEST(StateStripLane, FrontendStripAndHover) {
  const trace::TraceModel m = small_model();
  trace::RunInsight insight;
  insight.update(m, true);
  StateStripLane lane(m, insight, StateStripLane::Of::frontend, 0);
  const LaneContext ctx = lane_context(TimeView{0, 50000});
  lane.prepare(ctx);
  const std::vector<R> runs = runs_of(lane);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].s, LaneState::running);  // [0, 3500)
  EXPECT_FLOAT_EQ(runs[0].x1, 170);
  EXPECT_EQ(runs[1].s, LaneState::wait_to_read);
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 10000)).kind, TimelineHit::Kind::other);
  // Before the run or past what is classified: nothing to say.
  trace::RunInsight empty;
  StateStripLane none(m, empty, StateStripLane::Of::frontend, 0);
  none.prepare(ctx);
  EXPECT_TRUE(none.runs().empty());
  EXPECT_EQ(none.hit_test(ctx, point_at(ctx, 10000)).kind, TimelineHit::Kind::none);
}

TEST(DefaultLanes, WithAnInsightEachFrontendAndWorkerLaneHasAStripUnderIt) {
  const trace::TraceModel m = small_model();
  trace::RunInsight insight;
  insight.update(m, true);
  DefaultLanes plain, with;
  plain.update(m);
  with.update(m, &insight);
  EXPECT_EQ(with.size(), plain.size() + 3);  // a frontend and two workers
  EXPECT_NE(dynamic_cast<const StateStripLane*>(&with[1]), nullptr);
  EXPECT_EQ(dynamic_cast<const StateStripLane*>(&plain[1]), nullptr);
  // Dropping the insight drops the strips.
  with.update(m, nullptr);
  EXPECT_EQ(with.size(), plain.size());
}

TEST(ShareCounterScales, StackedRunsGetOneTopPerCounter) {
  trace::TraceModel small = small_model();
  trace::TraceModel big = small_model();
  for (trace::CounterSample& s : big.counters) s.values[1] *= 40;  // live bytes 40x higher
  TimelineState a, b;
  a.lanes.update(small);
  b.lanes.update(big);
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  Lane* la = a.lanes.counter_lane(trace::kLiveCounter);
  Lane* lb = b.lanes.counter_lane(trace::kLiveCounter);
  ASSERT_NE(la, nullptr);
  ASSERT_NE(lb, nullptr);
  la->prepare(ctx);
  lb->prepare(ctx);
  LaneScale sa, sb;
  la->scale(sa);
  lb->scale(sb);
  EXPECT_LT(sa.top, sb.top);  // each its own scale
  ShareCounterScales(a, b);
  la->prepare(ctx);
  lb->prepare(ctx);
  la->scale(sa);
  lb->scale(sb);
  EXPECT_EQ(sa.top, sb.top);
  EXPECT_GE(sa.top, sb.max);
  // Shared again from what is in view: the top does not ratchet up.
  ShareCounterScales(a, b);
  la->prepare(ctx);
  la->scale(sa);
  EXPECT_EQ(sa.top, sb.top);
}

}  // namespace
}  // namespace asyncscope::widgets
