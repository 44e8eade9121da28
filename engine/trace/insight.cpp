#include "engine/trace/insight.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "engine/base/format.h"
#include "engine/trace/counters.h"

namespace asyncscope::trace {
namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

uint64_t lane_key(DeviceKind device, uint8_t index, uint16_t worker, SpanKind span) {
  return (uint64_t{static_cast<uint8_t>(device)} << 40) | (uint64_t{index} << 32) | (uint64_t{worker} << 8) |
         static_cast<uint8_t>(span);
}
uint64_t group_key(DeviceKind device, uint8_t index, SpanKind span) { return lane_key(device, index, 0, span); }
uint16_t device_key(DeviceKind device, uint8_t index) {
  return static_cast<uint16_t>((static_cast<unsigned>(device) << 8) | index);
}

// An op's lane-side work is all recorded: its execution, and a GPU op's launch.
bool settled(const OpInfo& op) {
  return op.executed() && (op.device == DeviceKind::cpu || op.launched());
}

// Appends e to a list sorted by time, moving it back past later events
// (events come nearly in order); checkpoints from its place on are stale.
template <class Event>
void insert_sorted(std::vector<Event>& events, const Event& e, size_t& valid_checkpoints, size_t step) {
  size_t p = events.size();
  while (p > 0 && events[p - 1].t > e.t) --p;
  events.insert(events.begin() + static_cast<std::ptrdiff_t>(p), e);
  valid_checkpoints = std::min(valid_checkpoints, p / step + 1);
}

}  // namespace

const LaneStates RunInsight::kEmpty;

const char* to_string(LaneState state) noexcept {
  switch (state) {
    case LaneState::busy: return "busy";
    case LaneState::held: return "held";
    case LaneState::starved: return "starved";
    case LaneState::running: return "running";
    case LaneState::enqueuing: return "enqueuing";
    case LaneState::wait_to_read: return "waiting (wait_to_read)";
    case LaneState::wait_all: return "waiting (wait_all)";
    case LaneState::to_host: return "waiting (to_host)";
    case LaneState::item: return "waiting (item)";
    case LaneState::print: return "waiting (print)";
    case LaneState::inflight_bound: return "waiting (in-flight bound)";
  }
  return "?";
}

const char* to_string(Bound bound) noexcept {
  switch (bound) {
    case Bound::frontend: return "frontend";
    case Bound::backend: return "backend";
    case Bound::unknown: break;
  }
  return "unknown";
}

int64_t StateTimes::total() const noexcept {
  int64_t t = 0;
  for (int64_t v : ns) t += v;
  return t;
}

int64_t StateTimes::waiting() const noexcept {
  int64_t t = 0;
  for (int s = static_cast<int>(LaneState::wait_to_read); s < kLaneStateCount; ++s) t += ns[static_cast<size_t>(s)];
  return t;
}

StateTimes& StateTimes::operator+=(const StateTimes& other) noexcept {
  for (size_t i = 0; i < ns.size(); ++i) ns[i] += other.ns[i];
  return *this;
}

// ---------------------------------------------------------------------------
// LaneStates

void LaneStates::append(int64_t t, LaneState state) {
  const auto s = static_cast<uint8_t>(state);
  if (begins_.empty()) {
    begins_.push_back(t);
    states_.push_back(s);
    sums_.emplace_back();
    until_ = t;
    return;
  }
  t = std::max(t, until_);
  if (states_.back() == s) {
    until_ = t;
    return;
  }
  if (t == begins_.back()) {
    // The last segment has no length yet: it takes the new state, merging
    // with the one before it if that has the same.
    const size_t last = begins_.size() - 1;
    if (last > 0 && states_[last - 1] == s) {
      begins_.pop_back();
      states_.pop_back();
      if (last % kStride == 0) sums_.pop_back();
    } else {
      states_.back() = s;
    }
    until_ = t;
    return;
  }
  const size_t index = begins_.size();
  begins_.push_back(t);
  states_.push_back(s);
  if (index % kStride == 0) {
    StateTimes sums = sums_.back();
    for (size_t j = index - kStride; j < index; ++j) sums.ns[states_[j]] += begins_[j + 1] - begins_[j];
    sums_.push_back(sums);
  }
  until_ = t;
}

