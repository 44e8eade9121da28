// The Insight tab of the bottom area: what the shown run's trace answers.
//   - Bottleneck: the verdict (frontend- or backend-bound, with t1 and t2)
//     and the lanes' time per state, over the whole run and over the view;
//   - Memory: what held the live bytes at their peak (op, script line,
//     bytes, buffers), and how RSS splits into live, pooled and the rest;
//   - for a profiler's trace, its own figures instead (the verdict, each
//     stream's queue and idle split, launches, top ops; optionally over its
//     complete ProfilerSteps only, as HTA counts) and its memory holders;
//   - Compared: with a run stacked below to compare, the difference of the
//     two (total time, frontend waiting, workers busy/starved/held, peak RSS,
//     peak live bytes, ops) with factors.
// The rows are built by plain functions (tested headless) from the run's
// RunInsight; the panel draws them.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/run_list.h"
#include "engine/trace/insight.h"
#include "engine/trace/run_compare.h"
#include "engine/trace/trace_diff.h"

namespace asyncscope::app {

// One state's share of lane time in two ranges (the run's active part, the view).
struct StateRow {
  trace::LaneState state;
  bool worker = true;     // a worker state, else a frontend one
  int64_t run_ns = 0;     // lane time in that state over the run's active part
  double run_frac = 0;    // of the side's lane time there
  int64_t view_ns = 0;    // ... over the view
  double view_frac = 0;
};
// The workers' three states, then the frontend's running and each waiting
// state that occurs; a state with no time in either range is left out.
std::vector<StateRow> state_rows(const trace::RunInsight& insight, int64_t view_begin, int64_t view_end);

class InsightPanel {
 public:
  // Draws in the available region of the current window. `run` is the shown
  // run (nullptr: none), `other` the one stacked below to compare (or nullptr).
  void draw(const RunRecord* run, const RunRecord* other);
  // For a profiler's trace with ProfilerSteps: figures over the complete
  // steps only (what the panel's checkbox sets).
  void count_complete_steps(bool on) noexcept { complete_steps_ = on; }

 private:
  void draw_bottleneck(const RunRecord& run);
  void draw_memory(const RunRecord& run);
  void draw_compared(const RunRecord& run, const RunRecord& other);

  // The peak table of the run last drawn, with the RSS figures beside it,
  // recomputed when its insight moves on (not every frame).
  int peak_run_ = -1;
  int64_t peak_frontier_ = -1;
  trace::HolderTable peak_;
  int64_t peak_rss_ = -1, pooled_at_peak_ = -1;  // -1: not recorded
  // The difference of the two runs last compared, recomputed likewise.
  int diff_run_ = -1, diff_other_ = -1;
  int64_t diff_frontiers_[2] = {-1, -1};
  std::vector<trace::DiffRow> diff_;
  // A profiler's trace with ProfilerSteps: its figures over the complete
  // steps only (HTA's default), when asked, for the run last drawn.
  bool complete_steps_ = false;
  int steps_run_ = -1;
  std::shared_ptr<const trace::ProfileFigures> steps_figures_;
  std::vector<trace::OpDelta> op_deltas_;
};

}  // namespace asyncscope::app
