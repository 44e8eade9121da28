#include "widgets/lanes/gpu_stream_lane.h"

namespace asyncscope::widgets {

// Drawn like a CPU worker's ops: on the GPU they are the op's work itself.
GpuStreamLane::GpuStreamLane(const trace::TraceModel& model, uint32_t worker)
    : OpSpanLane(model, worker, Style{OpPart::execution, false, "ops"}) {}

}  // namespace asyncscope::widgets
