// The timeline: every lane of a trace on one shared time axis (frontend
// enqueues and sync waits, queue depth, one lane per CPU worker, per CUDA
// stream a launch lane above its GPU lane, RSS, live bytes and GPU memory),
// with profiler-style navigation, level of detail, hover and dependency
// arrows. Each frame first prepares the visible range (layout,
// folded spans, counter columns: plain data, testable without a window),
// then hit-tests and draws it.
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/trace/model.h"
#include "widgets/colors.h"
#include "widgets/counter_plot.h"
#include "widgets/lod.h"
#include "widgets/time_axis.h"

namespace asyncscope::widgets {

enum class LaneKind : uint8_t { frontend, counter, worker };

// The counter lanes, in drawing order around the worker lanes. A lane is
// shown only when the model has its counter (GPU memory only in GPU runs).
struct CounterLaneSpec {
  const char* counter;  // column name in TraceModel::counter_names
  const char* label;
  CounterUnit unit;
  ImU32 color;
  bool above_workers;
};
inline constexpr CounterLaneSpec kCounterLanes[] = {
    {"queue_depth", "queue depth", CounterUnit::count, theme::kQueue, true},
    {"rss_bytes", "RSS", CounterUnit::bytes, theme::kRss, false},
    {"live_bytes", "live bytes", CounterUnit::bytes, theme::kLive, false},
    {"device_live_bytes", "GPU memory", CounterUnit::bytes, theme::kDeviceLive, false},
};

// One lane of a prepared frame.
struct TimelineLane {
  LaneKind kind = LaneKind::worker;
  uint32_t index = 0;  // into model.frontends / model.workers (launch lanes too) / kCounterLanes
  int counter = -1;    // counter lanes: the column in the model's samples
  float y0 = 0;
  float y1 = 0;
  std::vector<LodBox> spans;           // worker: ops (launch lane: their launches); frontend: sync waits
  std::vector<LodBox> ticks;           // frontend: enqueue ticks
  std::vector<CounterColumn> columns;  // counter lanes, one per pixel
  int64_t scale_max = 1;               // counter lanes: the value at the top

  // Frontend lanes: enqueue ticks above, sync waits below this y.
  float split_y() const noexcept { return y0 + (y1 - y0) * 0.4f; }
};

// The visible range of a model, preprocessed for one frame.
struct TimelineFrame {
  TimeAxis axis;
  ImVec2 min;             // the widget's rectangle
  ImVec2 max;
  float gutter_x1 = 0;    // lane names left of it, lanes right of it (== axis.x0)
  float ruler_y1 = 0;     // the ruler above it
  float line_height = 13;
  std::vector<TimelineLane> lanes;

  // The lane drawing a worker / frontend, or -1.
  int lane_of(LaneKind kind, uint32_t index) const noexcept;
};

// What lies under a point.
struct TimelineHit {
  enum class Kind : uint8_t { none, op, folded_ops, enqueue, folded_enqueues, sync, folded_syncs, counter };
  Kind kind = Kind::none;
  int lane = -1;       // into TimelineFrame::lanes
  int64_t op = -1;     // op (on either lane of a GPU op) / enqueue: the op; folded enqueues: the first in the column
  int64_t sync = -1;   // into model.syncs
  uint32_t first = 0;  // folded kinds: position of the first item in the lane's list
  uint32_t count = 0;  // items under the point (1 for a single one)
  int64_t begin_ns = 0;  // the time range of what was hit
  int64_t end_ns = 0;
  int64_t t = 0;       // the time at the point
  int64_t value = 0;   // counter: value held at t, and the range within the pixel column
  int64_t value_min = 0;
  int64_t value_max = 0;
};

// Owned by the app, one per timeline.
struct TimelineState {
  TimeView view;
  bool follow_live = true;   // while a run goes on, keep the live edge in view (the app toggles it with L)
  int64_t selected_op = -1;  // index into model.ops, -1 = none

  // Written by Timeline every frame; the app may read them.
  TimelineHit hover;     // what the mouse is over (kind none when not over the timeline)
  TimelineFrame frame;   // the prepared visible range (buffers reused frame to frame)
  // Widget-owned cache: the ops selected_op depended on.
  int64_t deps_of = -1;
  const trace::OpInfo* deps_data = nullptr;
  std::vector<uint32_t> deps;
};

struct TimelineOptions {
  bool live = false;              // a run is in progress (follow the live edge if state.follow_live)
  const char* title = nullptr;    // optional caption above the lanes (used when two runs are stacked to compare)
  float height = 0;               // 0 = use the remaining content height
};

// Lays out the lanes of `model` in the rectangle [min, max] and prepares the
// visible range of `view`: folded spans and ticks, counter columns and scales.
void prepare_timeline_frame(const trace::TraceModel& model, const TimeView& view, ImVec2 min, ImVec2 max,
                            float line_height, TimelineFrame& frame);
// What is under point p in a prepared frame (kind none outside the lanes).
TimelineHit hit_test(const trace::TraceModel& model, const TimelineFrame& frame, ImVec2 p);
// The ops that op `op` depended on: for each var it read or wrote, the last
// earlier op that wrote it (push order), without duplicates.
void previous_writers(const trace::TraceModel& model, uint32_t op, std::vector<uint32_t>& out);

// Draws all lanes of the model in the available width. Returns true if user
// input (wheel, drag, double-click) changed state.view; following the live
// edge does not count. While live and following, a view that starts at or
// before 0 grows to keep the whole run in view; any other view slides with
// the live edge at its right.
bool Timeline(const char* id, const trace::TraceModel& model, TimelineState& state,
              const TimelineOptions& options = {});
// The whole run in view (F key).
void FitTimeline(TimelineState& state, const trace::TraceModel& model);

}  // namespace asyncscope::widgets
