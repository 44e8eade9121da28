// The model's rules checked directly, on models the Chrome-trace import
// cannot build (its own bookkeeping keeps these indices right): a model that
// keeps the rules passes, and each broken index or order is named.
#include "engine/trace/model_check.h"

#include <gtest/gtest.h>

#include <string>

#include "support/gpu_trace_model.h"
#include "support/help_trace_model.h"

namespace asyncscope::trace {
namespace {

void expect_violation(const TraceModel& m, const std::string& expected) {
  const std::string why = first_violation(m);
  EXPECT_NE(why.find(expected), std::string::npos) << "expected \"" << expected << "\" in: " << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(ModelCheck, AModelThatKeepsTheRulesPasses) {
  EXPECT_EQ(first_violation(TraceModel{}), "");
  EXPECT_EQ(first_violation(asyncscope::testing::gpu_test_model()), "");
}

TEST(ModelCheck, IndicesOutOfRangeAreNamed) {
  TraceModel m = asyncscope::testing::gpu_test_model();
  m.workers[0].ops.push_back(99);
  expect_violation(m, "worker lane \"CPU worker 0\" lists op index 99 of 4");
  m = asyncscope::testing::gpu_test_model();
  m.frontends[0].syncs.push_back(5);
  expect_violation(m, "frontend \"frontend\" lists wait 5 of 1");
  m = asyncscope::testing::gpu_test_model();
  m.ops[1].launch_worker = 7;
  expect_violation(m, "op 2 names a lane or source point the trace does not have");
}

TEST(ModelCheck, AnOpListedOnALaneItHasNoSpanOnIsNamed) {
  TraceModel m = asyncscope::testing::gpu_test_model();
  m.workers[0].ops.push_back(1);  // op 2 ran on the GPU, not on CPU worker 0
  expect_violation(m, "worker lane \"CPU worker 0\" lists op 2, which has no span on it");
}

TEST(ModelCheck, TextFromTheModelIsQuoted) {
  TraceModel m = asyncscope::testing::gpu_test_model();
  m.workers[0].name = "CPU \"0\"\n";
  m.ops[3].start = m.ops[0].start;  // op 4 now starts inside op 1
  expect_violation(m, "on worker lane \"CPU \\\"0\\\"\\n\", op 4 starts at");
}

TEST(ModelCheck, HelpSpansKeepTheLaneRules) {
  using asyncscope::testing::help_test_model;
  EXPECT_EQ(first_violation(help_test_model()), "");
  TraceModel m = help_test_model();
  m.workers[1].helps[0].end = 600;  // ends before it starts
  expect_violation(m, "a help span of op 2 ends before it starts");
  m = help_test_model();
  m.workers[1].helps[0].start = 800;  // inside op 1 on the helper's own lane
  expect_violation(m, "on worker lane \"CPU worker 1\", a help span of op 2 (800 ns to 8000 ns) overlaps op 1");
  m = help_test_model();
  m.workers[0].helps.push_back(HelpSpan{1, 9000, 9100});  // its own op
  expect_violation(m, "a help span of op 2, which no other lane executed");
  m = help_test_model();
  m.workers[1].helps.push_back(HelpSpan{1, 7000, 8500});
  expect_violation(m, "starts at 7000 ns, before the span ahead of it ends at 8000 ns");
  m = help_test_model();
  m.workers[1].helps[0].op = 9;
  expect_violation(m, "worker lane \"CPU worker 1\" helps with op index 9 of 3");
}

}  // namespace
}  // namespace asyncscope::trace
