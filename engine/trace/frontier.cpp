#include "engine/trace/frontier.h"

#include <algorithm>

namespace asyncscope::trace {
namespace {

// An op's lane-side work is all recorded: its execution, and a GPU op's launch.
bool op_settled(const OpInfo& op) { return op.executed() && (op.device == DeviceKind::cpu || op.launched()); }

// From when an unsettled op holds the frontier: nothing is final after
// its enqueue (or, before that is read, its first span's start) more may be
// recorded.
int64_t unsettled_since(const OpInfo& op) {
  if (op.enqueue != kNoTime) return op.enqueue;
  return op.launch_start != kNoTime ? op.launch_start : op.start;
}

uint64_t key_of(DeviceKind device, uint8_t index, uint16_t worker, SpanKind span) noexcept {
  return (uint64_t{static_cast<uint8_t>(device)} << 40) | (uint64_t{index} << 32) | (uint64_t{worker} << 8) |
         static_cast<uint8_t>(span);
}

}  // namespace

uint64_t worker_lane_key(const WorkerLane& lane) noexcept {
  return key_of(lane.device, lane.device_index, lane.worker, lane.span);
}

uint64_t worker_group_key(DeviceKind device, uint8_t device_index, SpanKind span) noexcept {
  return key_of(device, device_index, 0, span);
}

void Frontier::map_lanes(const TraceModel& model) {
  // The model's lanes only grow, so the same count is the same lanes.
  if (lane_of_worker_.size() == model.workers.size()) return;
  lane_of_worker_.resize(model.workers.size());
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const uint64_t key = worker_lane_key(model.workers[w]);
    const auto l = static_cast<size_t>(std::find(lane_keys_.begin(), lane_keys_.end(), key) - lane_keys_.begin());
    if (l == lane_keys_.size()) {
      lane_keys_.push_back(key);
      spans_noted_.push_back(0);
    }
    lane_of_worker_[w] = static_cast<uint32_t>(l);
  }
}

int64_t Frontier::earliest(const TraceModel& model, Waiting& list, bool heap) {
  // An op holds the frontier until it settles (ops below settled_ included:
  // another frontend's, read after settled_ passed their ids).
  const auto current = [&](const Unsettled& u) {
    const OpInfo& op = model.ops[u.op];
    return !op_settled(op) && unsettled_since(op) == u.since;
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

int64_t Frontier::advance(const TraceModel& model, bool complete) {
  map_lanes(model);
  const int64_t end = model.end_time();
  if (complete) return time_ = std::max(time_, end);
  int64_t f = end;
  const size_t n = model.ops.size();
  const uint64_t first = settled_;
  while (settled_ < n) {
    if (model.ops[settled_].known()) {
      if (!op_settled(model.ops[settled_])) break;
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
      if (!op_settled(model.ops[i])) waiting_[fi].entries.push_back(Unsettled{model.ops[i].enqueue, i});
    }
  }
  std::vector<Unsettled>& heap = waiting_.back().entries;
  for (size_t w = 0; w < model.workers.size(); ++w) {
    const std::vector<uint32_t>& spans = model.workers[w].ops;
    for (size_t& pos = spans_noted_[lane_of_worker_[w]]; pos < spans.size(); ++pos) {
      ++visits_;
      const uint32_t i = spans[pos];
      const OpInfo& op = model.ops[i];
      if (i < settled_ || has_enqueue_[i] || op_settled(op)) continue;
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
  time_ = std::max(time_, f);
  return time_;
}

}  // namespace asyncscope::trace
