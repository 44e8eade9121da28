#include "widgets/lanes/cpu_worker_lane.h"

namespace asyncscope::widgets {

CpuWorkerLane::CpuWorkerLane(const trace::TraceModel& model, uint32_t worker)
    : OpSpanLane(model, worker, Style{OpPart::execution, false, "ops"}) {}

}  // namespace asyncscope::widgets