void LaneStates::extend(int64_t t) noexcept { until_ = std::max(until_, t); }

size_t LaneStates::segment_at(int64_t t) const noexcept {
  const auto it = std::upper_bound(begins_.begin(), begins_.end(), t);
  return it == begins_.begin() ? 0 : static_cast<size_t>(it - begins_.begin()) - 1;
}

std::optional<LaneState> LaneStates::state_at(int64_t t) const noexcept {
  if (begins_.empty() || t < begins_.front() || t >= until_) return std::nullopt;
  return segment_state(segment_at(t));
}

StateTimes LaneStates::cumulative(int64_t t, size_t& hint) const noexcept {
  StateTimes sums;
  if (begins_.empty()) return sums;
  t = std::clamp(t, begins_.front(), until_);
  // Gallop from the hint, then search what the gallop bracketed.
  const size_t n = begins_.size();
  size_t lo = std::min(hint, n - 1);
  if (begins_[lo] > t) lo = 0;
  size_t step = 1;
  while (lo + step < n && begins_[lo + step] <= t) {
    lo += step;
    step *= 2;
  }
  const size_t hi = std::min(n, lo + step);
  const auto it = std::upper_bound(begins_.begin() + static_cast<std::ptrdiff_t>(lo),
                                   begins_.begin() + static_cast<std::ptrdiff_t>(hi), t);
  const size_t index = static_cast<size_t>(it - begins_.begin()) - 1;
  hint = index;
  const size_t k = index / kStride;
  sums = sums_[k];
  for (size_t j = k * kStride; j < index; ++j) sums.ns[states_[j]] += begins_[j + 1] - begins_[j];
  sums.ns[states_[index]] += t - begins_[index];
  return sums;
}

StateTimes LaneStates::time_in(int64_t a, int64_t b) const noexcept {
  StateTimes out;
  if (b <= a || begins_.empty()) return out;
  const StateTimes hi = cumulative(b), lo = cumulative(a);
  for (size_t i = 0; i < out.ns.size(); ++i) out.ns[i] = hi.ns[i] - lo.ns[i];
  return out;
}

// ---------------------------------------------------------------------------
// RunInsight: the frontier

namespace {

// The time from which nothing is final while an op is not settled: after
// its enqueue (or, before that is read, its first span's start) more may be
// recorded.
int64_t unsettled_since(const OpInfo& op) {
  if (op.enqueue != kNoTime) return op.enqueue;
  return op.launch_start != kNoTime ? op.launch_start : op.start;
}

}  // namespace

int64_t RunInsight::earliest(const TraceModel& model, Waiting& list, bool heap) {
  // An op holds the frontier until it settles (ops below settled_ included:
  // another frontend's, read after settled_ passed their ids).
  const auto current = [&](const Unsettled& u) {
    const OpInfo& op = model.ops[u.op];
    return !settled(op) && unsettled_since(op) == u.since;
  };
  std::vector<Unsettled>& e = list.entries;
  if (e.size() - list.first > 2 * list.kept + 1024) {
    visits_ += e.size() - list.first;
    e.erase(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(list.first));
    list.first = 0;
    std::erase_if(e, [&](const Unsettled& u) { return !current(u); });
    if (heap) std::make_heap(e.begin(), e.end(), Unsettled::later);
    list.kept = e.size();
  }
  if (heap) {
    while (!e.empty() && !current(e.front())) {
      ++visits_;
      std::pop_heap(e.begin(), e.end(), Unsettled::later);
      e.pop_back();
    }
    return e.empty() ? -1 : e.front().since;
  }
  for (; list.first < e.size() && !current(e[list.first]); ++list.first) ++visits_;
  if (list.first == e.size()) {
    e.clear();
    list.first = 0;
    return -1;
  }
  if (list.first > 1024 && 2 * list.first > e.size()) {  // what was dropped goes, once it is most of it
    visits_ += e.size() - list.first;
    e.erase(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(list.first));
    list.first = 0;
  }
  return e[list.first].since;
}

