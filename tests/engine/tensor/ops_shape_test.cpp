// concat, stack and slice_axis (ops_shape.cpp): values against NumPy's
// rules on every axis, negative axes, empty parts, the errors, and the
// gradients by finite differences.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::expect_gradients_match;
using testing::GradFixture;
using testing::host_random;
using testing::run_with_timeout;
using Inputs = std::vector<NDArray>;

std::vector<float> iota(size_t n, float start) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(OpsShape, ConcatJoinsAlongEachAxis) {
  GradFixture fx;
  const NDArray a = from_host(fx.ctx, Shape{2, 3}, iota(6, 0));
  const NDArray b = from_host(fx.ctx, Shape{2, 3}, iota(6, 10));
  const NDArray ab[] = {a, b};
  EXPECT_EQ(concat(ab, 0).shape(), (Shape{4, 3}));
  EXPECT_EQ(concat(ab, 0).to_host(), (std::vector<float>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(concat(ab, 1).to_host(), (std::vector<float>{0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}));
  EXPECT_EQ(concat(ab, -1).to_host(), concat(ab, 1).to_host());
  const NDArray empty = from_host(fx.ctx, Shape{2, 0}, {});
  const NDArray with_empty[] = {a, empty, b};
  EXPECT_EQ(concat(with_empty, 1).to_host(), concat(ab, 1).to_host()) << "an empty part adds nothing";
  const NDArray bad = from_host(fx.ctx, Shape{3, 3}, iota(9, 0));
  const NDArray mismatched[] = {a, bad};
  EXPECT_THROW(concat(mismatched, 1), std::invalid_argument);
  EXPECT_THROW(concat(ab, 2), std::invalid_argument);
  EXPECT_THROW(concat(std::span<const NDArray>(), 0), std::invalid_argument);
}

TEST(OpsShape, StackMakesANewAxisAndSliceCutsOne) {
  GradFixture fx;
  const NDArray a = from_host(fx.ctx, Shape{2, 2}, iota(4, 0));
  const NDArray b = from_host(fx.ctx, Shape{2, 2}, iota(4, 4));
  const NDArray ab[] = {a, b};
  EXPECT_EQ(stack(ab, 0).shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(stack(ab, 0).to_host(), iota(8, 0));
  EXPECT_EQ(stack(ab, 2).to_host(), (std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(stack(ab, -1).to_host(), stack(ab, 2).to_host());
  const NDArray x = from_host(fx.ctx, Shape{3, 4}, iota(12, 0));
  EXPECT_EQ(slice_axis(x, 1, 1, 3).to_host(), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(slice_axis(x, 0, 2, 3).to_host(), (std::vector<float>{8, 9, 10, 11}));
  EXPECT_EQ(slice_axis(x, 0, 1, 1).shape(), (Shape{0, 4}));
  EXPECT_THROW(slice_axis(x, 1, 3, 5), std::invalid_argument);
  const NDArray other = from_host(fx.ctx, Shape{2, 3}, iota(6, 0));
  const NDArray mismatched[] = {a, other};
  EXPECT_THROW(stack(mismatched, 0), std::invalid_argument);
}

TEST(OpsShape, GradientsMatchFiniteDifferences) {
  run_with_timeout([] {
    GradFixture fx;
    const std::vector<Shape> shapes = {Shape{2, 3}, Shape{2, 1}};
    const std::vector<std::vector<float>> v = {host_random(6, 1), host_random(2, 2)};
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return concat(x, 1) * concat(x, 1); }, shapes, v);
    const std::vector<Shape> same = {Shape{2, 3}, Shape{2, 3}};
    const std::vector<std::vector<float>> w = {host_random(6, 3), host_random(6, 4)};
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return square(stack(x, 1)); }, same, w);
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return square(slice_axis(x[0], 1, 1, 3)); }, {Shape{2, 3}},
                           {host_random(6, 5)});
  });
}

}  // namespace
}  // namespace asyncscope
