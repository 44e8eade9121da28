// The lane of one CUDA stream on the GPU: the ops' executions on the device,
// timed by CUDA events (not by the host), coloured by op kind. Its launch
// lane, directly above it, shows when the host submitted each of them.
// Threading: UI thread only.
#pragma once

#include "widgets/lanes/op_span_lane.h"

namespace asyncscope::widgets {

class GpuStreamLane final : public OpSpanLane {
 public:
  // `worker` indexes model.workers: a stream's execution lane (device cuda,
  // span execute). The model must outlive the lane.
  GpuStreamLane(const trace::TraceModel& model, uint32_t worker);
};

}  // namespace asyncscope::widgets
