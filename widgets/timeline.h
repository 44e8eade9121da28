// The timeline: lanes on one shared time axis, with profiler-style
// navigation (wheel zooms around the cursor, drag pans, double-click zooms to
// what is under it, the live edge followed while a run goes on), a ruler with
// the run's markers, a gutter with each lane's name, hover tooltips, and the
// selected op's dependency arrows across lanes. A lane is one interface
// (lane.h) and the core knows no lane kind. Each frame it lays the lanes out,
// has each prepare its visible range (plain data, testable without a
// window), then hit-tests and draws them. ImGui style:
//
//   if (BeginTimeline("timeline", model, state)) {
//     TimelineDefaultLanes(model, state.lanes);  // and/or lanes of one's own
//     TimelineLane(my_lane);
//     EndTimeline();
//   }
//
// Timeline() is that with the model's default lanes (lanes/default_lanes.h).
// Threading: UI thread only.
#pragma once

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/trace/model.h"
#include "widgets/lane.h"
#include "widgets/lanes/default_lanes.h"
#include "widgets/time_axis.h"

namespace asyncscope::widgets {

// A lane of a prepared frame, and its rows.
struct PlacedLane {
  Lane* lane = nullptr;
  float y0 = 0;
  float y1 = 0;
};

// The visible range, laid out and prepared for one frame.
struct TimelineFrame {
  TimeAxis axis;
  ImVec2 min;             // the widget's rectangle
  ImVec2 max;
  float gutter_x1 = 0;    // lane names left of it, lanes right of it (== axis.x0)
  float ruler_y1 = 0;     // the ruler (and the markers' row) above it
  float line_height = 13;
  int64_t highlight_line = -1;    // TimelineState::highlight_line, handed to the lanes
  std::vector<PlacedLane> lanes;  // top to bottom; the lanes of the last frame
  std::vector<float> heights;     // the lanes' heights in the last frame's layout, and the least each may have
  std::vector<float> floors;      // (kept to reuse their storage)

  // Where lanes[i] lies, for calling it.
  LaneContext context(size_t i) const noexcept;
  // Whether lanes[i] is in the widget, so was prepared this frame.
  bool in_view(size_t i) const noexcept { return lanes[i].y0 < max.y; }
  // The position of a lane in `lanes`, or -1.
  int index_of(const Lane* lane) const noexcept;
  // The lane that shows `part` of op `op` (an index into the model's ops),
  // and where; -1 if none does.
  int find_op(uint32_t op, OpPart part, ImRect& out) const;
};

// Owned by the app, one per timeline.
struct TimelineState {
  TimeView view;
  bool follow_live = true;   // while a run goes on, keep the live edge in view (the app toggles it with L)
  int64_t selected_op = -1;  // index into model.ops, -1 = none
  // A script line (index into model.source_lines) whose ops and waits stay
  // bright while the rest is dimmed; -1 = none. The app's script view sets it.
  int64_t highlight_line = -1;
  DefaultLanes lanes;        // the model's default lanes, kept between frames by Timeline()
  // The model's insight, if the app keeps one: the default lanes then get
  // state strips and the live-bytes lanes name the holders. It must outlive
  // the state (or be reset first).
  const trace::RunInsight* insight = nullptr;

  // Written by EndTimeline every frame; the app may read them.
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

// Lays `lanes` out, top to bottom, in the rectangle [min, max] below the
// ruler (taller when `model` has markers), scaled together to fit, and has
// each lane in view prepare the visible range of `view`.
void prepare_timeline_frame(const trace::TraceModel& model, std::span<Lane* const> lanes, const TimeView& view,
                            ImVec2 min, ImVec2 max, float line_height, TimelineFrame& frame);
// What is under point p in a prepared frame (kind none outside the lanes).
TimelineHit hit_test(const TimelineFrame& frame, ImVec2 p);
// Draws state.frame (prepared): backgrounds, ruler, lanes, the selection,
// markers, the cursor at cursor_x (if >= 0) and the gutter, on any canvas:
// the window's, or an SVG document's (timeline_svg.h).
void draw_timeline_frame(Canvas& canvas, const trace::TraceModel& model, TimelineState& state, bool live,
                         float cursor_x);

// Where a marker's tag goes: to the right of its line at `x`, or to the left
// of it where a tag `width` wide would cross `max_x` and fits after `min_x`
// (a marker near the view's end keeps its whole label in view).
struct MarkerTag {
  float x0 = 0, x1 = 0;
  bool left = false;
};
MarkerTag place_marker_tag(float x, float width, float min_x, float max_x) noexcept;
// The ops that op `op` depended on: for each var it read or wrote, the last
// earlier op that wrote it (push order), without duplicates.
void previous_writers(const trace::TraceModel& model, uint32_t op, std::vector<uint32_t>& out);

// Starts a timeline of `model`'s run (its end time, markers, dropped events
// and ops, for the selection) in the available width, and applies this
// frame's zoom and pan. Returns false when it is not visible: then submit no
// lanes and do not call EndTimeline.
bool BeginTimeline(const char* id, const trace::TraceModel& model, TimelineState& state,
                   const TimelineOptions& options = {});
// Adds a lane below the ones added before. It must live until the next
// frame's BeginTimeline of this timeline (state.frame points at it).
void TimelineLane(Lane& lane);
// Brings `lanes` up to date with `model` and adds them all.
void TimelineDefaultLanes(const trace::TraceModel& model, DefaultLanes& lanes,
                          const trace::RunInsight* insight = nullptr);
// Prepares, hit-tests and draws the lanes, handles clicks (select an op,
// double-click zoom) and shows the hover tooltip. Returns true if user input
// (wheel, drag, double-click) changed state.view; following the live edge
// does not count. While live and following, a view that starts at or before
// 0 grows to keep the whole run in view; any other view slides with the live
// edge at its right.
bool EndTimeline();

// BeginTimeline, the model's default lanes (kept in state.lanes), EndTimeline.
bool Timeline(const char* id, const trace::TraceModel& model, TimelineState& state,
              const TimelineOptions& options = {});
// Two runs stacked to compare: gives each counter lane both the same top,
// the round value above the higher of the two runs' values in view (as of
// their last frames), so "flat vs climbing" reads at a glance. Call after
// both timelines were drawn; it applies from the next frame.
void ShareCounterScales(TimelineState& a, TimelineState& b);
// The time in `model` of the first marker named `marker`, or nullopt.
std::optional<int64_t> MarkerTime(const trace::TraceModel& model, std::string_view marker);

// The whole run in view (F key).
void FitTimeline(TimelineState& state, const trace::TraceModel& model);

}  // namespace asyncscope::widgets
