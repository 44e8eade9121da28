#include "widgets/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/trace/counter_sampler.h"
#include "support/gpu_trace_model.h"
#include "support/model_vars.h"
#include "support/timeout.h"
#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;

// A small hand-built trace (times in ns): x = ones; y = ones; z = x * y;
// w = z + 1; free x; the frontend waits for w.
//   op0 ones  writes 1        enq 1000  run  2000..12000  worker 0
//   op1 ones  writes 2        enq 1500  run  2500..11000  worker 1
//   op2 mul   reads 1 2 -> 3  enq 2000  run 13000..40000  worker 0
//   op3 add_scalar 3 -> 4     enq 2500  run 41000..50000  worker 1
//   op4 free  writes 1        enq 3000  run 41000..42000  worker 0 (internal)
trace::TraceModel small_model() {
  trace::TraceModel m;
  m.names = {"", "ones", "mul", "add_scalar", "free", "calls", "wait for w"};
  struct Row {
    trace::NameId name;
    int64_t enqueue, start, end;
    uint16_t worker;
    std::vector<uint64_t> reads, writes;
  };
  const std::vector<Row> rows = {{1, 1000, 2000, 12000, 0, {}, {1}},
                                 {1, 1500, 2500, 11000, 1, {}, {2}},
                                 {2, 2000, 13000, 40000, 0, {1, 2}, {3}},
                                 {3, 2500, 41000, 50000, 1, {3}, {4}},
                                 {4, 3000, 41000, 42000, 0, {}, {1}}};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {0}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 0", trace::DeviceKind::cpu, 0, 0, trace::SpanKind::execute, {}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 1", trace::DeviceKind::cpu, 0, 1, trace::SpanKind::execute, {}});
  for (const Row& r : rows) {
    trace::OpInfo op;
    op.id = m.ops.size() + 1;
    op.name = r.name;
    op.enqueue = r.enqueue;
    op.start = r.start;
    op.end = r.end;
    op.worker = r.worker;
    op.internal = r.name == 4;
    testing::set_vars(m, op, r.reads, r.writes);
    m.frontends[0].enqueues.push_back(static_cast<uint32_t>(m.ops.size()));
    m.ops.push_back(op);
  }
  for (uint32_t i : {0u, 2u, 4u}) m.workers[0].ops.push_back(i);
  for (uint32_t i : {1u, 3u}) m.workers[1].ops.push_back(i);
  m.syncs.push_back(trace::SyncSpan{3500, 51000, 4, 5, 0, trace::SyncKind::wait_to_read});
  m.markers.push_back(trace::Marker{0, 0, 5, 0});
  m.markers.push_back(trace::Marker{3500, 0, 6, 0});
  m.counter_names = {"rss_bytes", "live_bytes", "pooled_bytes", "queue_depth", "running_ops"};
  for (int64_t t = 0; t <= 60000; t += 1000) {
    trace::CounterSample s;
    s.t = t;
    s.values[0] = 100'000'000 + t * 1000 + (t == 30000 ? 900'000'000 : 0);
    s.values[1] = t * 100;
    s.values[3] = t < 3000 ? t / 600 : t < 50000 ? 3 : 0;
    m.counters.push_back(s);
  }
  return m;
}

// n tiny ops round-robin on 4 workers, enqueued ahead, counters at 1 kHz.
trace::TraceModel dense_model(uint32_t n) {
  trace::TraceModel m;
  m.names = {"", "add", "dot"};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}});
  for (uint16_t w = 0; w < 4; ++w) {
    m.workers.push_back(trace::WorkerLane{"CPU worker " + std::to_string(w), trace::DeviceKind::cpu, 0, w, trace::SpanKind::execute, {}});
  }
  int64_t free_at[4] = {};
  for (uint32_t i = 0; i < n; ++i) {
    trace::OpInfo op;
    op.id = i + 1;
    op.name = 1 + i % 2;
    op.enqueue = i * 500;
    op.worker = static_cast<uint16_t>(i % 4);
    op.start = std::max(op.enqueue + 300, free_at[op.worker] + 100);
    op.end = op.start + 1000 + (i % 7) * 300;
    free_at[op.worker] = op.end;
    m.frontends[0].enqueues.push_back(i);
    m.workers[op.worker].ops.push_back(i);
    m.ops.push_back(op);
  }
  m.counter_names = {"queue_depth", "rss_bytes", "live_bytes"};
  for (int64_t t = 0; t <= m.end_time(); t += 1'000'000) {
    trace::CounterSample s;
    s.t = t;
    s.values[0] = t % 7'000'000 / 100'000;
    s.values[1] = 1'000'000'000 + t;
    s.values[2] = t / 2;
    m.counters.push_back(s);
  }
  return m;
}

