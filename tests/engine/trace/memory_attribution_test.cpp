// Memory attribution on hand-built traces with known answers: the holders
// of the live buffers at an instant and at the peak, against a count of
// the buffers' intervals.
#include "engine/trace/memory_attribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>
#include <vector>

#include "support/insight_models.h"

namespace asyncscope::trace {
namespace {

using testing::build;
using testing::Row;

TEST(MemoryAttribution, AttributesLiveBuffersToTheOpAndLineThatAllocatedThem) {
  // Lines: 1 "x = ones", 2 "y = ones", 3 "z = x * y" (in a loop).
  std::vector<Row> rows = {
      {1, 100, 200, 300, 0, {}, {1}, 4000, 1},         // x = ones            live [300, 5000)
      {1, 110, 300, 400, 0, {}, {2}, 4000, 2},         // y = ones            live [400, ...)
      {2, 120, 400, 500, 0, {1, 2}, {3}, 4000, 3},     // z = x * y           live [500, 2000)
      {3, 130, 500, 600, 0, {3}, {3}, 4000, 3},        // z += 1, in place: no new buffer
      {2, 140, 600, 700, 0, {1, 2}, {4}, 4000, 3},     // z2 = x * y          live [700, ...)
      {2, 150, 700, 800, 0, {1, 2}, {5}, 4000, 3, OpStatus::skipped},  // did not run: nothing allocated
      {4, 160, 2000, 2000, 0, {}, {3}, 0},             // free z
      {4, 170, 5000, 5000, 0, {}, {1}, 0},             // free x
  };
  TraceModel m = build(rows, 1);
  m.names.push_back("script.py");
  const NameId file = static_cast<NameId>(m.names.size() - 1);
  for (uint32_t line = 1; line <= 3; ++line) {
    m.source_lines.push_back(SourceLine{file, line * 10});
    m.source_points.push_back(SourcePoint{static_cast<int64_t>(90 + line), line - 1, 0});
  }
  MemoryAttribution insight;
  insight.update(m, m.ops.size());

  const HolderTable at650 = insight.holders_at(m, 750);
  EXPECT_EQ(at650.live_bytes, 16000u);
  EXPECT_EQ(at650.buffers, 4u);
  ASSERT_EQ(at650.rows.size(), 3u);
  EXPECT_EQ(at650.rows[0].op, "mul");
  EXPECT_EQ(at650.rows[0].line, "script.py:30");
  EXPECT_EQ(at650.rows[0].bytes, 8000u);
  EXPECT_EQ(at650.rows[0].count, 2u);
  EXPECT_EQ(at650.rows[1].bytes, 4000u);
  EXPECT_EQ(at650.rows[1].op, "ones");

  const HolderTable at3000 = insight.holders_at(m, 3000);
  EXPECT_EQ(at3000.live_bytes, 12000u);  // z freed at 2000
  const HolderTable at6000 = insight.holders_at(m, 6000);
  EXPECT_EQ(at6000.live_bytes, 8000u);  // x freed too
  EXPECT_EQ(insight.holders_at(m, 250).buffers, 0u);  // x is being written: not certainly allocated yet
  EXPECT_EQ(insight.holders_at(m, 650).live_bytes, 12000u);  // z2 neither

  // The peak: [700, 2000) holds x, y, z, z2. Its first instant is 700.
  const HolderTable peak = insight.peak_holders(m);
  EXPECT_EQ(peak.t, 700);
  EXPECT_EQ(peak.live_bytes, 16000u);
  EXPECT_EQ(insight.peak_holders(m, DeviceKind::cuda).buffers, 0u);
  // Only the top rows when asked for fewer.
  EXPECT_EQ(insight.holders_at(m, 750, DeviceKind::cpu, 0, 1).rows.size(), 1u);
}

TEST(MemoryAttribution, AHoldersLabelNamesItsLayerAndWhetherBackwardPushedIt) {
  Holder h;
  h.op = "dot";
  EXPECT_EQ(holder_label(h), "dot");
  h.scope = "MLP > hidden (Linear)";
  EXPECT_EQ(holder_label(h), "dot in hidden (Linear)");
  h.scope = "backward > MLP > hidden (Linear)";
  EXPECT_EQ(holder_label(h), "dot in backward of hidden (Linear)");
  h.scope = "grad > dense0";
  EXPECT_EQ(holder_label(h), "dot in grad of dense0");
  h.scope = "backward";  // the head gradient, pushed in no layer
  EXPECT_EQ(holder_label(h), "dot in backward");
  h.scope = "backwards > dense0";  // a layer named so is no backward
  EXPECT_EQ(holder_label(h), "dot in dense0");
}

TEST(MemoryAttribution, ManyBuffersAcrossBlocksAreCountedOnce) {
  // 2000 buffers, each alive for 1000 ns, one allocated every 100 ns: ten live at once.
  std::vector<Row> rows;
  for (int i = 0; i < 2000; ++i) {
    const int64_t s = 1000 + i * 100;
    rows.push_back({1, s - 10, s, s + 1, 0, {}, {uint64_t(100 + i)}, 8});
  }
  for (int i = 0; i < 2000; ++i) {
    const int64_t f = 1000 + i * 100 + 1000;
    rows.push_back({4, f - 5, f, f, 1, {}, {uint64_t(100 + i)}, 0});
  }
  TraceModel m = build(rows, 2);
  MemoryAttribution insight;
  insight.update(m, m.ops.size());
  EXPECT_EQ(insight.holders_at(m, 150050).buffers, 10u);
  EXPECT_EQ(insight.holders_at(m, 150050).live_bytes, 80u);
  EXPECT_EQ(insight.peak_holders(m).live_bytes, 80u);
}

TEST(MemoryAttribution, HoldersAtAnyInstantMatchACountOfTheIntervals) {
  // Two workers finish ops out of push order; frees come later, in any order.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dur(1, 3000), size(1, 64);
  std::vector<Row> rows;
  int64_t lane_free[2] = {0, 0};
  for (int i = 0; i < 3000; ++i) {
    const uint16_t w = static_cast<uint16_t>(i % 2);
    const int64_t e = 100 + i * 200;
    const int64_t start = std::max(e + 50, lane_free[w]);
    const bool frees = i > 50 && i % 3 == 0;
    const int64_t end = start + (frees ? 10 : dur(rng));
    lane_free[w] = end;
    // A free returns the array written 40 to 50 ops before.
    const uint64_t var = frees ? uint64_t(i - 40 - i % 11) : uint64_t(i);
    rows.push_back({static_cast<NameId>(frees ? 4 : 1 + i % 3), e, start, end, w, {}, {var},
                    frees ? 0u : uint64_t(size(rng)) * 1024});
  }
  const TraceModel m = build(rows, 2);
  MemoryAttribution insight;
  insight.update(m, m.ops.size());
  // The same from the intervals, one by one.
  struct Interval {
    int64_t a, b;
    uint64_t bytes;
  };
  std::vector<Interval> intervals;
  std::unordered_map<uint64_t, size_t> open;
  for (const OpInfo& op : m.ops) {
    const uint64_t var = m.writes_of(op)[0];
    if (op.internal) {
      if (auto it = open.find(var); it != open.end()) {
        intervals[it->second].b = std::max(op.start, intervals[it->second].a);
        open.erase(it);
      }
    } else if (!open.count(var)) {
      open[var] = intervals.size();
      intervals.push_back({op.end, INT64_MAX, op.out_bytes});
    }
  }
  uint64_t peak = 0;
  for (int64_t t = 0; t < m.end_time(); t += 997) {
    uint64_t bytes = 0, count = 0;
    for (const Interval& v : intervals) {
      if (v.a <= t && t < v.b) {
        bytes += v.bytes;
        ++count;
      }
    }
    peak = std::max(peak, bytes);
    const HolderTable h = insight.holders_at(m, t, DeviceKind::cpu, 0, 2);
    ASSERT_EQ(h.live_bytes, bytes) << "t " << t;
    ASSERT_EQ(h.buffers, count) << "t " << t;
    uint64_t rows_bytes = 0;
    for (const Holder& r : insight.holders_at(m, t).rows) rows_bytes += r.bytes;
    ASSERT_EQ(rows_bytes, bytes);  // three holders, all listed
  }
  EXPECT_GE(insight.peak_holders(m).live_bytes, peak);  // the exact peak, not only at the sampled instants
}


}  // namespace
}  // namespace asyncscope::trace
