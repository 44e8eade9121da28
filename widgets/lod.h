// Level of detail for timeline lanes, after Tracy: each frame, the visible
// range of a lane is found by binary search on time, and spans narrower than a
// few pixels fold into one box that counts the spans it holds, so a lane with
// a million spans costs about what one with a thousand does.
// Threading: UI thread only (plain functions on caller-owned data).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/trace/model.h"
#include "widgets/time_axis.h"

namespace asyncscope::widgets {

// Spans narrower than this fold into their neighbours.
inline constexpr float kFoldPx = 3.0f;

// One thing to draw: a span (count == 1) or a folded run of spans or instants.
struct LodBox {
  float x0 = 0;  // screen x of begin_ns and end_ns (not clamped)
  float x1 = 0;
  int64_t begin_ns = 0;  // start of the first item, end of the last
  int64_t end_ns = 0;
  uint32_t first = 0;  // position of the first item in the lane's list
  uint32_t count = 0;  // items in the box

  bool folded() const noexcept { return count > 1; }
};

namespace lod_detail {

// First position in [lo, hi) whose key is >= value (keys non-decreasing).
template <class Key>
size_t first_not_less(size_t lo, size_t hi, const Key& key, int64_t value) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (key(mid) < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The same, searching outward from lo first: the answer is usually near, and
// near positions are warm in cache.
template <class Key>
size_t gallop_not_less(size_t lo, size_t hi, const Key& key, int64_t value) {
  size_t known_less = lo;  // every position before it has key < value
  size_t probe = lo;
  size_t step = 1;
  while (probe < hi && key(probe) < value) {
    known_less = probe + 1;
    probe = lo + step;
    step *= 2;
  }
  return first_not_less(known_less, probe < hi ? probe : hi, key, value);
}

inline int64_t floor_ns(double t) noexcept { return static_cast<int64_t>(std::floor(t)); }
inline int64_t ceil_ns(double t) noexcept { return static_cast<int64_t>(std::ceil(t)); }

}  // namespace lod_detail

// Folds the visible spans of one lane into boxes, in order. The lane has n
// spans, start-sorted and non-overlapping (so their ends are sorted too),
// read through start(i) and end(i). Guarantees: every span that intersects
// the visible range is in exactly one box, boxes hold consecutive positions,
// a box covers its spans, and a span at least min_px wide is a box of its own.
template <class Start, class End>
void fold_spans(size_t n, const Start& start, const End& end, const TimeAxis& axis, float min_px,
                std::vector<LodBox>& out) {
  using namespace lod_detail;
  out.clear();
  size_t i = first_not_less(0, n, end, floor_ns(axis.begin_ns));
  const size_t last = first_not_less(i, n, start, ceil_ns(axis.end_ns()) + 1);
  const double min_ns = static_cast<double>(min_px) * axis.ns_per_px;
  const int64_t reach = ceil_ns(min_ns);  // for integer times: x - e < min_ns  <=>  x < e + reach
  const auto box = [&](int64_t b, int64_t e, size_t first, size_t count) {
    out.push_back(LodBox{static_cast<float>(axis.to_px(static_cast<double>(b))),
                         static_cast<float>(axis.to_px(static_cast<double>(e))), b, e,
                         static_cast<uint32_t>(first), static_cast<uint32_t>(count)});
  };
  while (i < last) {
    const int64_t b = start(i);
    int64_t e = end(i);
    if (static_cast<double>(e - b) >= min_ns) {
      box(b, e, i, 1);
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < last) {
      // Spans ending less than min_ns after the group start after it (no
      // overlap), so they are narrow and close: absorb them all at once.
      const size_t k = gallop_not_less(j, last, end, e + reach);
      if (k > j) {
        e = end(k - 1);
        j = k;
        if (j == last) break;
      }
      // The next span ends further out: absorb it only if it is narrow and close.
      const int64_t nb = start(j);
      const int64_t ne = end(j);
      if (static_cast<double>(ne - nb) >= min_ns || static_cast<double>(nb - e) >= min_ns) break;
      e = ne;
      ++j;
    }
    box(b, e, i, j - i);
    i = j;
  }
}

// Folds the visible instants of a lane (n times, sorted) into one box per
// pixel column that holds any: x0 is the first instant's x, count how many.
template <class Time>
void fold_instants(size_t n, const Time& time, const TimeAxis& axis, std::vector<LodBox>& out) {
  using namespace lod_detail;
  out.clear();
  size_t i = first_not_less(0, n, time, floor_ns(axis.begin_ns));
  const size_t last = first_not_less(i, n, time, ceil_ns(axis.end_ns()) + 1);
  while (i < last) {
    const int64_t t = time(i);
    const double x = axis.to_px(static_cast<double>(t));
    const int64_t next_column = ceil_ns(axis.to_ns(std::floor(x) + 1.0));
    size_t j = gallop_not_less(i + 1, last, time, next_column);
    if (j <= i) j = i + 1;
    const int64_t t_last = time(j - 1);
    out.push_back(LodBox{static_cast<float>(x), static_cast<float>(axis.to_px(static_cast<double>(t_last))), t, t_last,
                         static_cast<uint32_t>(i), static_cast<uint32_t>(j - i)});
    i = j;
  }
}

// The box under screen x: the one containing it, else the nearest within
// slop px. Boxes sorted by x (as folded); narrow ones count as 1 px wide.
const LodBox* box_at(const std::vector<LodBox>& boxes, float x, float slop);

// The model's lanes, folded: op spans of a worker lane (first = position in
// lane.ops; on a launch lane, the ops' launch spans), sync waits of a frontend (first = position in lane.syncs), and
// enqueue ticks of a frontend (first = position in lane.enqueues).
void fold_worker_lane(const trace::TraceModel& model, const trace::WorkerLane& lane, const TimeAxis& axis,
                      std::vector<LodBox>& out, float min_px = kFoldPx);
void fold_sync_lane(const trace::TraceModel& model, const trace::FrontendLane& lane, const TimeAxis& axis,
                    std::vector<LodBox>& out, float min_px = kFoldPx);
void fold_enqueue_ticks(const trace::TraceModel& model, const trace::FrontendLane& lane, const TimeAxis& axis,
                        std::vector<LodBox>& out);

}  // namespace asyncscope::widgets
