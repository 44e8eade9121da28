#include "widgets/lanes/default_lanes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/gpu_trace_model.h"
#include "support/timeline_fixtures.h"
#include "widgets/lanes/counter_lane.h"
#include "widgets/lanes/cpu_worker_lane.h"
#include "widgets/lanes/frontend_lane.h"
#include "widgets/lanes/gpu_launch_lane.h"
#include "widgets/lanes/gpu_stream_lane.h"

namespace asyncscope::widgets {
namespace {

// What each lane is, in order: "frontend", "counter <name>", "cpu", "launch", "stream".
std::vector<std::string> kinds(const DefaultLanes& lanes) {
  std::vector<std::string> out;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane* lane = &lanes[i];
    if (dynamic_cast<const FrontendLane*>(lane)) out.push_back("frontend");
    if (auto* c = dynamic_cast<const CounterLane*>(lane)) out.push_back(std::string("counter ") + c->spec().name);
    if (dynamic_cast<const CpuWorkerLane*>(lane)) out.push_back("cpu");
    if (dynamic_cast<const GpuLaunchLane*>(lane)) out.push_back("launch");
    if (dynamic_cast<const GpuStreamLane*>(lane)) out.push_back("stream");
  }
  return out;
}

TEST(DefaultLanes, CpuRunFrontendCountersAboveWorkersCountersBelow) {
  const trace::TraceModel m = small_model();
  DefaultLanes lanes;
  lanes.update(m);
  // running ops are recorded but are no lane.
  EXPECT_EQ(kinds(lanes), (std::vector<std::string>{"frontend", "counter queue_depth", "cpu", "cpu",
                                                    "counter rss_bytes", "counter live_bytes",
                                                    "counter pooled_bytes"}));
  EXPECT_EQ(lanes.frontend_lane(0), &lanes[0]);
  EXPECT_EQ(lanes.worker_lane(1), &lanes[3]);
  EXPECT_EQ(lanes.counter_lane("rss_bytes"), &lanes[4]);
  EXPECT_EQ(lanes.counter_lane("pooled_bytes"), &lanes[6]);
  EXPECT_EQ(lanes.counter_lane("running_ops"), nullptr);
  EXPECT_EQ(lanes.worker_lane(2), nullptr);
}

TEST(DefaultLanes, GpuRunLaunchLaneAboveItsStreamAndGpuMemory) {
  const trace::TraceModel m = testing::gpu_test_model();
  DefaultLanes lanes;
  lanes.update(m);
  EXPECT_EQ(kinds(lanes), (std::vector<std::string>{"frontend", "counter queue_depth", "cpu", "launch", "stream",
                                                    "counter rss_bytes", "counter live_bytes",
                                                    "counter device_live_bytes"}));
}

TEST(DefaultLanes, NoCountersNoCounterLanes) {
  trace::TraceModel m = testing::gpu_test_model();
  m.counter_names.clear();
  m.counters.clear();
  DefaultLanes lanes;
  lanes.update(m);
  EXPECT_EQ(kinds(lanes), (std::vector<std::string>{"frontend", "cpu", "launch", "stream"}));
  // Counters the table does not know are not drawn either.
  m.counter_names = {"my_counter"};
  lanes.update(m);
  EXPECT_EQ(lanes.size(), 4u);
  const trace::TraceModel empty;
  lanes.update(empty);
  EXPECT_EQ(lanes.size(), 0u);
}

TEST(DefaultLanes, KeptWhileTheModelKeepsItsShapeRebuiltWhenItGrows) {
  trace::TraceModel m = small_model();
  DefaultLanes lanes;
  lanes.update(m);
  const Lane* worker0 = lanes.worker_lane(0);
  m.ops.push_back(m.ops.back());  // a live run: more ops, same lanes
  lanes.update(m);
  EXPECT_EQ(lanes.worker_lane(0), worker0) << "a lane keeps its buffers from frame to frame";

  // A GPU stream appears: its launch and stream lanes come after the CPU workers.
  m.workers.push_back(trace::WorkerLane{"cuda:0 launch 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::launch, {}, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 stream 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::execute, {}, {}});
  lanes.update(m);
  EXPECT_EQ(kinds(lanes), (std::vector<std::string>{"frontend", "counter queue_depth", "cpu", "cpu", "launch",
                                                    "stream", "counter rss_bytes", "counter live_bytes",
                                                    "counter pooled_bytes"}));

  // Another model object of the same shape: lanes of that model.
  trace::TraceModel copy = m;
  copy.frontends[0].name = "the copy's frontend";
  lanes.update(copy);
  EXPECT_EQ(lanes.frontend_lane(0)->header(lane_context(TimeView{0, 60000}), trace::kNoTime).name,
            "the copy's frontend");
}

}  // namespace
}  // namespace asyncscope::widgets
