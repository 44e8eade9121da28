// The results pane: the result tables of the session's runs side by side,
// one column per run (the numbers a reader would quote), the shown run
// highlighted; an opened trace file shows how many ops it holds.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "app/gui/run_list.h"
#include "widgets/results_table.h"

namespace asyncscope::app {

// One column per run, in the list's order.
std::vector<widgets::ResultColumn> result_columns(const RunList& runs);

class ResultsPanel {
 public:
  // Draws in the available region of the current window.
  void draw(const RunList& runs);

 private:
  // Built when the list changes (runs.generation()), not every frame.
  std::vector<widgets::ResultColumn> columns_;
  uint64_t built_for_ = UINT64_MAX;
};

}  // namespace asyncscope::app
