#include "app/gui/timeline_panel.h"

#include <imgui.h>

#include <algorithm>
#include <optional>
#include <string>

#include "app/gui/actions.h"
#include "app/gui/panel_style.h"
#include "widgets/colors.h"
#include "widgets/timeline.h"

namespace asyncscope::app {

void TimelinePanel::draw(RunRecord* run, RunRecord* other, float height) {
  ImGui::BeginChild("centre", ImVec2(0, height), true);
  if (run == nullptr) {
    centred_hint(std::string("Press ") + shortcut_label(Action::run) +
                 " (or Run) to start the demo; its timeline appears here as it runs.");
    ImGui::EndChild();
    return;
  }
  widgets::OpLegend(run->model);
  if (run->timeline.insight != nullptr) {
    widgets::StateLegend();
  } else if (run->profile) {
    ImGui::TextDisabled("%s: each thread's spans by depth, then each GPU stream's ops; a thread that launched or "
                        "waited has a frontend lane (launches as enqueues, synchronising calls as waits)",
                        trace::to_string(run->profile->format));
  }
  if (run->views.op_graph) draw_graph(*run, ImGui::GetContentRegionAvail().y * 0.42f);
  if (other != nullptr) {
    draw_stacked(*run, *other, ImGui::GetContentRegionAvail().y);
  } else {
    widgets::TimelineOptions options;
    options.live = run->live;
    widgets::Timeline("timeline", run->model, run->timeline, options);
  }
  ImGui::EndChild();
}

void TimelinePanel::draw_graph(const RunRecord& run, float height) {
  if (run.number != graph_run_ || run.model.ops.size() != graph_ops_) {
    graph_ = trace::build_op_graph(run.model);
    graph_run_ = run.number;
    graph_ops_ = run.model.ops.size();
  }
  widgets::OpGraphView("graph", run.model, graph_, graph_state_, ImVec2(0, height));
}

int64_t alignment_offset(const trace::TraceModel& a, const trace::TraceModel& b, const std::string& marker) {
  if (marker.empty()) return 0;
  const std::optional<int64_t> ta = widgets::MarkerTime(a, marker), tb = widgets::MarkerTime(b, marker);
  return ta && tb ? *ta - *tb : 0;
}

std::vector<std::string> common_markers(const trace::TraceModel& a, const trace::TraceModel& b) {
  std::vector<std::string> out;
  for (const trace::Marker& m : a.markers) {
    const std::string name(a.name(m.name));
    if (std::find(out.begin(), out.end(), name) != out.end()) continue;
    if (widgets::MarkerTime(b, name)) out.push_back(name);
  }
  return out;
}

void TimelinePanel::draw_alignment(const RunRecord& run, const RunRecord& other) {
  const std::vector<std::string> markers = common_markers(run.model, other.model);
  if (!align_marker_.empty() && std::find(markers.begin(), markers.end(), align_marker_) == markers.end()) {
    align_marker_.clear();  // the runs shown now do not both have it
  }
  if (markers.empty()) return;
  ImGui::TextDisabled("align the runs on");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12.0f);
  if (ImGui::BeginCombo("##align", align_marker_.empty() ? "their start" : align_marker_.c_str())) {
    if (ImGui::Selectable("their start", align_marker_.empty())) align_marker_.clear();
    for (const std::string& m : markers) {
      if (ImGui::Selectable(("marker \"" + m + "\"").c_str(), align_marker_ == m)) align_marker_ = m;
    }
    ImGui::EndCombo();
  }
}

void TimelinePanel::draw_stacked(RunRecord& run, RunRecord& other, float height) {
  const float top = ImGui::GetCursorPosY();
  draw_alignment(run, other);
  height -= ImGui::GetCursorPosY() - top;
  const int64_t offset = alignment_offset(run.model, other.model, align_marker_);
  // Titles are kept here: the options hold pointers to them for the call.
  const std::string run_title = run.title();
  const std::string other_title =
      other.title() + (align_marker_.empty() ? "" : "  (aligned on \"" + align_marker_ + "\")");
  widgets::TimelineOptions options;
  options.live = run.live;
  options.title = run_title.c_str();
  options.height = height * 0.5f - ImGui::GetStyle().ItemSpacing.y;
  // One time axis: the shown run leads, whatever moved it (input, the live
  // edge, F, the fit when it ended), and the compared one follows, shifted
  // so the chosen marker lines up...
  widgets::Timeline("timeline", run.model, run.timeline, options);
  other.timeline.view = {run.timeline.view.begin_ns - offset, run.timeline.view.end_ns - offset};
  widgets::TimelineOptions other_options;
  other_options.title = other_title.c_str();
  // ...unless the user scrolled or zoomed the compared one.
  if (widgets::Timeline("compare", other.model, other.timeline, other_options)) {
    run.timeline.view = {other.timeline.view.begin_ns + offset, other.timeline.view.end_ns + offset};
    run.timeline.follow_live = false;
  }
  // One scale per counter kind for both, from what each shows now.
  widgets::ShareCounterScales(run.timeline, other.timeline);
}

}  // namespace asyncscope::app