TimelineFrame prepared(const trace::TraceModel& m, TimeView view) {
  TimelineFrame f;
  prepare_timeline_frame(m, view, ImVec2(0, 0), ImVec2(1200, 500), 13.0f, f);
  return f;
}

ImVec2 point_in(const TimelineFrame& f, int lane, int64_t t, float fraction = 0.5f) {
  const TimelineLane& l = f.lanes[static_cast<size_t>(lane)];
  return ImVec2(static_cast<float>(f.axis.to_px(static_cast<double>(t))), l.y0 + (l.y1 - l.y0) * fraction);
}

TEST(TimelineLayout, LanesFromTopFrontendQueueWorkersMemory) {
  const trace::TraceModel m = small_model();
  const TimelineFrame f = prepared(m, TimeView{0, 60000});
  ASSERT_EQ(f.lanes.size(), 6u);
  const LaneKind kinds[] = {LaneKind::frontend, LaneKind::counter, LaneKind::worker,
                            LaneKind::worker,   LaneKind::counter, LaneKind::counter};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(f.lanes[i].kind, kinds[i]) << i;
    EXPECT_LT(f.lanes[i].y0, f.lanes[i].y1);
    if (i > 0) {
      EXPECT_EQ(f.lanes[i].y0, f.lanes[i - 1].y1);
    }
  }
  EXPECT_STREQ(kCounterLanes[f.lanes[1].index].counter, "queue_depth");
  EXPECT_EQ(f.lanes[1].counter, 3);
  EXPECT_STREQ(kCounterLanes[f.lanes[4].index].counter, "rss_bytes");
  EXPECT_STREQ(kCounterLanes[f.lanes[5].index].counter, "live_bytes");
  EXPECT_EQ(f.lane_of(LaneKind::worker, 1), 3);
  EXPECT_EQ(f.lanes[2].spans.size(), 3u);
  EXPECT_EQ(f.lanes[0].ticks.size(), 5u);
  EXPECT_EQ(f.lanes[0].spans.size(), 1u);
  // RSS peaks at 1.03e9 bytes (the spike): the scale keeps it in view, at a round 1 GB.
  EXPECT_EQ(f.lanes[4].scale_max, int64_t{1} << 30);
}

