#include "widgets/lanes/gpu_stream_lane.h"

#include <gtest/gtest.h>

#include "support/gpu_trace_model.h"
#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;

// In the GPU model, lane 2 is "cuda:0 stream 0": ops 1 and 2 on the GPU at
// 2600..20000 and 20000..60000.
TEST(GpuStreamLane, PreparesTheGpuExecutions) {
  const trace::TraceModel m = testing::gpu_test_model();
  GpuStreamLane lane(m, 2);
  const LaneContext ctx = lane_context(TimeView{0, 70000});
  EXPECT_EQ(lane.header(ctx, trace::kNoTime).name, "cuda:0 stream 0");
  lane.prepare(ctx);
  ASSERT_EQ(lane.boxes().size(), 2u);
  EXPECT_EQ(lane.boxes()[0].begin_ns, 2600);
  EXPECT_EQ(lane.boxes()[1].end_ns, 60000);
  const TimelineHit hit = lane.hit_test(ctx, point_at(ctx, 40000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.begin_ns, 20000);
  EXPECT_EQ(hit.end_ns, 60000);
}

TEST(GpuStreamLane, LocatesExecutionsOnly) {
  const trace::TraceModel m = testing::gpu_test_model();
  const GpuStreamLane lane(m, 2);
  const LaneContext ctx = lane_context(TimeView{0, 70000});
  ImRect r;
  ASSERT_TRUE(lane.locate(ctx, 2, OpPart::execution, r));
  EXPECT_FLOAT_EQ(r.Min.x, ctx.axis.px(20000));
  EXPECT_FLOAT_EQ(r.Max.x, ctx.axis.px(60000));
  EXPECT_FALSE(lane.locate(ctx, 2, OpPart::launch, r));
  EXPECT_FALSE(lane.locate(ctx, 3, OpPart::execution, r)) << "ran on the CPU";
  // Live: launched, not yet reported by the GPU.
  trace::TraceModel live = m;
  live.ops[2].start = live.ops[2].end = trace::kNoTime;
  EXPECT_FALSE(GpuStreamLane(live, 2).locate(ctx, 2, OpPart::execution, r));
}

TEST(GpuStreamLane, DrawsAndShowsTooltips) {
  const trace::TraceModel m = testing::gpu_test_model();
  GpuStreamLane lane(m, 2);
  HeadlessContext imgui;
  const LaneContext ctx = lane_context(TimeView{0, 70000});
  lane.prepare(ctx);
  imgui.begin_frame();
  ImGuiCanvas canvas(ImGui::GetWindowDrawList());
  lane.draw(canvas, ctx);
  lane.tooltip(lane.hit_test(ctx, point_at(ctx, 40000)));
  EXPECT_GT(imgui.end_frame()->TotalVtxCount, 0);
}

}  // namespace
}  // namespace asyncscope::widgets
