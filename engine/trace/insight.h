// Answers from a trace to the questions people bring to a timeline:
//   - who is the bottleneck: what every lane was doing at every moment (a
//     worker busy, held or starved; a frontend running or waiting, per sync
//     kind), summed over any time range, and a verdict for the run
//     (frontend-bound or backend-bound, with the measured t1 and t2);
//   - what holds the memory: every buffer attributed to the op (and script
//     line) that allocated it, the holders at any instant and at the peak;
//   - what changed between two runs: a summary of each and their factors
//     (run_compare.h, from a model and its insight).
//
// The states, from the trace alone:
//   busy     a worker lane runs an op (its span on that lane);
//   held     it is idle while ops of its kind (device, and launch or
//            execution) have been pushed and have not started: they wait on
//            their inputs or on another worker;
//   starved  it is idle and nothing of its kind is pending: the frontend has
//            not pushed the next op yet;
//   enqueuing  a frontend lane is inside a push: from the op's enqueue
//            timestamp to push's return (linking it into its vars, handing
//            it to a worker; EnqueueEvent::push_ns);
//   running  a frontend lane neither enqueues nor waits: its own work between
//            pushes (Python, NumPy, the demo's host code);
//   waiting  a frontend lane is blocked in a sync point, one state per
//            SyncKind (wait_to_read, wait_all, to_host, item, print, the
//            in-flight bound).
// A worker lane is classified from the run start, a frontend lane from the
// run start (the first) or from its first event (the others), up to the
// frontier: the time before which nothing recorded later can change the
// answer (no op enqueued before it is still unstarted, no frontend has a
// later event unread). While a run goes on the frontier trails the present
// by the ops in flight; update(model, true) on the finished run classifies
// everything up to its end.
//
// Threading: a RunInsight is owned by the thread that owns the model it
// reads (the GUI's model thread, a CLI run after it ended); it is not
// shared. update() costs time in proportion to what the model gained since
// the last call (plus a look at each lane), never a pass over the whole
// trace: the model must only grow between calls, as TraceReader grows it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::trace {

enum class LaneState : uint8_t {
  busy,
  held,
  starved,
  running,
  enqueuing,
  wait_to_read,  // the waiting states follow SyncKind's order
  wait_all,
  to_host,
  item,
  print,
  inflight_bound,
};
inline constexpr int kLaneStateCount = 11;

// "busy", "held", "starved", "running", "enqueuing", "waiting (wait_to_read)", ...
const char* to_string(LaneState state) noexcept;
constexpr LaneState waiting_state(SyncKind kind) noexcept {
  return static_cast<LaneState>(static_cast<int>(LaneState::wait_to_read) + static_cast<int>(kind));
}
constexpr bool is_waiting(LaneState state) noexcept { return state >= LaneState::wait_to_read; }

// Time (ns) per state.
struct StateTimes {
  std::array<int64_t, kLaneStateCount> ns{};

  int64_t operator[](LaneState s) const noexcept { return ns[static_cast<size_t>(s)]; }
  int64_t& operator[](LaneState s) noexcept { return ns[static_cast<size_t>(s)]; }
  int64_t total() const noexcept;
  int64_t waiting() const noexcept;  // all waiting states
  StateTimes& operator+=(const StateTimes& other) noexcept;
};

// One lane's states as a step function over [begin(), until()): the state
// of each segment holds from its begin to the next segment's. Appending is
// amortised O(1); time_in() is O(log n).
class LaneStates {
 public:
  bool empty() const noexcept { return begins_.empty(); }
  int64_t begin() const noexcept { return begins_.empty() ? 0 : begins_.front(); }
  int64_t until() const noexcept { return until_; }
  size_t size() const noexcept { return begins_.size(); }
  int64_t segment_begin(size_t i) const noexcept { return begins_[i]; }
  int64_t segment_end(size_t i) const noexcept { return i + 1 < begins_.size() ? begins_[i + 1] : until_; }
  LaneState segment_state(size_t i) const noexcept { return static_cast<LaneState>(states_[i]); }

  // From `t` on, the lane is in `state` (t >= until(); the gap, if any,
  // extends the last segment). Classified up to `t` at least.
  void append(int64_t t, LaneState state);
  // Everything before `t` is classified (extends the last segment).
  void extend(int64_t t) noexcept;
  // The state at `t`, or nullopt outside [begin(), until()).
  std::optional<LaneState> state_at(int64_t t) const noexcept;
  // Time per state within [a, b), clipped to what is classified.
  StateTimes time_in(int64_t a, int64_t b) const noexcept;
  // Index of the segment holding `t` (t clamped into the classified range); requires !empty().
  size_t segment_at(int64_t t) const noexcept;
  // Time per state in [begin(), t). `hint`: a segment index at or before t's,
  // updated to t's, so a caller walking forward in time (a strip's pixel
  // columns) searches only what lies between its steps.
  StateTimes cumulative(int64_t t, size_t& hint) const noexcept;
  StateTimes cumulative(int64_t t) const noexcept {
    size_t hint = 0;
    return cumulative(t, hint);
  }

