#include "engine/trace/lane_classifier.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "engine/base/format.h"

namespace asyncscope::trace {
namespace {
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();
}  // namespace

const LaneStates LaneClassifier::kEmpty;

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
// Workers

uint32_t LaneClassifier::group_of(uint64_t key, int64_t until) {
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].key == key) return static_cast<uint32_t>(g);
  }
  Group group;
  group.key = key;
  // Nothing of its kind was pushed before: its lanes were starved.
  group.idle.append(0, LaneState::starved);
  group.idle.extend(until);
  groups_.push_back(std::move(group));
  return static_cast<uint32_t>(groups_.size() - 1);
}

void LaneClassifier::add_lanes(const TraceModel& model, const Frontier& frontier, int64_t until) {
  if (lanes_.size() == frontier.lane_count()) return;
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const uint32_t l = frontier.stable_lane(w);
    if (l < lanes_.size()) continue;
    const WorkerLane& wl = model.workers[w];
    if (lanes_.size() <= l) lanes_.resize(l + 1);
    Lane& lane = lanes_[l];
    lane.group = group_of(worker_group_key(wl.device, wl.device_index, wl.span), until);
    lane.states = groups_[lane.group].idle;  // idle until now: held or starved as its group was
  }
}

void LaneClassifier::update(const TraceModel& model, const Frontier& frontier, int64_t from, int64_t to) {
  add_lanes(model, frontier, from);  // lanes that appeared, even when the frontier stays
  if (to <= from) return;
  classify_workers(model, frontier, from, to);
  classify_frontends(model, from, to);
}

void LaneClassifier::classify_workers(const TraceModel& model, const Frontier& frontier, int64_t from, int64_t to) {

  // Queue changes in [from, to): +1 at each enqueue, -1 where the op left
  // its group's queue (the start of its span on a lane of that kind).
  std::vector<std::vector<std::pair<int64_t, int>>> changes(groups_.size());
  const auto change = [&](uint64_t key, int64_t t, int delta) {
    const uint32_t g = group_of(key, from);
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
      change(worker_group_key(op.device, op.device_index, SpanKind::execute), op.enqueue, +1);
      if (op.device != DeviceKind::cpu) {
        change(worker_group_key(op.device, op.device_index, SpanKind::launch), op.enqueue, +1);
      }
    }
  }
  // Starts: every span that starts in [from, to) (the lanes' spans are start-sorted).
  struct Window {
    size_t first, last;  // spans [first, last) of the lane overlap [from, to)
  };
  std::vector<Window> windows(lanes_.size());
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const WorkerLane& wl = model.workers[w];
    Lane& lane = lanes_[frontier.stable_lane(w)];
    size_t i = lane.next_span;
    size_t last = i;
    for (; last < wl.ops.size(); ++last) {
      ++visits_;
      const OpInfo& op = model.ops[wl.ops[last]];
      const int64_t s = wl.start_of(op);
      if (s >= to) break;
      if (s >= from && op.enqueue != kNoTime) change(groups_[lane.group].key, s, -1);
    }
    windows[frontier.stable_lane(w)] = Window{i, last};
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
    Lane& lane = lanes_[frontier.stable_lane(w)];
    const LaneStates& idle = groups_[lane.group].idle;
    int64_t cur = from;
    size_t i = windows[frontier.stable_lane(w)].first;
    const size_t last = windows[frontier.stable_lane(w)].last;
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

void LaneClassifier::classify_frontends(const TraceModel& model, int64_t from, int64_t to) {
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

const LaneStates& LaneClassifier::worker(uint32_t stable_lane) const noexcept {
  return stable_lane < lanes_.size() ? lanes_[stable_lane].states : kEmpty;
}

const LaneStates& LaneClassifier::frontend(size_t lane) const noexcept {
  return lane < frontends_.size() ? frontends_[lane] : kEmpty;
}

Breakdown LaneClassifier::breakdown(int64_t from, int64_t to) const noexcept {
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

Verdict LaneClassifier::verdict() const noexcept {
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

}  // namespace asyncscope::trace
