// The model's rules checked directly, on models the Chrome-trace import
// cannot build (its own bookkeeping keeps these indices right): a model that
// keeps the rules passes, and each broken index or order is named.
#include "engine/trace/model_check.h"

#include <gtest/gtest.h>

#include <string>

#include "support/gpu_trace_model.h"

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

}  // namespace
}  // namespace asyncscope::trace
