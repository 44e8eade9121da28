#include "widgets/lanes/counter_lane.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "widgets/colors.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_tooltip.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

constexpr float kLaneLines = 3.2f;

// The table's colours are used as ImU32 as they are.
static_assert(trace::pack_rgba(0x11, 0x22, 0x33, 0x44) == IM_COL32(0x11, 0x22, 0x33, 0x44),
              "ImGui packs colours in another byte order (IMGUI_USE_BGRA_PACKED_COLOR?)");

}  // namespace

CounterLane::CounterLane(const trace::TraceModel& model, const trace::CounterSpec& spec,
                         const trace::RunInsight* insight)
    : model_(&model), insight_(insight), spec_(spec) {}

int CounterLane::column() const noexcept { return model_->counter_index(spec_.name); }

// The pool's bytes explain the gap between RSS and live bytes; they need
// less height than the two they explain. The app's render CPU is beside the
// run, not part of it: a check that it stayed low needs no more either.
float CounterLane::height_lines() const {
  const std::string_view name = spec_.name;
  const bool minor =
      name == trace::kPooledCounter || name == trace::kDevicePooledCounter || name == trace::kRenderCpuCounter;
  return minor ? kLaneLines * 0.65f : kLaneLines;
}

LaneHeader CounterLane::header(const LaneContext& ctx, int64_t cursor_t) const {
  LaneHeader h{spec_.label, {}, spec_.color};
  const std::span<const trace::CounterSample> samples(model_->counters);
  // At the mouse, else at the view's right edge (or the last sample before it).
  const int64_t last = samples.empty() ? 0 : samples.back().t;
  const int64_t t = cursor_t != trace::kNoTime ? cursor_t : std::min(static_cast<int64_t>(ctx.axis.end_ns()), last);
  int64_t value = 0;
  if (counter_value_at(samples, column(), t, value)) h.detail = format_counter(value, spec_.unit);
  return h;
}

void CounterLane::prepare(const LaneContext& ctx) {
  reduce_counter_columns(model_->counters, column(), ctx.axis, columns_);
  int64_t highest = 0;
  for (const CounterColumn& c : columns_) {
    if (c.valid) highest = std::max(highest, c.max);
  }
  top_ = std::max(nice_ceiling(highest, spec_.unit), scale_floor_);
}

void CounterLane::draw(Canvas& draw, const LaneContext& ctx) const {
  draw_counter_plot(draw, columns_, ctx.axis.x0, ctx.y0, ctx.y1, top_, spec_.color,
                    format_counter(top_, spec_.unit).c_str());
}

TimelineHit CounterLane::hit_test(const LaneContext& ctx, ImVec2 p) const {
  TimelineHit hit;
  const auto c = static_cast<size_t>(std::max(0.0f, std::floor(p.x - ctx.axis.x0)));
  const int64_t t = std::llround(ctx.axis.to_ns(p.x));
  if (c < columns_.size() && columns_[c].valid && counter_value_at(model_->counters, column(), t, hit.value)) {
    hit.kind = TimelineHit::Kind::counter;
    hit.value_min = columns_[c].min;
    hit.value_max = columns_[c].max;
  }
  return hit;
}

void CounterLane::tooltip(const TimelineHit& hit) const {
  ImGui::BeginTooltip();
  counter_tooltip_body(spec_.label, spec_.color, spec_.unit, hit.t, hit.value, hit.value_min, hit.value_max);
  const std::string_view name = spec_.name;
  if (name == trace::kRssCounter) rss_tooltip(hit.t);
  if (name == trace::kPooledCounter || name == trace::kDevicePooledCounter) {
    ImGui::TextDisabled("freed arrays the pool keeps for reuse: resident, but not live");
  }
  if (name == trace::kRenderCpuCounter) {
    ImGui::TextDisabled("the app while the run went on: its UI thread (reading the trace, drawing)");
    ImGui::TextDisabled("and the graphics driver's threads, in %% of one core over 10 ms");
  }
  if (insight_ != nullptr && (name == trace::kLiveCounter || name == trace::kDeviceLiveCounter)) holders_tooltip(hit.t);
  ImGui::EndTooltip();
}

// RSS is more than the arrays: what the pool keeps, and everything else.
void CounterLane::rss_tooltip(int64_t t) const {
  int64_t rss = 0, live = 0, pooled = 0;
  const int live_c = model_->counter_index(trace::kLiveCounter);
  const int pooled_c = model_->counter_index(trace::kPooledCounter);
  if (!counter_value_at(model_->counters, column(), t, rss) || live_c < 0 || pooled_c < 0 ||
      !counter_value_at(model_->counters, live_c, t, live) || !counter_value_at(model_->counters, pooled_c, t, pooled)) {
    return;
  }
  ImGui::Separator();
  tooltip_row("live arrays", format_bytes(live));
  tooltip_row("pooled", format_bytes(pooled) + "  (freed, kept for reuse)");
  tooltip_row("the rest", format_bytes(rss - live - pooled) + "  (code, libraries, stacks, the trace)");
}

// The top holders of the live bytes at t: buffers grouped by the op (and
// script line) that allocated them.
void CounterLane::holders_tooltip(int64_t t) const {
  const bool gpu = std::string_view(spec_.name) == trace::kDeviceLiveCounter;
  const trace::HolderTable table =
      insight_->holders_at(*model_, t, gpu ? trace::DeviceKind::cuda : trace::DeviceKind::cpu, 0, 6);
  ImGui::Separator();
  if (table.buffers == 0) {
    ImGui::TextDisabled("no buffer certainly live here (one being written or freed counts from its op's end)");
    return;
  }
  ImGui::TextDisabled("held by (%s in %s buffers):", format_bytes(static_cast<int64_t>(table.live_bytes)).c_str(),
                      format_count(table.buffers).c_str());
  if (ImGui::BeginTable("holders", 3, ImGuiTableFlags_SizingFixedFit)) {
    for (const trace::Holder& h : table.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(OpColor(h.op)), "%s", h.op.c_str());
      if (!h.scope.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("in %s", std::string(trace::innermost_scope(h.scope)).c_str());
      }
      if (!h.line.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", h.line.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_bytes(static_cast<int64_t>(h.bytes)).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("\u00d7%s", format_count(h.count).c_str());
    }
    ImGui::EndTable();
  }
}

// The values in view are found only when asked: every frame needs the top, few callers the rest.
bool CounterLane::scale(LaneScale& out) const {
  out = LaneScale{0, 0, top_, spec_.unit};
  bool any = false;
  for (const CounterColumn& c : columns_) {
    if (!c.valid) continue;
    out.min = any ? std::min(out.min, c.min) : c.min;
    out.max = any ? std::max(out.max, c.max) : c.max;
    any = true;
  }
  return true;
}

}  // namespace asyncscope::widgets
