// read_by: a trace model as a live reader had read it at a moment, cut from
// the whole run, for the tests that read a run again and again as it grows
// (the insight's live updates).
// Threading: the test's thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::testing {

// What a live reader had read by `cut`: the enqueues and waits before it,
// the spans that ended before it (a lane records a span at its end). Lanes
// with nothing read yet are not in the model.
inline trace::TraceModel read_by(const trace::TraceModel& full, int64_t cut) {
  trace::TraceModel m = full;
  for (trace::OpInfo& op : m.ops) {
    if (op.enqueue >= cut) op.enqueue = trace::kNoTime;
    if (op.end >= cut) op.start = op.end = trace::kNoTime;
    if (op.launch_end >= cut) op.launch_start = op.launch_end = trace::kNoTime;
  }
  for (trace::FrontendLane& f : m.frontends) {
    std::erase_if(f.enqueues, [&](uint32_t i) { return m.ops[i].enqueue == trace::kNoTime; });
    std::erase_if(f.syncs, [&](uint32_t i) { return m.syncs[i].end >= cut; });
  }
  for (trace::WorkerLane& w : m.workers) {
    std::erase_if(w.ops, [&](uint32_t i) { return w.end_of(m.ops[i]) == trace::kNoTime; });
  }
  std::erase_if(m.workers, [](const trace::WorkerLane& w) { return w.ops.empty(); });
  // Ops point at their lanes by index.
  for (size_t w = 0; w < m.workers.size(); ++w) {
    for (uint32_t i : m.workers[w].ops) (m.workers[w].launches() ? m.ops[i].launch_worker : m.ops[i].worker) = static_cast<uint16_t>(w);
  }
  // The ids not read yet at the end are not in the model.
  while (!m.ops.empty() && !m.ops.back().known()) m.ops.pop_back();
  return m;
}

}  // namespace asyncscope::testing
