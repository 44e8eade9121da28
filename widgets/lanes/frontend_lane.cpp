#include "widgets/lanes/frontend_lane.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "widgets/colors.h"
#include "widgets/source_highlight.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_tooltip.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

constexpr float kLaneLines = 2.6f;

}  // namespace

FrontendLane::FrontendLane(const trace::TraceModel& model, uint32_t frontend) : model_(&model), frontend_(frontend) {}

float FrontendLane::height_lines() const { return kLaneLines; }

LaneHeader FrontendLane::header(const LaneContext&, int64_t) const {
  return LaneHeader{lane().name, format_count(lane().enqueues.size()) + " pushed", theme::kText};
}

void FrontendLane::prepare(const LaneContext& ctx) {
  fold_sync_lane(*model_, lane(), ctx.axis, waits_);
  fold_enqueue_ticks(*model_, lane(), ctx.axis, ticks_);
}

void FrontendLane::draw(Canvas& draw, const LaneContext& ctx) const {
  const float ty0 = ctx.y0 + 3.0f;
  const float ty1 = split_y(ctx);
  // A highlighted script line: its ticks and waits stay bright, the rest is dimmed.
  const int64_t line = ctx.highlight_line;
  const auto dimmed = [&](const LodBox& box, const std::vector<uint32_t>& items, bool syncs) {
    return line >= 0 && !any_on_line(*model_, items, box.first, box.count, line, syncs);
  };
  for (const LodBox& box : ticks_) {
    // Denser columns draw taller and brighter: the enqueue rate at a glance.
    const float density = std::min(1.0f, std::log10(static_cast<float>(box.count)) / 3.0f);
    const float x = std::floor(box.x0);
    const int alpha = dimmed(box, lane().enqueues, false) ? 45 : static_cast<int>(150 + 105 * density);
    draw.rect_filled(ImVec2(x, ty1 - (ty1 - ty0) * (0.6f + 0.4f * density)), ImVec2(x + 1.0f, ty1),
                        with_alpha(theme::kTick, alpha));
  }
  const float sy0 = ty1 + 2.0f;
  const float sy1 = ctx.y1 - 3.0f;
  char text[160];
  for (const LodBox& box : waits_) {
    const float xa = ctx.axis.px(box.begin_ns);
    const float xb = std::max(ctx.axis.px(box.end_ns), xa + 2.0f);
    draw.rect_filled(ImVec2(xa, sy0), ImVec2(xb, sy1), theme::kSyncFill);
    draw_hatch(draw, ImVec2(xa, sy0), ImVec2(xb, sy1), theme::kSyncHatch);
    draw.rect(ImVec2(xa, sy0), ImVec2(xb, sy1), theme::kSync);
    if (box.folded()) {
      std::snprintf(text, sizeof text, "\u00d7%s waits", format_count(box.count).c_str());
    } else {
      const trace::SyncSpan& s = model_->syncs[lane().syncs[box.first]];
      const std::string duration = format_duration(s.end - s.begin);
      if (s.target != 0) {
        std::snprintf(text, sizeof text, "%s var %" PRIu64 "  %s", trace::to_string(s.kind), s.target, duration.c_str());
      } else {
        std::snprintf(text, sizeof text, "%s  %s", trace::to_string(s.kind), duration.c_str());
      }
    }
    label_in_box(draw, ctx, xa, xb, sy0, sy1, theme::kText, text);
    if (dimmed(box, lane().syncs, true)) {
      draw.rect_filled(ImVec2(xa, sy0), ImVec2(xb + 1.0f, sy1 + 1.0f), with_alpha(theme::kBackground, 205));
    }
  }
}

TimelineHit FrontendLane::hit_test(const LaneContext& ctx, ImVec2 p) const {
  using Kind = TimelineHit::Kind;
  using Click = TimelineHit::Click;
  TimelineHit hit;
  const bool on_waits = p.y >= split_y(ctx);
  const LodBox* box = box_at(on_waits ? waits_ : ticks_, p.x, kHitSlopPx);
  if (box == nullptr) return hit;
  hit.first = box->first;
  hit.count = box->count;
  hit.begin_ns = box->begin_ns;
  hit.end_ns = box->end_ns;
  if (on_waits) {
    hit.kind = box->folded() ? Kind::folded_syncs : Kind::sync;
    hit.click = Click::keep;
    hit.zoomable = true;
    if (!box->folded()) hit.sync = lane().syncs[box->first];
  } else {
    // A tick is an instant: nothing to zoom to. A folded column zooms to its ticks.
    hit.kind = box->folded() ? Kind::folded_enqueues : Kind::enqueue;
    hit.click = box->folded() ? Click::keep : Click::select_op;
    hit.zoomable = box->folded();
    hit.op = lane().enqueues[box->first];
  }
  return hit;
}

void FrontendLane::tooltip(const TimelineHit& hit) const {
  using Kind = TimelineHit::Kind;
  if (hit.kind == Kind::enqueue) return OpTooltip(*model_, static_cast<uint32_t>(hit.op));
  ImGui::BeginTooltip();
  if (hit.kind == Kind::folded_enqueues) {
    ImGui::Text("%s enqueues", format_count(hit.count).c_str());
    ImGui::Separator();
    tooltip_row("time", tooltip_time_range(hit.begin_ns, hit.end_ns));
  } else if (hit.kind == Kind::sync) {
    const trace::SyncSpan& s = model_->syncs[static_cast<size_t>(hit.sync)];
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme::kSync), "%s (frontend blocked)", trace::to_string(s.kind));
    ImGui::Separator();
    tooltip_row("waited on",
                s.target != 0 ? std::string("var ").append(std::to_string(s.target)) : std::string("all pushed ops"));
    tooltip_row("duration", format_duration(s.end - s.begin));
    tooltip_row("time", tooltip_time_range(s.begin, s.end));
    if (s.last_op != 0) tooltip_row("last pushed", std::string("#").append(std::to_string(s.last_op)));
    if (s.source != 0) tooltip_row("source", model_->source_text(s.source));
  } else if (hit.kind == Kind::folded_syncs) {
    int64_t blocked = 0;
    for (uint32_t i = 0; i < hit.count; ++i) {
      const trace::SyncSpan& s = model_->syncs[lane().syncs[hit.first + i]];
      blocked += s.end - s.begin;
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme::kSync), "%s sync waits", format_count(hit.count).c_str());
    ImGui::Separator();
    tooltip_row("time", tooltip_time_range(hit.begin_ns, hit.end_ns));
    tooltip_row("blocked", format_duration(blocked));
  }
  ImGui::EndTooltip();
}

bool FrontendLane::locate(const LaneContext& ctx, uint32_t op, OpPart part, ImRect& out) const {
  if (part != OpPart::enqueue || op >= model_->ops.size()) return false;
  const trace::OpInfo& o = model_->ops[op];
  if (o.enqueue == trace::kNoTime || o.frontend != frontend_) return false;
  const float x = std::floor(ctx.axis.px(o.enqueue));
  out.Min = ImVec2(x - 1.0f, ctx.y0 + 1.0f);
  out.Max = ImVec2(x + 2.0f, split_y(ctx));
  return true;
}

}  // namespace asyncscope::widgets