int64_t RunInsight::next_frontier(const TraceModel& model, bool complete) {
  const int64_t end = model.end_time();
  if (complete) return std::max(frontier_, end);
  int64_t f = end;
  const size_t n = model.ops.size();
  const uint64_t first = settled_;
  while (settled_ < n) {
    if (model.ops[settled_].known()) {
      if (!settled(model.ops[settled_])) break;
      ++settled_;
      continue;
    }
    // Ids with nothing read: at the end, ops whose events are still to be
    // read; before a known op, ids the trace never had (events dropped) or,
    // rarely, another frontend's op not read yet (its frontend bounds the
    // frontier below).
    size_t j = settled_ + 1;
    while (j < n && !model.ops[j].known()) ++j;
    if (j == n) {
      visits_ += j - settled_ - 1;  // looked at again next time: ids at the end are rarely unknown
      break;
    }
    settled_ = j;
  }
  visits_ += settled_ - first;
  // What changed since the last call: ops newly enqueued, spans newly read.
  // Ops before settled_ are passed for good (see above). A span of an op
  // whose enqueue was read changes no op's time, only whether it settled,
  // which is checked where it waits.
  has_enqueue_.resize(n, false);
  enqueues_noted_.resize(model.frontends.size(), 0);
  if (waiting_.empty()) waiting_.resize(1);  // the heap's
  while (waiting_.size() < model.frontends.size() + 1) waiting_.insert(waiting_.end() - 1, Waiting{});
  for (size_t fi = 0; fi < model.frontends.size(); ++fi) {
    const std::vector<uint32_t>& enqueues = model.frontends[fi].enqueues;
    for (size_t& pos = enqueues_noted_[fi]; pos < enqueues.size(); ++pos) {
      ++visits_;
      const uint32_t i = enqueues[pos];
      has_enqueue_[i] = true;
      // Below settled_ only ids that were unknown when it passed them can be
      // unsettled: another frontend's ops read late. They hold the frontier too.
      if (!settled(model.ops[i])) waiting_[fi].entries.push_back(Unsettled{model.ops[i].enqueue, i});
    }
  }
  std::vector<Unsettled>& heap = waiting_.back().entries;
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const std::vector<uint32_t>& spans = model.workers[w].ops;
    for (size_t& pos = lanes_[lane_of_worker_[w]].spans_noted; pos < spans.size(); ++pos) {
      ++visits_;
      const uint32_t i = spans[pos];
      const OpInfo& op = model.ops[i];
      if (i < settled_ || has_enqueue_[i] || settled(op)) continue;
      heap.push_back(Unsettled{unsettled_since(op), i});
      std::push_heap(heap.begin(), heap.end(), Unsettled::later);
    }
  }
  // Known, with a span still to come: nothing after its time is final.
  for (size_t k = 0; k < waiting_.size(); ++k) {
    const int64_t since = earliest(model, waiting_[k], k + 1 == waiting_.size());
    if (since >= 0) f = std::min(f, since);
  }
  // A frontend's next event comes after its latest one.
  for (const FrontendLane& lane : model.frontends) {
    int64_t last = -1;
    if (!lane.enqueues.empty()) last = std::max(last, model.ops[lane.enqueues.back()].enqueue);
    if (!lane.syncs.empty()) last = std::max(last, model.syncs[lane.syncs.back()].end);
    if (last >= 0) f = std::min(f, last);
  }
  return std::max(frontier_, f);
}

bool RunInsight::update(const TraceModel& model, bool complete) {
  map_lanes(model);  // lanes that appeared, even when the frontier stays
  const int64_t to = next_frontier(model, complete);  // advances settled_, which attribute() reads
  attribute(model);
  classify_workers(model, to);
  if (to <= frontier_) return false;
  classify_frontends(model, to);
  frontier_ = to;
  return true;
}

// ---------------------------------------------------------------------------
// Workers

