// The timeline's time axis: the visible window, ns <-> px transforms, zoom
// around a point, pan, nice 1-2-5 tick steps, time/byte labels and the ruler.
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>
#include "widgets/canvas.h"

namespace asyncscope::widgets {

// The visible window, in ns since run start.
struct TimeView {
  int64_t begin_ns = 0;
  int64_t end_ns = 1'000'000;

  int64_t span() const noexcept { return end_ns - begin_ns; }
  friend bool operator==(const TimeView&, const TimeView&) = default;
};

// Narrowest and widest window: below 100 ns nothing new appears; beyond an hour
// a run would not fit in memory anyway.
inline constexpr int64_t kMinViewSpanNs = 100;
inline constexpr int64_t kMaxViewSpanNs = 3'600'000'000'000;

// A view mapped onto `width` pixels starting at screen x `x0`. Computed in
// double: a run of minutes in ns keeps sub-pixel precision.
struct TimeAxis {
  double begin_ns = 0;
  double ns_per_px = 1;
  float x0 = 0;
  float width = 1;

  static TimeAxis make(const TimeView& view, float x0, float width) noexcept;
  double to_px(double t_ns) const noexcept { return x0 + (t_ns - begin_ns) / ns_per_px; }
  double to_ns(double x) const noexcept { return begin_ns + (x - x0) * ns_per_px; }
  double end_ns() const noexcept { return begin_ns + width * ns_per_px; }
  // Screen x of a time, clamped a little outside the axis so draw calls never
  // see huge coordinates (what lies outside is clipped anyway).
  float px(double t_ns) const noexcept;
};

// Zooms by `factor` (< 1 zooms in) keeping `anchor_ns` at the same screen x.
// The span is kept within [kMinViewSpanNs, kMaxViewSpanNs].
TimeView zoom_around(const TimeView& view, double anchor_ns, double factor) noexcept;
// Moves the content by dx_px pixels (positive: content moves right, earlier times come into view).
TimeView pan_by_px(const TimeView& view, double dx_px, float width_px) noexcept;
// A usable view: ordered, span within [kMinViewSpanNs, kMaxViewSpanNs]. Views
// set from outside (a compared run) get only this, so two runs of different
// lengths never fight over the view.
TimeView sanitize_view(const TimeView& view) noexcept;
// After the user moved the view of a run ending at run_end_ns: sanitized, and
// at least half the window over [0, run end], so the run cannot be lost.
TimeView clamp_view(const TimeView& view, int64_t run_end_ns) noexcept;
// The live edge kept in view: a view starting at or before 0 (the whole run)
// grows with the run; any other keeps its span and slides so the edge sits
// near its right end.
TimeView follow_live(const TimeView& view, int64_t run_end_ns) noexcept;
// [begin, end] with a margin on both sides (double-click zoom).
TimeView view_around(int64_t begin_ns, int64_t end_ns) noexcept;
// The whole run with a small margin on both sides.
TimeView fit_view(int64_t run_end_ns) noexcept;

// The smallest step of the 1-2-5 series (1, 2, 5, 10, 20 ... ns) whose ticks
// are at least min_px apart.
int64_t nice_step_ns(double ns_per_px, double min_px) noexcept;
// A tick label for time t on a grid of `step`: in the unit of the step or, if
// larger, of magnitude_ns (the largest time in view, so every label of a ruler
// shares one unit), with the decimals the step needs: "1.2 ms", "10.96 ms", "2 s".
std::string format_time_label(int64_t t_ns, int64_t step_ns, int64_t magnitude_ns = 0);
// A time in the unit of its own magnitude, with the decimals that a
// resolution of step_ns needs: "2.5000001 s" (t = 2.5 s + 100 ns, step 100 ns).
std::string format_time(int64_t t_ns, int64_t step_ns);

// Draws the ruler (ticks and labels) in [min, max] and faint grid lines from
// the ruler's bottom down to grid_bottom_y.
void draw_time_ruler(Canvas& draw, const TimeAxis& axis, ImVec2 min, ImVec2 max, float grid_bottom_y);
// The mouse cursor on the axis: a line from the ruler (ruler_min..ruler_max)
// down to bottom_y and the time at x, to one pixel's precision, on the ruler.
void draw_time_cursor(Canvas& draw, const TimeAxis& axis, float x, ImVec2 ruler_min, ImVec2 ruler_max,
                      float bottom_y);

}  // namespace asyncscope::widgets
