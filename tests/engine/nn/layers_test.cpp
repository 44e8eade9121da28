// Dense and Sequential: output shapes, deferred initialisation, the values a
// Dense computes, parameter naming, and identical results on every engine.
#include "engine/nn/layers.h"

#include <gtest/gtest.h>

#include "engine/nn/loss.h"
#include "engine/nn/optimizer.h"
#include "nn_test_support.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using testing::host_random;
using testing::NnFixture;

TEST(Dense, InfersItsInputSizeAtTheFirstForward) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Dense dense(5, Activation::relu);
    dense.initialize(fx.ctx);
    EXPECT_FALSE(dense.weight().is_initialized());
    EXPECT_TRUE(dense.bias().is_initialized());  // its shape never depended on the input
    EXPECT_EQ(dense.weight().shape(), (Shape{5, 0}));
    EXPECT_THROW(dense.weight().data(), std::logic_error);

    NDArray y = dense(ones(fx.ctx, {3, 7}));
    EXPECT_EQ(y.shape(), (Shape{3, 5}));
    EXPECT_TRUE(dense.weight().is_initialized());
    EXPECT_EQ(dense.weight().data().shape(), (Shape{5, 7}));
    EXPECT_EQ(dense.weight().grad().shape(), (Shape{5, 7}));
    EXPECT_EQ(dense.bias().data().to_host(), std::vector<float>(5, 0.0f));
    EXPECT_THROW(dense(ones(fx.ctx, {3, 6})), std::invalid_argument);
    EXPECT_THROW(dense(ones(fx.ctx, {7})), std::invalid_argument);
  });
}

TEST(Dense, KnownInputSizeInitializesAtOnce) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Dense dense(4, Activation::none, /*use_bias=*/false, /*in_units=*/3);
    dense.initialize(fx.ctx);
    EXPECT_TRUE(dense.weight().is_initialized());
    EXPECT_EQ(dense.parameters().size(), 1u);
  });
}

TEST(Dense, ComputesActivationOfXWTransposedPlusB) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Dense dense(2, Activation::relu, true, 3);
    dense.initialize(fx.ctx, [](const ContextPtr& ctx, const Shape& shape) {
      return from_host(ctx, shape, {1, 2, 3, -1, -2, -3});  // rows are output units
    });
    NDArray y = dense(from_host(fx.ctx, {2, 3}, {1, 1, 1, 1, 0, -1}));
    // Bias zeros: row 0 -> [6, -6] -> relu [6, 0]; row 1 -> [-2, 2] -> [0, 2].
    EXPECT_EQ(y.to_host(), (std::vector<float>{6, 0, 0, 2}));
  });
}

TEST(Dense, XavierUniformStaysWithinGlorotBounds) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Dense dense(64, Activation::none, true, 32);
    dense.initialize(fx.ctx);
    const float bound = std::sqrt(6.0f / (64 + 32));
    float largest = 0.0f;
    for (float w : dense.weight().data().to_host()) largest = std::max(largest, std::abs(w));
    EXPECT_LE(largest, bound);
    EXPECT_GT(largest, 0.9f * bound);  // 2048 draws fill the interval
  });
}

TEST(Sequential, ChainsBlocksAndNamesParametersByPosition) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Sequential net;
    net.add(Dense(8, Activation::relu));
    net.add(ReLU());
    Dense& last = net.add(Dense(1));
    net.initialize(fx.ctx);
    EXPECT_EQ(net.size(), 3u);
    NDArray y = net(ones(fx.ctx, {4, 6}));
    EXPECT_EQ(y.shape(), (Shape{4, 1}));
    std::vector<std::string> names;
    for (Parameter* p : net.parameters()) names.push_back(p->name());
    EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
    EXPECT_EQ(last.weight().data().shape(), (Shape{1, 8}));
  });
}

// The demo's network at a small scale: a few SGD steps, then every parameter
// and the loss of each step as host values.
struct RunResult {
  std::vector<std::vector<float>> params;
  std::vector<float> losses;
};

RunResult train_small_mlp(EngineKind kind, int workers) {
  NnFixture fx(kind, workers, /*seed=*/2024);
  Sequential net;
  net.add(Dense(32, Activation::relu));
  net.add(Dense(16, Activation::relu));
  net.add(Dense(1));
  net.initialize(fx.ctx);
  L2Loss loss_fn;
  SGD trainer(net.parameters(), 0.05f);  // before the first forward: parameters exist, data comes later
  const int64_t batch = 64;
  NDArray target = ones(fx.ctx, {batch, 1});
  RunResult result;
  std::vector<NDArray> losses;
  for (int step = 0; step < 4; ++step) {
    NDArray x = normal(fx.ctx, {batch, 24});
    {
      autograd::Record record;
      NDArray loss = loss_fn(net(x), target);
      autograd::backward(loss);
      losses.push_back(mean(loss));
    }
    trainer.step(batch);
  }
  for (const NDArray& l : losses) result.losses.push_back(l.item());
  for (Parameter* p : net.parameters()) result.params.push_back(p->data().to_host());
  return result;
}

TEST(Sequential, SameSeedGivesIdenticalParametersAndLossesOnEveryEngine) {
  asyncscope::testing::run_with_timeout([] {
    const RunResult reference = train_small_mlp(EngineKind::naive, 1);
    ASSERT_EQ(reference.params.size(), 6u);
    for (const auto& [kind, workers] : {std::pair{EngineKind::threaded, 1}, std::pair{EngineKind::threaded, 4}}) {
      SCOPED_TRACE(::testing::Message() << to_string(kind) << " engine, " << workers << " workers");
      const RunResult run = train_small_mlp(kind, workers);
      EXPECT_EQ(run.losses, reference.losses);
      EXPECT_EQ(run.params, reference.params);
    }
    EXPECT_LT(reference.losses.back(), reference.losses.front());
  });
}

}  // namespace
}  // namespace asyncscope::nn