uint32_t RunInsight::group_of(uint64_t key) {
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].key == key) return static_cast<uint32_t>(g);
  }
  Group group;
  group.key = key;
  // Nothing of its kind was pushed before: its lanes were starved.
  group.idle.append(0, LaneState::starved);
  group.idle.extend(frontier_);
  groups_.push_back(std::move(group));
  return static_cast<uint32_t>(groups_.size() - 1);
}

void RunInsight::map_lanes(const TraceModel& model) {
  // The model's lanes only grow (a new one may come between two others), so
  // the same count is the same lanes.
  if (lane_of_worker_.size() == model.workers.size()) return;
  // Lanes: model order may change as lanes appear; ours keep theirs.
  lane_of_worker_.resize(model.workers.size());
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const WorkerLane& wl = model.workers[w];
    const uint64_t key = lane_key(wl.device, wl.device_index, wl.worker, wl.span);
    size_t l = 0;
    while (l < lanes_.size() && lanes_[l].key != key) ++l;
    if (l == lanes_.size()) {
      Lane lane;
      lane.key = key;
      lane.group = group_of(group_key(wl.device, wl.device_index, wl.span));
      lane.states = groups_[lane.group].idle;  // idle until now: held or starved as its group was
      lanes_.push_back(std::move(lane));
    }
    lane_of_worker_[w] = static_cast<uint32_t>(l);
  }
}

