#include "engine/trace/model_slice.h"

#include <algorithm>
#include <vector>

namespace asyncscope::trace {

TraceModel slice(const TraceModel& m, int64_t from, int64_t to) {
  TraceModel s;
  s.origin_ns = m.origin_ns;
  s.first_op_id = m.first_op_id;
  s.var_ids = m.var_ids;
  s.source_lines = m.source_lines;
  s.source_points = m.source_points;
  s.scopes = m.scopes;
  s.counter_names = m.counter_names;
  s.names = m.names;
  s.dropped = m.dropped;
  const auto overlaps = [from, to](int64_t a, int64_t b) { return b > from && a < to; };

  std::vector<char> kept(m.ops.size(), 0);
  s.ops.resize(m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const OpInfo& op = m.ops[i];
    s.ops[i].id = op.id;
    if (!op.known()) continue;
    const bool enqueued = op.enqueue != kNoTime && op.enqueue >= from && op.enqueue < to;
    const bool ran = op.executed() && op.start != kNoTime && overlaps(op.start, std::max(op.end, op.start + 1));
    const bool launched = op.launched() && overlaps(op.launch_start, std::max(op.launch_end, op.launch_start + 1));
    if (!enqueued && !ran && !launched) continue;
    kept[i] = 1;
    s.ops[i] = op;
    if (const auto e = m.errors.find(op.id); e != m.errors.end()) s.errors.emplace(e->first, e->second);
  }
  for (const WorkerLane& w : m.workers) {
    WorkerLane lane = w;
    lane.ops.clear();
    lane.helps.clear();
    for (uint32_t i : w.ops) {
      if (kept[i]) lane.ops.push_back(i);
    }
    for (const HelpSpan& h : w.helps) {
      if (kept[h.op] && overlaps(h.start, h.end)) lane.helps.push_back(h);
    }
    s.workers.push_back(std::move(lane));
  }
  std::vector<uint32_t> sync_index(m.syncs.size(), UINT32_MAX);
  for (size_t k = 0; k < m.syncs.size(); ++k) {
    const SyncSpan& w = m.syncs[k];
    if (!overlaps(w.begin, std::max(w.end, w.begin + 1))) continue;
    sync_index[k] = static_cast<uint32_t>(s.syncs.size());
    s.syncs.push_back(w);
  }
  for (const FrontendLane& f : m.frontends) {
    FrontendLane lane;
    lane.name = f.name;
    for (uint32_t i : f.enqueues) {
      if (kept[i] && m.ops[i].enqueue >= from && m.ops[i].enqueue < to) lane.enqueues.push_back(i);
    }
    for (uint32_t k : f.syncs) {
      if (sync_index[k] != UINT32_MAX) lane.syncs.push_back(sync_index[k]);
    }
    lane.sources = f.sources;
    s.frontends.push_back(std::move(lane));
  }
  for (const Marker& mk : m.markers) {
    if (mk.t >= from && mk.t < to) s.markers.push_back(mk);
  }
  const CounterSample* before = nullptr;
  for (const CounterSample& c : m.counters) {
    if (c.t < from) {
      before = &c;
      continue;
    }
    if (c.t >= to) break;
    if (before != nullptr) {
      CounterSample first = *before;
      first.t = from;
      s.counters.push_back(first);
      before = nullptr;
    }
    s.counters.push_back(c);
  }
  if (before != nullptr) {  // no sample inside: the value held through the window
    CounterSample first = *before;
    first.t = from;
    s.counters.push_back(first);
  }
  return s;
}

}  // namespace asyncscope::trace
