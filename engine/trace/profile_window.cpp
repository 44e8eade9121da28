#include <algorithm>
#include <climits>
#include <vector>

#include "engine/trace/profile.h"

namespace asyncscope::trace {

void assign_rows(ProfileTrace& trace) {
  std::vector<int64_t> row_end;
  for (uint32_t l = 0; l < trace.lanes.size(); ++l) {
    row_end.clear();
    int64_t outer_end = INT64_MIN;
    const auto [first, last] = trace.lane_spans(l);
    for (size_t i = first; i < last; ++i) {
      ProfileSpan& s = trace.spans[i];
      size_t r = 0;
      while (r < row_end.size() && row_end[r] > s.start) ++r;
      if (r == row_end.size()) row_end.push_back(s.end());
      else row_end[r] = s.end();
      s.row = static_cast<uint16_t>(std::min<size_t>(r, UINT16_MAX));
      s.top = s.end() > outer_end && s.start >= outer_end;
      if (s.start >= outer_end) outer_end = s.end();
      else outer_end = std::max(outer_end, s.end());
      if (!s.top && s.start >= outer_end) s.top = true;
    }
    trace.lanes[l].rows = static_cast<uint32_t>(std::max<size_t>(1, row_end.size()));
    trace.lanes[l].spans = last - first;
  }
}

ProfileTrace window_of(const ProfileTrace& trace, int64_t from, int64_t to) {
  ProfileTrace w;
  w.format = trace.format;
  w.source = trace.source;
  w.origin_ns = trace.origin_ns;
  w.names = trace.names;
  w.lanes = trace.lanes;
  w.skipped = trace.skipped;
  w.notes = trace.notes;
  w.events = trace.events;
  w.flows_used = trace.flows_used;
  w.end_ns = std::min(trace.end_ns, to);

  // Spans that overlap the window (an instant inside it), clipped to it.
  std::vector<uint32_t> kept(trace.spans.size(), kNoSpan);
  w.lane_begin.assign(trace.lanes.size() + 1, 0);
  for (size_t i = 0; i < trace.spans.size(); ++i) {
    const ProfileSpan& s = trace.spans[i];
    const bool inside = s.dur == 0 ? s.start >= from && s.start < to : s.end() > from && s.start < to;
    if (!inside) continue;
    ProfileSpan c = s;
    c.start = std::max(s.start, from);
    c.dur = std::min(s.end(), to) - c.start;
    kept[i] = static_cast<uint32_t>(w.spans.size());
    w.spans.push_back(c);
    ++w.lane_begin[s.lane + 1];
  }
  for (size_t l = 0; l < trace.lanes.size(); ++l) w.lane_begin[l + 1] += w.lane_begin[l];
  // Clipping can make a later span start with an earlier one: each lane's
  // order is (start, longest first) again, and its links follow the moves.
  std::vector<uint32_t> order(w.spans.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t l = 0; l < trace.lanes.size(); ++l) {
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(w.lane_begin[l]),
                     order.begin() + static_cast<std::ptrdiff_t>(w.lane_begin[l + 1]), [&](uint32_t a, uint32_t b) {
                       const ProfileSpan& x = w.spans[a];
                       const ProfileSpan& y = w.spans[b];
                       return x.start != y.start ? x.start < y.start : x.dur > y.dur;
                     });
  }
  std::vector<uint32_t> position(order.size());
  for (uint32_t p = 0; p < order.size(); ++p) position[order[p]] = p;
  std::vector<ProfileSpan> sorted(w.spans.size());
  for (uint32_t p = 0; p < order.size(); ++p) {
    ProfileSpan s = w.spans[order[p]];
    const uint32_t linked = s.link == kNoSpan ? kNoSpan : kept[s.link];
    s.link = linked == kNoSpan ? kNoSpan : position[linked];
    sorted[p] = s;
  }
  w.spans = std::move(sorted);
  assign_rows(w);

  for (const ProfileMemoryEvent& e : trace.memory) {
    if (e.t >= to) break;
    ProfileMemoryEvent m = e;
    m.t = std::max(e.t, from);
    w.memory.push_back(m);
  }
  for (const ProfileCounter& c : trace.counters) {
    ProfileCounter out{c.name, {}};
    for (const auto& [t, v] : c.samples) {
      if (t >= to) break;
      if (t < from) {
        out.samples.assign(1, {from, v});  // the value the window starts with
      } else {
        out.samples.emplace_back(t, v);
      }
    }
    w.counters.push_back(std::move(out));
  }
  return w;
}

}  // namespace asyncscope::trace