void RunInsight::classify_workers(const TraceModel& model, int64_t to) {
  const int64_t from = frontier_;
  if (to <= from) return;

  // Queue changes in [from, to): +1 at each enqueue, -1 where the op left
  // its group's queue (the start of its span on a lane of that kind).
  std::vector<std::vector<std::pair<int64_t, int>>> changes(groups_.size());
  const auto change = [&](uint64_t key, int64_t t, int delta) {
    const uint32_t g = group_of(key);
    if (g >= changes.size()) changes.resize(groups_.size());
    changes[g].emplace_back(t, delta);
  };
  enqueue_pos_.resize(model.frontends.size(), 0);
  for (size_t f = 0; f < model.frontends.size(); ++f) {
    const std::vector<uint32_t>& enqueues = model.frontends[f].enqueues;
    size_t& pos = enqueue_pos_[f];
    for (; pos < enqueues.size() && model.ops[enqueues[pos]].enqueue < to; ++pos) {
      ++visits_;
      const OpInfo& op = model.ops[enqueues[pos]];
      if (!op.internal) {
        ++user_ops_pushed_;
        active_begin_ = std::min(active_begin_, op.enqueue);
      }
      change(group_key(op.device, op.device_index, SpanKind::execute), op.enqueue, +1);
      if (op.device != DeviceKind::cpu) change(group_key(op.device, op.device_index, SpanKind::launch), op.enqueue, +1);
    }
  }
  // Starts: every span that starts in [from, to) (the lanes' spans are start-sorted).
  struct Window {
    size_t first, last;  // spans [first, last) of the lane overlap [from, to)
  };
  std::vector<Window> windows(lanes_.size());
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const WorkerLane& wl = model.workers[w];
    Lane& lane = lanes_[lane_of_worker_[w]];
    size_t i = lane.next_span;
    size_t last = i;
    for (; last < wl.ops.size(); ++last) {
      ++visits_;
      const OpInfo& op = model.ops[wl.ops[last]];
      const int64_t s = wl.start_of(op);
      if (s >= to) break;
      if (s >= from && op.enqueue != kNoTime) change(groups_[lane.group].key, s, -1);
    }
    windows[lane_of_worker_[w]] = Window{i, last};
  }
  if (changes.size() < groups_.size()) changes.resize(groups_.size());

  // Each group's queue: held while something is pending, else starved.
  for (size_t g = 0; g < groups_.size(); ++g) {
    Group& group = groups_[g];
    std::vector<std::pair<int64_t, int>>& c = changes[g];
    std::sort(c.begin(), c.end());
    for (size_t i = 0; i < c.size();) {
      const int64_t t = c[i].first;
      for (; i < c.size() && c[i].first == t; ++i) group.pending += c[i].second;
      group.idle.append(t, group.pending > 0 ? LaneState::held : LaneState::starved);
    }
    group.idle.extend(to);
  }

  // Each lane: busy in its spans, its group's idle state between them.
  std::vector<std::pair<int64_t, int64_t>> busy;  // execution spans, for the union
  const auto copy_idle = [](LaneStates& out, const LaneStates& idle, int64_t a, int64_t b) {
    if (b <= a) return;
    for (size_t k = idle.segment_at(a); k < idle.size() && idle.segment_begin(k) < b; ++k) {
      out.append(std::max(a, idle.segment_begin(k)), idle.segment_state(k));
    }
    out.extend(b);
  };
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const WorkerLane& wl = model.workers[w];
    Lane& lane = lanes_[lane_of_worker_[w]];
    const LaneStates& idle = groups_[lane.group].idle;
    int64_t cur = from;
    size_t i = windows[lane_of_worker_[w]].first;
    const size_t last = windows[lane_of_worker_[w]].last;
    // Its own ops and its help spans (time on another worker's op) are both
    // busy time, taken in start order. A help span is read at most a moment
    // after the op it helped, so one read after the frontier passed its start
    // counts from the frontier on.
    size_t h = lane.next_help;
    for (;;) {
      const bool help_next = h < wl.helps.size() && wl.helps[h].start < to &&
                             (i == last || wl.helps[h].start < wl.start_of(model.ops[wl.ops[i]]));
      if (!help_next && i == last) break;
      ++visits_;
      int64_t s = 0, e = 0;
      if (help_next) {
        s = std::max(wl.helps[h].start, cur);
        e = wl.helps[h].end;
      } else {
        const OpInfo& op = model.ops[wl.ops[i]];
        s = std::max(wl.start_of(op), cur);
        e = wl.end_of(op);
        if (!op.internal) active_end_ = std::max(active_end_, std::min(e, to));
      }
      copy_idle(lane.states, idle, cur, s);
      if (e > s) {
        lane.states.append(s, LaneState::busy);
        if (!wl.launches()) busy.emplace_back(s, std::min(e, to));
      }
      if (e > to) {  // runs on past the frontier: the next update goes on from here
        cur = to;
        break;
      }
      (help_next ? h : i) += 1;
      cur = std::max(cur, e);
    }
    lane.next_span = i;
    lane.next_help = h;
    copy_idle(lane.states, idle, cur, to);
    lane.states.extend(to);
  }
  std::sort(busy.begin(), busy.end());
  int64_t covered = from;
  for (const auto& [s, e] : busy) {
    const int64_t a = std::max(s, covered);
    if (e > a) {
      busy_union_ns_ += e - a;
      covered = e;
    }
  }
}

// ---------------------------------------------------------------------------
// Frontends

void RunInsight::classify_frontends(const TraceModel& model, int64_t to) {
  const int64_t from = frontier_;
  sync_pos_.resize(model.frontends.size(), 0);
  push_pos_.resize(model.frontends.size(), 0);
  frontends_.resize(model.frontends.size());
  for (size_t f = 0; f < model.frontends.size(); ++f) {
    const FrontendLane& fl = model.frontends[f];
    LaneStates& states = frontends_[f];
    if (states.empty()) {
      // The first frontend is the run's own thread, there from the start;
      // another (a thread a script started) from its first event.
      int64_t begin = 0;
      if (f > 0) {
        begin = kForever;
        if (!fl.enqueues.empty()) begin = std::min(begin, model.ops[fl.enqueues.front()].enqueue);
        if (!fl.syncs.empty()) begin = std::min(begin, model.syncs[fl.syncs.front()].begin);
        if (begin == kForever || begin >= to) continue;
        begin = std::max(begin, from);
      }
      states.append(begin, LaneState::running);
    }
    // Its pushes and waits, merged by time: each is a span of its own state,
    // the lane running between them.
    size_t& pos = sync_pos_[f];
    size_t& push = push_pos_[f];
    while (true) {
      const bool have_sync = pos < fl.syncs.size() && model.syncs[fl.syncs[pos]].begin < to;
      const bool have_push = push < fl.enqueues.size() && model.ops[fl.enqueues[push]].enqueue < to;
      if (!have_sync && !have_push) break;
      ++visits_;
      const bool sync_first =
          have_sync && (!have_push || model.syncs[fl.syncs[pos]].begin <= model.ops[fl.enqueues[push]].enqueue);
      int64_t begin, end;
      LaneState state;
      if (sync_first) {
        const SyncSpan& sync = model.syncs[fl.syncs[pos]];
        begin = sync.begin;
        end = sync.end;
        state = waiting_state(sync.kind);
        active_end_ = std::max(active_end_, std::min(sync.end, to));
      } else {
        const OpInfo& op = model.ops[fl.enqueues[push]];
        begin = op.enqueue;
        end = op.enqueue + op.push_ns;
        state = LaneState::enqueuing;
      }
      if (end > begin || states.empty()) states.append(std::max(begin, from), state);
      if (end > to) break;  // goes on past the frontier: the next update goes on from here
      if (end > begin) states.append(end, LaneState::running);
      ++(sync_first ? pos : push);
    }
    states.extend(to);
  }
}

