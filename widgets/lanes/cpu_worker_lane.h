// The lane of one CPU worker thread: the ops it executed, in the order it
// ran them, coloured by op kind; narrow ones fold into counted boxes.
// Threading: UI thread only.
#pragma once

#include "widgets/lanes/op_span_lane.h"

namespace asyncscope::widgets {

class CpuWorkerLane final : public OpSpanLane {
 public:
  // `worker` indexes model.workers: a CPU worker's lane. The model must outlive the lane.
  CpuWorkerLane(const trace::TraceModel& model, uint32_t worker);
};

}  // namespace asyncscope::widgets
