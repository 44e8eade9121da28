#include "widgets/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/trace_record/counter_sampler.h"
#include "support/gpu_trace_model.h"
#include "support/timeline_fixtures.h"
#include "support/timeout.h"
#include "widgets/imgui_context.h"
#include "widgets/lanes/counter_lane.h"
#include "widgets/lanes/cpu_worker_lane.h"
#include "widgets/lanes/frontend_lane.h"
#include "widgets/lanes/gpu_launch_lane.h"
#include "widgets/lanes/gpu_stream_lane.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;

TEST(TimelineLayout, LanesFromTopFrontendQueueWorkersMemory) {
  const trace::TraceModel m = small_model();
  const PreparedFrame p = prepared(m, TimeView{0, 60000});
  const TimelineFrame& f = p.f;
  ASSERT_EQ(f.lanes.size(), 7u);
  EXPECT_NE(lane_as<FrontendLane>(f, 0), nullptr);
  EXPECT_NE(lane_as<CounterLane>(f, 1), nullptr);
  EXPECT_NE(lane_as<CpuWorkerLane>(f, 2), nullptr);
  EXPECT_NE(lane_as<CpuWorkerLane>(f, 3), nullptr);
  EXPECT_NE(lane_as<CounterLane>(f, 4), nullptr);
  EXPECT_NE(lane_as<CounterLane>(f, 5), nullptr);
  EXPECT_NE(lane_as<CounterLane>(f, 6), nullptr);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_LT(f.lanes[i].y0, f.lanes[i].y1);
    if (i > 0) {
      EXPECT_EQ(f.lanes[i].y0, f.lanes[i - 1].y1);
    }
  }
  EXPECT_STREQ(lane_as<CounterLane>(f, 1)->spec().name, "queue_depth");
  EXPECT_EQ(lane_as<CounterLane>(f, 1)->column(), 3);
  EXPECT_STREQ(lane_as<CounterLane>(f, 4)->spec().name, "rss_bytes");
  EXPECT_STREQ(lane_as<CounterLane>(f, 5)->spec().name, "live_bytes");
  EXPECT_STREQ(lane_as<CounterLane>(f, 6)->spec().name, "pooled_bytes");
  EXPECT_EQ(f.index_of(p.lanes.worker_lane(1)), 3);
  EXPECT_EQ(lane_as<CpuWorkerLane>(f, 2)->boxes().size(), 3u);
  EXPECT_EQ(lane_as<FrontendLane>(f, 0)->ticks().size(), 5u);
  EXPECT_EQ(lane_as<FrontendLane>(f, 0)->waits().size(), 1u);
  // RSS peaks at 1.03e9 bytes (the spike): the scale keeps it in view, at a round 1 GB.
  LaneScale scale;
  ASSERT_TRUE(f.lanes[4].lane->scale(scale));
  EXPECT_EQ(scale.top, int64_t{1} << 30);
}

// Two runs stacked in a small window leave each timeline little height: the
// lanes shrink, but each named lane keeps one line (its gutter name never
// overlaps the next one's) and all of them stay in the widget.
TEST(TimelineLayout, SqueezedLanesKeepALineEachAndStayInView) {
  const trace::TraceModel m = small_model();
  PreparedFrame p;
  p.lanes.update(m);
  const std::vector<Lane*> list = lane_list(p.lanes);
  for (const float height : {500.0f, 160.0f, 130.0f}) {
    prepare_timeline_frame(m, list, TimeView{0, 60000}, ImVec2(0, 0), ImVec2(1200, height), 13.0f, p.f);
    const TimelineFrame& f = p.f;
    ASSERT_FALSE(f.lanes.empty());
    for (size_t i = 0; i < f.lanes.size(); ++i) {
      if (f.lanes[i].lane->named()) {
        EXPECT_GE(f.lanes[i].y1 - f.lanes[i].y0, 13.0f) << "lane " << i << " at " << height;
      }
    }
    EXPECT_LE(f.lanes.back().y1, height + 1.0f) << "the last lane is cut at " << height;
  }
}

