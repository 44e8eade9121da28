#include "widgets/timeline.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "widgets/timeline_tooltip.h"

namespace asyncscope::widgets {
namespace {

// Lane heights, in text line heights; scaled together to fit the widget.
constexpr float kRulerLines = 1.7f;
constexpr float kMarkerLines = 1.3f;
constexpr float kFrontendLines = 2.6f;
constexpr float kCounterLines = 3.2f;
constexpr float kWorkerLines = 1.75f;
constexpr float kHitSlopPx = 3.0f;

float gutter_width(float width, float line) { return std::min(line * 9.5f, width * 0.35f); }
float lane_lines(LaneKind kind) {
  return kind == LaneKind::frontend ? kFrontendLines : kind == LaneKind::counter ? kCounterLines : kWorkerLines;
}

// Draws text inside [xa, xb] x [y0, y1], vertically centred, clipped; keeps to
// the visible left edge when the box starts off-screen. False if nothing fits.
bool label_in_box(ImDrawList* draw, const TimelineFrame& f, float xa, float xb, float y0, float y1, ImU32 color,
                  const char* text, const char* text_end = nullptr, bool centred = false) {
  const float left = std::max(xa, f.gutter_x1) + 4.0f;
  const float right = std::min(xb, f.max.x) - 3.0f;
  const ImVec2 size = ImGui::CalcTextSize(text, text_end);
  if (right - left < std::min(size.x, ImGui::CalcTextSize("ab").x)) return false;
  const float x = centred && size.x < right - left ? (left + right - size.x) * 0.5f : left;
  const ImVec4 clip(left, y0, right, y1);
  draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(x, (y0 + y1 - size.y) * 0.5f), color, text, text_end,
                0.0f, &clip);
  return true;
}

// The kind of op a folded box mostly holds, from a few evenly spaced samples
// (user ops win over internal ones), so its colour says what the worker did.
const trace::OpInfo& typical_op(const trace::TraceModel& model, const trace::WorkerLane& worker, const LodBox& box) {
  constexpr uint32_t kSamples = 9;
  const uint32_t n = std::min(box.count, kSamples);
  const trace::OpInfo* picks[kSamples];
  for (uint32_t i = 0; i < n; ++i) {
    picks[i] = &model.ops[worker.ops[box.first + static_cast<uint32_t>(uint64_t{i} * box.count / n)]];
  }
  const trace::OpInfo* best = picks[0];
  int best_score = INT32_MIN;
  for (uint32_t i = 0; i < n; ++i) {
    int score = picks[i]->internal ? -static_cast<int>(kSamples) : 0;
    for (uint32_t j = 0; j < n; ++j) score += picks[j]->name == picks[i]->name ? 1 : 0;
    if (score > best_score) {
      best = picks[i];
      best_score = score;
    }
  }
  return *best;
}

void draw_worker_lane(ImDrawList* draw, const trace::TraceModel& model, const TimelineFrame& f,
                      const TimelineLane& lane) {
  const trace::WorkerLane& worker = model.workers[lane.index];
  const float y0 = lane.y0 + 2.0f;
  const float y1 = lane.y1 - 2.0f;
  char text[160];
  for (const LodBox& box : lane.spans) {
    const float xa = f.axis.px(box.begin_ns);
    const float xb = std::max(f.axis.px(box.end_ns), xa + 1.0f);
    const trace::OpInfo& op = model.ops[worker.ops[box.first]];
    const std::string_view name = model.op_name(op);
    const ImU32 color = OpColor(name);
    if (box.folded()) {
      const ImU32 fill = mix(OpColor(model.op_name(typical_op(model, worker, box))), theme::kBackground, 0.45f);
      draw->AddRectFilled(ImVec2(xa, y0), ImVec2(std::max(xb, xa + 2.0f), y1), fill);
      draw->AddRectFilled(ImVec2(xa, y0), ImVec2(std::max(xb, xa + 2.0f), y0 + 1.0f), scale_rgb(fill, 1.35f));
      std::snprintf(text, sizeof text, "\u00d7%s", format_count(box.count).c_str());
      label_in_box(draw, f, xa, xb, y0, y1, text_on(fill), text, nullptr, true);
      continue;
    }
    // A launch is host time spent submitting the op, not the op's work: a muted box in its colour.
    const ImU32 own = op.internal ? subdued(color) : color;
    const ImU32 fill = worker.launches() ? mix(own, theme::kBackground, 0.55f) : own;
    draw->AddRectFilled(ImVec2(xa, y0), ImVec2(xb, y1), fill);
    if (worker.launches()) draw->AddRect(ImVec2(xa, y0), ImVec2(xb, y1), own);
    if (xb - xa > 6.0f) draw->AddRectFilled(ImVec2(xb - 1.0f, y0), ImVec2(xb, y1), scale_rgb(fill, 0.6f));
    if (op.status != trace::OpStatus::ok) {
      const ImU32 edge = op.status == trace::OpStatus::cancelled ? theme::kTextDim : theme::kError;
      draw->AddRect(ImVec2(xa, y0), ImVec2(xb, y1), edge, 0.0f, 0, 1.5f);
    }
    if (xb - xa < 12.0f) continue;
    const std::string duration = format_duration(worker.end_of(op) - worker.start_of(op));
    std::snprintf(text, sizeof text, "%.*s  %s", static_cast<int>(name.size()), name.data(), duration.c_str());
    const bool fits = ImGui::CalcTextSize(text).x + 8.0f < std::min(xb, f.max.x) - std::max(xa, f.gutter_x1);
    const ImU32 ink = op.internal || worker.launches() ? theme::kText : text_on(fill);
    label_in_box(draw, f, xa, xb, y0, y1, ink, fits ? text : name.data(), fits ? nullptr : name.data() + name.size());
  }
}

void draw_frontend_lane(ImDrawList* draw, const trace::TraceModel& model, const TimelineFrame& f,
                        const TimelineLane& lane) {
  const float ty0 = lane.y0 + 3.0f;
  const float ty1 = lane.split_y();
  for (const LodBox& box : lane.ticks) {
    // Denser columns draw taller and brighter: the enqueue rate at a glance.
    const float density = std::min(1.0f, std::log10(static_cast<float>(box.count)) / 3.0f);
    const float x = std::floor(box.x0);
    draw->AddRectFilled(ImVec2(x, ty1 - (ty1 - ty0) * (0.6f + 0.4f * density)), ImVec2(x + 1.0f, ty1),
                        with_alpha(theme::kTick, static_cast<int>(150 + 105 * density)));
  }
  const trace::FrontendLane& frontend = model.frontends[lane.index];
  const float sy0 = ty1 + 2.0f;
  const float sy1 = lane.y1 - 3.0f;
  char text[160];
  for (const LodBox& box : lane.spans) {
    const float xa = f.axis.px(box.begin_ns);
    const float xb = std::max(f.axis.px(box.end_ns), xa + 2.0f);
    draw->AddRectFilled(ImVec2(xa, sy0), ImVec2(xb, sy1), theme::kSyncFill);
    draw_hatch(draw, ImVec2(xa, sy0), ImVec2(xb, sy1), theme::kSyncHatch);
    draw->AddRect(ImVec2(xa, sy0), ImVec2(xb, sy1), theme::kSync);
    if (box.folded()) {
      std::snprintf(text, sizeof text, "\u00d7%s waits", format_count(box.count).c_str());
    } else {
      const trace::SyncSpan& s = model.syncs[frontend.syncs[box.first]];
      const std::string duration = format_duration(s.end - s.begin);
      if (s.target != 0) {
        std::snprintf(text, sizeof text, "%s var %" PRIu64 "  %s", trace::to_string(s.kind), s.target, duration.c_str());
      } else {
        std::snprintf(text, sizeof text, "%s  %s", trace::to_string(s.kind), duration.c_str());
      }
    }
    label_in_box(draw, f, xa, xb, sy0, sy1, theme::kText, text);
  }
}

// Lane names (and counter values) left of the lanes; above them, the view's
// span, LIVE while following, or how many events the recorder dropped.
void draw_gutter(ImDrawList* draw, const trace::TraceModel& model, const TimelineFrame& f, const TimelineState& state,
                 bool live) {
  const float x = f.min.x + 8.0f;
  const float line = f.line_height;
  const ImVec2 p(x, f.min.y + (line * kRulerLines - line) * 0.5f);
  if (model.dropped > 0) {
    draw->AddText(p, theme::kError, (std::string("dropped ").append(format_count(model.dropped))).c_str());
  } else if (live && state.follow_live) {
    draw->AddCircleFilled(ImVec2(p.x + 4.0f, p.y + line * 0.5f), 4.0f, theme::kError);
    draw->AddText(ImVec2(p.x + 13.0f, p.y), theme::kText, "LIVE");
  } else {
    draw->AddText(p, theme::kTextDim, (std::string("span ").append(format_duration(state.view.span()))).c_str());
  }
  for (const TimelineLane& lane : f.lanes) {
    const float h = lane.y1 - lane.y0;
    const bool two_lines = h >= line * 2.2f;
    const float y = two_lines ? (lane.y0 + lane.y1) * 0.5f - line : (lane.y0 + lane.y1 - line) * 0.5f;
    std::string second;
    ImU32 color = theme::kText;
    const char* name = "";
    if (lane.kind == LaneKind::worker) {
      name = model.workers[lane.index].name.c_str();
    } else if (lane.kind == LaneKind::frontend) {
      name = model.frontends[lane.index].name.c_str();
      second = format_count(model.frontends[lane.index].enqueues.size()) + " pushed";
    } else {
      const CounterLaneSpec& spec = kCounterLanes[lane.index];
      name = spec.label;
      color = spec.color;
      int64_t value = 0;
      const std::span<const trace::CounterSample> samples(model.counters);
      // At the mouse, else at the view's right edge (or the last sample before it).
      const int64_t last = samples.empty() ? 0 : samples.back().t;
      const int64_t t = state.hover.lane >= 0 ? state.hover.t : std::min(static_cast<int64_t>(f.axis.end_ns()), last);
      if (counter_value_at(samples, lane.counter, t, value)) second = format_counter(value, spec.unit);
    }
    draw->AddText(ImVec2(x, y), color, name);
    if (two_lines && !second.empty()) draw->AddText(ImVec2(x, y + line), theme::kTextDim, second.c_str());
  }
}

void draw_markers(ImDrawList* draw, const trace::TraceModel& model, const TimelineFrame& f) {
  float tag_end = -1e9f;
  const float y0 = f.ruler_y1 - f.line_height * kMarkerLines;
  for (const trace::Marker& m : model.markers) {
    const double xd = f.axis.to_px(static_cast<double>(m.t));
    if (xd < f.gutter_x1 - 200.0 || xd > f.max.x) continue;
    const float x = std::floor(static_cast<float>(xd)) + 0.5f;
    draw->AddLine(ImVec2(x, y0), ImVec2(x, f.max.y), with_alpha(theme::kMarker, 120));
    std::string label(model.name(m.name));
    if (m.value != 0) label.append(" ").append(std::to_string(m.value));
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    if (x < tag_end) continue;  // keep tags readable: skip one that would overlap the previous
    const ImVec2 a(x, y0 + 1.0f);
    const ImVec2 b(x + size.x + 8.0f, f.ruler_y1 - 2.0f);
    draw->AddRectFilled(a, b, with_alpha(theme::kMarker, 45), 3.0f, ImDrawFlags_RoundCornersRight);
    draw->AddText(ImVec2(x + 4.0f, (a.y + b.y - size.y) * 0.5f), theme::kMarker, label.c_str());
    tag_end = b.x + 4.0f;
  }
}

// The selected op: its spans outlined (a GPU op has two: launch and GPU
// execution), arrows enqueue -> first span (-> GPU execution), and arrows
// from the ops it depended on to the start of its execution.
void draw_selection(ImDrawList* draw, const trace::TraceModel& model, const TimelineFrame& f, TimelineState& state) {
  const auto sel = static_cast<uint32_t>(state.selected_op);
  const trace::OpInfo& op = model.ops[sel];
  if (state.deps_of != state.selected_op || state.deps_data != model.ops.data()) {
    previous_writers(model, sel, state.deps);
    state.deps_of = state.selected_op;
    state.deps_data = model.ops.data();
  }
  const auto span_rect = [&](uint16_t worker, int64_t start, int64_t end, ImVec2& a, ImVec2& b) {
    const int li = f.lane_of(LaneKind::worker, worker);
    if (li < 0) return false;
    a = ImVec2(f.axis.px(start), f.lanes[li].y0 + 1.0f);
    b = ImVec2(std::max(f.axis.px(end), a.x + 2.0f), f.lanes[li].y1 - 1.0f);
    return true;
  };
  const auto exec_rect = [&](const trace::OpInfo& o, ImVec2& a, ImVec2& b) {
    return o.executed() && span_rect(o.worker, o.start, o.end, a, b);
  };
  const auto mid = [](ImVec2 a, ImVec2 b) { return ImVec2(a.x, (a.y + b.y) * 0.5f); };
  ImVec2 a, b, la, lb;
  const bool on_lane = exec_rect(op, a, b);
  const bool launch = op.launched() && span_rect(op.launch_worker, op.launch_start, op.launch_end, la, lb);
  for (uint32_t d : state.deps) {
    ImVec2 da, db;
    if (!exec_rect(model.ops[d], da, db)) continue;
    draw->AddRect(da, db, theme::kDependency, 0.0f, 0, 1.5f);
    if (on_lane || launch) {
      draw_arrow(draw, ImVec2(db.x, (da.y + db.y) * 0.5f), on_lane ? mid(a, b) : mid(la, lb), theme::kDependency);
    }
  }
  if (launch && on_lane) draw_arrow(draw, ImVec2(std::min(lb.x, a.x), lb.y), mid(a, b), theme::kFlow);
  const int fl = op.enqueue != trace::kNoTime ? f.lane_of(LaneKind::frontend, op.frontend) : -1;
  if (fl >= 0) {
    const TimelineLane& lane = f.lanes[fl];
    const float x = std::floor(f.axis.px(op.enqueue));
    draw->AddRectFilled(ImVec2(x - 1.0f, lane.y0 + 1.0f), ImVec2(x + 2.0f, lane.split_y()), theme::kSelection);
    if (on_lane || launch) {
      const ImVec2 from(x + 0.5f, lane.split_y());
      const ImVec2 to = launch ? mid(la, lb) : mid(a, b);
      draw_arrow(draw, from, to, theme::kFlow);
      const int64_t first = launch ? op.launch_start : op.start;
      const std::string wait = std::string("queued ").append(format_duration(first - op.enqueue));
      const ImVec2 size = ImGui::CalcTextSize(wait.c_str());
      if (to.x - from.x > size.x + 40.0f) {
        draw->AddText(ImVec2((from.x + to.x - size.x) * 0.5f, (from.y + to.y) * 0.5f - size.y), theme::kFlow,
                      wait.c_str());
      }
    }
  }
  for (const auto& [p, q, shown] : {std::tuple(a, b, on_lane), std::tuple(la, lb, launch)}) {
    if (shown) draw->AddRect(ImVec2(p.x - 1.0f, p.y - 1.0f), ImVec2(q.x + 1.0f, q.y + 1.0f), theme::kSelection, 0, 0, 2);
  }
}

// Draws a prepared frame: backgrounds, ruler, lanes, selection, markers, the
// cursor (at cursor_x, if >= 0) and the gutter.
void draw_frame(ImDrawList* draw, const trace::TraceModel& model, TimelineState& state, bool live, float cursor_x) {
  const TimelineFrame& f = state.frame;
  const ImRect bb(f.min, f.max);
  const float line = f.line_height;
  draw->AddRectFilled(bb.Min, bb.Max, theme::kBackground);
  draw->AddRectFilled(bb.Min, ImVec2(f.gutter_x1, bb.Max.y), theme::kGutter);
  for (size_t i = 0; i < f.lanes.size(); ++i) {
    const TimelineLane& lane = f.lanes[i];
    if (i % 2 == 1) draw->AddRectFilled(ImVec2(f.gutter_x1, lane.y0), ImVec2(bb.Max.x, lane.y1), theme::kLaneAlt);
    draw->AddLine(ImVec2(bb.Min.x, lane.y1 - 0.5f), ImVec2(bb.Max.x, lane.y1 - 0.5f), theme::kSeparator);
  }
  const float ruler_bottom = bb.Min.y + line * kRulerLines;
  draw->PushClipRect(ImVec2(f.gutter_x1, bb.Min.y), bb.Max, true);
  draw_time_ruler(draw, f.axis, ImVec2(f.gutter_x1, bb.Min.y), ImVec2(bb.Max.x, ruler_bottom), bb.Max.y);
  draw->PushClipRect(ImVec2(f.gutter_x1, f.ruler_y1), bb.Max, true);
  for (const TimelineLane& lane : f.lanes) {
    if (lane.kind == LaneKind::worker) draw_worker_lane(draw, model, f, lane);
    if (lane.kind == LaneKind::frontend) draw_frontend_lane(draw, model, f, lane);
    if (lane.kind == LaneKind::counter) {
      const CounterLaneSpec& spec = kCounterLanes[lane.index];
      draw_counter_plot(draw, lane.columns, f.axis.x0, lane.y0, lane.y1, lane.scale_max, spec.color,
                        format_counter(lane.scale_max, spec.unit).c_str());
    }
  }
  if (f.lanes.empty()) {
    const char* text = "No trace yet - run a demo";
    const ImVec2 size = ImGui::CalcTextSize(text);
    draw->AddText(ImVec2((f.gutter_x1 + bb.Max.x - size.x) * 0.5f, (f.ruler_y1 + bb.Max.y - size.y) * 0.5f),
                  theme::kTextDim, text);
  }
  if (state.selected_op >= 0) draw_selection(draw, model, f, state);
  draw->PopClipRect();
  draw_markers(draw, model, f);
  if (cursor_x >= f.gutter_x1) {
    draw_time_cursor(draw, f.axis, cursor_x, ImVec2(f.gutter_x1, bb.Min.y), ImVec2(bb.Max.x, ruler_bottom), bb.Max.y);
  }
  draw->PopClipRect();
  draw->AddLine(ImVec2(f.gutter_x1 - 0.5f, bb.Min.y), ImVec2(f.gutter_x1 - 0.5f, bb.Max.y), theme::kSeparator);
  draw->PushClipRect(bb.Min, ImVec2(f.gutter_x1 - 1.0f, bb.Max.y), true);
  draw_gutter(draw, model, f, state, live);
  draw->PopClipRect();
}

}  // namespace

