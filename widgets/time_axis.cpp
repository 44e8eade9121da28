#include "widgets/time_axis.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "engine/base/format.h"
#include "widgets/colors.h"

namespace asyncscope::widgets {
namespace {

// The display unit for a tick step: the largest of ns, µs, ms, s not more than
// ten steps, so a 200 µs step reads "1.2 ms" and a 50 ns step "350 ns".
struct Unit {
  double ns;
  const char* suffix;
};
constexpr Unit kUnits[] = {{1.0, "ns"}, {1e3, "\u00b5s"}, {1e6, "ms"}, {1e9, "s"}};

const Unit& unit_for_step(int64_t step_ns) noexcept {
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits) {
    if (u.ns <= static_cast<double>(step_ns) * 10.0) unit = &u;
  }
  return *unit;
}

std::string printf_string(const char* format, double value, const char* suffix, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, decimals, value, suffix);
  return buf;
}

}  // namespace

TimeAxis TimeAxis::make(const TimeView& view, float x0, float width) noexcept {
  TimeAxis axis;
  axis.begin_ns = static_cast<double>(view.begin_ns);
  axis.width = std::max(width, 1.0f);
  axis.ns_per_px = std::max<double>(static_cast<double>(view.span()), 1.0) / axis.width;
  axis.x0 = x0;
  return axis;
}

float TimeAxis::px(double t_ns) const noexcept {
  const double margin = 64.0;
  return static_cast<float>(std::clamp(to_px(t_ns), x0 - margin, x0 + width + margin));
}

TimeView zoom_around(const TimeView& view, double anchor_ns, double factor) noexcept {
  const double span = static_cast<double>(std::max<int64_t>(view.span(), 1));
  const double new_span = std::clamp(span * factor, static_cast<double>(kMinViewSpanNs), static_cast<double>(kMaxViewSpanNs));
  const double scale = new_span / span;
  const double begin = anchor_ns - (anchor_ns - static_cast<double>(view.begin_ns)) * scale;
  TimeView out;
  out.begin_ns = std::llround(begin);
  out.end_ns = out.begin_ns + std::llround(new_span);
  return out;
}

TimeView pan_by_px(const TimeView& view, double dx_px, float width_px) noexcept {
  const double ns_per_px = static_cast<double>(view.span()) / std::max(width_px, 1.0f);
  const int64_t shift = std::llround(-dx_px * ns_per_px);
  return TimeView{view.begin_ns + shift, view.end_ns + shift};
}

TimeView sanitize_view(const TimeView& view) noexcept {
  // In unsigned arithmetic: end - begin of an extreme view does not fit in int64.
  const uint64_t diff = static_cast<uint64_t>(view.end_ns) - static_cast<uint64_t>(view.begin_ns);
  const int64_t span = view.end_ns <= view.begin_ns ? kMinViewSpanNs
                       : diff > static_cast<uint64_t>(kMaxViewSpanNs) ? kMaxViewSpanNs
                                                                       : std::max(static_cast<int64_t>(diff), kMinViewSpanNs);
  const int64_t begin = std::clamp(view.begin_ns, -kMaxViewSpanNs, kMaxViewSpanNs * 1000);
  return TimeView{begin, begin + span};
}

TimeView clamp_view(const TimeView& view, int64_t run_end_ns) noexcept {
  const TimeView sane = sanitize_view(view);
  const int64_t span = sane.span();
  const int64_t run_end = std::max<int64_t>(run_end_ns, 0);
  const int64_t lo = -span / 2;
  const int64_t hi = std::max(run_end - span / 2, lo);
  const int64_t begin = std::clamp(sane.begin_ns, lo, hi);
  return TimeView{begin, begin + span};
}

TimeView follow_live(const TimeView& view, int64_t run_end_ns) noexcept {
  TimeView out = view;
  if (view.begin_ns <= 0) {
    const auto ahead = static_cast<int64_t>(static_cast<double>(run_end_ns - view.begin_ns) * 1.05);
    out.end_ns = std::max(view.end_ns, view.begin_ns + ahead);
  } else {
    out.end_ns = run_end_ns + view.span() / 30;
    out.begin_ns = out.end_ns - view.span();
  }
  return out;
}

TimeView view_around(int64_t begin_ns, int64_t end_ns) noexcept {
  const int64_t pad = std::max<int64_t>((end_ns - begin_ns) / 8, kMinViewSpanNs / 2);
  return TimeView{begin_ns - pad, end_ns + pad};
}

TimeView fit_view(int64_t run_end_ns) noexcept {
  const int64_t run = std::max<int64_t>(run_end_ns, 1000);
  const int64_t margin = std::max<int64_t>(run / 50, 1);
  return clamp_view(TimeView{-margin, run + margin}, run);
}

int64_t nice_step_ns(double ns_per_px, double min_px) noexcept {
  const double min_ns = std::max(ns_per_px * min_px, 1.0);
  int64_t decade = 1;
  while (true) {
    for (int64_t m : {1, 2, 5}) {
      if (static_cast<double>(m * decade) >= min_ns) return m * decade;
    }
    if (decade > INT64_MAX / 100) return decade * 10;
    decade *= 10;
  }
}

