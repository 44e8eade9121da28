// One lane of the timeline, as the timeline core sees it: its gutter text,
// its height, its value scale if it plots values, preparing the visible
// range as plain data, drawing that, what lies under a point and its
// tooltip, and where it shows a part of an op (for the selection's arrows).
// The core lays lanes out, one under the other, on a shared time axis and
// knows no lane kind; lanes/ holds one file per kind, and a caller may pass
// its own (see BeginTimeline in timeline.h).
// Threading: UI thread only.
#pragma once

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "widgets/canvas.h"
#include "engine/trace_record/counters.h"
#include "widgets/colors.h"
#include "widgets/time_axis.h"

namespace asyncscope::widgets {

// How far (px) the mouse may be from a narrow box and still hit it.
inline constexpr float kHitSlopPx = 3.0f;

// Where a lane lies in a prepared frame, and the frame's time axis.
struct LaneContext {
  TimeAxis axis;
  float x0 = 0;  // the lanes' left edge, right of the gutter (== axis.x0)
  float x1 = 0;  // their right edge
  float y0 = 0;  // the lane's own rows
  float y1 = 0;
  float line_height = 13;
  // The script line whose ops and waits stay bright (an index into
  // model.source_lines); the lane dims the rest. -1: none, nothing dimmed.
  int64_t highlight_line = -1;
};

// What lies under a point of the timeline.
struct TimelineHit {
  // other: something a caller's own lane shows (its tooltip says what).
  enum class Kind : uint8_t { none, op, folded_ops, enqueue, folded_enqueues, sync, folded_syncs, counter, other };
  // What a click on it does to the selected op. Folded boxes and waits keep
  // it, so a double-click that zooms in does not lose the selection.
  enum class Click : uint8_t { clear, keep, select_op };
  Kind kind = Kind::none;
  Click click = Click::clear;
  bool zoomable = false;  // a double-click zooms to [begin_ns, end_ns]
  int lane = -1;       // into TimelineFrame::lanes (set by the core)
  int64_t op = -1;     // op (on either lane of a GPU op) / enqueue: the op; folded enqueues: the first in the column
  int64_t sync = -1;   // into model.syncs
  uint32_t first = 0;  // folded kinds: position of the first item in the lane's list
  uint32_t count = 0;  // items under the point (1 for a single one)
  int64_t begin_ns = 0;  // the time range of what was hit
  int64_t end_ns = 0;
  int64_t t = 0;       // the time at the point (set by the core)
  int64_t value = 0;   // counter: value held at t, and the range within the pixel column
  int64_t value_min = 0;
  int64_t value_max = 0;
};

// The gutter text of a lane: its name and, when the lane is tall enough, a
// dimmer second line (a count, a counter's value).
struct LaneHeader {
  std::string_view name;  // valid until the lane's model or table changes
  std::string detail;
  ImU32 color = theme::kText;
};

// The value scale of a lane that plots values, after prepare.
struct LaneScale {
  int64_t min = 0;  // the values in view
  int64_t max = 0;
  int64_t top = 1;  // the value at the top of the lane
  trace::CounterUnit unit = trace::CounterUnit::count;
};

// The parts of an op a lane may show: its enqueue tick (frontend lane), its
// launch (a GPU stream's launch lane), its execution (CPU worker or GPU stream).
enum class OpPart : uint8_t { enqueue, launch, execution };

class Lane {
 public:
  virtual ~Lane() = default;

  // Height in text lines; the core scales all lanes together to fit.
  virtual float height_lines() const = 0;
  // The gutter text. cursor_t is the time under the mouse, or trace::kNoTime
  // when the mouse is not over the lanes.
  virtual LaneHeader header(const LaneContext& ctx, int64_t cursor_t) const = 0;
  // Prepares the visible range (folded spans, counter columns, scales) as
  // plain data the lane keeps until the next call. Called once a frame for
  // each lane in view; draw, hit_test and tooltip only follow it.
  virtual void prepare(const LaneContext& ctx) = 0;
  // Draws the prepared range (clipped to the lanes' area by the core).
  virtual void draw(Canvas& draw, const LaneContext& ctx) const = 0;
  // What lies under p (inside the lane); kind none for nothing.
  virtual TimelineHit hit_test(const LaneContext& ctx, ImVec2 p) const = 0;
  // The tooltip for a hit this lane returned (kind not none).
  virtual void tooltip(const TimelineHit& hit) const = 0;

  // Where this lane shows `part` of op `op` (an index into the model's ops).
  // False if it does not show it.
  virtual bool locate(const LaneContext& ctx, uint32_t op, OpPart part, ImRect& out) const {
    (void)ctx, (void)op, (void)part, (void)out;
    return false;
  }
  // Lanes that plot values: the scale of the prepared range.
  virtual bool scale(LaneScale& out) const {
    (void)out;
    return false;
  }
  // Whether the lane reads at a small height (a plot of values, no text in
  // it): when the lanes do not fit at the smallest scale text allows, such
  // lanes shrink further so that all stay in view.
  virtual bool compressible() const { return false; }
  // Whether the lane has a name in the gutter: a squeezed timeline keeps a
  // named lane one line tall, so that the names never overlap. A state
  // strip, under the lane it describes, has none.
  virtual bool named() const { return true; }
  // Lanes that plot values: keep the top of the scale at least at `top`
  // (runs compared on shared scales); 0 = the lane's own scale.
  virtual void set_scale_floor(int64_t top) { (void)top; }
};

// Draws text inside [xa, xb] x [y0, y1] of a lane, vertically centred (and
// horizontally if asked and it fits), clipped to the box and the lanes' area;
// keeps to the visible left edge when the box starts off-screen. False if
// not even a couple of characters fit.
bool label_in_box(Canvas& draw, const LaneContext& ctx, float xa, float xb, float y0, float y1, ImU32 color,
                  const char* text, const char* text_end = nullptr, bool centred = false);

}  // namespace asyncscope::widgets
