#include "widgets/lod.h"

#include <algorithm>

namespace asyncscope::widgets {

const LodBox* box_at(const std::vector<LodBox>& boxes, float x, float slop) {
  const auto right = [](const LodBox& b) { return std::max(b.x1, b.x0 + 1.0f); };
  auto it = std::lower_bound(boxes.begin(), boxes.end(), x - slop,
                             [&](const LodBox& b, float v) { return right(b) < v; });
  const LodBox* best = nullptr;
  float best_d = slop;
  for (; it != boxes.end() && it->x0 <= x + slop; ++it) {
    const float d = x < it->x0 ? it->x0 - x : std::max(0.0f, x - right(*it));
    if (d <= best_d) {
      best = &*it;
      best_d = d;
      if (d == 0) break;
    }
  }
  return best;
}

void fold_worker_lane(const trace::TraceModel& model, const trace::WorkerLane& lane, const TimeAxis& axis,
                      std::vector<LodBox>& out, float min_px) {
  const uint32_t* ids = lane.ops.data();
  const trace::OpInfo* ops = model.ops.data();
  fold_spans(
      lane.ops.size(), [&](size_t i) { return lane.start_of(ops[ids[i]]); },
      [&](size_t i) { return lane.end_of(ops[ids[i]]); }, axis, min_px, out);
}

void fold_sync_lane(const trace::TraceModel& model, const trace::FrontendLane& lane, const TimeAxis& axis,
                    std::vector<LodBox>& out, float min_px) {
  const uint32_t* ids = lane.syncs.data();
  const trace::SyncSpan* syncs = model.syncs.data();
  fold_spans(
      lane.syncs.size(), [&](size_t i) { return syncs[ids[i]].begin; }, [&](size_t i) { return syncs[ids[i]].end; },
      axis, min_px, out);
}

void fold_enqueue_ticks(const trace::TraceModel& model, const trace::FrontendLane& lane, const TimeAxis& axis,
                        std::vector<LodBox>& out) {
  const uint32_t* ids = lane.enqueues.data();
  const trace::OpInfo* ops = model.ops.data();
  fold_instants(lane.enqueues.size(), [&](size_t i) { return ops[ids[i]].enqueue; }, axis, out);
}

}  // namespace asyncscope::widgets
