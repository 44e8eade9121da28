// What changed between two traces of any kind: two of our runs, two
// profilers' traces (two PyTorch runs before and after a change), or one of
// each (the chapter's script on asyncscope.torch and on the real PyTorch).
// A summary with b / a factors, as run_compare.h gives for two runs, and
// per op name (and side: CPU or GPU) the count and time in each, largest
// change first. `asyncscope diff A B` prints it and writes it as JSON; the
// app's Insight tab shows it for two traces stacked to compare.
//
// Threading: pure functions of the traces, on the thread that owns them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "engine/trace/profile_analysis.h"
#include "engine/trace/run_compare.h"

namespace asyncscope::trace {

// One trace as the comparison reads it; `figures` is set for a profiler's trace.
struct TraceSide {
  const TraceModel* model = nullptr;
  const RunInsight* insight = nullptr;
  const ProfileFigures* figures = nullptr;
};

struct OpDelta {
  std::string name;
  bool gpu = false;
  uint64_t count_a = 0, count_b = 0;
  int64_t total_a_ns = 0, total_b_ns = 0;
  int64_t delta_ns() const noexcept { return total_b_ns - total_a_ns; }
};

struct TraceDiff {
  std::vector<DiffRow> summary;
  std::vector<OpDelta> ops;  // by |delta| of time, largest first
  std::string verdict_a, verdict_b;
};

// Per op name and side, from our own model: executed ops (not the engine's
// bookkeeping), their count and time running.
std::vector<OpFigures> op_figures(const TraceModel& model);

TraceDiff diff_traces(const TraceSide& a, const TraceSide& b);

// The JSON of a diff: {"a", "b" (the labels), "verdict_a", "verdict_b",
// "summary": [{"what", "a", "b", "a_value", "b_value", "factor"}],
// "ops": [{"name", "device", "count_a", "count_b", "total_us_a", "total_us_b", "delta_us"}]}.
std::string diff_json(const TraceDiff& diff, const std::string& label_a, const std::string& label_b);

}  // namespace asyncscope::trace
