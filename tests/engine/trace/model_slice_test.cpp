// A window of a trace as a model of its own: it keeps the rules, holds what
// happened in the window and nothing else, and its insight is the window's.
#include "engine/trace/model_slice.h"

#include <gtest/gtest.h>

#include "engine/trace/insight.h"
#include "engine/trace/model_check.h"
#include "support/run_program.h"

namespace asyncscope::trace {
namespace {

int64_t marker(const TraceModel& m, std::string_view name) {
  for (const Marker& mk : m.markers) {
    if (m.name(mk.name) == name) return mk.t;
  }
  ADD_FAILURE() << "no marker " << name;
  return 0;
}

TEST(ModelSlice, TheSyncLoopsWindowHoldsItsOpsAndWaitsOnly) {
  const auto run = testing::run_demo("sync-vs-async", {{"iterations", "30"}, {"size", "16"}});
  const TraceModel& m = run.model;
  const int64_t from = marker(m, "sync loop"), to = marker(m, "async loop");
  const TraceModel w = slice(m, from, to);
  EXPECT_EQ(first_violation(w), "");
  EXPECT_EQ(w.ops.size(), m.ops.size());  // ids kept
  size_t adds = 0;
  for (const OpInfo& op : w.ops) {
    if (!op.known()) continue;
    const bool enqueued = op.enqueue >= from && op.enqueue < to;
    const bool ran = op.executed() && op.end > from && op.start < to;
    EXPECT_TRUE(enqueued || ran) << op.id;
    adds += w.op_name(op) == "add_scalar" && enqueued;
  }
  EXPECT_EQ(adds, 30u);
  ASSERT_EQ(w.syncs.size(), 30u);  // one wait_to_read per iteration, nothing of the async loop
  for (const SyncSpan& s : w.syncs) EXPECT_EQ(s.kind, SyncKind::wait_to_read);
  for (const Marker& mk : w.markers) EXPECT_TRUE(mk.t >= from && mk.t < to);
  ASSERT_FALSE(w.counters.empty());
  EXPECT_GE(w.counters.front().t, from);
  RunInsight insight;
  insight.update(w, true);
  EXPECT_NE(insight.verdict().bound, Bound::unknown);
  EXPECT_LE(insight.verdict().to, to + 1'000'000);
}

TEST(ModelSlice, AnEmptyWindowIsAnEmptyModelThatKeepsTheRules) {
  const auto run = testing::run_demo("dependency-graph", {{"size", "8"}});
  const TraceModel w = slice(run.model, run.model.end_time() + 10, run.model.end_time() + 20);
  EXPECT_EQ(first_violation(w), "");
  for (const OpInfo& op : w.ops) EXPECT_FALSE(op.known());
  EXPECT_TRUE(w.syncs.empty());
}

}  // namespace
}  // namespace asyncscope::trace
