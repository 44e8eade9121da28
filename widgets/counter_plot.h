// Counter plots for the timeline (queue depth, RSS, live bytes): a min/max
// reduction of the samples per pixel column, so a spike survives any zoom,
// and the filled-area-plus-line drawing of the result.
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/trace_record/counters.h"
#include "engine/trace_record/events.h"
#include "widgets/time_axis.h"
#include "widgets/canvas.h"

namespace asyncscope::widgets {

// Units come from the trace layer's counter table.
using CounterUnit = trace::CounterUnit;
// "1,234", "1.21 GB", or "37.5%" (permille).
std::string format_counter(int64_t value, CounterUnit unit);

// What one pixel column of a counter saw. A counter holds its value until the
// next sample, so the value held at the column's start counts as well as every
// sample inside it; columns are connected that way, and never lose a spike.
struct CounterColumn {
  int64_t min = 0;
  int64_t max = 0;
  int64_t last = 0;    // the value held at the column's end
  bool valid = false;  // false before the first sample and after the last
};

// Reduces the time-sorted samples of column `counter` into ceil(axis.width)
// columns; column c covers [axis.to_ns(axis.x0 + c), axis.to_ns(axis.x0 + c + 1)).
// Binary search finds the first sample; then only the visible samples are read.
void reduce_counter_columns(std::span<const trace::CounterSample> samples, int counter, const TimeAxis& axis,
                            std::vector<CounterColumn>& out);

// The counter's value at time t (the last sample at or before t). False before
// the first sample and after the last one.
bool counter_value_at(std::span<const trace::CounterSample> samples, int counter, int64_t t, int64_t& value);

// A round top for the y scale: the smallest 1-2-5 value >= v, over powers of
// 1024 for bytes ("2 GB") and of 10 for counts. At least 1; for a share
// (permille) at least 1000, 100%.
int64_t nice_ceiling(int64_t v, CounterUnit unit) noexcept;

// Draws a counter lane [y_top, y_bottom] from screen x x0, one pixel per
// column: a filled area from the baseline up to each column's max, a line
// through min..max, a faint line at scale_max and its label at the right.
void draw_counter_plot(Canvas& draw, const std::vector<CounterColumn>& columns, float x0, float y_top,
                       float y_bottom, int64_t scale_max, ImU32 color, const char* scale_label);
// The body of a counter's tooltip (between BeginTooltip and EndTooltip).
void counter_tooltip_body(const char* label, ImU32 color, CounterUnit unit, int64_t t, int64_t value,
                          int64_t column_min, int64_t column_max);

}  // namespace asyncscope::widgets
