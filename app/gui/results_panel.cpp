#include "app/gui/results_panel.h"

#include "app/gui/panel_style.h"

namespace asyncscope::app {

std::vector<widgets::ResultColumn> result_columns(const RunList& runs) {
  std::vector<widgets::ResultColumn> columns;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs.at(i);
    widgets::ResultColumn column;
    column.title = r.title();
    column.subtitle = r.live ? "running…" : r.error.empty() ? r.params_text : "failed: " + r.error;
    column.current = static_cast<int>(i) == runs.current_index();
    if (r.results) {
      for (const demos::Result& row : r.results->rows) column.cells.push_back({row.key, row.label, row.value, row.unit});
    }
    if (!r.source.empty()) {
      // A file of ours says what made it ("host-vs-gpu: repeats=10 ..."); another, where it is.
      column.subtitle = r.origin.empty() ? r.source : r.params_text;
      column.cells.push_back({"ops", "ops in the trace", static_cast<double>(r.model.ops.size()), ""});
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

void ResultsPanel::draw(const RunList& runs) {
  if (built_for_ != runs.generation()) {
    columns_ = result_columns(runs);
    built_for_ = runs.generation();
  }
  if (columns_.empty()) {
    centred_hint("Results of this session's runs appear here, side by side.");
  } else {
    widgets::ResultsTable("results", columns_);
  }
}

}  // namespace asyncscope::app
