// Answers from a trace to the questions people bring to a timeline, in
// three parts that share the trace's frontier (frontier.h):
//   - who is the bottleneck: what every lane was doing at every moment,
//     summed over any time range, and a verdict for the run
//     (lane_classifier.h);
//   - what holds the memory: every buffer attributed to the op (and script
//     line) that allocated it, the holders at any instant and at the peak
//     (memory_attribution.h);
//   - what changed between two runs: a summary of each and their factors
//     (run_compare.h, from a model and its insight).
// RunInsight keeps the first two up to date together.
//
// Threading: a RunInsight is owned by the thread that owns the model it
// reads (the GUI's model thread, a CLI run after it ended); it is not
// shared. update() costs time in proportion to what the model gained since
// the last call (plus a look at each lane), never a pass over the whole
// trace: the model must only grow between calls, as TraceReader grows it.
#pragma once

#include <cstdint>

#include "engine/trace/frontier.h"
#include "engine/trace/lane_classifier.h"
#include "engine/trace/memory_attribution.h"
#include "engine/trace/model.h"

namespace asyncscope::trace {

class RunInsight {
 public:
  // Reads what the model gained since the last call. `complete`: the run has
  // ended (or the model was imported whole), so everything up to its end
  // time is final. Returns true if anything new was classified.
  bool update(const TraceModel& model, bool complete);

  // Classified up to here (ns since run start).
  int64_t frontier() const noexcept { return frontier_.time(); }
  // Ops, spans and enqueues update() has looked at so far: for tests that
  // it reads only what is new (an update that finds nothing new adds 0).
  uint64_t visits() const noexcept { return frontier_.visits() + lanes_.visits() + memory_.visits(); }
  // The states of model.workers[lane] / model.frontends[lane], as of the last
  // update (an empty LaneStates for a lane not seen yet).
  const LaneStates& worker(size_t lane) const noexcept;
  const LaneStates& frontend(size_t lane) const noexcept { return lanes_.frontend(lane); }

  Breakdown breakdown(int64_t from, int64_t to) const noexcept { return lanes_.breakdown(from, to); }
  Verdict verdict() const noexcept { return lanes_.verdict(); }

  // The holders of live buffers at `t` and at the peak (memory_attribution.h).
  HolderTable holders_at(const TraceModel& model, int64_t t, DeviceKind device = DeviceKind::cpu,
                         uint8_t device_index = 0, size_t top = 8) const {
    return memory_.holders_at(model, t, device, device_index, top);
  }
  HolderTable peak_holders(const TraceModel& model, DeviceKind device = DeviceKind::cpu, uint8_t device_index = 0,
                           size_t top = 8) const {
    return memory_.peak_holders(model, device, device_index, top);
  }

  const LaneClassifier& lanes() const noexcept { return lanes_; }
  const MemoryAttribution& memory() const noexcept { return memory_; }

 private:
  Frontier frontier_;
  LaneClassifier lanes_;
  MemoryAttribution memory_;
};

}  // namespace asyncscope::trace