 private:
  static constexpr size_t kStride = 8;  // segments per checkpoint of the running sums

  std::vector<int64_t> begins_;
  std::vector<uint8_t> states_;
  std::vector<StateTimes> sums_;  // sums_[k]: time per state before segment k * kStride
  int64_t until_ = 0;
};

// Lane time per state within a range, summed over lanes of each side.
struct Breakdown {
  int64_t from = 0, to = 0;
  StateTimes workers;    // over the execution and launch lanes
  StateTimes frontends;  // over the frontend lanes
  int64_t worker_lane_ns = 0;    // the classified lane time those sum to
  int64_t frontend_lane_ns = 0;
};

enum class Bound : uint8_t { unknown, frontend, backend };
const char* to_string(Bound bound) noexcept;  // "unknown", "frontend", "backend"

// The run's verdict, over its active part: from its first push of an op to
// the end of its last op or wait (frees and other bookkeeping do not count:
// arrays dropped when a program ends after its own analysis; what comes
// before, such as a script's imports, and after is not the workload; the
// lanes' states cover it all the same).
//   t1: the frontend's time per op: its time running or enqueuing (not
//       waiting) over the ops it pushed (frees and other engine bookkeeping
//       not counted);
//   t2: the backend's time per op: the time any execution lane was busy over
//       the same ops (work that overlaps on several workers counts once).
// bound is frontend when t1 > t2 (the workers finish each op before the next
// arrives, so they starve), else backend. The fractions are of lane time:
// the workers' three add up to 1, as do the frontends' running and waiting.
struct Verdict {
  Bound bound = Bound::unknown;
  double t1_ns = 0, t2_ns = 0;
  uint64_t ops = 0;
  int64_t from = 0, to = 0;  // the active part
  int64_t duration_ns = 0;   // to - from
  double worker_busy_frac = 0, worker_held_frac = 0, worker_starved_frac = 0;
  double frontend_wait_frac = 0;
  double frontend_enqueue_frac = 0;  // of the frontends' lane time, inside push
  // "backend-bound: the frontend needs t1 = 1.2 us per op, the backend t2 = 35 us"
  std::string text() const;
};

// Live buffers grouped by the op that allocated them and its script line.
// A buffer is allocated inside the first op that writes it and returned to
// the pool inside the internal "free" op pushed when its last array handle
// went; the trace has the spans of both, not the instants inside them, so a
// buffer counts as live from the end of the one to the start of the other:
// when it certainly was. The live bytes at any instant, and so the peak, are
// therefore never above the allocator's exact count, and differ from it by
// buffers allocated or freed within an op running at that instant.
struct Holder {
  std::string op;    // the op's name
  std::string line;  // "file.py:12", or "" for ops pushed by no script line
  uint64_t bytes = 0;
  uint64_t count = 0;
};
struct HolderTable {
  int64_t t = 0;           // the instant (ns since run start)
  uint64_t live_bytes = 0; // all buffers live at t on that device
  uint64_t buffers = 0;
  std::vector<Holder> rows;  // largest first, at most `top`
};

class RunInsight {
 public:
  // Reads what the model gained since the last call. `complete`: the run has
  // ended (or the model was imported whole), so everything up to its end
  // time is final. Returns true if anything new was classified.
  bool update(const TraceModel& model, bool complete);

  // Classified up to here (ns since run start).
  int64_t frontier() const noexcept { return frontier_; }
  // Ops, spans and enqueues update() has looked at so far: for tests that
  // it reads only what is new (an update that finds nothing new adds 0).
  uint64_t visits() const noexcept { return visits_; }
  // The states of model.workers[lane] / model.frontends[lane], as of the last
  // update (an empty LaneStates for a lane not seen yet).
  const LaneStates& worker(size_t lane) const noexcept;
  const LaneStates& frontend(size_t lane) const noexcept;

  Breakdown breakdown(int64_t from, int64_t to) const noexcept;
  Verdict verdict() const noexcept;

  // The buffers of a device live at `t`, grouped (see Holder).
  HolderTable holders_at(const TraceModel& model, int64_t t, DeviceKind device = DeviceKind::cpu,
                         uint8_t device_index = 0, size_t top = 8) const;
  // The same at the instant the device's live bytes peaked (the first such
  // instant), from the allocations themselves: exact, not sampled.
  HolderTable peak_holders(const TraceModel& model, DeviceKind device = DeviceKind::cpu, uint8_t device_index = 0,
                           size_t top = 8) const;