const LaneStates& RunInsight::worker(size_t lane) const noexcept {
  return lane < lane_of_worker_.size() ? lanes_[lane_of_worker_[lane]].states : kEmpty;
}

const LaneStates& RunInsight::frontend(size_t lane) const noexcept {
  return lane < frontends_.size() ? frontends_[lane] : kEmpty;
}

Breakdown RunInsight::breakdown(int64_t from, int64_t to) const noexcept {
  Breakdown b;
  b.from = from;
  b.to = to;
  for (const Lane& lane : lanes_) {
    const StateTimes t = lane.states.time_in(from, to);
    b.workers += t;
    b.worker_lane_ns += t.total();
  }
  for (const LaneStates& lane : frontends_) {
    const StateTimes t = lane.time_in(from, to);
    b.frontends += t;
    b.frontend_lane_ns += t.total();
  }
  return b;
}

Verdict RunInsight::verdict() const noexcept {
  Verdict v;
  v.ops = user_ops_pushed_;
  if (active_end_ <= active_begin_) return v;
  v.from = active_begin_;
  v.to = active_end_;
  v.duration_ns = active_end_ - active_begin_;
  const Breakdown b = breakdown(active_begin_, active_end_);
  if (b.worker_lane_ns > 0) {
    const auto lane_ns = static_cast<double>(b.worker_lane_ns);
    v.worker_busy_frac = static_cast<double>(b.workers[LaneState::busy]) / lane_ns;
    v.worker_held_frac = static_cast<double>(b.workers[LaneState::held]) / lane_ns;
    v.worker_starved_frac = static_cast<double>(b.workers[LaneState::starved]) / lane_ns;
  }
  if (b.frontend_lane_ns > 0) {
    v.frontend_wait_frac = static_cast<double>(b.frontends.waiting()) / static_cast<double>(b.frontend_lane_ns);
    v.frontend_enqueue_frac =
        static_cast<double>(b.frontends[LaneState::enqueuing]) / static_cast<double>(b.frontend_lane_ns);
  }
  if (v.ops > 0) {
    v.t1_ns = static_cast<double>(b.frontends[LaneState::running] + b.frontends[LaneState::enqueuing]) /
              static_cast<double>(v.ops);
    v.t2_ns = static_cast<double>(busy_union_ns_) / static_cast<double>(v.ops);
    if (!lanes_.empty()) v.bound = v.t1_ns > v.t2_ns ? Bound::frontend : Bound::backend;
  }
  return v;
}

std::string Verdict::text() const {
  if (bound == Bound::unknown) return "no verdict: no ops ran";
  const std::string t1 = format_value(t1_ns * 1e-9, "s"), t2 = format_value(t2_ns * 1e-9, "s");
  if (bound == Bound::frontend) {
    return "frontend-bound: the frontend takes t1 = " + t1 + " per op, the workers t2 = " + t2 +
           ", so they starve between ops";
  }
  return "backend-bound: the workers take t2 = " + t2 + " per op, the frontend t1 = " + t1 +
         ", so it runs ahead or waits";
}

