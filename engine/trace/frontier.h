// The frontier of a growing trace: the time before which nothing recorded
// later can change what the trace says (no op enqueued before it is still
// unstarted, no frontend has a later event unread). Lane classification
// (lane_classifier.h) classifies up to it, and memory attribution
// (memory_attribution.h) reads the ops it has settled. While a run goes on,
// the frontier trails the present by the ops in flight; advance(model,
// true) on a finished run moves it to the run's end.
//
// It also gives the model's worker lanes stable indices: the model's lane
// order may change as lanes appear (a new lane may come between two
// others), these indices do not.
//
// Threading: owned by the thread that owns the model it reads. advance()
// costs time in proportion to what the model gained since the last call,
// never a pass over the whole trace: the model must only grow between
// calls, as TraceReader grows it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::trace {

// A worker lane's identity (device, device index, worker, span kind), and
// that of its group (the same without the worker).
uint64_t worker_lane_key(const WorkerLane& lane) noexcept;
uint64_t worker_group_key(DeviceKind device, uint8_t device_index, SpanKind span) noexcept;

class Frontier {
 public:
  // Reads what the model gained; `complete`: the run has ended (or the model
  // was imported whole), so everything up to its end time is final. Returns
  // the new frontier, never less than the last.
  int64_t advance(const TraceModel& model, bool complete);

  int64_t time() const noexcept { return time_; }
  // Ops before this index are executed (with a GPU op's launch) or unknown
  // (ids the trace never had).
  uint64_t settled() const noexcept { return settled_; }
  // Items read so far (ops, spans, enqueues): for tests that only what is
  // new is read.
  uint64_t visits() const noexcept { return visits_; }

  // Stable lane indices: map_lanes() reads lanes that appeared (advance()
  // calls it); stable_lane(w) is model.workers[w]'s, lane_count() how many.
  void map_lanes(const TraceModel& model);
  uint32_t stable_lane(size_t model_worker) const noexcept { return lane_of_worker_[model_worker]; }
  size_t lane_count() const noexcept { return lane_keys_.size(); }
  size_t mapped_workers() const noexcept { return lane_of_worker_.size(); }
  uint64_t lane_key(uint32_t stable) const noexcept { return lane_keys_[stable]; }

 private:
  // An op known and not settled, with the time from which nothing is final
  // while it waits.
  struct Unsettled {
    int64_t since = 0;
    uint32_t op = 0;
    static bool later(const Unsettled& a, const Unsettled& b) noexcept { return a.since > b.since; }  // a min-heap's order
  };
  struct Waiting {
    std::vector<Unsettled> entries;
    size_t first = 0;  // entries before it are dropped
    size_t kept = 0;   // entries after the last sweep of stale ones
  };
  // The earliest time a waiting list holds, dropping the stale entries before it (none: -1).
  int64_t earliest(const TraceModel& model, Waiting& list, bool heap);

  int64_t time_ = 0;
  uint64_t settled_ = 0;
  uint64_t visits_ = 0;
  std::vector<uint64_t> lane_keys_;       // by stable index
  std::vector<size_t> spans_noted_;       // by stable index: spans of the lane read
  std::vector<uint32_t> lane_of_worker_;  // model.workers index -> stable index
  // Ops read with their enqueue wait in their frontend's queue, in enqueue
  // order, so the first one still waiting is that frontend's earliest; an
  // op read from a span before its enqueue (its launch, from a thread read
  // first) waits in a min-heap from that span's start. An entry goes stale
  // when its op settles (or, in the heap, when its enqueue is read: the
  // queue then holds it); stale entries are dropped when they come first,
  // or all at once when they outnumber the rest. Every change of an op's
  // times comes with a new enqueue on its frontend or a new span on a lane,
  // so reading those keeps both whole.
  std::vector<Waiting> waiting_;         // per frontend, then the heap's (last)
  std::vector<size_t> enqueues_noted_;   // per frontend: enqueues read
  std::vector<bool> has_enqueue_;        // per op: its enqueue is among those
};

}  // namespace asyncscope::trace
