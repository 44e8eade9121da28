#include "widgets/lanes/op_span_lane.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "widgets/colors.h"
#include "widgets/source_highlight.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_tooltip.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

constexpr float kLaneLines = 1.75f;

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

}  // namespace

OpSpanLane::OpSpanLane(const trace::TraceModel& model, uint32_t worker, Style style)
    : model_(&model), worker_(worker), style_(style) {}

float OpSpanLane::height_lines() const { return kLaneLines; }

LaneHeader OpSpanLane::header(const LaneContext&, int64_t) const { return LaneHeader{lane().name, {}, theme::kText}; }

void OpSpanLane::prepare(const LaneContext& ctx) { fold_worker_lane(*model_, lane(), ctx.axis, boxes_); }

void OpSpanLane::draw(Canvas& draw, const LaneContext& ctx) const {
  const trace::TraceModel& model = *model_;
  const trace::WorkerLane& worker = lane();
  const TimeAxis& axis = ctx.axis;
  const float y0 = ctx.y0 + 2.0f;
  const float y1 = ctx.y1 - 2.0f;
  char text[160];
  for (const LodBox& box : boxes_) {
    const float xa = axis.px(box.begin_ns);
    const float xb = std::max(axis.px(box.end_ns), xa + 1.0f);
    const trace::OpInfo& op = model.ops[worker.ops[box.first]];
    const std::string_view name = model.op_name(op);
    const ImU32 color = OpColor(name);
    if (box.folded()) {
      const ImU32 fill = mix(OpColor(model.op_name(typical_op(model, worker, box))), theme::kBackground, 0.45f);
      draw.rect_filled(ImVec2(xa, y0), ImVec2(std::max(xb, xa + 2.0f), y1), fill);
      draw.rect_filled(ImVec2(xa, y0), ImVec2(std::max(xb, xa + 2.0f), y0 + 1.0f), scale_rgb(fill, 1.35f));
      std::snprintf(text, sizeof text, "\u00d7%s", format_count(box.count).c_str());
      label_in_box(draw, ctx, xa, xb, y0, y1, text_on(fill), text, nullptr, true);
      continue;
    }
    // A muted box (a launch: host time spent submitting the op, not the op's work) in the op's colour.
    const ImU32 own = op.internal ? subdued(color) : color;
    const ImU32 fill = style_.muted ? mix(own, theme::kBackground, 0.55f) : own;
    draw.rect_filled(ImVec2(xa, y0), ImVec2(xb, y1), fill);
    if (style_.muted) draw.rect(ImVec2(xa, y0), ImVec2(xb, y1), own);
    if (xb - xa > 6.0f) draw.rect_filled(ImVec2(xb - 1.0f, y0), ImVec2(xb, y1), scale_rgb(fill, 0.6f));
    if (op.status != trace::OpStatus::ok) {
      const ImU32 edge = op.status == trace::OpStatus::cancelled ? theme::kTextDim : theme::kError;
      draw.rect(ImVec2(xa, y0), ImVec2(xb, y1), edge, 0.0f, 1.5f);
    }
    if (xb - xa < 12.0f) continue;
    const std::string duration = format_duration(worker.end_of(op) - worker.start_of(op));
    std::snprintf(text, sizeof text, "%.*s  %s", static_cast<int>(name.size()), name.data(), duration.c_str());
    const bool fits = ImGui::CalcTextSize(text).x + 8.0f < std::min(xb, ctx.x1) - std::max(xa, ctx.x0);
    const ImU32 ink = op.internal || style_.muted ? theme::kText : text_on(fill);
    label_in_box(draw, ctx, xa, xb, y0, y1, ink, fits ? text : name.data(), fits ? nullptr : name.data() + name.size());
  }
  draw_helps(draw, ctx, y0, y1);
  // A highlighted script line: what did not come from it is veiled, labels included.
  if (ctx.highlight_line < 0) return;
  for (const LodBox& box : boxes_) {
    const bool on = box.folded() ? any_on_line(model, worker.ops, box.first, box.count, ctx.highlight_line, false)
                                 : op_on_line(model, model.ops[worker.ops[box.first]], ctx.highlight_line);
    if (on) continue;
    const float xa = axis.px(box.begin_ns);
    const float xb = std::max(axis.px(box.end_ns), xa + 2.0f);
    draw.rect_filled(ImVec2(xa, y0), ImVec2(xb, y1), with_alpha(theme::kBackground, 205));
  }
}