std::string format_time_label(int64_t t_ns, int64_t step_ns, int64_t magnitude_ns) {
  const Unit* larger = &unit_for_step(std::max<int64_t>(step_ns, 1));
  for (const Unit& u : kUnits) {
    if (u.ns > larger->ns && u.ns <= std::fabs(static_cast<double>(magnitude_ns))) larger = &u;
  }
  const Unit& unit = *larger;
  const double step = static_cast<double>(step_ns) / unit.ns;
  const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  const double scale = std::pow(10.0, decimals);
  double value = std::round(static_cast<double>(t_ns) / unit.ns * scale) / scale;
  if (value == 0.0) value = 0.0;  // "-0" reads oddly
  return printf_string("%.*f %s", value, unit.suffix, decimals);
}

std::string format_time(int64_t t_ns, int64_t step_ns) {
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits) {
    if (u.ns <= std::fabs(static_cast<double>(t_ns))) unit = &u;
  }
  const double ratio = unit->ns / static_cast<double>(std::max<int64_t>(step_ns, 1));
  const int decimals = ratio > 1.0 ? static_cast<int>(std::ceil(std::log10(ratio) - 1e-9)) : 0;
  return printf_string("%.*f %s", static_cast<double>(t_ns) / unit->ns, unit->suffix, decimals);
}

void draw_time_ruler(Canvas& draw, const TimeAxis& axis, ImVec2 min, ImVec2 max, float grid_bottom_y) {
  draw.rect_filled(min, max, theme::kRuler);
  draw.line(ImVec2(min.x, max.y - 0.5f), ImVec2(max.x, max.y - 0.5f), theme::kSeparator);
  const float char_w = ImGui::CalcTextSize("0").x;
  const int64_t step = nice_step_ns(axis.ns_per_px, char_w * 11.0f);
  int64_t decade = 1;
  while (decade <= step / 10) decade *= 10;
  const int64_t minor = step / (step / decade == 2 ? 4 : 5);  // 0.5 steps for a 2-step, else fifths
  const double t0 = axis.to_ns(min.x);
  const double t1 = axis.to_ns(max.x);
  const auto first_tick = [&](int64_t s) { return static_cast<int64_t>(std::floor(t0 / static_cast<double>(s))) * s; };

  // Labels are absolute times unless they grow wider than the tick spacing
  // (deep zoom into a long run): then the first label is absolute and the
  // others are offsets from it, as Tracy does.
  const double spacing = static_cast<double>(step) / axis.ns_per_px;
  // One unit for every label: the one of the largest time in view.
  const int64_t widest = std::max(std::llabs(first_tick(step)), std::llabs(static_cast<int64_t>(t1)));
  const bool relative = ImGui::CalcTextSize(format_time_label(widest, step, widest).c_str()).x > spacing - char_w * 2;
  int64_t base = 0;
  bool have_base = false;

  if (minor > 0 && static_cast<double>(minor) / axis.ns_per_px >= 4.0) {
    for (int64_t t = first_tick(minor); static_cast<double>(t) <= t1; t += minor) {
      const float x = std::floor(static_cast<float>(axis.to_px(static_cast<double>(t)))) + 0.5f;
      draw.line(ImVec2(x, max.y - 4), ImVec2(x, max.y), theme::kTextDim);
    }
  }
  const float label_y = min.y + (max.y - min.y - ImGui::GetTextLineHeight()) * 0.5f - 2.0f;
  for (int64_t t = first_tick(step); static_cast<double>(t) <= t1; t += step) {
    const float x = std::floor(static_cast<float>(axis.to_px(static_cast<double>(t)))) + 0.5f;
    if (x < min.x - 1) continue;
    draw.line(ImVec2(x, max.y - 8), ImVec2(x, max.y), theme::kText);
    draw.line(ImVec2(x, max.y), ImVec2(x, grid_bottom_y), theme::kGrid);
    std::string label;
    if (!relative || !have_base) {
      label = relative ? format_time(t, step) : format_time_label(t, step, widest);
      base = t;
      have_base = relative;
    } else {
      label = std::string("+").append(format_duration(t - base));
    }
    draw.text(ImVec2(x + 4, label_y), relative && t == base ? theme::kText : theme::kTextDim, label.c_str());
  }
}

void draw_time_cursor(Canvas& draw, const TimeAxis& axis, float x, ImVec2 ruler_min, ImVec2 ruler_max,
                      float bottom_y) {
  x = std::floor(x) + 0.5f;
  draw.line(ImVec2(x, ruler_max.y), ImVec2(x, bottom_y), theme::kCrosshair);
  const std::string t = format_time(std::llround(axis.to_ns(x)), nice_step_ns(axis.ns_per_px, 1.0));
  const ImVec2 size = ImGui::CalcTextSize(t.c_str());
  const float tx = std::min(x + 1.0f, ruler_max.x - size.x - 8.0f);
  draw.rect_filled(ImVec2(tx, ruler_min.y + 1.0f), ImVec2(tx + size.x + 8.0f, ruler_max.y - 1.0f), theme::kSeparator,
                      3.0f);
  draw.text(ImVec2(tx + 4.0f, (ruler_min.y + ruler_max.y - size.y) * 0.5f), theme::kText, t.c_str());
}

}  // namespace asyncscope::widgets