int TimelineFrame::lane_of(LaneKind kind, uint32_t index) const noexcept {
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].kind == kind && lanes[i].index == index) return static_cast<int>(i);
  }
  return -1;
}

void prepare_timeline_frame(const trace::TraceModel& model, const TimeView& view, ImVec2 min, ImVec2 max,
                            float line_height, TimelineFrame& f) {
  f.min = min;
  f.max = max;
  f.line_height = line_height;
  f.gutter_x1 = min.x + gutter_width(max.x - min.x, line_height);
  f.ruler_y1 = min.y + line_height * (kRulerLines + (model.markers.empty() ? 0.0f : kMarkerLines));
  f.axis = TimeAxis::make(view, f.gutter_x1, max.x - f.gutter_x1);

  struct Slot {
    LaneKind kind;
    uint32_t index;
    int counter;
  };
  std::vector<Slot> slots;
  slots.reserve(model.frontends.size() + model.workers.size() + std::size(kCounterLanes));
  for (uint32_t i = 0; i < model.frontends.size(); ++i) slots.push_back({LaneKind::frontend, i, -1});
  const auto add_counters = [&](bool above) {
    for (uint32_t i = 0; i < std::size(kCounterLanes); ++i) {
      const int column = model.counter_index(kCounterLanes[i].counter);
      if (kCounterLanes[i].above_workers == above && column >= 0) slots.push_back({LaneKind::counter, i, column});
    }
  };
  add_counters(true);
  for (uint32_t i = 0; i < model.workers.size(); ++i) slots.push_back({LaneKind::worker, i, -1});
  add_counters(false);

  float total = 0;
  for (const Slot& s : slots) total += lane_lines(s.kind) * line_height;
  const float avail = max.y - f.ruler_y1;
  const float scale = total > 0 ? std::clamp(avail / total, 0.6f, 3.0f) : 1.0f;
  f.lanes.resize(slots.size());
  float y = f.ruler_y1;
  const std::span<const trace::CounterSample> samples(model.counters);
  for (size_t i = 0; i < slots.size(); ++i) {
    TimelineLane& lane = f.lanes[i];
    lane.kind = slots[i].kind;
    lane.index = slots[i].index;
    lane.counter = slots[i].counter;
    lane.y0 = y;
    lane.y1 = y = std::round(y + lane_lines(lane.kind) * line_height * scale);
    lane.spans.clear();
    lane.ticks.clear();
    lane.columns.clear();
    if (lane.y0 >= max.y) continue;  // clipped away: nothing to prepare
    switch (lane.kind) {
      case LaneKind::worker:
        fold_worker_lane(model, model.workers[lane.index], f.axis, lane.spans);
        break;
      case LaneKind::frontend:
        fold_sync_lane(model, model.frontends[lane.index], f.axis, lane.spans);
        fold_enqueue_ticks(model, model.frontends[lane.index], f.axis, lane.ticks);
        break;
      case LaneKind::counter: {
        reduce_counter_columns(samples, lane.counter, f.axis, lane.columns);
        int64_t top = 0;
        for (const CounterColumn& c : lane.columns) {
          if (c.valid) top = std::max(top, c.max);
        }
        lane.scale_max = nice_ceiling(top, kCounterLanes[lane.index].unit);
        break;
      }
    }
  }
}

