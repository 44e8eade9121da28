// The lanes a trace model shows by default, from the top: one per frontend
// thread, the counters drawn above the workers (queue depth), one per worker
// lane (a CPU worker, or per CUDA stream its launch lane directly above its
// GPU lane), the counters drawn below (RSS, live bytes, GPU memory). Which
// counters are lanes, and where, is the trace layer's counter table; a
// counter is shown only when the model records it. Given a RunInsight of the
// model, each frontend and worker lane has a state strip under it, and the
// live-bytes lanes name what holds the memory at the mouse. A worker lane's
// kind comes from a table of (which worker lanes it shows, how to make it):
// a new kind of execution lane is a row there; each role's lane (frontend,
// worker, counter, state strip) is made by its row of a table of makers.
// Threading: UI thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "widgets/lane.h"

namespace asyncscope::widgets {

class DefaultLanes {
 public:
  // Makes the set match the model: rebuilt when the model gained lanes or
  // counters (a live run) or is another object, else kept, so each lane
  // reuses its prepared buffers from frame to frame. The model must outlive
  // the lanes (or the next update with another model).
  void update(const trace::TraceModel& model, const trace::RunInsight* insight = nullptr);

  size_t size() const noexcept { return lanes_.size(); }
  Lane& operator[](size_t i) const noexcept { return *lanes_[i]; }
  // The lane of model.frontends[i] / model.workers[i] / the counter named
  // `name`, or null. A worker's lane is a GpuLaunchLane when its spans are
  // launches, a GpuStreamLane on a CUDA device, else a CpuWorkerLane.
  Lane* frontend_lane(uint32_t frontend) const noexcept;
  Lane* worker_lane(uint32_t worker) const noexcept;
  Lane* counter_lane(std::string_view name) const noexcept;

 private:
  enum class Kind : uint8_t { frontend, worker, counter, frontend_states, worker_states };
  struct Source {
    Kind kind;
    uint32_t index;       // into model.frontends / model.workers / trace::kCounters
    uint8_t variant = 0;  // a worker's: the row of the worker lane table that shows it (default_lanes.cpp)
    friend bool operator==(const Source&, const Source&) = default;
  };
  using Maker = std::unique_ptr<Lane> (*)(const trace::TraceModel& model, const trace::RunInsight* insight,
                                          const Source& source);
  static const Maker kMakers[5];  // by Kind
  void wanted(const trace::TraceModel& model, std::vector<Source>& out) const;
  Lane* find(Kind kind, uint32_t index) const noexcept;

  const trace::TraceModel* model_ = nullptr;
  const trace::RunInsight* insight_ = nullptr;
  std::vector<Source> sources_;  // of lanes_, in order
  std::vector<Source> scratch_;  // what the model wants now (kept to reuse its storage)
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace asyncscope::widgets
