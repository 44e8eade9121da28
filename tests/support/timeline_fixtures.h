// What the timeline and lane tests share: two hand-built traces, a model's
// default lanes prepared for a frame without a window, a lane's place on
// its own, and points in them.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace/model.h"
#include "support/model_vars.h"
#include "widgets/timeline.h"

namespace asyncscope::widgets {

// A small hand-built trace (times in ns): x = ones; y = ones; z = x * y;
// w = z + 1; free x; the frontend waits for w.
//   op0 ones  writes 1        enq 1000  run  2000..12000  worker 0
//   op1 ones  writes 2        enq 1500  run  2500..11000  worker 1
//   op2 mul   reads 1 2 -> 3  enq 2000  run 13000..40000  worker 0
//   op3 add_scalar 3 -> 4     enq 2500  run 41000..50000  worker 1
//   op4 free  writes 1        enq 3000  run 41000..42000  worker 0 (internal)
inline trace::TraceModel small_model() {
  trace::TraceModel m;
  m.names = {"", "ones", "mul", "add_scalar", "free", "calls", "wait for w"};
  const std::vector<asyncscope::testing::OpRow> rows = {{1, 1000, 2000, 12000, 0, {}, {1}},
                                 {1, 1500, 2500, 11000, 1, {}, {2}},
                                 {2, 2000, 13000, 40000, 0, {1, 2}, {3}},
                                 {3, 2500, 41000, 50000, 1, {3}, {4}},
                                 {4, 3000, 41000, 42000, 0, {}, {1}}};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {0}, {}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 0", trace::DeviceKind::cpu, 0, 0, trace::SpanKind::execute, {}, {}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 1", trace::DeviceKind::cpu, 0, 1, trace::SpanKind::execute, {}, {}});
  for (const asyncscope::testing::OpRow& r : rows) asyncscope::testing::add_op(m, r).internal = r.name == 4;
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
inline trace::TraceModel dense_model(uint32_t n) {
  trace::TraceModel m;
  m.names = {"", "add", "dot"};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}, {}});
  for (uint16_t w = 0; w < 4; ++w) {
    m.workers.push_back(trace::WorkerLane{"CPU worker " + std::to_string(w), trace::DeviceKind::cpu, 0, w, trace::SpanKind::execute, {}, {}});
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

// A model's default lanes, laid out in a 1200 x 500 px frame and prepared.
// The frame points at the lanes: keep the two together.
struct PreparedFrame {
  DefaultLanes lanes;
  TimelineFrame f;
};

inline std::vector<Lane*> lane_list(const DefaultLanes& lanes) {
  std::vector<Lane*> list;
  for (size_t i = 0; i < lanes.size(); ++i) list.push_back(&lanes[i]);
  return list;
}

inline PreparedFrame prepared(const trace::TraceModel& m, TimeView view) {
  PreparedFrame p;
  p.lanes.update(m);
  prepare_timeline_frame(m, lane_list(p.lanes), view, ImVec2(0, 0), ImVec2(1200, 500), 13.0f, p.f);
  return p;
}

// The lane at position i, as a T (null if it is another kind).
template <class T>
const T* lane_as(const TimelineFrame& f, int i) {
  return dynamic_cast<const T*>(f.lanes[static_cast<size_t>(i)].lane);
}

// A lane alone: 1000 px of lanes right of a 100 px gutter, rows [y0, y1].
inline LaneContext lane_context(TimeView view, float y0 = 0, float y1 = 40) {
  return LaneContext{TimeAxis::make(view, 100, 1000), 100, 1100, y0, y1, 13};
}

// A point at time t, `fraction` of the way down a lane.
inline ImVec2 point_at(const LaneContext& ctx, int64_t t, float fraction = 0.5f) {
  return ImVec2(static_cast<float>(ctx.axis.to_px(static_cast<double>(t))), ctx.y0 + (ctx.y1 - ctx.y0) * fraction);
}

inline ImVec2 point_in(const TimelineFrame& f, int lane, int64_t t, float fraction = 0.5f) {
  const PlacedLane& l = f.lanes[static_cast<size_t>(lane)];
  return ImVec2(static_cast<float>(f.axis.to_px(static_cast<double>(t))), l.y0 + (l.y1 - l.y0) * fraction);
}

}  // namespace asyncscope::widgets