TimelineHit hit_test(const trace::TraceModel& model, const TimelineFrame& f, ImVec2 p) {
  using Kind = TimelineHit::Kind;
  TimelineHit hit;
  if (p.x < f.gutter_x1 || p.x >= f.max.x || p.y < f.ruler_y1 || p.y >= f.max.y) return hit;
  hit.t = std::llround(f.axis.to_ns(p.x));
  for (size_t i = 0; i < f.lanes.size() && hit.lane < 0; ++i) {
    if (p.y >= f.lanes[i].y0 && p.y < f.lanes[i].y1) hit.lane = static_cast<int>(i);
  }
  if (hit.lane < 0) return hit;
  const TimelineLane& lane = f.lanes[static_cast<size_t>(hit.lane)];
  const auto take = [&](const LodBox* box, Kind one, Kind many) {
    if (box == nullptr) return false;
    hit.kind = box->folded() ? many : one;
    hit.first = box->first;
    hit.count = box->count;
    hit.begin_ns = box->begin_ns;
    hit.end_ns = box->end_ns;
    return true;
  };
  if (lane.kind == LaneKind::worker) {
    if (take(box_at(lane.spans, p.x, kHitSlopPx), Kind::op, Kind::folded_ops) && hit.count == 1) {
      hit.op = model.workers[lane.index].ops[hit.first];
    }
  } else if (lane.kind == LaneKind::frontend) {
    const trace::FrontendLane& frontend = model.frontends[lane.index];
    if (p.y >= lane.split_y()) {
      if (take(box_at(lane.spans, p.x, kHitSlopPx), Kind::sync, Kind::folded_syncs) && hit.count == 1) {
        hit.sync = frontend.syncs[hit.first];
      }
    } else if (take(box_at(lane.ticks, p.x, kHitSlopPx), Kind::enqueue, Kind::folded_enqueues)) {
      hit.op = frontend.enqueues[hit.first];
    }
  } else {
    const auto column = static_cast<size_t>(std::max(0.0f, std::floor(p.x - f.axis.x0)));
    if (column < lane.columns.size() && lane.columns[column].valid &&
        counter_value_at(model.counters, lane.counter, hit.t, hit.value)) {
      hit.kind = Kind::counter;
      hit.value_min = lane.columns[column].min;
      hit.value_max = lane.columns[column].max;
    }
  }
  return hit;
}