TEST(TimelineHitTest, ReturnsTheThingUnderThePoint) {
  const trace::TraceModel m = small_model();
  const PreparedFrame p = prepared(m, TimeView{0, 60000});
  const TimelineFrame& f = p.f;
  TimelineHit hit = hit_test(f, point_in(f, 2, 26000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  hit = hit_test(f, point_in(f, 3, 45000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 3);
  hit = hit_test(f, point_in(f, 2, 41500));
  EXPECT_EQ(hit.op, 4);
  hit = hit_test(f, point_in(f, 0, 20000, 0.8f));
  EXPECT_EQ(hit.kind, Kind::sync);
  EXPECT_EQ(hit.sync, 0);
  hit = hit_test(f, point_in(f, 0, 1000, 0.2f));
  EXPECT_EQ(hit.kind, Kind::enqueue);
  EXPECT_EQ(hit.op, 0);
  hit = hit_test(f, point_in(f, 4, 30500));
  EXPECT_EQ(hit.kind, Kind::counter);
  EXPECT_EQ(hit.value, 100'000'000 + 30'000'000 + 900'000'000);
  // Empty space, the gutter and the ruler hold nothing.
  EXPECT_EQ(hit_test(f, point_in(f, 3, 30000)).kind, Kind::none);
  EXPECT_EQ(hit_test(f, ImVec2(f.gutter_x1 - 5, f.lanes[2].y0 + 3)).kind, Kind::none);
  EXPECT_EQ(hit_test(f, ImVec2(600, f.ruler_y1 - 2)).kind, Kind::none);
  EXPECT_EQ(hit_test(f, ImVec2(600, f.lanes.back().y1 + 5)).kind, Kind::none);
}

TEST(TimelineHitTest, FoldedBoxesReportCountAndRange) {
  const trace::TraceModel m = dense_model(20'000);
  const PreparedFrame p = prepared(m, fit_view(m.end_time()));
  const TimelineFrame& f = p.f;
  const int lane = f.index_of(p.lanes.worker_lane(0));
  const TimelineHit hit = hit_test(f, point_in(f, lane, m.end_time() / 2));
  ASSERT_EQ(hit.kind, Kind::folded_ops);
  EXPECT_GT(hit.count, 100u);
  EXPECT_LT(hit.begin_ns, m.end_time() / 2);
  EXPECT_GT(hit.end_ns, m.end_time() / 2);
  size_t total = 0;
  for (const LodBox& b : lane_as<OpSpanLane>(f, lane)->boxes()) total += b.count;
  EXPECT_EQ(total, m.workers[0].ops.size());
  const TimelineHit ticks = hit_test(f, point_in(f, 0, m.end_time() / 3, 0.2f));
  EXPECT_EQ(ticks.kind, Kind::folded_enqueues);
  EXPECT_GT(ticks.count, 1u);
}

TEST(TimelineDependencies, PreviousWritersOfEachVar) {
  const trace::TraceModel m = small_model();
  std::vector<uint32_t> deps;
  previous_writers(m, 2, deps);
  std::sort(deps.begin(), deps.end());
  EXPECT_EQ(deps, (std::vector<uint32_t>{0, 1}));
  previous_writers(m, 3, deps);
  EXPECT_EQ(deps, (std::vector<uint32_t>{2}));
  previous_writers(m, 4, deps);  // free x: after the op that wrote x
  EXPECT_EQ(deps, (std::vector<uint32_t>{0}));
  previous_writers(m, 0, deps);
  EXPECT_TRUE(deps.empty());
  previous_writers(m, 99, deps);
  EXPECT_TRUE(deps.empty());
}

// Frames of a headless context with mouse input.
struct Harness {
  HeadlessContext ctx{1280, 720};
  TimelineState state;
  TimelineOptions options;

  int frame(const trace::TraceModel& m, ImVec2 mouse = ImVec2(-1, -1), bool down = false, float wheel = 0,
            bool* changed = nullptr) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    io.MouseWheel = wheel;
    ctx.begin_frame();
    const bool c = Timeline("timeline", m, state, options);
    if (changed) *changed = c;
    return ctx.end_frame()->TotalVtxCount;
  }
  ImVec2 at(int lane, int64_t t, float fraction = 0.5f) const { return point_in(state.frame, lane, t, fraction); }
};

TEST(TimelineWidget, DrawsEveryLaneAndReactsToTheMouse) {
  const trace::TraceModel m = small_model();
  Harness h;
  FitTimeline(h.state, m);
  EXPECT_GT(h.frame(m), 0);
  ASSERT_EQ(h.state.frame.lanes.size(), 7u);

  // Hover: the op under the mouse, with its tooltip.
  EXPECT_GT(h.frame(m, h.at(2, 26000)), 0);
  EXPECT_EQ(h.state.hover.kind, Kind::op);
  EXPECT_EQ(h.state.hover.op, 2);
  for (const ImVec2 p : {h.at(0, 20000, 0.8f), h.at(0, 1000, 0.2f), h.at(4, 30000), h.at(5, 100)}) {
    EXPECT_GT(h.frame(m, p), 0);
    EXPECT_NE(h.state.hover.kind, Kind::none);
  }

  // Click selects; the selection draws its dependency arrows.
  const ImVec2 on_mul = h.at(2, 26000);
  h.frame(m, on_mul, true);
  h.frame(m, on_mul, false);
  EXPECT_EQ(h.state.selected_op, 2);
  EXPECT_GT(h.frame(m, on_mul), 0);
  std::vector<uint32_t> deps = h.state.deps;
  std::sort(deps.begin(), deps.end());
  EXPECT_EQ(deps, (std::vector<uint32_t>{0, 1}));
  // A click on empty space clears it.
  const ImVec2 empty = h.at(3, 30000);
  h.frame(m, empty, true);
  h.frame(m, empty, false);
  EXPECT_EQ(h.state.selected_op, -1);

  // Wheel zooms in around the cursor.
  const TimeView before = h.state.view;
  const double anchor = h.state.frame.axis.to_ns(on_mul.x);
  bool changed = false;
  h.frame(m, on_mul, false, 2.0f, &changed);
  EXPECT_TRUE(changed);
  EXPECT_LT(h.state.view.span(), before.span());
  EXPECT_NEAR(h.state.frame.axis.to_ns(on_mul.x), anchor, h.state.frame.axis.ns_per_px + 1);

  // Drag pans: content follows the mouse.
  const TimeView zoomed = h.state.view;
  h.frame(m, on_mul, true);
  for (int i = 1; i <= 5; ++i) h.frame(m, ImVec2(on_mul.x + 20.0f * static_cast<float>(i), on_mul.y), true, 0, &changed);
  h.frame(m, ImVec2(on_mul.x + 100, on_mul.y), false);
  EXPECT_LT(h.state.view.begin_ns, zoomed.begin_ns);
  EXPECT_EQ(h.state.view.span(), zoomed.span());
  EXPECT_FALSE(h.state.follow_live);
  EXPECT_EQ(h.state.selected_op, -1) << "a drag is not a click";

  // Double-click on a span zooms to it.
  FitTimeline(h.state, m);
  h.frame(m);
  const ImVec2 on_add = h.at(3, 45000);
  for (bool down : {true, false, true, false}) h.frame(m, on_add, down);
  EXPECT_LE(h.state.view.begin_ns, 41000);
  EXPECT_GE(h.state.view.end_ns, 50000);
  EXPECT_LT(h.state.view.span(), 20000);
}

// GPU runs: per stream, a launch lane directly above its GPU lane, after the
// CPU workers; GPU memory below live bytes, only when the run has the counter.
TEST(TimelineLayout, GpuStreamsGetALaunchLaneAboveTheirGpuLaneAndAGpuMemoryLane) {
  const trace::TraceModel m = testing::gpu_test_model();
  const PreparedFrame p = prepared(m, TimeView{0, 70000});
  const TimelineFrame& f = p.f;
  ASSERT_EQ(f.lanes.size(), 8u);
  EXPECT_NE(lane_as<FrontendLane>(f, 0), nullptr);
  EXPECT_NE(lane_as<CounterLane>(f, 1), nullptr);
  EXPECT_NE(lane_as<CpuWorkerLane>(f, 2), nullptr);
  EXPECT_NE(lane_as<GpuLaunchLane>(f, 3), nullptr);
  EXPECT_NE(lane_as<GpuStreamLane>(f, 4), nullptr);
  for (int i = 5; i < 8; ++i) EXPECT_NE(lane_as<CounterLane>(f, i), nullptr) << i;
  for (uint32_t w = 0; w < 3; ++w) EXPECT_EQ(f.index_of(p.lanes.worker_lane(w)), 2 + static_cast<int>(w));
  EXPECT_STREQ(lane_as<CounterLane>(f, 7)->spec().name, "device_live_bytes");
  EXPECT_STREQ(lane_as<CounterLane>(f, 7)->spec().label, "GPU memory");
  EXPECT_EQ(lane_as<CounterLane>(f, 7)->column(), 2);
  LaneScale scale;
  ASSERT_TRUE(f.lanes[7].lane->scale(scale));
  EXPECT_EQ(scale.top, 10 << 20);  // the 8,000,000-byte peak, up to a round 10 MB
  // The launch lane draws launches, the GPU lane GPU executions.
  const std::vector<LodBox>& launches = lane_as<GpuLaunchLane>(f, 3)->boxes();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].begin_ns, 1500);
  EXPECT_EQ(launches[1].end_ns, 3000);
  const std::vector<LodBox>& executions = lane_as<GpuStreamLane>(f, 4)->boxes();
  ASSERT_EQ(executions.size(), 2u);
  EXPECT_EQ(executions[0].begin_ns, 2600);
  EXPECT_EQ(executions[1].end_ns, 60000);

  // Without the counter (a CPU run, or an older trace) there is no GPU memory lane.
  trace::TraceModel cpu_only = m;
  cpu_only.counter_names[2] = "pooled_bytes";
  const PreparedFrame g = prepared(cpu_only, TimeView{0, 70000});
  EXPECT_EQ(g.f.lanes.size(), 8u);  // pooled bytes now
  for (int i = 0; i < static_cast<int>(g.f.lanes.size()); ++i) {
    if (const CounterLane* lane = lane_as<CounterLane>(g.f, i)) {
      EXPECT_STRNE(lane->spec().name, "device_live_bytes");
    }
  }
  EXPECT_EQ(g.lanes.counter_lane("device_live_bytes"), nullptr);
}

TEST(TimelineHitTest, AGpuOpIsFoundOnItsLaunchLaneAndItsGpuLane) {
  const trace::TraceModel m = testing::gpu_test_model();
  const PreparedFrame p = prepared(m, TimeView{0, 70000});
  const TimelineFrame& f = p.f;
  TimelineHit hit = hit_test(f, point_in(f, 3, 2700));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.begin_ns, 2500);
  EXPECT_EQ(hit.end_ns, 3000);
  hit = hit_test(f, point_in(f, 3, 2000));
  EXPECT_EQ(hit.op, 1);
  hit = hit_test(f, point_in(f, 4, 40000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.begin_ns, 20000);
  EXPECT_EQ(hit.end_ns, 60000);
  EXPECT_EQ(hit_test(f, point_in(f, 3, 40000)).kind, Kind::none);  // the host was idle while the GPU ran
  hit = hit_test(f, point_in(f, 7, 30500));
  EXPECT_EQ(hit.kind, Kind::counter);
  EXPECT_EQ(hit.value, 8'000'000);
}

// The selection finds each part of an op on whichever lane shows it.
TEST(TimelineSelection, FindsAnOpsEnqueueLaunchAndExecutionThroughTheLanes) {
  const trace::TraceModel m = testing::gpu_test_model();
  const PreparedFrame p = prepared(m, TimeView{0, 70000});
  const TimelineFrame& f = p.f;
  ImRect r;
  EXPECT_EQ(f.find_op(2, OpPart::enqueue, r), 0);
  EXPECT_EQ(f.find_op(2, OpPart::launch, r), 3);
  EXPECT_FLOAT_EQ(r.Min.x, f.axis.px(2500));
  EXPECT_GE(r.Min.y, f.lanes[3].y0);
  EXPECT_LE(r.Max.y, f.lanes[3].y1);
  EXPECT_EQ(f.find_op(2, OpPart::execution, r), 4);
  EXPECT_FLOAT_EQ(r.Max.x, f.axis.px(60000));
  EXPECT_EQ(f.find_op(3, OpPart::execution, r), 2);
  EXPECT_EQ(f.find_op(3, OpPart::launch, r), -1);
  EXPECT_EQ(f.find_op(99, OpPart::execution, r), -1);
}

// A GPU op selected on either lane is the same op, with the same dependencies.
TEST(TimelineWidget, SelectingAGpuOpOnEitherLaneShowsItsDependencies) {
  const trace::TraceModel m = testing::gpu_test_model();
  Harness h;
  FitTimeline(h.state, m);
  EXPECT_GT(h.frame(m), 0);
  ASSERT_EQ(h.state.frame.lanes.size(), 8u);
  for (const ImVec2 p : {h.at(3, 2700), h.at(4, 40000)}) {
    EXPECT_GT(h.frame(m, p), 0);  // hover: the tooltip draws
    EXPECT_EQ(h.state.hover.kind, Kind::op);
    EXPECT_EQ(h.state.hover.op, 2);
    h.frame(m, p, true);
    h.frame(m, p, false);
    EXPECT_EQ(h.state.selected_op, 2);
    EXPECT_GT(h.frame(m, p), 0);  // the selection and its arrows draw
    EXPECT_EQ(h.state.deps, (std::vector<uint32_t>{1}));
    const ImVec2 empty = h.at(3, 40000);
    h.frame(m, empty, true);
    h.frame(m, empty, false);
    EXPECT_EQ(h.state.selected_op, -1);
  }
  // A CPU op that read a GPU op's output depends on it.
  const ImVec2 on_copy = h.at(2, 63000);
  h.frame(m, on_copy, true);
  h.frame(m, on_copy, false);
  EXPECT_EQ(h.state.selected_op, 3);
  EXPECT_GT(h.frame(m, on_copy), 0);
  std::vector<uint32_t> deps = h.state.deps;
  std::sort(deps.begin(), deps.end());
  EXPECT_EQ(deps, (std::vector<uint32_t>{0, 2}));

  // Selected while only its launch is known (live, the GPU not done yet): still draws.
  trace::TraceModel live = m;
  live.ops[2].start = live.ops[2].end = trace::kNoTime;
  live.workers[2].ops = {1};
  h.state.selected_op = 2;
  EXPECT_GT(h.frame(live, h.at(3, 2700)), 0);
  EXPECT_EQ(h.state.hover.op, 2);
}

// Thousands of tiny launches fold like any other spans, each counted once.
TEST(TimelineWidget, DenseLaunchLanesFold) {
  trace::TraceModel m;
  m.names = {"", "add"};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 launch 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::launch, {}, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 stream 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::execute, {}, {}});
  int64_t gpu_free = 0;
  for (uint32_t i = 0; i < 20'000; ++i) {
    trace::OpInfo op;
    op.id = i + 1;
    op.name = 1;
    op.device = trace::DeviceKind::cuda;
    op.enqueue = int64_t{i} * 1000;
    op.launch_start = op.enqueue + 100;
    op.launch_end = op.launch_start + 300;
    op.launch_worker = 0;
    op.start = std::max(op.launch_start + 50, gpu_free);
    op.end = op.start + 1500;  // the GPU falls behind the launches
    gpu_free = op.end;
    op.worker = 1;
    m.frontends[0].enqueues.push_back(i);
    m.workers[0].ops.push_back(i);
    m.workers[1].ops.push_back(i);
    m.ops.push_back(op);
  }
  EXPECT_EQ(m.end_time(), gpu_free);
  const PreparedFrame p = prepared(m, fit_view(m.end_time()));
  const TimelineFrame& f = p.f;
  for (uint32_t w = 0; w < 2; ++w) {
    const int lane = f.index_of(p.lanes.worker_lane(w));
    ASSERT_GE(lane, 0);
    size_t total = 0;
    for (const LodBox& b : lane_as<OpSpanLane>(f, lane)->boxes()) total += b.count;
    EXPECT_EQ(total, m.workers[w].ops.size()) << w;
  }
  const TimelineHit hit = hit_test(f, point_in(f, f.index_of(p.lanes.worker_lane(0)), 5'000'000));
  EXPECT_EQ(hit.kind, Kind::folded_ops);
  Harness h;
  FitTimeline(h.state, m);
  h.frame(m);
  const int vertices = h.frame(m, h.at(f.index_of(p.lanes.worker_lane(0)), 5'000'000));
  EXPECT_GT(vertices, 0);
  EXPECT_LT(vertices, 65536);
  EXPECT_EQ(h.state.hover.kind, Kind::folded_ops);
}