TEST(TimelineHitTest, ReturnsTheThingUnderThePoint) {
  const trace::TraceModel m = small_model();
  const TimelineFrame f = prepared(m, TimeView{0, 60000});
  TimelineHit hit = hit_test(m, f, point_in(f, 2, 26000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  hit = hit_test(m, f, point_in(f, 3, 45000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 3);
  hit = hit_test(m, f, point_in(f, 2, 41500));
  EXPECT_EQ(hit.op, 4);
  hit = hit_test(m, f, point_in(f, 0, 20000, 0.8f));
  EXPECT_EQ(hit.kind, Kind::sync);
  EXPECT_EQ(hit.sync, 0);
  hit = hit_test(m, f, point_in(f, 0, 1000, 0.2f));
  EXPECT_EQ(hit.kind, Kind::enqueue);
  EXPECT_EQ(hit.op, 0);
  hit = hit_test(m, f, point_in(f, 4, 30500));
  EXPECT_EQ(hit.kind, Kind::counter);
  EXPECT_EQ(hit.value, 100'000'000 + 30'000'000 + 900'000'000);
  // Empty space, the gutter and the ruler hold nothing.
  EXPECT_EQ(hit_test(m, f, point_in(f, 3, 30000)).kind, Kind::none);
  EXPECT_EQ(hit_test(m, f, ImVec2(f.gutter_x1 - 5, f.lanes[2].y0 + 3)).kind, Kind::none);
  EXPECT_EQ(hit_test(m, f, ImVec2(600, f.ruler_y1 - 2)).kind, Kind::none);
  EXPECT_EQ(hit_test(m, f, ImVec2(600, f.lanes.back().y1 + 5)).kind, Kind::none);
}

TEST(TimelineHitTest, FoldedBoxesReportCountAndRange) {
  const trace::TraceModel m = dense_model(20'000);
  const TimelineFrame f = prepared(m, fit_view(m.end_time()));
  const int lane = f.lane_of(LaneKind::worker, 0);
  const TimelineHit hit = hit_test(m, f, point_in(f, lane, m.end_time() / 2));
  ASSERT_EQ(hit.kind, Kind::folded_ops);
  EXPECT_GT(hit.count, 100u);
  EXPECT_LT(hit.begin_ns, m.end_time() / 2);
  EXPECT_GT(hit.end_ns, m.end_time() / 2);
  size_t total = 0;
  for (const LodBox& b : f.lanes[static_cast<size_t>(lane)].spans) total += b.count;
  EXPECT_EQ(total, m.workers[0].ops.size());
  const TimelineHit ticks = hit_test(m, f, point_in(f, 0, m.end_time() / 3, 0.2f));
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
  ASSERT_EQ(h.state.frame.lanes.size(), 6u);

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
  const TimelineFrame f = prepared(m, TimeView{0, 70000});
  ASSERT_EQ(f.lanes.size(), 8u);
  const LaneKind kinds[] = {LaneKind::frontend, LaneKind::counter, LaneKind::worker, LaneKind::worker,
                            LaneKind::worker,   LaneKind::counter, LaneKind::counter, LaneKind::counter};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(f.lanes[i].kind, kinds[i]) << i;
  for (uint32_t w = 0; w < 3; ++w) EXPECT_EQ(f.lane_of(LaneKind::worker, w), 2 + static_cast<int>(w));
  EXPECT_STREQ(kCounterLanes[f.lanes[7].index].counter, "device_live_bytes");
  EXPECT_STREQ(kCounterLanes[f.lanes[7].index].label, "GPU memory");
  EXPECT_EQ(f.lanes[7].counter, 2);
  EXPECT_EQ(f.lanes[7].scale_max, 10 << 20);  // the 8,000,000-byte peak, up to a round 10 MB
  // The launch lane draws launches, the GPU lane GPU executions.
  ASSERT_EQ(f.lanes[3].spans.size(), 2u);
  EXPECT_EQ(f.lanes[3].spans[0].begin_ns, 1500);
  EXPECT_EQ(f.lanes[3].spans[1].end_ns, 3000);
  ASSERT_EQ(f.lanes[4].spans.size(), 2u);
  EXPECT_EQ(f.lanes[4].spans[0].begin_ns, 2600);
  EXPECT_EQ(f.lanes[4].spans[1].end_ns, 60000);

  // Without the counter (a CPU run, or an older trace) there is no GPU memory lane.
  trace::TraceModel cpu_only = m;
  cpu_only.counter_names[2] = "pooled_bytes";
  const TimelineFrame g = prepared(cpu_only, TimeView{0, 70000});
  EXPECT_EQ(g.lanes.size(), 7u);
  for (const TimelineLane& lane : g.lanes) {
    if (lane.kind == LaneKind::counter) {
      EXPECT_STRNE(kCounterLanes[lane.index].counter, "device_live_bytes");
    }
  }
}

TEST(TimelineHitTest, AGpuOpIsFoundOnItsLaunchLaneAndItsGpuLane) {
  const trace::TraceModel m = testing::gpu_test_model();
  const TimelineFrame f = prepared(m, TimeView{0, 70000});
  TimelineHit hit = hit_test(m, f, point_in(f, 3, 2700));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.begin_ns, 2500);
  EXPECT_EQ(hit.end_ns, 3000);
  hit = hit_test(m, f, point_in(f, 3, 2000));
  EXPECT_EQ(hit.op, 1);
  hit = hit_test(m, f, point_in(f, 4, 40000));
  EXPECT_EQ(hit.kind, Kind::op);
  EXPECT_EQ(hit.op, 2);
  EXPECT_EQ(hit.begin_ns, 20000);
  EXPECT_EQ(hit.end_ns, 60000);
  EXPECT_EQ(hit_test(m, f, point_in(f, 3, 40000)).kind, Kind::none);  // the host was idle while the GPU ran
  hit = hit_test(m, f, point_in(f, 7, 30500));
  EXPECT_EQ(hit.kind, Kind::counter);
  EXPECT_EQ(hit.value, 8'000'000);
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
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 launch 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::launch, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 stream 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::execute, {}});
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
  const TimelineFrame f = prepared(m, fit_view(m.end_time()));
  for (uint32_t w = 0; w < 2; ++w) {
    const int lane = f.lane_of(LaneKind::worker, w);
    ASSERT_GE(lane, 0);
    size_t total = 0;
    for (const LodBox& b : f.lanes[static_cast<size_t>(lane)].spans) total += b.count;
    EXPECT_EQ(total, m.workers[w].ops.size()) << w;
  }
  const TimelineHit hit = hit_test(m, f, point_in(f, f.lane_of(LaneKind::worker, 0), 5'000'000));
  EXPECT_EQ(hit.kind, Kind::folded_ops);
  Harness h;
  FitTimeline(h.state, m);
  h.frame(m);
  const int vertices = h.frame(m, h.at(f.lane_of(LaneKind::worker, 0), 5'000'000));
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
