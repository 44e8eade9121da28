// The complete program of docs/FRONTEND.md, compiled from the page itself
// (tests/CMakeLists.txt extracts it; main is renamed here) and run: what it
// prints shows the calls returned before the product finished and that the
// chapter-style training loop (record scope, backward after it, trainer
// step) trains.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "support/timeout.h"

#define main frontend_example_main
#include "frontend_example.inc"
#undef main

namespace asyncscope {
namespace {

TEST(FrontendExample, TheDocumentedProgramRunsAndTrains) {
  ::testing::internal::CaptureStdout();
  int code = -1;
  testing::run_with_timeout([&code] { code = frontend_example_main(); });
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  double queued = 0, finished = 0, total = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "queued after %lf s, finished after %lf s, sum = %lf", &queued, &finished, &total),
            3)
      << out;
  EXPECT_LT(queued, finished);
  EXPECT_NEAR(total, 500.0 * 500.0 * 500.0 / 4.0, 0.05 * 500.0 * 500.0 * 500.0 / 4.0);  // E[x] = 1/2
  float first = 0, last = 0;
  const size_t a = out.find("batch 0, loss ");
  const size_t b = out.find("batch 59, loss ");
  ASSERT_NE(a, std::string::npos) << out;
  ASSERT_NE(b, std::string::npos) << out;
  ASSERT_EQ(std::sscanf(out.c_str() + a, "batch 0, loss %f", &first), 1);
  ASSERT_EQ(std::sscanf(out.c_str() + b, "batch 59, loss %f", &last), 1);
  EXPECT_LT(last, 0.5f * first) << out;
}

}  // namespace
}  // namespace asyncscope
