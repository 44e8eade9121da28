#include "widgets/lanes/gpu_launch_lane.h"

namespace asyncscope::widgets {

GpuLaunchLane::GpuLaunchLane(const trace::TraceModel& model, uint32_t worker)
    : OpSpanLane(model, worker, Style{OpPart::launch, true, "launches"}) {}

}  // namespace asyncscope::widgets
