// What the timeline's lanes share for their hover tooltips: the tooltip of
// one op (with its enqueue -> start -> end, or for a GPU op enqueue ->
// launch -> GPU start -> end), a labelled row, times to the tooltips'
// resolution. The timing rows of an op are plain data, testable without a
// window. Each lane draws the tooltips of its own hits (lane.h).
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace/model.h"

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

// The tooltip of op `index` (into model.ops): name, id, timing rows, vars,
// output, iteration, status and error.
void OpTooltip(const trace::TraceModel& model, uint32_t index);

// A dim label and its value on one tooltip line (between BeginTooltip and EndTooltip).
void tooltip_row(const char* label, const std::string& value);
// "a - b  (duration)", times to the tooltips' resolution.
std::string tooltip_time_range(int64_t begin_ns, int64_t end_ns);

}  // namespace asyncscope::widgets
