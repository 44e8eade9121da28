#include "engine/core/inline_function.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>

namespace asyncscope {
namespace {

using Fn = InlineFunction<int(int), 32>;

TEST(InlineFunction, CallsSmallAndLargeCallables) {
  Fn small = [k = 3](int x) { return x * k; };
  EXPECT_EQ(small(4), 12);
  std::array<int, 64> big{};
  big[63] = 5;
  Fn large = [big](int x) { return x + big[63]; };  // larger than the buffer: stored on the heap
  EXPECT_EQ(large(1), 6);
}

TEST(InlineFunction, MovesAndDestroysCapturesExactlyOnce) {
  auto counter = std::make_shared<int>(0);
  {
    Fn f = [counter](int x) { return x + *counter; };
    EXPECT_EQ(counter.use_count(), 2);
    Fn g = std::move(f);
    EXPECT_FALSE(static_cast<bool>(f));  // NOLINT(bugprone-use-after-move): documented state
    EXPECT_EQ(counter.use_count(), 2);
    Fn h;
    h = std::move(g);
    EXPECT_EQ(h(1), 1);
    h.reset();
    EXPECT_EQ(counter.use_count(), 1);
  }
  EXPECT_EQ(counter.use_count(), 1);
}

TEST(InlineFunction, MoveOnlyCapturesWork) {
  auto p = std::make_unique<int>(9);
  Fn f = [p = std::move(p)](int x) { return x + *p; };
  Fn g = std::move(f);
  EXPECT_EQ(g(1), 10);
}

}  // namespace
}  // namespace asyncscope