std::pair<size_t, size_t> OpSpanLane::helps_in(double a, double b) const {
  const std::vector<trace::HelpSpan>& helps = lane().helps;
  // Never overlapping, so sorted by end as well as by start.
  const auto first = std::partition_point(helps.begin(), helps.end(),
                                          [a](const trace::HelpSpan& h) { return static_cast<double>(h.end) <= a; });
  const auto last = std::partition_point(first, helps.end(),
                                         [b](const trace::HelpSpan& h) { return static_cast<double>(h.start) < b; });
  return {static_cast<size_t>(first - helps.begin()), static_cast<size_t>(last - helps.begin())};
}

void OpSpanLane::draw_helps(Canvas& draw, const LaneContext& ctx, float y0, float y1) const {
  const trace::WorkerLane& worker = lane();
  if (worker.helps.empty()) return;
  const TimeAxis& axis = ctx.axis;
  const auto [first, last] = helps_in(axis.begin_ns, axis.end_ns());
  char text[160];
  float drawn_to = -1e30f;  // spans narrower than a pixel share one column
  for (size_t i = first; i < last; ++i) {
    const trace::HelpSpan& h = worker.helps[i];
    const float xa = axis.px(static_cast<double>(h.start));
    const float xb = std::max(axis.px(static_cast<double>(h.end)), xa + 1.0f);
    if (xb <= drawn_to) continue;
    drawn_to = xb;
    const std::string_view name = model_->op_name(model_->ops[h.op]);
    const ImU32 color = OpColor(name);
    draw.rect_filled(ImVec2(xa, y0), ImVec2(xb, y1), mix(color, theme::kBackground, 0.6f));
    draw_hatch(draw, ImVec2(xa, y0), ImVec2(xb, y1), color);
    draw.rect(ImVec2(xa, y0), ImVec2(xb, y1), color);
    if (xb - xa < 12.0f) continue;
    std::snprintf(text, sizeof text, "helping: %.*s  %s", static_cast<int>(name.size()), name.data(),
                  format_duration(h.end - h.start).c_str());
    const bool fits = ImGui::CalcTextSize(text).x + 8.0f < std::min(xb, ctx.x1) - std::max(xa, ctx.x0);
    label_in_box(draw, ctx, xa, xb, y0, y1, theme::kText, fits ? text : name.data(),
                 fits ? nullptr : name.data() + name.size());
  }
}

void OpSpanLane::help_tooltip(const TimelineHit& hit) const {
  const trace::HelpSpan& h = lane().helps[hit.first];
  const trace::OpInfo& op = model_->ops[h.op];
  const std::string_view name = model_->op_name(op);
  ImGui::BeginTooltip();
  ImGui::Text("helping with %.*s (op %llu)", static_cast<int>(name.size()), name.data(),
              static_cast<unsigned long long>(op.id));
  ImGui::TextDisabled("this worker was idle and ran parts of an op that another worker ran");
  ImGui::Separator();
  tooltip_row("time", tooltip_time_range(h.start, h.end));
  tooltip_row("helped", format_duration(h.end - h.start));
  if (op.executed()) {
    tooltip_row("op ran on", model_->workers[op.worker].name);
    tooltip_row("op took", format_duration(op.end - op.start));
  }
  ImGui::TextDisabled("click: select the op");
  ImGui::EndTooltip();
}

