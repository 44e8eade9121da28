#include "widgets/timeline_tooltip.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/gpu_trace_model.h"
#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"
#include "widgets/time_axis.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

std::vector<std::string> labels(const std::vector<TooltipRow>& rows) {
  std::vector<std::string> out;
  for (const TooltipRow& r : rows) out.push_back(r.label);
  return out;
}

std::string value(const std::vector<TooltipRow>& rows, const std::string& label) {
  for (const TooltipRow& r : rows) {
    if (label == r.label) return r.value;
  }
  return "(no row " + label + ")";
}

TEST(TimelineTooltip, CpuOpShowsEnqueueStartEndOnItsWorker) {
  const trace::TraceModel m = testing::gpu_test_model();
  EXPECT_FALSE(is_gpu_op(m, m.ops[0]));
  const std::vector<TooltipRow> rows = op_timing_rows(m, m.ops[0]);
  EXPECT_EQ(labels(rows), (std::vector<std::string>{"enqueue", "start", "end", "queue wait", "duration", "worker"}));
  EXPECT_EQ(value(rows, "queue wait"), format_duration(1000));
  EXPECT_EQ(value(rows, "duration"), format_duration(8000));
  EXPECT_EQ(value(rows, "worker"), "CPU worker 0");
}

// Enqueue -> launch -> GPU start -> end, and on which lanes.
TEST(TimelineTooltip, GpuOpShowsEnqueueLaunchGpuStartAndEnd) {
  const trace::TraceModel m = testing::gpu_test_model();
  const trace::OpInfo& dot = m.ops[2];
  EXPECT_TRUE(is_gpu_op(m, dot));
  const std::vector<TooltipRow> rows = op_timing_rows(m, dot);
  EXPECT_EQ(labels(rows), (std::vector<std::string>{"enqueue", "launch", "GPU start", "GPU end", "queue wait",
                                                    "stream wait", "on GPU", "launched by", "stream"}));
  EXPECT_EQ(value(rows, "enqueue"), format_time(1400, 100));
  EXPECT_NE(value(rows, "launch").find(format_duration(500)), std::string::npos) << value(rows, "launch");
  EXPECT_EQ(value(rows, "GPU start"), format_time(20000, 100));
  EXPECT_EQ(value(rows, "GPU end"), format_time(60000, 100));
  EXPECT_EQ(value(rows, "queue wait"), format_duration(2500 - 1400));
  EXPECT_EQ(value(rows, "stream wait"), format_duration(20000 - 3000));
  EXPECT_EQ(value(rows, "on GPU"), format_duration(40000));
  EXPECT_EQ(value(rows, "launched by"), "cuda:0 launch 0");
  EXPECT_EQ(value(rows, "stream"), "cuda:0 stream 0");
}

TEST(TimelineTooltip, GpuOpsPartlyReadSayWhatIsMissing) {
  trace::TraceModel m = testing::gpu_test_model();
  trace::OpInfo& running = m.ops[2];  // launched; the GPU has not reported it yet
  running.start = running.end = trace::kNoTime;
  std::vector<TooltipRow> rows = op_timing_rows(m, running);
  EXPECT_EQ(labels(rows), (std::vector<std::string>{"enqueue", "launch", "GPU", "queue wait", "launched by"}));
  EXPECT_EQ(value(rows, "GPU"), "launched, not finished yet");
  running.status = trace::OpStatus::skipped;  // an input had failed: only a launch span, nothing on the GPU
  EXPECT_EQ(value(op_timing_rows(m, running), "GPU"), "did not run");

  trace::OpInfo pending;  // pushed to the GPU, not launched yet
  pending.enqueue = 500;
  pending.device = trace::DeviceKind::cuda;
  EXPECT_EQ(labels(op_timing_rows(m, pending)), (std::vector<std::string>{"enqueue", "GPU"}));

  // A GPU op from a trace without launch spans (format version 1): its GPU times only.
  trace::OpInfo old = m.ops[1];
  old.launch_start = old.launch_end = trace::kNoTime;
  old.device = trace::DeviceKind::cpu;  // as if its enqueue was never read: its lane says GPU
  EXPECT_TRUE(is_gpu_op(m, old));
  rows = op_timing_rows(m, old);
  EXPECT_EQ(labels(rows), (std::vector<std::string>{"enqueue", "GPU start", "GPU end", "queue wait", "on GPU", "stream"}));
  EXPECT_EQ(value(rows, "queue wait"), format_duration(2600 - 1200));
}

// The op tooltip draws for every op, also through the lanes that show ops
// (an enqueue on the frontend lane, a span on a worker lane), and a folded
// box's tooltip on a launch lane.
TEST(TimelineTooltip, DrawsForEveryHitKind) {
  const trace::TraceModel m = testing::gpu_test_model();
  HeadlessContext ctx(1280, 720);
  const PreparedFrame p = prepared(m, TimeView{0, 70000});
  using Kind = TimelineHit::Kind;
  for (uint32_t op = 0; op < 4; ++op) {
    ctx.begin_frame();
    OpTooltip(m, op);
    EXPECT_GT(ctx.end_frame()->TotalVtxCount, 0);
    for (const auto& [lane, kind] : {std::pair(p.lanes.frontend_lane(0), Kind::enqueue),
                                     std::pair(p.lanes.worker_lane(m.ops[op].worker), Kind::op)}) {
      TimelineHit hit;
      hit.kind = kind;
      hit.op = op;
      ctx.begin_frame();
      lane->tooltip(hit);
      EXPECT_GT(ctx.end_frame()->TotalVtxCount, 0);
    }
  }
  TimelineHit folded;
  folded.kind = Kind::folded_ops;
  folded.first = 0;
  folded.count = 2;
  folded.begin_ns = 1500;
  folded.end_ns = 3000;
  ctx.begin_frame();
  p.lanes.worker_lane(1)->tooltip(folded);  // the launch lane
  EXPECT_GT(ctx.end_frame()->TotalVtxCount, 0);
}

}  // namespace
}  // namespace asyncscope::widgets
