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
  size_t adds = 0;
  for (const OpInfo& op : w.ops) {
    if (!op.known()) continue;
    const OpInfo* whole = m.find_op(op.id);  // ids kept
    ASSERT_NE(whole, nullptr) << op.id;
    EXPECT_EQ(w.op_name(op), m.op_name(*whole));
    EXPECT_EQ(w.source_text(op.source), m.source_text(whole->source));
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

// A notebook cell's picture of a long run: the window's model holds the
// window's ops, not a table of the whole run's.
TEST(ModelSlice, AWindowCostsWhatIsInItNotTheRun) {
  const auto run = testing::run_demo("sync-vs-async", {{"iterations", "400"}, {"size", "4"}});
  const TraceModel& m = run.model;
  const int64_t from = marker(m, "async loop");
  const OpInfo* last = nullptr;
  for (const OpInfo& op : m.ops) {
    if (op.known() && op.enqueue != kNoTime && op.enqueue >= from) last = &op;
  }
  ASSERT_NE(last, nullptr);
  // The last few ops pushed: a window around them.
  const TraceModel w = slice(m, last->enqueue, m.end_time() + 1);
  EXPECT_EQ(first_violation(w), "");
  size_t known = 0;
  for (const OpInfo& op : w.ops) known += op.known();
  EXPECT_GE(known, 1u);
  EXPECT_LT(w.ops.size(), m.ops.size() / 10) << "the window's op table spans the whole run";
  EXPECT_LE(w.var_ids.size(), 3 * w.ops.size());
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