TEST(TimelineWidget, EmptyModelsAndStrangeViewsDrawWithoutCrashing) {
  Harness h;
  const trace::TraceModel empty;
  EXPECT_GT(h.frame(empty, ImVec2(600, 300)), 0);
  EXPECT_TRUE(h.state.frame.lanes.empty());
  h.state.selected_op = 12;  // stale selection from another model
  h.frame(empty, ImVec2(600, 300), false, 3.0f);
  EXPECT_EQ(h.state.selected_op, -1);

  const trace::TraceModel m = small_model();
  for (const TimeView v : {TimeView{500, 100}, TimeView{-1'000'000'000, -999'999'000}, TimeView{0, INT64_MAX / 4},
                           TimeView{40000, 40001}, TimeView{1'000'000'000'000, 1'000'000'000'100},
                           TimeView{INT64_MIN, INT64_MAX}}) {
    h.state.view = v;  // set from outside, as a compared timeline does
    EXPECT_GT(h.frame(m, ImVec2(700, 200)), 0);
    EXPECT_GE(h.state.view.span(), kMinViewSpanNs);
    EXPECT_LE(h.state.view.span(), kMaxViewSpanNs);
  }
  // A sane view from a longer run is kept as it is, so compared runs never fight.
  const TimeView longer_run{5'000'000, 6'000'000};
  h.state.view = longer_run;
  bool changed = true;
  h.frame(m, ImVec2(-1, -1), false, 0, &changed);
  EXPECT_EQ(h.state.view, longer_run);
  EXPECT_FALSE(changed);
  // The user's own zoom is kept near the run.
  h.frame(m, ImVec2(700, 200), false, -1.0f, &changed);
  EXPECT_TRUE(changed);
  EXPECT_LE(h.state.view.begin_ns, 60000);
}

TEST(TimelineWidget, DenseModelStaysWithinOneDrawListAtAnyZoom) {
  const trace::TraceModel m = dense_model(200'000);
  Harness h;
  FitTimeline(h.state, m);
  for (int zoom = 0; zoom < 14; ++zoom) {
    const int vertices = h.frame(m, ImVec2(700, 200), false, zoom == 0 ? 0.0f : 1.5f);
    EXPECT_GT(vertices, 0);
    EXPECT_LT(vertices, 65536) << "16-bit indices without a VtxOffset renderer";
  }
}

TEST(TimelineWidget, StackedTimelinesShareAView) {
  const trace::TraceModel a = small_model();
  const trace::TraceModel b = dense_model(1000);
  HeadlessContext ctx(1280, 900);
  TimelineState sa, sb;
  FitTimeline(sa, a);
  sb.view = sa.view;
  bool changed_a = false;
  bool changed_b = false;
  ImGui::GetIO().MousePos = ImVec2(700, 150);
  for (float wheel : {0.0f, 1.0f}) {  // the first frame only makes the window hoverable
    ImGui::GetIO().MouseWheel = wheel;
    ctx.begin_frame();
    changed_a = Timeline("a", a, sa, TimelineOptions{false, "run 1", 400});
    if (changed_a) sb.view = sa.view;
    changed_b = Timeline("b", b, sb, TimelineOptions{false, "run 2", 0});
    EXPECT_GT(ctx.end_frame()->TotalVtxCount, 0);
  }
  EXPECT_TRUE(changed_a);
  EXPECT_FALSE(changed_b);
  ImGui::GetIO().MouseWheel = 0;
  EXPECT_EQ(sa.view, sb.view);
  EXPECT_LT(sa.frame.max.y, sb.frame.min.y);
}

TEST(TimelineWidget, FollowsALiveRunOfTheRealEngine) {
  testing::run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    EngineOptions options;
    options.cpu_workers = 2;
    options.recorder = recorder;
    std::shared_ptr<Engine> engine = make_engine(options);
    std::vector<trace::Counter> counters;
    counters.push_back({"queue_depth", [&engine] { return static_cast<int64_t>(engine->stats().pending); }});
    counters.push_back(trace::rss_counter());
    counters.push_back({"live_bytes", [] { return int64_t{4096}; }});
    trace::CounterSampler sampler(recorder, std::move(counters));
    sampler.start();

    trace::TraceModel model;
    trace::TraceReader reader(*recorder);
    Harness h;
    h.options.live = true;
    Var* x = engine->new_var();
    const auto spin = [](const RunContext&) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
      while (std::chrono::steady_clock::now() < until) {
      }
    };
    for (int f = 0; f < 40; ++f) {
      for (int i = 0; i < 20; ++i) engine->push(spin, {x}, {engine->new_var()}, OpMeta("work"));
      if (f % 10 == 9) engine->wait_for_var(x);
      reader.update(model);
      EXPECT_GT(h.frame(model, ImVec2(800, 250)), 0);
      EXPECT_GE(h.state.view.end_ns, model.end_time()) << "frame " << f;
    }
    engine->wait_all();
    sampler.stop();
    reader.update(model);
    h.options.live = false;
    EXPECT_GT(h.frame(model, ImVec2(800, 250)), 0);
    EXPECT_GE(model.ops.size(), 800u);
    EXPECT_FALSE(h.state.frame.lanes.empty());
  });
}

}  // namespace
}  // namespace asyncscope::widgets

namespace asyncscope::widgets {
namespace {

// A marker's tag stays whole in view: to the right of its line, or to the
// left of it near the view's end (where it fits).
TEST(TimelineMarkers, ATagNearTheEndGoesLeftOfItsLine) {
  const MarkerTag right = place_marker_tag(100, 50, 0, 400);
  EXPECT_FALSE(right.left);
  EXPECT_FLOAT_EQ(right.x0, 100);
  EXPECT_FLOAT_EQ(right.x1, 150);
  const MarkerTag left = place_marker_tag(380, 50, 0, 400);
  EXPECT_TRUE(left.left);
  EXPECT_FLOAT_EQ(left.x0, 330);
  EXPECT_FLOAT_EQ(left.x1, 380);
  // Too wide for either side: right of the line, as before.
  EXPECT_FALSE(place_marker_tag(30, 50, 0, 60).left);
}

}  // namespace
}  // namespace asyncscope::widgets
