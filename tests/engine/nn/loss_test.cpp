// L2Loss: values and shapes per sample, label shapes, and its gradient.
#include "engine/nn/loss.h"

#include <gtest/gtest.h>

#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using asyncscope::testing::host_random;
using Fixture = asyncscope::testing::GradFixture;

TEST(L2Loss, HalfSquaredErrorPerSample) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    L2Loss loss;
    NDArray pred = from_host(fx.ctx, {3, 1}, {1, 2, 4});
    NDArray column = loss(pred, from_host(fx.ctx, {3, 1}, {1, 0, 1}));
    EXPECT_EQ(column.shape(), (Shape{3}));
    EXPECT_EQ(column.to_host(), (std::vector<float>{0, 2, 4.5f}));
    // A {batch} label for a {batch, 1} prediction, and the 1-D forms.
    EXPECT_EQ(loss(pred, from_host(fx.ctx, {3}, {1, 0, 1})).to_host(), (std::vector<float>{0, 2, 4.5f}));
    NDArray flat = from_host(fx.ctx, {3}, {1, 2, 4});
    EXPECT_EQ(loss(flat, from_host(fx.ctx, {3}, {1, 0, 1})).to_host(), (std::vector<float>{0, 2, 4.5f}));
    EXPECT_EQ(loss(flat, from_host(fx.ctx, {3, 1}, {1, 0, 1})).to_host(), (std::vector<float>{0, 2, 4.5f}));
  });
}

TEST(L2Loss, AveragesOverOutputsAndAppliesItsWeight) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    NDArray pred = from_host(fx.ctx, {2, 2}, {1, 3, 0, 0});
    NDArray label = zeros(fx.ctx, {2, 2});
    EXPECT_EQ(L2Loss()(pred, label).to_host(), (std::vector<float>{2.5f, 0}));  // (1 + 9) / 2 / 2
    EXPECT_EQ(L2Loss(2.0f)(pred, label).to_host(), (std::vector<float>{5, 0}));
    EXPECT_THROW(L2Loss()(pred, zeros(fx.ctx, {3})), std::invalid_argument);
  });
}

TEST(L2Loss, MeansOverEveryAxisButTheBatchAxis) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    NDArray pred = from_host(fx.ctx, {2, 2, 2}, {2, 2, 2, 2, 0, 0, 0, 4});
    NDArray loss = L2Loss()(pred, zeros(fx.ctx, {2, 2, 2}));
    EXPECT_EQ(loss.shape(), (Shape{2}));
    EXPECT_EQ(loss.to_host(), (std::vector<float>{2, 2}));  // (4 * 4 / 2) / 4, (16 / 2) / 4
    // The chapter calls loss(y, net(X)): the label (the net's {batch, 1} output) is viewed as {batch}.
    NDArray y = ones(fx.ctx, {3});
    EXPECT_EQ(L2Loss()(y, from_host(fx.ctx, {3, 1}, {1, 3, -1})).to_host(), (std::vector<float>{0, 2, 2}));
  });
}

TEST(L2Loss, GradientMatchesFiniteDifferences) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    const L2Loss loss(1.5f);
    const std::pair<Shape, Shape> cases[] = {
        {{4, 1}, {4, 1}}, {{4, 1}, {4}}, {{4}, {4, 1}}, {{4, 3}, {4, 3}}, {{2, 3, 2}, {2, 6}}};
    for (const auto& [pred, label] : cases) {
      SCOPED_TRACE(pred.to_string() + " vs label " + label.to_string());
      // Both get gradients, so the label's gradient is checked too.
      asyncscope::testing::expect_gradients_match(
          fx.ctx, [&loss](const std::vector<NDArray>& x) { return loss(x[0], x[1]); }, {pred, label},
          {host_random(pred.size(), 1), host_random(label.size(), 2)});
    }
  });
}

}  // namespace
}  // namespace asyncscope::nn
