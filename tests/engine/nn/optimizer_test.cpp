// SGD: the update rule, training that actually fits, and memory: after a step
// whose handles are dropped, only the parameters and their gradients stay live.
#include "engine/nn/optimizer.h"

#include <gtest/gtest.h>

#include "engine/nn/functional.h"
#include "engine/nn/layers.h"
#include "engine/nn/loss.h"
#include "nn_test_support.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using testing::NnFixture;

TEST(SGD, StepSubtractsLearningRateOverBatchTimesGradient) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Parameter w("w", {3});
    Parameter frozen("frozen", {3}, autograd::GradReq::null);
    w.initialize(fx.ctx, [](const ContextPtr& ctx, const Shape& s) { return from_host(ctx, s, {1, 2, 3}); });
    frozen.initialize(fx.ctx, init::constant(5.0f));
    SGD sgd({&w, &frozen}, 0.1f);
    {
      autograd::Record record;
      autograd::backward(autograd::multiply(autograd::add(w.data(), frozen.data()), 2.0f));  // grad 2
    }
    sgd.step(4);
    const std::vector<float> expected = {1 - 0.05f, 2 - 0.05f, 3 - 0.05f};
    EXPECT_EQ(w.data().to_host(), expected);
    EXPECT_EQ(frozen.data().to_host(), std::vector<float>(3, 5.0f));
    EXPECT_THROW(sgd.step(0), std::invalid_argument);
  });
}

TEST(SGD, StepBeforeTheParametersExistSaysWhy) {
  asyncscope::testing::run_with_timeout([] {
    Dense dense(3);
    SGD sgd(dense.parameters(), 0.1f);
    EXPECT_THROW(sgd.step(1), std::logic_error);
  });
}

// Trains `net` on batches from make_batch and returns the mean loss of the
// first and the last step.
template <class MakeBatch>
std::pair<float, float> fit(Block& net, float lr, int steps, MakeBatch make_batch) {
  L2Loss loss_fn;
  SGD trainer(net.parameters(), lr);
  NDArray first;
  NDArray last;
  for (int step = 0; step < steps; ++step) {
    auto [x, y] = make_batch();
    NDArray loss;
    {
      autograd::Record record;
      loss = loss_fn(net(x), y);
      autograd::backward(loss);
    }
    trainer.step(x.shape()[0]);
    (step == 0 ? first : last) = mean(loss);
  }
  return {first.item(), last.item()};
}

TEST(SGD, FitsALineExactly) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Dense line(1);
    line.initialize(fx.ctx);
    const auto [first, last] = fit(line, 0.5f, 200, [&] {
      NDArray x = uniform(fx.ctx, {64, 1}, -1.0f, 1.0f);
      return std::pair{x, x * 2.0f + 1.0f};  // y = 2x + 1
    });
    EXPECT_LT(last, 1e-3f * first) << "first " << first << ", last " << last;
    EXPECT_NEAR(line.weight().data().item(), 2.0f, 1e-2f);
    EXPECT_NEAR(line.bias().data().item(), 1.0f, 1e-2f);
  });
}

TEST(SGD, AReluMlpFitsARandomLinearTarget) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx(EngineKind::threaded, 2, /*seed=*/3);
    NDArray truth = normal(fx.ctx, {1, 16});
    Sequential net;
    net.add(Dense(32, Activation::relu));
    net.add(Dense(1));
    net.initialize(fx.ctx);
    const auto [first, last] = fit(net, 0.05f, 300, [&] {
      NDArray x = normal(fx.ctx, {128, 16});
      return std::pair{x, dot(x, truth, false, true) + 0.5f};
    });
    EXPECT_LT(last, 0.1f * first) << "first " << first << ", last " << last;
  });
}

int64_t parameter_and_gradient_bytes(Block& net) {
  int64_t bytes = 0;
  for (Parameter* p : net.parameters()) bytes += static_cast<int64_t>(p->data().bytes() + p->grad().bytes());
  return bytes;
}

TEST(SGD, AfterAStepOnlyParametersAndGradientsStayLive) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Sequential net;
    net.add(Dense(64, Activation::relu));
    net.add(Dense(32, Activation::relu));
    net.add(Dense(1));
    net.initialize(fx.ctx);
    L2Loss loss_fn;
    SGD trainer(net.parameters(), 0.005f);
    const int64_t batch = 128;
    for (int step = 0; step < 3; ++step) {
      {
        NDArray x = normal(fx.ctx, {batch, 48});
        NDArray y = ones(fx.ctx, {batch, 1});
        autograd::Record record;
        NDArray loss = loss_fn(net(x), y);
        autograd::backward(loss);
        trainer.step(batch);
      }
      fx.ctx->engine().wait_all();
      const int64_t expected = parameter_and_gradient_bytes(net);
      EXPECT_EQ(fx.allocator->live_bytes(), expected) << "after step " << step;
      // Three layers: (64*48 + 64 + 32*64 + 32 + 32 + 1) floats, twice.
      EXPECT_EQ(expected, 2 * 4 * (64 * 48 + 64 + 32 * 64 + 32 + 1 * 32 + 1));
    }
  });
}

}  // namespace
}  // namespace asyncscope::nn
