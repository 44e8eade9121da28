// Comparing two runs from their traces: each run's summary (time, waits,
// worker states, peaks, ops) and the rows of their difference with factors.
#include "engine/trace/run_compare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/trace_record/counters.h"
#include "support/insight_models.h"

namespace asyncscope::trace {
namespace {

using testing::build;
using testing::Row;
using testing::small;

TEST(RunDiff, ComparesTwoRunsWithFactors) {
  RunInsight a, b;
  TraceModel ma = small();
  ma.counter_names = {kRssCounter};
  ma.counters.push_back(CounterSample{100, {1'000'000}});
  ma.counters.push_back(CounterSample{40000, {3'000'000}});
  a.update(ma, true);
  const RunSummary sa = summarize(ma, a);
  EXPECT_EQ(sa.duration_ns, 51000);
  EXPECT_EQ(sa.frontend_wait_ns, 47500);
  EXPECT_EQ(sa.peak_rss_bytes, 3'000'000);
  EXPECT_EQ(sa.peak_live_bytes, 12000);  // x, y, z in [40000, 41000); y, z, w from 50000
  EXPECT_EQ(sa.ops, 4u);

  std::vector<Row> rows;
  for (int i = 0; i < 8; ++i) rows.push_back({3, 100 + i, 200 + i * 1000, 900 + i * 1000, 0, {}, {uint64_t(i + 1)}, 4});
  const TraceModel mb = build(rows, 1);
  b.update(mb, true);
  const RunSummary sb = summarize(mb, b);
  const std::vector<DiffRow> rows_ab = diff(sa, sb);
  const auto find = [&](const std::string& what) {
    for (const DiffRow& r : rows_ab) {
      if (r.what == what) return r;
    }
    ADD_FAILURE() << "no row " << what;
    return DiffRow{};
  };
  EXPECT_EQ(find("ops").a, "4");
  EXPECT_EQ(find("ops").b, "8");
  ASSERT_TRUE(find("ops").factor.has_value());
  EXPECT_DOUBLE_EQ(*find("ops").factor, 2.0);
  EXPECT_DOUBLE_EQ(*find("total time").factor, static_cast<double>(mb.end_time()) / 51000);
  EXPECT_EQ(find("peak RSS").b, "-");  // not recorded in b
  EXPECT_FALSE(find("peak RSS").factor.has_value());
  EXPECT_FALSE(find("frontend waiting").factor.has_value() && sb.frontend_wait_ns != 0);
}

}  // namespace
}  // namespace asyncscope::trace