// ---------------------------------------------------------------------------
// Memory

void RunInsight::attribute(const TraceModel& model) {
  for (; !free_name_known_ && names_searched_ < model.names.size(); ++names_searched_) {
    if (model.names[names_searched_] == "free") {
      free_name_ = static_cast<NameId>(names_searched_);
      free_name_known_ = true;
    }
  }
  const uint64_t first = attributed_;
  for (; attributed_ < model.ops.size(); ++attributed_) {
    const OpInfo& op = model.ops[attributed_];
    // Ops are read in push order, so a var's first writer comes before its
    // free; stop at one whose events are not all read yet.
    if (!op.known()) {
      if (attributed_ < settled_) continue;  // an id the trace never had (its events were not recorded)
      break;
    }
    if (op.enqueue == kNoTime || !op.executed()) break;
    if (op.num_writes == 0) continue;
    const uint64_t* writes = model.writes_of(op);
    if (op.internal) {
      if (!free_name_known_ || op.name != free_name_) continue;
      for (uint16_t w = 0; w < op.num_writes; ++w) {
        const auto it = live_var_.find(writes[w]);
        if (it == live_var_.end()) continue;
        const LiveVar& v = it->second;
        DeviceMemory& m = memory_[v.memory];
        insert_sorted(m.frees, MemEvent{std::max(op.start, v.alloc), v.bytes, v.holder}, m.free_valid, kStep);
        live_var_.erase(it);
        ++attribution_version_;
      }
      continue;
    }
    // An op that did not run allocated nothing; one that threw may not have.
    if (op.status != OpStatus::ok || op.out_bytes == 0) continue;
    for (uint16_t w = 0; w < op.num_writes; ++w) {
      if (live_var_.count(writes[w]) != 0) continue;  // written before: an update in place
      const uint32_t line = op.source == 0 ? 0 : model.source_points[op.source - 1].line + 1;
      const uint64_t hk = (uint64_t{op.name} << 32) | line;
      auto [hit, fresh] = holder_index_.try_emplace(hk, static_cast<uint32_t>(holder_keys_.size()));
      if (fresh) holder_keys_.push_back(HolderKey{op.name, line});
      LiveVar v;
      v.holder = hit->second;
      // Every op of the vocabulary writes one array; one writing several is
      // split evenly among them.
      v.bytes = op.out_bytes / op.num_writes;
      v.alloc = op.end;
      DeviceMemory& m = memory_of(device_key(op.device, op.device_index));
      v.memory = static_cast<uint32_t>(&m - memory_.data());
      insert_sorted(m.allocs, MemEvent{v.alloc, v.bytes, v.holder}, m.alloc_valid, kStep);
      live_var_.emplace(writes[w], v);
      ++attribution_version_;
    }
  }
  visits_ += attributed_ - first;
}

RunInsight::DeviceMemory& RunInsight::memory_of(uint16_t device) {
  for (DeviceMemory& m : memory_) {
    if (m.device == device) return m;
  }
  memory_.emplace_back();
  memory_.back().device = device;
  return memory_.back();
}

const RunInsight::DeviceMemory* RunInsight::find_memory(uint16_t device) const {
  for (const DeviceMemory& m : memory_) {
    if (m.device == device) return &m;
  }
  return nullptr;
}