void previous_writers(const trace::TraceModel& model, uint32_t op, std::vector<uint32_t>& out) {
  out.clear();
  if (op >= model.ops.size() || !model.ops[op].known()) return;
  const trace::OpInfo& target = model.ops[op];
  std::vector<uint64_t> wanted(model.reads_of(target), model.reads_of(target) + target.num_reads + target.num_writes);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (uint32_t i = op; i-- > 0 && !wanted.empty();) {
    const trace::OpInfo& o = model.ops[i];
    if (!o.known() || o.num_writes == 0) continue;
    const uint64_t* writes = model.writes_of(o);
    for (uint16_t w = 0; w < o.num_writes; ++w) {
      auto it = std::lower_bound(wanted.begin(), wanted.end(), writes[w]);
      if (it == wanted.end() || *it != writes[w]) continue;
      wanted.erase(it);
      if (out.empty() || out.back() != i) out.push_back(i);
    }
  }
}

void FitTimeline(TimelineState& state, const trace::TraceModel& model) {
  state.view = fit_view(model.end_time());
}

bool Timeline(const char* id, const trace::TraceModel& model, TimelineState& state, const TimelineOptions& options) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return false;
  ImGui::PushID(id);
  const float line = ImGui::GetTextLineHeight();
  float height = options.height > 0 ? options.height : ImGui::GetContentRegionAvail().y;
  if (options.title != nullptr) {
    ImGui::TextUnformatted(options.title);
    height -= ImGui::GetTextLineHeightWithSpacing();
  }
  const ImVec2 pos = window->DC.CursorPos;
  const ImRect bb(pos, ImVec2(pos.x + std::max(ImGui::GetContentRegionAvail().x, line * 24.0f),
                              pos.y + std::max(height, line * 8.0f)));
  ImGui::ItemSize(bb);
  const ImGuiID item = ImGui::GetID("##timeline");
  if (!ImGui::ItemAdd(bb, item)) {
    ImGui::PopID();
    return false;
  }
  bool hovered = false;
  bool held = false;
  const bool released = ImGui::ButtonBehavior(bb, item, &hovered, &held,
                                              ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
  ImGui::SetItemUsingMouseWheel();
  const ImGuiIO& io = ImGui::GetIO();

  if (state.selected_op >= static_cast<int64_t>(model.ops.size())) state.selected_op = -1;
  const int64_t run_end = model.end_time();
  state.view = sanitize_view(state.view);  // possibly set from outside: repaired, never clamped to this run
  if (options.live && state.follow_live) state.view = sanitize_view(follow_live(state.view, run_end));
  const TimeView before = state.view;

  // Input changes the view before the frame is prepared, so what is drawn and
  // hit-tested is what the user asked for this frame.
  const float lanes_x0 = bb.Min.x + gutter_width(bb.GetWidth(), line);
  const float lanes_w = bb.Max.x - lanes_x0;
  const bool dragged = io.MouseDragMaxDistanceSqr[0] > io.MouseDragThreshold * io.MouseDragThreshold;
  if (hovered && io.MouseWheel != 0.0f) {
    const TimeAxis axis = TimeAxis::make(state.view, lanes_x0, lanes_w);
    state.view = zoom_around(state.view, axis.to_ns(std::max(io.MousePos.x, lanes_x0)), std::pow(0.8, io.MouseWheel));
  }
  const float pan = (held && (ImGui::IsMouseDragging(0) || ImGui::IsMouseDragging(2)) ? io.MouseDelta.x : 0.0f) +
                    (hovered ? io.MouseWheelH * lanes_w * 0.1f : 0.0f);
  if (pan != 0.0f) {
    state.view = pan_by_px(state.view, pan, lanes_w);
    state.follow_live = false;
  }
  if (!(state.view == before)) state.view = clamp_view(state.view, run_end);
  prepare_timeline_frame(model, state.view, bb.Min, bb.Max, line, state.frame);
  const bool panning = held && (ImGui::IsMouseDragging(0) || ImGui::IsMouseDragging(2));
  state.hover = hovered && !panning ? hit_test(model, state.frame, io.MousePos) : TimelineHit{};

  using Kind = TimelineHit::Kind;
  const TimelineHit& hover = state.hover;
  if (released && io.MouseReleased[0] && !dragged && io.MousePos.x >= lanes_x0) {
    if (hover.kind == Kind::op || hover.kind == Kind::enqueue) {
      state.selected_op = hover.op;
    } else if (hover.kind == Kind::none || hover.kind == Kind::counter) {
      state.selected_op = -1;
    }
  }
  if (hovered && ImGui::IsMouseDoubleClicked(0) && hover.kind != Kind::none && hover.kind != Kind::counter &&
      hover.kind != Kind::enqueue) {
    state.view = clamp_view(view_around(hover.begin_ns, hover.end_ns), run_end);
    state.follow_live = false;
    prepare_timeline_frame(model, state.view, bb.Min, bb.Max, line, state.frame);
    state.hover = hit_test(model, state.frame, io.MousePos);
  }

  draw_frame(window->DrawList, model, state, options.live, hovered && !panning ? io.MousePos.x : -1.0f);
  if (state.hover.kind != Kind::none) TimelineTooltip(model, state.frame, state.hover);
  ImGui::PopID();
  return !(state.view == before);
}

}  // namespace asyncscope::widgets
