// What changed between two traces: two profilers' traces, and one of ours
// against a profiler's, with per-op-name deltas that add up.
#include "engine/trace/trace_diff.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/trace/chrome_trace.h"
#include "engine/trace/profile_model.h"
#include "engine/trace/real_traces.h"

namespace asyncscope::trace {
namespace {

struct Opened {
  OpenedTrace t;
  RunInsight insight;
  explicit Opened(const std::string& path) : t(open_trace(path)) { insight.update(t.model, true); }
  TraceSide side() const { return {&t.model, &insight, t.figures.get()}; }
};

const DiffRow* row(const TraceDiff& d, const std::string& what) {
  for (const DiffRow& r : d.summary) {
    if (r.what == what) return &r;
  }
  return nullptr;
}

TEST(TraceDiff, TwoProfilersTracesCompareTheirFiguresAndOps) {
  ASYNCSCOPE_REAL_TRACE(a_path, "event_sync.json.gz");
  ASYNCSCOPE_REAL_TRACE(b_path, "event_sync_multi_stream.json.gz");
  const Opened a(a_path), b(b_path);
  const TraceDiff d = diff_traces(a.side(), b.side());
  const DiffRow* launches = row(d, "launches");
  ASSERT_NE(launches, nullptr);
  EXPECT_EQ(launches->a_value, 5);
  EXPECT_EQ(launches->b_value, 6);
  ASSERT_TRUE(launches->factor);
  EXPECT_DOUBLE_EQ(*launches->factor, 1.2);
  const DiffRow* queue = row(d, "longest launch queue");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->b_value, 2);
  // Per op name: the counts are each trace's own.
  for (const OpDelta& o : d.ops) {
    uint64_t in_a = 0, in_b = 0;
    for (const OpFigures& f : a.t.figures->ops) in_a += f.name == o.name && f.gpu == o.gpu ? f.count : 0;
    for (const OpFigures& f : b.t.figures->ops) in_b += f.name == o.name && f.gpu == o.gpu ? f.count : 0;
    EXPECT_EQ(o.count_a, in_a) << o.name;
    EXPECT_EQ(o.count_b, in_b) << o.name;
  }
  for (size_t i = 1; i < d.ops.size(); ++i) {
    EXPECT_GE(std::llabs(d.ops[i - 1].delta_ns()), std::llabs(d.ops[i].delta_ns()));
  }
  const nlohmann::json j = nlohmann::json::parse(diff_json(d, "a", "b"));
  EXPECT_EQ(j["summary"].size(), d.summary.size());
  EXPECT_EQ(j["ops"].size(), d.ops.size());
}

TEST(TraceDiff, OursAgainstAProfilersTraceUsesWhatBothHave) {
  ASYNCSCOPE_REAL_TRACE(b_path, "torch113_cpu_chapter.json");
  const Opened b(b_path);
  // Ours: the profiler's model exported and read back as our own trace.
  const std::string ours = std::filesystem::temp_directory_path().string() + "/asyncscope_diff_ours.json";
  write_chrome_trace(b.t.model, ours);
  const Opened a(ours);
  ASSERT_FALSE(a.t.foreign());
  const TraceDiff d = diff_traces(a.side(), b.side());
  const DiffRow* total = row(d, "total time");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->a_value, total->b_value);
  // The same spans on both sides: every op name's count and time match.
  for (const OpDelta& o : d.ops) {
    EXPECT_EQ(o.count_a, o.count_b) << o.name;
    EXPECT_EQ(o.total_a_ns, o.total_b_ns) << o.name;
  }
  std::filesystem::remove(ours);
}

}  // namespace
}  // namespace asyncscope::trace