// Per holder, the bytes and buffers of events at or before t.
RunInsight::HolderSums RunInsight::live_at(const DeviceMemory& m, int64_t t) const {
  const size_t holders = holder_keys_.size();
  const auto sums_up_to = [&](const std::vector<MemEvent>& events, std::vector<HolderSums>& sums, size_t& valid) {
    // Bring the checkpoints up to date (only those after an insertion point).
    const size_t want = events.size() / kStep + 1;
    sums.resize(want);
    if (valid == 0) {
      sums[0].assign(holders, {0, 0});
      valid = 1;
    }
    for (size_t k = valid; k < want; ++k) {
      sums[k] = sums[k - 1];
      sums[k].resize(holders, {0, 0});
      for (size_t i = (k - 1) * kStep; i < k * kStep; ++i) {
        sums[k][events[i].holder].first += events[i].bytes;
        ++sums[k][events[i].holder].second;
      }
    }
    valid = want;
    const size_t n = static_cast<size_t>(
        std::upper_bound(events.begin(), events.end(), t, [](int64_t x, const MemEvent& e) { return x < e.t; }) -
        events.begin());
    HolderSums out = sums[n / kStep];
    out.resize(holders, {0, 0});
    for (size_t i = n / kStep * kStep; i < n; ++i) {
      out[events[i].holder].first += events[i].bytes;
      ++out[events[i].holder].second;
    }
    return out;
  };
  HolderSums live = sums_up_to(m.allocs, m.alloc_sums, m.alloc_valid);
  const HolderSums freed = sums_up_to(m.frees, m.free_sums, m.free_valid);
  for (size_t h = 0; h < holders; ++h) {
    live[h].first -= freed[h].first;
    live[h].second -= freed[h].second;
  }
  return live;
}

HolderTable RunInsight::table(const TraceModel& model, int64_t t, uint16_t device, size_t top) const {
  HolderTable out;
  out.t = t;
  const DeviceMemory* m = find_memory(device);
  if (m == nullptr) return out;
  const HolderSums per_holder = live_at(*m, t);
  std::vector<uint32_t> order;
  for (size_t h = 0; h < per_holder.size(); ++h) {
    if (per_holder[h].second == 0) continue;
    order.push_back(static_cast<uint32_t>(h));
    out.live_bytes += per_holder[h].first;
    out.buffers += per_holder[h].second;
  }
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    if (per_holder[x].first != per_holder[y].first) return per_holder[x].first > per_holder[y].first;
    return per_holder[x].second > per_holder[y].second;
  });
  if (order.size() > top) order.resize(top);
  for (uint32_t h : order) {
    const HolderKey& k = holder_keys_[h];
    Holder row;
    row.op = std::string(model.name(k.name));
    if (k.source_line != 0 && k.source_line - 1 < model.source_lines.size()) {
      const SourceLine& line = model.source_lines[k.source_line - 1];
      row.line = std::string(model.name(line.file)) + ":" + std::to_string(line.line);
    }
    row.bytes = per_holder[h].first;
    row.count = per_holder[h].second;
    out.rows.push_back(std::move(row));
  }
  return out;
}

HolderTable RunInsight::holders_at(const TraceModel& model, int64_t t, DeviceKind device, uint8_t device_index,
                                   size_t top) const {
  return table(model, t, device_key(device, device_index), top);
}

HolderTable RunInsight::peak_holders(const TraceModel& model, DeviceKind device, uint8_t device_index,
                                     size_t top) const {
  const uint16_t key = device_key(device, device_index);
  auto& [version, at] = peak_cache_[key];
  if (version != attribution_version_ + 1) {
    // The live bytes as a step function over both sorted lists: at one
    // instant, frees first (a buffer freed and another allocated at the
    // same ns never both count).
    at = 0;
    if (const DeviceMemory* m = find_memory(key)) {
      int64_t live = 0, peak = 0;
      size_t i = 0, j = 0;
      while (i < m->allocs.size()) {
        const int64_t t = std::min(m->allocs[i].t, j < m->frees.size() ? m->frees[j].t : kForever);
        for (; j < m->frees.size() && m->frees[j].t == t; ++j) live -= static_cast<int64_t>(m->frees[j].bytes);
        for (; i < m->allocs.size() && m->allocs[i].t == t; ++i) live += static_cast<int64_t>(m->allocs[i].bytes);
        if (live > peak) {
          peak = live;
          at = t;
        }
      }
    }
    version = attribution_version_ + 1;  // 0 stays "never computed"
  }
  return table(model, at, key, top);
}

}  // namespace asyncscope::trace
