#include "widgets/lanes/counter_lane.h"

#include <gtest/gtest.h>

#include "engine/trace_record/counters.h"
#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

const trace::CounterSpec& rss() { return *trace::find_counter(trace::kRssCounter); }

// small_model's RSS: 100 MB + t * 1000, with a 900 MB spike in the sample at t = 30000.
TEST(CounterLane, HeaderShowsTheValueAtTheMouseOrTheViewsEnd) {
  const trace::TraceModel m = small_model();
  const CounterLane lane(m, rss());
  EXPECT_EQ(lane.column(), 0);
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  LaneHeader h = lane.header(ctx, 30500);
  EXPECT_EQ(h.name, "RSS");
  EXPECT_EQ(h.color, ImU32{rss().color});
  EXPECT_EQ(h.detail, format_counter(1'030'000'000, CounterUnit::bytes));
  h = lane.header(ctx, trace::kNoTime);
  EXPECT_EQ(h.detail, format_counter(160'000'000, CounterUnit::bytes));
  // Past the view's right edge only the last sample counts.
  h = lane.header(lane_context(TimeView{0, 90000}), trace::kNoTime);
  EXPECT_EQ(h.detail, format_counter(160'000'000, CounterUnit::bytes));
}

TEST(CounterLane, PreparesColumnsAndAScale) {
  const trace::TraceModel m = small_model();
  CounterLane lane(m, rss());
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  lane.prepare(ctx);
  EXPECT_EQ(lane.columns().size(), 1000u);
  LaneScale scale;
  ASSERT_TRUE(lane.scale(scale));
  EXPECT_EQ(scale.min, 100'000'000);
  EXPECT_EQ(scale.max, 1'030'000'000);
  EXPECT_EQ(scale.top, kGiB);  // the spike stays in view, at a round 1 GB
  EXPECT_EQ(scale.unit, CounterUnit::bytes);

  // Runs compared on shared scales: a floor from the other run raises the top, never lowers it.
  lane.set_scale_floor(2 * kGiB);
  lane.prepare(ctx);
  ASSERT_TRUE(lane.scale(scale));
  EXPECT_EQ(scale.top, 2 * kGiB);
  lane.set_scale_floor(kGiB / 2);
  lane.prepare(ctx);
  ASSERT_TRUE(lane.scale(scale));
  EXPECT_EQ(scale.top, kGiB);
}

TEST(CounterLane, HitTestsTheValueUnderTheMouse) {
  const trace::TraceModel m = small_model();
  CounterLane lane(m, rss());
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  lane.prepare(ctx);
  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 30500));
  EXPECT_EQ(hit.kind, TimelineHit::Kind::counter);
  EXPECT_EQ(hit.value, 1'030'000'000);
  EXPECT_EQ(hit.click, TimelineHit::Click::clear);
  EXPECT_FALSE(hit.zoomable);
  EXPECT_EQ(lane.hit_test(ctx, ImVec2(ctx.x0 - 10, 20)).kind, TimelineHit::Kind::none);
}

TEST(CounterLane, AModelWithoutTheCounterShowsNothing) {
  const trace::TraceModel m = small_model();
  CounterLane lane(m, *trace::find_counter(trace::kDeviceLiveCounter));
  EXPECT_EQ(lane.column(), -1);
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  lane.prepare(ctx);
  for (const CounterColumn& c : lane.columns()) EXPECT_FALSE(c.valid);
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 30500)).kind, TimelineHit::Kind::none);
  EXPECT_EQ(lane.header(ctx, 30500).detail, "");
}

TEST(CounterLane, DrawsAndShowsATooltip) {
  const trace::TraceModel m = small_model();
  CounterLane lane(m, *trace::find_counter(trace::kQueueCounter));
  HeadlessContext imgui;
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  lane.prepare(ctx);
  imgui.begin_frame();
  ImGuiCanvas canvas(ImGui::GetWindowDrawList());
  lane.draw(canvas, ctx);
  TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 2000));
  hit.t = 2000;  // as the core sets it
  ASSERT_EQ(hit.kind, TimelineHit::Kind::counter);
  lane.tooltip(hit);
  EXPECT_GT(imgui.end_frame()->TotalVtxCount, 0);
}

// The trace layer's packed colours are ImGui's.
TEST(CounterLane, TableColoursAreImGuiColours) {
  EXPECT_EQ(trace::pack_rgba(97, 175, 239), IM_COL32(97, 175, 239, 255));
}

}  // namespace
}  // namespace asyncscope::widgets
