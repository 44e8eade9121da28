// The centre view: the op-kind legend, the op graph when the shown run's
// program asks for it (ProgramViews::op_graph), and the run's timeline, or
// two timelines stacked to compare, scrolled and zoomed together.
// Threading: UI thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/run_list.h"
#include "engine/trace/op_graph.h"
#include "widgets/op_graph_view.h"

namespace asyncscope::app {

// How far run b's view is shifted against run a's so that the marker named
// `marker` sits at the same x in both: a's marker time minus b's (0 when
// `marker` is "" or either run lacks it). Shown times stay each run's own.
int64_t alignment_offset(const trace::TraceModel& a, const trace::TraceModel& b, const std::string& marker);
// The names of the markers both runs have, in a's order, each once.
std::vector<std::string> common_markers(const trace::TraceModel& a, const trace::TraceModel& b);

class TimelinePanel {
 public:
  // Draws in a bordered child of `height` (the full width). `run` is the run
  // shown (nullptr: none yet), `other` the one compared with it (or nullptr).
  void draw(RunRecord* run, RunRecord* other, float height);

 private:
  void draw_graph(const RunRecord& run, float height);
  void draw_stacked(RunRecord& run, RunRecord& other, float height);
  // The marker both runs are aligned on ("" = their starts); a choice from
  // the markers the two have in common, drawn above them.
  void draw_alignment(const RunRecord& run, const RunRecord& other);

  std::string align_marker_;

  // The graph of the run last drawn, rebuilt when its ops grow or another run is shown.
  widgets::OpGraphViewState graph_state_;
  trace::OpGraph graph_;
  int graph_run_ = -1;  // RunRecord::number
  size_t graph_ops_ = 0;
};

}  // namespace asyncscope::app
