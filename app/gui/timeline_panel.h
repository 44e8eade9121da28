// The centre view: the op-kind legend, the op graph when the shown run's
// program asks for it (ProgramViews::op_graph), and the run's timeline, or
// two timelines stacked to compare, scrolled and zoomed together.
// Threading: UI thread only.
#pragma once

#include <cstddef>

#include "app/gui/run_list.h"
#include "engine/trace/op_graph.h"
#include "widgets/op_graph_view.h"

namespace asyncscope::app {

class TimelinePanel {
 public:
  // Draws in a bordered child of `height` (the full width). `run` is the run
  // shown (nullptr: none yet), `other` the one compared with it (or nullptr).
  void draw(RunRecord* run, RunRecord* other, float height);

 private:
  void draw_graph(const RunRecord& run, float height);
  static void draw_stacked(RunRecord& run, RunRecord& other, float height);

  // The graph of the run last drawn, rebuilt when its ops grow or another run is shown.
  widgets::OpGraphViewState graph_state_;
  trace::OpGraph graph_;
  int graph_run_ = -1;  // RunRecord::number
  size_t graph_ops_ = 0;
};

}  // namespace asyncscope::app
