// The timeline's hover tooltips: an op (with its enqueue -> start -> end, or
// for a GPU op enqueue -> launch -> GPU start -> end), a folded box of ops,
// enqueues or sync waits, one sync wait, a counter. The timing rows of an op
// are plain data, testable without a window.
// Threading: UI thread only.
#pragma once

#include <string>
#include <vector>

#include "engine/trace/model.h"
#include "widgets/timeline.h"

namespace asyncscope::widgets {

struct TooltipRow {
  const char* label;
  std::string value;
};

// Whether an op ran on a GPU: it has a launch span, was pushed to a CUDA
// device, or executed on a CUDA lane.
bool is_gpu_op(const trace::TraceModel& model, const trace::OpInfo& op) noexcept;

// When and where an op ran, in tooltip order. A CPU op: enqueue, start, end,
// queue wait, duration, worker. A GPU op: enqueue, launch (its host span),
// GPU start, GPU end, queue wait (enqueue to launch), stream wait (launch end
// to GPU start, when the GPU started after the launch returned), on GPU,
// launched by (the launch lane), stream (the GPU lane). Times not yet read
// are left out or say so; a GPU op whose launch did not succeed "did not run".
std::vector<TooltipRow> op_timing_rows(const trace::TraceModel& model, const trace::OpInfo& op);

// Shows the tooltip for what `hit` found in the prepared frame; nothing for kind none.
void TimelineTooltip(const trace::TraceModel& model, const TimelineFrame& frame, const TimelineHit& hit);

}  // namespace asyncscope::widgets
