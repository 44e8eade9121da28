#include "widgets/lanes/default_lanes.h"

#include "engine/trace_record/counters.h"
#include "widgets/lanes/counter_lane.h"
#include "widgets/lanes/cpu_worker_lane.h"
#include "widgets/lanes/frontend_lane.h"
#include "widgets/lanes/gpu_launch_lane.h"
#include "widgets/lanes/gpu_stream_lane.h"
#include "widgets/lanes/state_strip_lane.h"

namespace asyncscope::widgets {
namespace {

template <class L>
std::unique_ptr<Lane> make_worker_lane(const trace::TraceModel& model, uint32_t worker) {
  return std::make_unique<L>(model, worker);
}

// The kinds of worker lane, the first whose test passes showing a worker
// lane: its launches (a CUDA stream's host side), a GPU stream's execution,
// a CPU worker.
struct WorkerLaneKind {
  bool (*shows)(const trace::WorkerLane& lane);
  std::unique_ptr<Lane> (*make)(const trace::TraceModel& model, uint32_t worker);
};
constexpr WorkerLaneKind kWorkerLaneKinds[] = {
    {[](const trace::WorkerLane& w) { return w.launches(); }, &make_worker_lane<GpuLaunchLane>},
    {[](const trace::WorkerLane& w) { return w.device == trace::DeviceKind::cuda; }, &make_worker_lane<GpuStreamLane>},
    {[](const trace::WorkerLane&) { return true; }, &make_worker_lane<CpuWorkerLane>},
};

uint8_t worker_lane_kind(const trace::WorkerLane& lane) {
  uint8_t k = 0;
  while (!kWorkerLaneKinds[k].shows(lane)) ++k;  // the last row shows every lane
  return k;
}

}  // namespace

// How each role's lane is made, by Kind (wanted() says which lanes a model
// has; a worker's row of kWorkerLaneKinds is its variant).
const DefaultLanes::Maker DefaultLanes::kMakers[] = {
    // frontend
    [](const trace::TraceModel& model, const trace::RunInsight*, const Source& s) -> std::unique_ptr<Lane> {
      return std::make_unique<FrontendLane>(model, s.index);
    },
    // worker
    [](const trace::TraceModel& model, const trace::RunInsight*, const Source& s) {
      return kWorkerLaneKinds[s.variant].make(model, s.index);
    },
    // counter
    [](const trace::TraceModel& model, const trace::RunInsight* insight, const Source& s) -> std::unique_ptr<Lane> {
      return std::make_unique<CounterLane>(model, trace::kCounters[s.index], insight);
    },
    // frontend_states
    [](const trace::TraceModel& model, const trace::RunInsight* insight, const Source& s) -> std::unique_ptr<Lane> {
      return std::make_unique<StateStripLane>(model, *insight, StateStripLane::Of::frontend, s.index);
    },
    // worker_states
    [](const trace::TraceModel& model, const trace::RunInsight* insight, const Source& s) -> std::unique_ptr<Lane> {
      return std::make_unique<StateStripLane>(model, *insight, StateStripLane::Of::worker, s.index);
    },
};

void DefaultLanes::wanted(const trace::TraceModel& model, std::vector<Source>& out) const {
  out.clear();
  for (uint32_t i = 0; i < model.frontends.size(); ++i) {
    out.push_back({Kind::frontend, i});
    if (insight_ != nullptr) out.push_back({Kind::frontend_states, i});
  }
  const auto add_counters = [&](trace::CounterLane where) {
    for (uint32_t i = 0; i < std::size(trace::kCounters); ++i) {
      if (trace::kCounters[i].lane == where && model.counter_index(trace::kCounters[i].name) >= 0) {
        out.push_back({Kind::counter, i});
      }
    }
  };
  add_counters(trace::CounterLane::above_workers);
  for (uint32_t i = 0; i < model.workers.size(); ++i) {
    out.push_back({Kind::worker, i, worker_lane_kind(model.workers[i])});
    if (insight_ != nullptr) out.push_back({Kind::worker_states, i});
  }
  add_counters(trace::CounterLane::below_workers);
}

void DefaultLanes::update(const trace::TraceModel& model, const trace::RunInsight* insight) {
  const bool same = model_ == &model && insight_ == insight;
  insight_ = insight;
  wanted(model, scratch_);
  if (same && scratch_ == sources_) return;
  model_ = &model;
  sources_.swap(scratch_);
  lanes_.clear();
  for (const Source& s : sources_) lanes_.push_back(kMakers[static_cast<size_t>(s.kind)](model, insight, s));
}

Lane* DefaultLanes::find(Kind kind, uint32_t index) const noexcept {
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i].kind == kind && sources_[i].index == index) return lanes_[i].get();
  }
  return nullptr;
}

Lane* DefaultLanes::frontend_lane(uint32_t frontend) const noexcept { return find(Kind::frontend, frontend); }

Lane* DefaultLanes::worker_lane(uint32_t worker) const noexcept { return find(Kind::worker, worker); }

Lane* DefaultLanes::counter_lane(std::string_view name) const noexcept {
  for (uint32_t i = 0; i < std::size(trace::kCounters); ++i) {
    if (name == trace::kCounters[i].name) return find(Kind::counter, i);
  }
  return nullptr;
}

}  // namespace asyncscope::widgets
