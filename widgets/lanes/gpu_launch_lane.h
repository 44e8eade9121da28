// The launch lane of one CUDA stream: the host thread submitting each GPU
// op (its launch span), drawn as muted boxes outlined in the op's colour, so
// host time spent launching is not mistaken for the op's work on the GPU
// (the stream's lane, directly below).
// Threading: UI thread only.
#pragma once

#include "widgets/lanes/op_span_lane.h"

namespace asyncscope::widgets {

class GpuLaunchLane final : public OpSpanLane {
 public:
  // `worker` indexes model.workers: a launch lane (launches() true). The
  // model must outlive the lane.
  GpuLaunchLane(const trace::TraceModel& model, uint32_t worker);
};

}  // namespace asyncscope::widgets
