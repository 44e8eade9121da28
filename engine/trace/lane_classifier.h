// Lane classification: what every lane of a trace was doing at every
// moment, summed over any time range, and the run's verdict.
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
// frontier (frontier.h).
//
// Threading: owned by the thread that owns the model it reads; update()
// costs time in proportion to what the model gained since the last call.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace/frontier.h"
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

class LaneClassifier {
 public:
  // Classifies [from, to) (from: the frontier before the frontier's last
  // advance, to: after it) on the lanes the frontier knows. Worker lanes
  // that appeared get their group's idle states up to `from` even when
  // to <= from.
  void update(const TraceModel& model, const Frontier& frontier, int64_t from, int64_t to);

  // By the frontier's stable lane index.
  const LaneStates& worker(uint32_t stable_lane) const noexcept;
  // By model.frontends index.
  const LaneStates& frontend(size_t lane) const noexcept;
  Breakdown breakdown(int64_t from, int64_t to) const noexcept;
  Verdict verdict() const noexcept;
  // Ops, spans and enqueues read so far.
  uint64_t visits() const noexcept { return visits_; }

 private:
  struct Lane {
    uint32_t group = 0;      // index into groups_
    size_t next_span = 0;    // the first span of the lane not yet fully classified
    size_t next_help = 0;    // the same for its help spans
    LaneStates states;
  };
  struct Group {
    uint64_t key = 0;  // worker_group_key
    int64_t pending = 0;
    LaneStates idle;  // held or starved over time, what a lane that appears later had
  };
  uint32_t group_of(uint64_t key, int64_t until);
  void add_lanes(const TraceModel& model, const Frontier& frontier, int64_t until);
  void classify_workers(const TraceModel& model, const Frontier& frontier, int64_t from, int64_t to);
  void classify_frontends(const TraceModel& model, int64_t from, int64_t to);

  std::vector<Lane> lanes_;            // by stable lane index
  std::vector<Group> groups_;
  std::vector<LaneStates> frontends_;  // by model.frontends index
  std::vector<size_t> enqueue_pos_;    // per frontend: enqueues with t < the frontier
  std::vector<size_t> sync_pos_;       // per frontend: syncs classified
  std::vector<size_t> push_pos_;       // per frontend: pushes classified
  uint64_t visits_ = 0;
  int64_t busy_union_ns_ = 0;
  int64_t active_begin_ = INT64_MAX, active_end_ = INT64_MIN;  // first enqueue, last span or wait end
  uint64_t user_ops_pushed_ = 0;  // non-internal enqueues before the frontier
  static const LaneStates kEmpty;
};

}  // namespace asyncscope::trace