 private:
  struct Lane;
  struct Group;
  struct MemEvent;
  struct DeviceMemory;
  struct Waiting;
  void map_lanes(const TraceModel& model);
  uint32_t group_of(uint64_t key);
  // The earliest time a waiting list holds, dropping the stale entries before it (none: -1).
  int64_t earliest(const TraceModel& model, Waiting& list, bool heap);
  void classify_workers(const TraceModel& model, int64_t to);
  void classify_frontends(const TraceModel& model, int64_t to);
  void attribute(const TraceModel& model);
  int64_t next_frontier(const TraceModel& model, bool complete);
  HolderTable table(const TraceModel& model, int64_t t, uint16_t device_key, size_t top) const;

  struct Lane {
    uint64_t key = 0;      // device, device index, worker, span
    uint32_t group = 0;    // index into groups_
    size_t next_span = 0;  // the first span of the lane not yet fully classified
    size_t next_help = 0;  // the same for its help spans
    size_t spans_noted = 0;  // spans of the lane next_frontier has read
    LaneStates states;
  };
  struct Group {
    uint64_t key = 0;  // device, device index, span
    int64_t pending = 0;
    LaneStates idle;  // held or starved over time, what a lane that appears later had
  };
  // An allocation or a free of one buffer, by the group that allocated it.
  struct MemEvent {
    int64_t t = 0;
    uint64_t bytes = 0;
    uint32_t holder = 0;  // index into holder_keys_
  };
  using HolderSums = std::vector<std::pair<uint64_t, uint64_t>>;  // per holder: bytes, buffers
  // One device's allocations and frees, each list sorted by time (events
  // arrive nearly in order: an insertion from the end), with running sums
  // per holder every kStep events, so the live buffers at any instant are
  // the allocations up to it minus the frees up to it: O(log n + kStep).
  struct DeviceMemory {
    uint16_t device = 0;
    std::vector<MemEvent> allocs, frees;
    mutable std::vector<HolderSums> alloc_sums, free_sums;  // [k]: events [0, k * kStep)
    mutable size_t alloc_valid = 0, free_valid = 0;        // leading checkpoints still right
  };
  static constexpr size_t kStep = 256;
  struct LiveVar {
    uint32_t memory = 0;  // index into memory_
    uint32_t holder = 0;
    uint64_t bytes = 0;
    int64_t alloc = 0;
  };
  DeviceMemory& memory_of(uint16_t device);
  const DeviceMemory* find_memory(uint16_t device) const;
  HolderSums live_at(const DeviceMemory& m, int64_t t) const;

  std::vector<Lane> lanes_;                // in the order first seen
  std::vector<uint32_t> lane_of_worker_;   // model.workers index -> lanes_ index
  std::vector<Group> groups_;
  std::vector<LaneStates> frontends_;      // by model.frontends index
  std::vector<size_t> enqueue_pos_;        // per frontend: enqueues with t < frontier_
  std::vector<size_t> sync_pos_;           // per frontend: syncs classified
  std::vector<size_t> push_pos_;           // per frontend: pushes classified
  int64_t frontier_ = 0;
  uint64_t settled_ = 0;  // ops before this index are executed or unknown
  // Ops known and not settled, each with the time from which nothing is
  // final while it waits. Ops read with their enqueue wait in their
  // frontend's queue, in enqueue order, so the first one still waiting is
  // that frontend's earliest; an op read from a span before its enqueue
  // (its launch, from a thread read first) waits in a min-heap from that
  // span's start. An entry goes stale when its op settles (or, in the heap,
  // when its enqueue is read: the queue then holds it); stale entries are
  // dropped when they come first, or all at once when they outnumber the
  // rest. Every change of an op's times comes with a new enqueue on its
  // frontend or a new span on a lane, so reading those keeps both whole.
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
  std::vector<Waiting> waiting_;  // per frontend, then the heap's (last)
  std::vector<size_t> enqueues_noted_;  // per frontend: enqueues next_frontier has read
  std::vector<bool> has_enqueue_;       // per op: its enqueue is among those
  uint64_t visits_ = 0;
  int64_t busy_union_ns_ = 0;
  int64_t active_begin_ = INT64_MAX, active_end_ = INT64_MIN;  // first enqueue, last span or wait end
  uint64_t user_ops_pushed_ = 0;  // non-internal enqueues before the frontier

  // Memory attribution.
  uint64_t attributed_ = 0;  // ops before this index have been read for allocations
  std::vector<DeviceMemory> memory_;
  std::unordered_map<uint64_t, LiveVar> live_var_;  // var id -> its buffer, until freed
  struct HolderKey {
    NameId name;
    uint32_t source_line;  // 1 + index into source_lines, 0: none
  };
  std::vector<HolderKey> holder_keys_;
  std::unordered_map<uint64_t, uint32_t> holder_index_;
  uint64_t attribution_version_ = 0;  // changes whenever an allocation or a free is read
  mutable std::unordered_map<uint16_t, std::pair<uint64_t, int64_t>> peak_cache_;  // device -> version, peak time
  NameId free_name_ = 0;
  bool free_name_known_ = false;
  size_t names_searched_ = 0;  // model.names searched for "free" so far
  static const LaneStates kEmpty;
};

}  // namespace asyncscope::trace
