#include "app/gui/timeline_panel.h"

#include <imgui.h>

#include <string>

#include "app/gui/panel_style.h"
#include "widgets/colors.h"
#include "widgets/timeline.h"

namespace asyncscope::app {
namespace {

bool same_view(const widgets::TimeView& a, const widgets::TimeView& b) {
  return a.begin_ns == b.begin_ns && a.end_ns == b.end_ns;
}

}  // namespace

void TimelinePanel::draw(RunRecord* run, RunRecord* other, float height) {
  ImGui::BeginChild("centre", ImVec2(0, height), true);
  if (run == nullptr) {
    centred_hint("Press Space (or Run) to start the demo; its timeline appears here as it runs.");
    ImGui::EndChild();
    return;
  }
  widgets::OpLegend(run->model);
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

void TimelinePanel::draw_stacked(RunRecord& run, RunRecord& other, float height) {
  // Titles are kept here: the options hold pointers to them for the call.
  const std::string run_title = run.title();
  const std::string other_title = other.title();
  widgets::TimelineOptions options;
  options.live = run.live;
  options.title = run_title.c_str();
  options.height = height * 0.5f - ImGui::GetStyle().ItemSpacing.y;
  const widgets::TimeView before = run.timeline.view;
  widgets::Timeline("timeline", run.model, run.timeline, options);
  // Scrolled and zoomed together: whichever timeline moved leads.
  if (!same_view(run.timeline.view, before)) other.timeline.view = run.timeline.view;
  widgets::TimelineOptions other_options;
  other_options.title = other_title.c_str();
  const widgets::TimeView before_other = other.timeline.view;
  widgets::Timeline("compare", other.model, other.timeline, other_options);
  if (!same_view(other.timeline.view, before_other)) {
    run.timeline.view = other.timeline.view;
    run.timeline.follow_live = false;
  }
}

}  // namespace asyncscope::app
