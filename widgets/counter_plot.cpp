#include "widgets/counter_plot.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "widgets/colors.h"
#include "widgets/lod.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

bool valid_counter(int counter) noexcept { return counter >= 0 && counter < trace::kMaxCounters; }

}  // namespace

std::string format_counter(int64_t value, CounterUnit unit) {
  if (unit == CounterUnit::bytes) return format_bytes(value);
  if (unit == CounterUnit::permille) {
    // Thousandths to a percentage with one decimal, without going through a double.
    const uint64_t magnitude = value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    return (value < 0 ? std::string("-") : std::string())
        .append(format_count(magnitude / 10))
        .append(".")
        .append(std::to_string(magnitude % 10))
        .append("%");
  }
  return value < 0 ? std::string("-").append(format_count(static_cast<uint64_t>(-value))) : format_count(static_cast<uint64_t>(value));
}

void reduce_counter_columns(std::span<const trace::CounterSample> samples, int counter, const TimeAxis& axis,
                            std::vector<CounterColumn>& out) {
  const auto columns = static_cast<size_t>(std::ceil(axis.width));
  out.assign(columns, CounterColumn{});
  if (samples.empty() || !valid_counter(counter)) return;
  const size_t n = samples.size();
  const auto time = [&](size_t i) { return samples[i].t; };
  const int64_t last_t = samples.back().t;
  int64_t begin = lod_detail::ceil_ns(axis.to_ns(axis.x0));
  size_t k = lod_detail::first_not_less(0, n, time, begin);
  bool have = k > 0;
  int64_t held = have ? samples[k - 1].values[counter] : 0;
  for (size_t c = 0; c < columns && begin <= last_t; ++c) {
    const int64_t next = lod_detail::ceil_ns(axis.to_ns(axis.x0 + static_cast<double>(c) + 1.0));
    CounterColumn col;
    if (have) col = CounterColumn{held, held, held, true};
    for (; k < n && samples[k].t < next; ++k) {
      const int64_t v = samples[k].values[counter];
      if (!col.valid) {
        col = CounterColumn{v, v, v, true};
      } else {
        col.min = std::min(col.min, v);
        col.max = std::max(col.max, v);
        col.last = v;
      }
      held = v;
      have = true;
    }
    out[c] = col;
    begin = next;
  }
}

bool counter_value_at(std::span<const trace::CounterSample> samples, int counter, int64_t t, int64_t& value) {
  if (samples.empty() || !valid_counter(counter) || t > samples.back().t) return false;
  const size_t k = lod_detail::first_not_less(0, samples.size(), [&](size_t i) { return samples[i].t; }, t + 1);
  if (k == 0) return false;
  value = samples[k - 1].values[counter];
  return true;
}

int64_t nice_ceiling(int64_t v, CounterUnit unit) noexcept {
  // A share reads against the whole: 100% unless it went over.
  if (unit == CounterUnit::permille && v <= 1000) return 1000;
  if (v <= 1) return 1;
  const double base = unit == CounterUnit::bytes ? 1024.0 : 10.0;
  double scale = 1;
  while (static_cast<double>(v) / scale >= base) scale *= base;
  // The 1-2-5 series below the next power of the base ("500 MB", then "1 GB").
  for (double decade = 1; decade < base; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double candidate = m * decade * scale;
      if (m * decade * 2 <= base && candidate >= static_cast<double>(v)) return static_cast<int64_t>(candidate);
    }
  }
  return static_cast<int64_t>(base * scale);
}

void draw_counter_plot(Canvas& draw, const std::vector<CounterColumn>& columns, float x0, float y_lane_top,
                       float y_lane_bottom, int64_t scale_max, ImU32 color, const char* scale_label) {
  const float y_top = std::floor(y_lane_top + 5.0f) + 0.5f;
  const float y_bottom = y_lane_bottom - 1.0f;
  const float x1 = x0 + static_cast<float>(columns.size());
  draw.line(ImVec2(x0, y_top), ImVec2(x1, y_top), theme::kGrid);
  // The scale's top, where the lane is tall enough to show it beside the
  // plot; in a lane squeezed to one line it would cover the plot and meet
  // the next lane's (the tooltip still gives every value).
  const ImVec2 label = ImGui::CalcTextSize(scale_label);
  if (y_lane_bottom - y_lane_top >= label.y * 1.8f) {
    draw.text(ImVec2(x1 - label.x - 6.0f, y_lane_top + 1.0f), theme::kTextDim, scale_label);
  }
  const float height = y_bottom - y_top;
  const double scale = static_cast<double>(std::max<int64_t>(scale_max, 1));
  const auto y_of = [&](int64_t v) {
    return y_bottom - static_cast<float>(std::clamp(static_cast<double>(v) / scale, 0.0, 1.0)) * height;
  };
  const ImU32 fill_top = with_alpha(color, 80);
  const ImU32 fill_bottom = with_alpha(color, 14);
  // Each run of valid columns is drawn as two triangle strips (the area under
  // the max, and the min..max line), one vertex pair per point: a point per
  // column, or just the two ends of a run of equal columns. Half the vertices
  // of a quad per column, and one point pair for a value held across the view.
  struct Point {
    float x;
    const CounterColumn* col;
  };
  std::vector<Point> points;
  std::vector<ImVec2> tops, bottoms;
  const auto strip = [&](auto&& top, auto&& bottom, ImU32 top_color, ImU32 bottom_color) {
    tops.clear();
    bottoms.clear();
    for (const Point& p : points) {
      tops.emplace_back(p.x, top(*p.col));
      bottoms.emplace_back(p.x, bottom(*p.col));
    }
    draw.band(tops, bottoms, top_color, bottom_color);
  };
  size_t c = 0;
  while (c < columns.size()) {
    if (!columns[c].valid) {
      ++c;
      continue;
    }
    size_t end = c;
    while (end < columns.size() && columns[end].valid) ++end;
    points.clear();
    for (size_t r = c; r < end;) {
      size_t d = r + 1;
      while (d < end && columns[d].min == columns[r].min && columns[d].max == columns[r].max) ++d;
      // Runs at the ends of the segment reach the column edges, so a lone column still has width.
      points.push_back({x0 + static_cast<float>(r) + (r == c ? 0.0f : 0.5f), &columns[r]});
      if (d - r > 1 || d == end) points.push_back({x0 + static_cast<float>(d) - (d == end ? 0.0f : 0.5f), &columns[r]});
      r = d;
    }
    strip([&](const CounterColumn& col) { return y_of(col.max); }, [&](const CounterColumn&) { return y_bottom; },
          fill_top, fill_bottom);
    strip([&](const CounterColumn& col) { return y_of(col.max) - 0.75f; },
          [&](const CounterColumn& col) { return y_of(col.min) + 0.75f; }, color, color);
    c = end;
  }
}

void counter_tooltip_body(const char* label, ImU32 color, CounterUnit unit, int64_t t, int64_t value,
                          int64_t column_min, int64_t column_max) {
  const float column = ImGui::GetFontSize() * 7.5f;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color), "%s", label);
  ImGui::Separator();
  const auto row = [&](const char* name, const std::string& text) {
    ImGui::TextDisabled("%s", name);
    ImGui::SameLine(column);
    ImGui::TextUnformatted(text.c_str());
  };
  row("value", format_counter(value, unit));
  row("at", format_time(t, 100));
  if (column_min != column_max) {
    row("this pixel", format_counter(column_min, unit).append(" - ").append(format_counter(column_max, unit)));
  }
}

}  // namespace asyncscope::widgets
