#include "widgets/lanes/gpu_launch_lane.h"

#include <gtest/gtest.h>

#include "support/gpu_trace_model.h"
#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;

// In the GPU model, lane 1 is "cuda:0 launch 0": ops 1 and 2 launched at
// 1500..2500 and 2500..3000, then the host is idle while the GPU runs.
TEST(GpuLaunchLane, PreparesTheLaunchesNotTheGpuWork) {
  const trace::TraceModel m = testing::gpu_test_model();
  GpuLaunchLane lane(m, 1);
  const LaneContext ctx = lane_context(TimeView{0, 70000});
  EXPECT_EQ(lane.header(ctx, trace::kNoTime).name, "cuda:0 launch 0");
  lane.prepare(ctx);
  ASSERT_EQ(lane.boxes().size(), 2u);
  EXPECT_EQ(lane.boxes()[0].begin_ns, 1500);
  EXPECT_EQ(lane.boxes()[1].end_ns, 3000);
  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 2700));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.begin_ns, 2500);
  EXPECT_EQ(hit.end_ns, 3000);
  EXPECT_EQ(lane.hit_test(ctx, point_at(ctx, 40000)).kind, Kind::none);
}

TEST(GpuLaunchLane, LocatesLaunchesOnly) {
  const trace::TraceModel m = testing::gpu_test_model();
  const GpuLaunchLane lane(m, 1);
  const LaneContext ctx = lane_context(TimeView{0, 70000});
  ImRect r;
  ASSERT_TRUE(lane.locate(ctx, 2, OpPart::launch, r));
  EXPECT_FLOAT_EQ(r.Min.x, ctx.axis.px(2500));
  EXPECT_FALSE(lane.locate(ctx, 2, OpPart::execution, r));
  EXPECT_FALSE(lane.locate(ctx, 0, OpPart::launch, r)) << "a CPU op has no launch";
}

TEST(GpuLaunchLane, DrawsAndShowsAFoldedTooltip) {
  const trace::TraceModel m = testing::gpu_test_model();
  GpuLaunchLane lane(m, 1);
  HeadlessContext imgui;
  // Zoomed out so far that the two launches fold into one box.
  const LaneContext ctx = lane_context(TimeView{0, 70'000'000});
  lane.prepare(ctx);
  ASSERT_EQ(lane.boxes().size(), 1u);
  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 2000));
  EXPECT_EQ(hit.kind, Kind::folded_ops);
  EXPECT_EQ(hit.count, 2u);
  imgui.begin_frame();
  ImGuiCanvas canvas(ImGui::GetWindowDrawList());
  lane.draw(canvas, ctx);
  lane.tooltip(hit);
  EXPECT_GT(imgui.end_frame()->TotalVtxCount, 0);
}

}  // namespace
}  // namespace asyncscope::widgets
