#include "engine/trace/insight.h"

namespace asyncscope::trace {
namespace {
const LaneStates kNoLane;
}  // namespace

bool RunInsight::update(const TraceModel& model, bool complete) {
  const int64_t from = frontier_.time();
  const int64_t to = frontier_.advance(model, complete);  // advances settled(), which memory_ reads
  memory_.update(model, frontier_.settled());
  lanes_.update(model, frontier_, from, to);
  return to > from;
}

const LaneStates& RunInsight::worker(size_t lane) const noexcept {
  return lane < frontier_.mapped_workers() ? lanes_.worker(frontier_.stable_lane(lane)) : kNoLane;
}

}  // namespace asyncscope::trace