TimelineHit OpSpanLane::hit_test(const LaneContext& ctx, ImVec2 p) const {
  using Kind = TimelineHit::Kind;
  TimelineHit hit;
  if (!lane().helps.empty()) {
    const double t = ctx.axis.to_ns(p.x);
    const double slop = kHitSlopPx * ctx.axis.ns_per_px;
    const auto [first, last] = helps_in(t - slop, t + slop);
    if (first < last) {
      const trace::HelpSpan& h = lane().helps[first];
      hit.kind = Kind::other;
      hit.click = TimelineHit::Click::select_op;
      hit.zoomable = true;
      hit.op = h.op;
      hit.first = static_cast<uint32_t>(first);
      hit.count = 1;
      hit.begin_ns = h.start;
      hit.end_ns = h.end;
      return hit;
    }
  }
  const LodBox* box = box_at(boxes_, p.x, kHitSlopPx);
  if (box == nullptr) return hit;
  hit.first = box->first;
  hit.count = box->count;
  hit.begin_ns = box->begin_ns;
  hit.end_ns = box->end_ns;
  hit.zoomable = true;
  if (box->folded()) {
    hit.kind = Kind::folded_ops;
    hit.click = TimelineHit::Click::keep;
  } else {
    hit.kind = Kind::op;
    hit.click = TimelineHit::Click::select_op;
    hit.op = lane().ops[box->first];
  }
  return hit;
}

void OpSpanLane::tooltip(const TimelineHit& hit) const {
  if (hit.kind == TimelineHit::Kind::op) return OpTooltip(*model_, static_cast<uint32_t>(hit.op));
  if (hit.kind == TimelineHit::Kind::folded_ops) folded_tooltip(hit);
  if (hit.kind == TimelineHit::Kind::other && hit.first < lane().helps.size()) help_tooltip(hit);
}

void OpSpanLane::folded_tooltip(const TimelineHit& hit) const {
  const trace::WorkerLane& worker = lane();
  // The most frequent kinds, when the box is small enough to count quickly.
  struct Kind {
    trace::NameId name;
    uint32_t count;
  };
  Kind kinds[8] = {};
  int num_kinds = 0;
  uint32_t other = 0;
  int64_t busy = 0;
  const uint32_t sampled = std::min<uint32_t>(hit.count, 20000);
  for (uint32_t i = 0; i < sampled; ++i) {
    const trace::OpInfo& op = model_->ops[worker.ops[hit.first + i]];
    busy += worker.end_of(op) - worker.start_of(op);
    int k = 0;
    while (k < num_kinds && kinds[k].name != op.name) ++k;
    if (k == num_kinds && num_kinds < 8) kinds[num_kinds++] = {op.name, 0};
    if (k < num_kinds) ++kinds[k].count; else ++other;
  }
  for (int k = 1; k < num_kinds; ++k) {  // most frequent first
    for (int j = k; j > 0 && kinds[j].count > kinds[j - 1].count; --j) std::swap(kinds[j], kinds[j - 1]);
  }
  ImGui::BeginTooltip();
  ImGui::Text("%s %s (folded: zoom in to see each)", format_count(hit.count).c_str(), style_.things);
  ImGui::Separator();
  tooltip_row("time", tooltip_time_range(hit.begin_ns, hit.end_ns));
  if (sampled == hit.count && hit.end_ns > hit.begin_ns) {
    tooltip_row("busy",
                format_duration(busy) + "  (" + std::to_string(100 * busy / (hit.end_ns - hit.begin_ns)) + "%)");
  }
  for (int k = 0; k < num_kinds && k < 4; ++k) {
    const std::string_view name = model_->name(kinds[k].name);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(OpColor(name)), "%.*s", static_cast<int>(name.size()), name.data());
    ImGui::SameLine(ImGui::GetFontSize() * 7.5f);
    ImGui::Text("%s%s", format_count(kinds[k].count).c_str(), sampled < hit.count ? " (of the first 20,000)" : "");
  }
  ImGui::EndTooltip();
}

bool OpSpanLane::locate(const LaneContext& ctx, uint32_t op, OpPart part, ImRect& out) const {
  if (part != style_.part || op >= model_->ops.size()) return false;
  const trace::OpInfo& o = model_->ops[op];
  const bool here = part == OpPart::launch ? o.launched() && o.launch_worker == worker_
                                           : o.executed() && o.worker == worker_;
  if (!here) return false;
  const trace::WorkerLane& worker = lane();
  out.Min = ImVec2(ctx.axis.px(worker.start_of(o)), ctx.y0 + 1.0f);
  out.Max = ImVec2(std::max(ctx.axis.px(worker.end_of(o)), out.Min.x + 2.0f), ctx.y1 - 1.0f);
  return true;
}

}  // namespace asyncscope::widgets
