// What changed between two runs: a summary of each run, from its model and
// its insight (time, frontend waits, worker states, peaks of RSS and live
// bytes, ops), and the rows of their difference with b / a factors, as the
// app's Insight tab shows them.
// Threading: pure functions of a model and its insight, on the thread that owns them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"

namespace asyncscope::trace {

// What a run's comparison needs, from its model and insight.
struct RunSummary {
  int64_t duration_ns = 0;
  int64_t frontend_wait_ns = 0;
  double worker_busy_frac = 0, worker_starved_frac = 0, worker_held_frac = 0;
  int64_t peak_rss_bytes = -1;   // -1: not recorded
  int64_t peak_live_bytes = -1;
  uint64_t ops = 0;              // ops pushed, frees and bookkeeping not counted
  Bound bound = Bound::unknown;
};
RunSummary summarize(const TraceModel& model, const RunInsight& insight);

// One row of the difference between two runs: a's and b's value and b / a.
struct DiffRow {
  std::string what;
  std::string a, b;       // formatted with units
  double a_value = 0, b_value = 0;
  std::optional<double> factor;  // b / a; none when a is 0 or either is missing
};
std::vector<DiffRow> diff(const RunSummary& a, const RunSummary& b);

}  // namespace asyncscope::trace
