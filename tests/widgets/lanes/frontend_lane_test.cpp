#include "widgets/lanes/frontend_lane.h"

#include <gtest/gtest.h>

#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;
using Click = TimelineHit::Click;

TEST(FrontendLane, HeaderCountsWhatItPushed) {
  const trace::TraceModel m = small_model();
  const FrontendLane lane(m, 0);
  const LaneHeader h = lane.header(lane_context(TimeView{0, 60000}), trace::kNoTime);
  EXPECT_EQ(h.name, "frontend");
  EXPECT_EQ(h.detail, "5 pushed");
  EXPECT_GT(lane.height_lines(), 1.0f);
}

TEST(FrontendLane, PreparesTicksAboveAndWaitsBelow) {
  const trace::TraceModel m = small_model();
  FrontendLane lane(m, 0);
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  lane.prepare(ctx);
  ASSERT_EQ(lane.ticks().size(), 5u);  // 500 ns apart, 60 ns a pixel: one column each
  EXPECT_EQ(lane.ticks()[0].begin_ns, 1000);
  ASSERT_EQ(lane.waits().size(), 1u);
  EXPECT_EQ(lane.waits()[0].begin_ns, 3500);
  EXPECT_EQ(lane.waits()[0].end_ns, 51000);

  // A tick selects its op; a wait keeps the selection and zooms on a double-click.
  TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 2000, 0.2f));
  EXPECT_EQ(hit.kind, Kind::enqueue);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.click, Click::select_op);
  EXPECT_FALSE(hit.zoomable);
  hit = lane.hit_test(ctx, point_at(ctx, 20000, 0.8f));
  EXPECT_EQ(hit.kind, Kind::sync);
  EXPECT_EQ(hit.sync, 0);
  EXPECT_EQ(hit.click, Click::keep);
  EXPECT_TRUE(hit.zoomable);
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 20000, 0.2f)).kind, Kind::none);  // no tick there
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 55000, 0.8f)).kind, Kind::none);  // the wait has ended
}

TEST(FrontendLane, DenseTicksFoldIntoColumns) {
  const trace::TraceModel m = dense_model(20'000);
  FrontendLane lane(m, 0);
  const LaneContext ctx = lane_context(fit_view(m.end_time()));
  lane.prepare(ctx);
  EXPECT_LE(lane.ticks().size(), 1000u);
  uint32_t total = 0;
  for (const LodBox& b : lane.ticks()) total += b.count;
  EXPECT_EQ(total, 20'000u);
  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, m.end_time() / 3, 0.2f));
  EXPECT_EQ(hit.kind, Kind::folded_enqueues);
  EXPECT_GT(hit.count, 1u);
  EXPECT_EQ(hit.click, Click::keep);
  EXPECT_TRUE(hit.zoomable);
}

TEST(FrontendLane, LocatesAnOpsEnqueueOnly) {
  const trace::TraceModel m = small_model();
  const FrontendLane lane(m, 0);
  const LaneContext ctx = lane_context(TimeView{0, 60000}, 10, 50);
  ImRect r;
  ASSERT_TRUE(lane.locate(ctx, 2, OpPart::enqueue, r));
  EXPECT_LE(r.Min.x, ctx.axis.px(2000));
  EXPECT_GE(r.Max.x, ctx.axis.px(2000));
  EXPECT_EQ(r.Min.y, 11);
  EXPECT_EQ(r.Max.y, FrontendLane::split_y(ctx));
  EXPECT_FALSE(lane.locate(ctx, 2, OpPart::execution, r));
  EXPECT_FALSE(lane.locate(ctx, 99, OpPart::enqueue, r));
  trace::TraceModel two = m;  // another thread's lane does not show it
  two.frontends.push_back(trace::FrontendLane{"second thread", {}, {}, {}});
  EXPECT_FALSE(FrontendLane(two, 1).locate(ctx, 2, OpPart::enqueue, r));
}

TEST(FrontendLane, DrawsAndShowsTooltips) {
  const trace::TraceModel m = small_model();
  FrontendLane lane(m, 0);
  HeadlessContext imgui;
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  lane.prepare(ctx);
  for (const float fraction : {0.2f, 0.8f}) {
    imgui.begin_frame();
    ImGuiCanvas canvas(ImGui::GetWindowDrawList());
    lane.draw(canvas, ctx);
    lane.tooltip(lane.hit_test(ctx, point_at(ctx, fraction < 0.5f ? 1000 : 20000, fraction)));
    EXPECT_GT(imgui.end_frame()->TotalVtxCount, 0);
  }
}

}  // namespace
}  // namespace asyncscope::widgets
