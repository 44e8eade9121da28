#include "widgets/lanes/cpu_worker_lane.h"

#include <gtest/gtest.h>

#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;
using Click = TimelineHit::Click;

TEST(CpuWorkerLane, PreparesTheOpsItExecuted) {
  const trace::TraceModel m = small_model();
  CpuWorkerLane lane(m, 0);
  const LaneContext ctx = lane_context(TimeView{0, 60000});
  EXPECT_EQ(lane.header(ctx, trace::kNoTime).name, "CPU worker 0");
  EXPECT_EQ(lane.worker(), 0u);
  lane.prepare(ctx);
  ASSERT_EQ(lane.boxes().size(), 3u);  // ones, mul, free
  EXPECT_EQ(lane.boxes()[1].begin_ns, 13000);
  EXPECT_EQ(lane.boxes()[1].end_ns, 40000);
  EXPECT_FALSE(lane.boxes()[1].folded());

  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 26000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.click, Click::select_op);
  EXPECT_TRUE(hit.zoomable);
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 41500)).op, 4);
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 50000)).kind, Kind::none);
}

TEST(CpuWorkerLane, NarrowOpsFoldIntoCountedBoxes) {
  const trace::TraceModel m = dense_model(20'000);
  CpuWorkerLane lane(m, 0);
  const LaneContext ctx = lane_context(fit_view(m.end_time()));
  lane.prepare(ctx);
  uint32_t total = 0;
  for (const LodBox& b : lane.boxes()) total += b.count;
  EXPECT_EQ(total, m.workers[0].ops.size());
  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, m.end_time() / 2));
  EXPECT_EQ(hit.kind, Kind::folded_ops);
  EXPECT_GT(hit.count, 100u);
  EXPECT_EQ(hit.op, -1);
  EXPECT_EQ(hit.click, Click::keep);
  EXPECT_TRUE(hit.zoomable);
}

TEST(CpuWorkerLane, LocatesTheExecutionOfItsOwnOps) {
  const trace::TraceModel m = small_model();
  const CpuWorkerLane lane(m, 0);
  const LaneContext ctx = lane_context(TimeView{0, 60000}, 20, 40);
  ImRect r;
  ASSERT_TRUE(lane.locate(ctx, 2, OpPart::execution, r));
  EXPECT_FLOAT_EQ(r.Min.x, ctx.axis.px(13000));
  EXPECT_FLOAT_EQ(r.Max.x, ctx.axis.px(40000));
  EXPECT_EQ(r.Min.y, 21);
  EXPECT_EQ(r.Max.y, 39);
  EXPECT_FALSE(lane.locate(ctx, 1, OpPart::execution, r)) << "ran on worker 1";
  EXPECT_FALSE(lane.locate(ctx, 2, OpPart::launch, r));
  EXPECT_FALSE(lane.locate(ctx, 2, OpPart::enqueue, r));
}

TEST(CpuWorkerLane, DrawsAndShowsTooltips) {
  HeadlessContext imgui;
  for (const trace::TraceModel& m : {small_model(), dense_model(20'000)}) {
    CpuWorkerLane lane(m, 0);
    const LaneContext ctx = lane_context(fit_view(m.end_time()));
    lane.prepare(ctx);
    imgui.begin_frame();
    ImGuiCanvas canvas(ImGui::GetWindowDrawList());
    lane.draw(canvas, ctx);
    ASSERT_FALSE(lane.boxes().empty());
    const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, lane.boxes()[lane.boxes().size() / 2].begin_ns));
    ASSERT_NE(hit.kind, Kind::none);
    lane.tooltip(hit);
    EXPECT_GT(imgui.end_frame()->TotalVtxCount, 0);
  }
}

}  // namespace
}  // namespace asyncscope::widgets
