#include "app/gui/timeline_panel.h"

#include <imgui.h>

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
  // One time axis: the shown run leads, whatever moved it (input, the live
  // edge, F, the fit when it ended), and the compared one follows...
  widgets::Timeline("timeline", run.model, run.timeline, options);
  other.timeline.view = run.timeline.view;
  widgets::TimelineOptions other_options;
  other_options.title = other_title.c_str();
  // ...unless the user scrolled or zoomed the compared one.
  if (widgets::Timeline("compare", other.model, other.timeline, other_options)) {
    run.timeline.view = other.timeline.view;
    run.timeline.follow_live = false;
  }
}

}  // namespace asyncscope::app
