#include "widgets/timeline_tooltip.h"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <string_view>

#include "widgets/colors.h"
#include "widgets/counter_plot.h"
#include "widgets/time_axis.h"

namespace asyncscope::widgets {

// Tooltip times are shown to this resolution.
constexpr int64_t kTooltipResolutionNs = 100;

bool is_gpu_op(const trace::TraceModel& model, const trace::OpInfo& op) noexcept {
  return op.launched() || op.device == trace::DeviceKind::cuda ||
         (op.executed() && op.worker < model.workers.size() && model.workers[op.worker].device == trace::DeviceKind::cuda);
}

namespace {

std::string at(int64_t t) { return format_time(t, kTooltipResolutionNs); }

std::string time_range(int64_t a, int64_t b) {
  return at(a) + " - " + at(b) + "  (" + format_duration(b - a) + ")";
}

std::string lane_name(const trace::TraceModel& model, uint16_t lane) {
  return lane < model.workers.size() ? model.workers[lane].name : std::string("?");
}

}  // namespace

std::vector<TooltipRow> op_timing_rows(const trace::TraceModel& model, const trace::OpInfo& op) {
  std::vector<TooltipRow> rows;
  const bool queued = op.enqueue != trace::kNoTime;
  if (queued) rows.push_back({"enqueue", at(op.enqueue)});
  if (!is_gpu_op(model, op)) {
    if (!op.executed()) {
      rows.push_back({"start", "not yet executed"});
      return rows;
    }
    rows.push_back({"start", at(op.start)});
    rows.push_back({"end", at(op.end)});
    if (queued) rows.push_back({"queue wait", format_duration(op.start - op.enqueue)});
    rows.push_back({"duration", format_duration(op.end - op.start)});
    rows.push_back({"worker", lane_name(model, op.worker)});
    return rows;
  }
  if (op.launched()) rows.push_back({"launch", time_range(op.launch_start, op.launch_end)});
  if (op.executed()) {
    rows.push_back({"GPU start", at(op.start)});
    rows.push_back({"GPU end", at(op.end)});
  } else {
    // A launch that ended without success (skipped, cancelled, failed) never reaches the GPU.
    const char* gpu = !op.launched()                       ? "not yet launched"
                      : op.status == trace::OpStatus::ok ? "launched, not finished yet"
                                                         : "did not run";
    rows.push_back({"GPU", gpu});
  }
  const int64_t first = op.launched() ? op.launch_start : op.start;
  if (queued && (op.launched() || op.executed())) rows.push_back({"queue wait", format_duration(first - op.enqueue)});
  if (op.launched() && op.executed() && op.start >= op.launch_end) {
    rows.push_back({"stream wait", format_duration(op.start - op.launch_end)});
  }
  if (op.executed()) rows.push_back({"on GPU", format_duration(op.end - op.start)});
  if (op.launched()) rows.push_back({"launched by", lane_name(model, op.launch_worker)});
  if (op.executed()) rows.push_back({"stream", lane_name(model, op.worker)});
  return rows;
}

namespace {

void row(const char* label, const std::string& value) {
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine(ImGui::GetFontSize() * 7.5f);
  ImGui::TextUnformatted(value.c_str());
}

std::string var_list(const uint64_t* ids, uint16_t n) {
  std::string out;
  for (uint16_t i = 0; i < n && i < 8; ++i) out += (i ? ", var " : "var ") + std::to_string(ids[i]);
  if (n > 8) out += ", ... (" + std::to_string(n) + " in all)";
  return n ? out : "-";
}

void op_tooltip(const trace::TraceModel& model, uint32_t index) {
  const trace::OpInfo& op = model.ops[index];
  const std::string_view name = model.op_name(op);
  ImGui::BeginTooltip();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(OpColor(name)), "%.*s", static_cast<int>(name.size()), name.data());
  ImGui::SameLine();
  ImGui::TextDisabled("#%" PRIu64 "%s", op.id, op.internal ? "  (internal)" : "");
  ImGui::Separator();
  for (const TooltipRow& r : op_timing_rows(model, op)) row(r.label, r.value);
  row("reads", var_list(model.reads_of(op), op.num_reads));
  row("writes", var_list(model.writes_of(op), op.num_writes));
  if (op.out_bytes > 0) row("output", format_bytes(static_cast<int64_t>(op.out_bytes)));
  row("iteration", std::to_string(op.iteration));
  if (op.executed() || op.launched()) {
    const bool ok = op.status == trace::OpStatus::ok;
    ImGui::TextDisabled("status");
    ImGui::SameLine(ImGui::GetFontSize() * 7.5f);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ok ? theme::kText : theme::kError), "%s", trace::to_string(op.status));
    if (auto it = model.errors.find(op.id); it != model.errors.end()) {
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme::kError), "%s", it->second.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  ImGui::EndTooltip();
}

