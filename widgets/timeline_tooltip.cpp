#include "widgets/timeline_tooltip.h"

#include <imgui.h>

#include <cinttypes>
#include <string_view>

#include "widgets/colors.h"
#include "widgets/time_axis.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {

// Tooltip times are shown to this resolution.
constexpr int64_t kTooltipResolutionNs = 100;

bool is_gpu_op(const trace::TraceModel& model, const trace::OpInfo& op) noexcept {
  return op.launched() || op.device == trace::DeviceKind::cuda ||
         (op.executed() && op.worker < model.workers.size() && model.workers[op.worker].device == trace::DeviceKind::cuda);
}

namespace {

std::string at(int64_t t) { return format_time(t, kTooltipResolutionNs); }

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
  if (op.launched()) rows.push_back({"launch", tooltip_time_range(op.launch_start, op.launch_end)});
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

void tooltip_row(const char* label, const std::string& value) {
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine(ImGui::GetFontSize() * 7.5f);
  ImGui::TextUnformatted(value.c_str());
}

std::string tooltip_time_range(int64_t begin_ns, int64_t end_ns) {
  return at(begin_ns) + " - " + at(end_ns) + "  (" + format_duration(end_ns - begin_ns) + ")";
}

namespace {

std::string var_list(const uint64_t* ids, uint16_t n) {
  std::string out;
  for (uint16_t i = 0; i < n && i < 8; ++i) out += (i ? ", var " : "var ") + std::to_string(ids[i]);
  if (n > 8) out += ", ... (" + std::to_string(n) + " in all)";
  return n ? out : "-";
}

}  // namespace

void OpTooltip(const trace::TraceModel& model, uint32_t index) {
  const trace::OpInfo& op = model.ops[index];
  const std::string_view name = model.op_name(op);
  ImGui::BeginTooltip();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(OpColor(name)), "%.*s", static_cast<int>(name.size()), name.data());
  ImGui::SameLine();
  ImGui::TextDisabled("#%" PRIu64 "%s", op.id, op.internal ? "  (internal)" : "");
  ImGui::Separator();
  for (const TooltipRow& r : op_timing_rows(model, op)) tooltip_row(r.label, r.value);
  tooltip_row("reads", var_list(model.reads_of(op), op.num_reads));
  tooltip_row("writes", var_list(model.writes_of(op), op.num_writes));
  if (op.out_bytes > 0) tooltip_row("output", format_bytes(static_cast<int64_t>(op.out_bytes)));
  tooltip_row("iteration", std::to_string(op.iteration));
  if (op.source != 0) tooltip_row("source", model.source_text(op.source));
  if (op.scope != 0) tooltip_row("scope", std::string(model.scope_text(op.scope)));
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

}  // namespace asyncscope::widgets
