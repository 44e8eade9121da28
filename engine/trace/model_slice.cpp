#include "engine/trace/model_slice.h"

#include <algorithm>
#include <vector>

namespace asyncscope::trace {
namespace {

// The first position in [0, n) whose item `past` holds, for a monotone
// `past` (false ... false true ... true).
template <class Past>
size_t first_where(size_t n, const Past& past) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (past(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

TraceModel slice(const TraceModel& m, int64_t from, int64_t to) {
  const auto overlaps = [from, to](int64_t a, int64_t b) { return std::max(b, a + 1) > from && a < to; };
  // The window's ops, found by binary search on each lane (a lane's spans and
  // enqueues are time-sorted), so a window costs what is in it, not the run.
  std::vector<uint32_t> kept;
  for (const FrontendLane& f : m.frontends) {
    const size_t first =
        first_where(f.enqueues.size(), [&](size_t i) { return m.ops[f.enqueues[i]].enqueue >= from; });
    for (size_t i = first; i < f.enqueues.size() && m.ops[f.enqueues[i]].enqueue < to; ++i) kept.push_back(f.enqueues[i]);
  }
  for (const WorkerLane& w : m.workers) {
    // Spans on a lane never overlap: their ends are sorted as their starts are.
    const size_t first =
        first_where(w.ops.size(), [&](size_t i) { return std::max(w.end_of(m.ops[w.ops[i]]), w.start_of(m.ops[w.ops[i]]) + 1) > from; });
    for (size_t i = first; i < w.ops.size() && w.start_of(m.ops[w.ops[i]]) < to; ++i) kept.push_back(w.ops[i]);
    const size_t help = first_where(w.helps.size(), [&](size_t i) { return w.helps[i].end > from; });
    for (size_t i = help; i < w.helps.size() && w.helps[i].start < to; ++i) kept.push_back(w.helps[i].op);
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());

  TraceModel s;
  s.origin_ns = m.origin_ns;
  s.source_lines = m.source_lines;
  s.scopes = m.scopes;
  s.counter_names = m.counter_names;
  s.names = m.names;
  s.dropped = m.dropped;
  // Ops keep their ids; the slice's op table spans only the kept ones.
  const uint32_t lo = kept.empty() ? 0 : kept.front();
  const uint32_t hi = kept.empty() ? 0 : kept.back() + 1;
  s.first_op_id = m.first_op_id + lo;
  s.ops.resize(hi - lo);
  for (uint32_t i = lo; i < hi; ++i) s.ops[i - lo].id = m.ops[i].id;
  std::vector<char> in(hi - lo, 0);
  // Source points the kept ops and waits came from, renumbered in order.
  std::vector<uint32_t> points;
  const auto note_point = [&points](uint32_t source) {
    if (source != 0) points.push_back(source - 1);
  };
  for (const uint32_t i : kept) {
    const OpInfo& op = m.ops[i];
    OpInfo& copy = s.ops[i - lo];
    copy = op;
    copy.vars_begin = static_cast<uint32_t>(s.var_ids.size());
    const uint64_t* vars = m.reads_of(op);
    s.var_ids.insert(s.var_ids.end(), vars, vars + op.num_reads + op.num_writes);
    in[i - lo] = 1;
    note_point(op.source);
    if (const auto e = m.errors.find(op.id); e != m.errors.end()) s.errors.emplace(e->first, e->second);
  }
  const auto kept_op = [&](uint32_t i) { return i >= lo && i < hi && in[i - lo] != 0; };

  // Waits that overlap the window, per lane in order.
  std::vector<std::vector<uint32_t>> lane_syncs(m.frontends.size());
  for (size_t f = 0; f < m.frontends.size(); ++f) {
    const std::vector<uint32_t>& syncs = m.frontends[f].syncs;
    const size_t first = first_where(syncs.size(), [&](size_t i) {
      const SyncSpan& w = m.syncs[syncs[i]];
      return std::max(w.end, w.begin + 1) > from;
    });
    for (size_t i = first; i < syncs.size() && m.syncs[syncs[i]].begin < to; ++i) {
      if (overlaps(m.syncs[syncs[i]].begin, m.syncs[syncs[i]].end)) lane_syncs[f].push_back(syncs[i]);
    }
    for (const uint32_t k : lane_syncs[f]) note_point(m.syncs[k].source);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  const auto point_of = [&points](uint32_t source) -> uint32_t {
    if (source == 0) return 0;
    return 1 + static_cast<uint32_t>(std::lower_bound(points.begin(), points.end(), source - 1) - points.begin());
  };
  for (const uint32_t p : points) s.source_points.push_back(m.source_points[p]);
  for (OpInfo& op : s.ops) {
    if (op.known()) op.source = point_of(op.source);
  }
  // Sync indices in global time order, as a model keeps them.
  std::vector<uint32_t> all_syncs;
  for (const auto& l : lane_syncs) all_syncs.insert(all_syncs.end(), l.begin(), l.end());
  std::sort(all_syncs.begin(), all_syncs.end());
  const auto sync_of = [&all_syncs](uint32_t k) {
    return static_cast<uint32_t>(std::lower_bound(all_syncs.begin(), all_syncs.end(), k) - all_syncs.begin());
  };
  for (const uint32_t k : all_syncs) {
    SyncSpan w = m.syncs[k];
    w.source = point_of(w.source);
    s.syncs.push_back(w);
  }

  for (size_t f = 0; f < m.frontends.size(); ++f) {
    const FrontendLane& lane = m.frontends[f];
    FrontendLane out;
    out.name = lane.name;
    for (const uint32_t i : kept) {
      const OpInfo& op = m.ops[i];
      if (op.frontend == f && op.enqueue != kNoTime && op.enqueue >= from && op.enqueue < to) out.enqueues.push_back(i - lo);
    }
    // kept is in id order; a lane's enqueues are in its own push order, the same order.
    for (const uint32_t k : lane_syncs[f]) out.syncs.push_back(sync_of(k));
    for (uint32_t p = 0; p < points.size(); ++p) {
      if (m.source_points[points[p]].frontend == f) out.sources.push_back(p);
    }
    s.frontends.push_back(std::move(out));
  }
  for (const WorkerLane& w : m.workers) {
    WorkerLane lane = w;
    lane.ops.clear();
    lane.helps.clear();
    const size_t first =
        first_where(w.ops.size(), [&](size_t i) { return std::max(w.end_of(m.ops[w.ops[i]]), w.start_of(m.ops[w.ops[i]]) + 1) > from; });
    for (size_t i = first; i < w.ops.size() && w.start_of(m.ops[w.ops[i]]) < to; ++i) lane.ops.push_back(w.ops[i] - lo);
    const size_t help = first_where(w.helps.size(), [&](size_t i) { return w.helps[i].end > from; });
    for (size_t i = help; i < w.helps.size() && w.helps[i].start < to; ++i) {
      if (!kept_op(w.helps[i].op)) continue;
      HelpSpan h = w.helps[i];
      h.op -= lo;
      lane.helps.push_back(h);
    }
    s.workers.push_back(std::move(lane));
  }
  for (const Marker& mk : m.markers) {
    if (mk.t >= from && mk.t < to) s.markers.push_back(mk);
  }
  // Counters: each starts the window at the value it had then.
  const size_t first = first_where(m.counters.size(), [&](size_t i) { return m.counters[i].t >= from; });
  if (first > 0) {
    CounterSample start = m.counters[first - 1];
    start.t = from;
    s.counters.push_back(start);
  }
  for (size_t i = first; i < m.counters.size() && m.counters[i].t < to; ++i) {
    if (!s.counters.empty() && s.counters.back().t == m.counters[i].t) s.counters.pop_back();
    s.counters.push_back(m.counters[i]);
  }
  return s;
}

}  // namespace asyncscope::trace