void folded_ops_tooltip(const trace::TraceModel& model, const TimelineFrame& f, const TimelineHit& hit) {
  const trace::WorkerLane& lane = model.workers[f.lanes[hit.lane].index];
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
    const trace::OpInfo& op = model.ops[lane.ops[hit.first + i]];
    busy += lane.end_of(op) - lane.start_of(op);
    int k = 0;
    while (k < num_kinds && kinds[k].name != op.name) ++k;
    if (k == num_kinds && num_kinds < 8) kinds[num_kinds++] = {op.name, 0};
    if (k < num_kinds) ++kinds[k].count; else ++other;
  }
  for (int k = 1; k < num_kinds; ++k) {  // most frequent first
    for (int j = k; j > 0 && kinds[j].count > kinds[j - 1].count; --j) std::swap(kinds[j], kinds[j - 1]);
  }
  ImGui::BeginTooltip();
  ImGui::Text("%s %s (folded: zoom in to see each)", format_count(hit.count).c_str(),
              lane.launches() ? "launches" : "ops");
  ImGui::Separator();
  row("time", time_range(hit.begin_ns, hit.end_ns));
  if (sampled == hit.count && hit.end_ns > hit.begin_ns) {
    row("busy", format_duration(busy) + "  (" + std::to_string(100 * busy / (hit.end_ns - hit.begin_ns)) + "%)");
  }
  for (int k = 0; k < num_kinds && k < 4; ++k) {
    const std::string_view name = model.name(kinds[k].name);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(OpColor(name)), "%.*s", static_cast<int>(name.size()), name.data());
    ImGui::SameLine(ImGui::GetFontSize() * 7.5f);
    ImGui::Text("%s%s", format_count(kinds[k].count).c_str(), sampled < hit.count ? " (of the first 20,000)" : "");
  }
  ImGui::EndTooltip();
}

}  // namespace

void TimelineTooltip(const trace::TraceModel& model, const TimelineFrame& f, const TimelineHit& hit) {
  using Kind = TimelineHit::Kind;
  if (hit.kind == Kind::op || hit.kind == Kind::enqueue) return op_tooltip(model, static_cast<uint32_t>(hit.op));
  if (hit.kind == Kind::folded_ops) return folded_ops_tooltip(model, f, hit);
  if (hit.kind == Kind::none) return;
  ImGui::BeginTooltip();
  if (hit.kind == Kind::folded_enqueues) {
    ImGui::Text("%s enqueues", format_count(hit.count).c_str());
    ImGui::Separator();
    row("time", time_range(hit.begin_ns, hit.end_ns));
  } else if (hit.kind == Kind::sync) {
    const trace::SyncSpan& s = model.syncs[static_cast<size_t>(hit.sync)];
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme::kSync), "%s (frontend blocked)", trace::to_string(s.kind));
    ImGui::Separator();
    row("waited on", s.target != 0 ? std::string("var ").append(std::to_string(s.target)) : std::string("all pushed ops"));
    row("duration", format_duration(s.end - s.begin));
    row("time", time_range(s.begin, s.end));
    if (s.last_op != 0) row("last pushed", std::string("#").append(std::to_string(s.last_op)));
  } else if (hit.kind == Kind::folded_syncs) {
    const trace::FrontendLane& lane = model.frontends[f.lanes[hit.lane].index];
    int64_t blocked = 0;
    for (uint32_t i = 0; i < hit.count; ++i) {
      const trace::SyncSpan& s = model.syncs[lane.syncs[hit.first + i]];
      blocked += s.end - s.begin;
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme::kSync), "%s sync waits", format_count(hit.count).c_str());
    ImGui::Separator();
    row("time", time_range(hit.begin_ns, hit.end_ns));
    row("blocked", format_duration(blocked));
  } else if (hit.kind == Kind::counter) {
    const CounterLaneSpec& spec = kCounterLanes[f.lanes[hit.lane].index];
    counter_tooltip_body(spec.label, spec.color, spec.unit, hit.t, hit.value, hit.value_min, hit.value_max);
  }
  ImGui::EndTooltip();
}

}  // namespace asyncscope::widgets
