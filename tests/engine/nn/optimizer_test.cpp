// Trainer: made from a name and options as Gluon's, the SGD update rule (with
// momentum and weight decay) and Adam's, training that actually fits, and memory: after
// a step whose handles are dropped, only the parameters and their gradients
// stay live.
#include "engine/nn/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "engine/nn/layers.h"
#include "engine/nn/loss.h"
#include "engine/trace/model.h"
#include "engine/trace_record/recorder.h"
#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using Fixture = asyncscope::testing::GradFixture;
using asyncscope::testing::run_with_timeout;

ParameterDict dict_of(std::initializer_list<Parameter*> params) {
  ParameterDict d;
  for (Parameter* p : params) d.add(p);
  return d;
}

// Backward of sum((w + frozen) * 2): every entry of w's gradient is 2.
void gradient_of_two(Parameter& w, Parameter& frozen) {
  NDArray loss;
  {
    autograd::Record record;
    loss = sum((w.data() + frozen.data()) * 2.0f);
  }
  loss.backward();
}

TEST(Trainer, SgdStepSubtractsLearningRateOverBatchTimesGradient) {
  run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Parameter w("w", {3});
    Parameter frozen("frozen", {3}, autograd::GradReq::null);
    w.initialize([](const ContextPtr& ctx, const Shape& s) { return from_host(ctx, s, {1, 2, 3}); });
    frozen.initialize(init::constant(5.0f));
    Trainer trainer(dict_of({&w, &frozen}), "sgd", {{"learning_rate", 0.1}});
    gradient_of_two(w, frozen);
    trainer.step(4);
    const std::vector<float> expected = {1 - 0.05f, 2 - 0.05f, 3 - 0.05f};
    EXPECT_EQ(w.data().to_host(), expected);
    EXPECT_EQ(frozen.data().to_host(), std::vector<float>(3, 5.0f));
    EXPECT_THROW(trainer.step(0), std::invalid_argument);
  });
}

TEST(Trainer, MomentumAndWeightDecayFollowMxnetsSgd) {
  run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Parameter w("w", {1});
    Parameter frozen("frozen", {1}, autograd::GradReq::null);
    w.initialize(init::constant(1.0f));
    frozen.initialize(init::zeros());
    Trainer trainer(dict_of({&w, &frozen}), "sgd", {{"learning_rate", 0.5}, {"momentum", 0.9}, {"wd", 0.1}});
    // m = 0.9 m - lr (g / batch + wd w); w += m, with g = 2 and batch 2.
    double m = 0, wv = 1;
    for (int step = 0; step < 3; ++step) {
      gradient_of_two(w, frozen);
      trainer.step(2);
      m = 0.9 * m - 0.5 * (2.0 / 2 + 0.1 * wv);
      wv += m;
      EXPECT_NEAR(w.data().item(), wv, 1e-6) << "step " << step;
    }
  });
}

TEST(Trainer, AdamFollowsMxnetsUpdateWithBiasCorrection) {
  run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Parameter w("w", {1});
    Parameter frozen("frozen", {1}, autograd::GradReq::null);
    w.initialize(init::constant(1.0f));
    frozen.initialize(init::zeros());
    Trainer trainer(dict_of({&w, &frozen}), "adam", {{"learning_rate", 0.1}, {"wd", 0.01}});
    // g = 2 / batch + wd w; m, v running moments; w -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps).
    double m = 0, v = 0, wv = 1;
    for (int t = 1; t <= 4; ++t) {
      gradient_of_two(w, frozen);
      trainer.step(2);
      const double g = 2.0 / 2 + 0.01 * wv;
      m = 0.9 * m + 0.1 * g;
      v = 0.999 * v + 0.001 * g * g;
      wv -= 0.1 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t)) * m / (std::sqrt(v) + 1e-8);
      EXPECT_NEAR(w.data().item(), wv, 1e-5) << "step " << t;
    }
    EXPECT_EQ(frozen.data().item(), 0.0f);
  });
}

// A step's ops go in a scope named after the optimizer: the state it
// allocates (momentum, Adam's moments) is named so among the memory holders.
TEST(Trainer, ItsStepIsPushedInAScopeNamedAfterTheOptimizer) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    Context::Options options;
    options.engine.cpu_workers = 2;
    options.engine.recorder = recorder;
    ContextScope scope(Context::create(options));
    Parameter w("w", {3});
    Parameter frozen("frozen", {3}, autograd::GradReq::null);
    w.initialize(init::constant(1.0f));
    frozen.initialize(init::zeros());
    Trainer sgd(dict_of({&w, &frozen}), "sgd", {{"learning_rate", 0.1}, {"momentum", 0.9}});
    Trainer adam(dict_of({&w, &frozen}), "adam", {{"learning_rate", 0.1}});
    gradient_of_two(w, frozen);
    sgd.step(1);
    adam.step(1);
    w.data().wait_to_read();
    const trace::TraceModel model = trace::snapshot(*recorder);
    std::map<std::string, std::set<std::string>> ops_in;  // scope -> op names pushed in it
    for (const trace::OpInfo& op : model.ops) {
      if (op.known() && !op.internal) ops_in[std::string(model.scope_text(op.scope))].insert(std::string(model.op_name(op)));
    }
    EXPECT_TRUE(ops_in["Trainer.step (sgd)"].contains("zeros")) << "the momentum buffer is the step's";
    EXPECT_TRUE(ops_in["Trainer.step (adam)"].contains("zeros")) << "so are Adam's moments";
    EXPECT_FALSE(ops_in["Trainer.step (adam)"].contains("ones")) << "backward's head gradient is not";
    EXPECT_EQ(recorder->scope_path(), nullptr) << "both scopes were left";
  });
}

TEST(Trainer, UnknownOptimizersAndOptionsAreRefusedWithWhatIsKnown) {
  run_with_timeout([] {
    const auto message = [](std::string_view name, const Trainer::Options& options) {
      try {
        Trainer(ParameterDict(), name, options);
      } catch (const std::invalid_argument& e) {
        return std::string(e.what());
      }
      return std::string("accepted");
    };
    EXPECT_NE(message("rmsprop", {}).find("supported: sgd, adam"), std::string::npos);
    EXPECT_NE(message("adam", {{"momentum", 0.9}}).find("known: learning_rate, beta1, beta2, epsilon, wd"),
              std::string::npos);
    EXPECT_NE(message("adam", {{"beta1", 1.0}}).find("below 1"), std::string::npos);
    EXPECT_FLOAT_EQ(Trainer(ParameterDict(), "adam").learning_rate(), 0.001f);
    EXPECT_NE(message("sgd", {{"learning_rat", 0.1}}).find("known: learning_rate, momentum, wd"), std::string::npos);
    EXPECT_NE(message("sgd", {{"learning_rate", -1}}).find("learning_rate must be"), std::string::npos);
    EXPECT_EQ(message("sgd", {{"learning_rate", 0.005}}), "accepted");
    EXPECT_FLOAT_EQ(Trainer(ParameterDict(), "sgd").learning_rate(), 0.01f);
  });
}

TEST(Trainer, StepBeforeTheParametersExistSaysWhy) {
  run_with_timeout([] {
    Dense dense(3);
    Trainer trainer(dense.collect_params(), "sgd", {{"learning_rate", 0.1}});
    EXPECT_THROW(trainer.step(1), std::logic_error);
  });
}

// Trains `net` on batches from make_batch and returns the mean loss of the
// first and the last step.
template <class MakeBatch>
std::pair<float, float> fit(Block& net, double lr, int steps, MakeBatch make_batch) {
  L2Loss loss_fn;
  Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", lr}});
  NDArray first;
  NDArray last;
  for (int step = 0; step < steps; ++step) {
    auto [x, y] = make_batch();
    NDArray loss;
    {
      autograd::Record record;
      loss = loss_fn(net(x), y);
    }
    loss.backward();
    trainer.step(x.shape()[0]);
    (step == 0 ? first : last) = mean(loss);
  }
  return {first.item(), last.item()};
}

TEST(Trainer, FitsALineExactly) {
  run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Dense line(1);
    line.initialize();
    const auto [first, last] = fit(line, 0.5, 200, [] {
      NDArray x = uniform({64, 1}, -1.0f, 1.0f);
      return std::pair{x, x * 2.0f + 1.0f};  // y = 2x + 1
    });
    EXPECT_LT(last, 1e-3f * first) << "first " << first << ", last " << last;
    EXPECT_NEAR(line.weight().data().item(), 2.0f, 1e-2f);
    EXPECT_NEAR(line.bias().data().item(), 1.0f, 1e-2f);
  });
}

TEST(Trainer, AReluMlpFitsARandomLinearTarget) {
  run_with_timeout([] {
    Fixture fx(EngineKind::threaded, 2, /*seed=*/3);
    ContextScope scope(fx.ctx);
    NDArray truth = normal({1, 16});
    Sequential net;
    net.add(Dense(32, Activation::relu), Dense(1));
    net.initialize(init::xavier_uniform());
    const auto [first, last] = fit(net, 0.05, 300, [&truth] {
      NDArray x = normal({128, 16});
      return std::pair{x, dot(x, truth, false, true) + 0.5f};
    });
    EXPECT_LT(last, 0.1f * first) << "first " << first << ", last " << last;
  });
}

TEST(Trainer, AfterAStepOnlyParametersAndGradientsStayLive) {
  run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Sequential net;
    net.add(Dense(64, Activation::relu), Dense(32, Activation::relu), Dense(1));
    net.initialize();
    L2Loss loss_fn;
    Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", 0.005}});
    const int64_t batch = 128;
    for (int step = 0; step < 3; ++step) {
      {
        NDArray x = normal({batch, 48});
        NDArray y = ones({batch, 1});
        NDArray loss;
        {
          autograd::Record record;
          loss = loss_fn(net(x), y);
        }
        loss.backward();
        trainer.step(batch);
      }
      wait_all();
      int64_t expected = 0;
      for (Parameter* p : net.collect_params()) {
        expected += static_cast<int64_t>(p->data().bytes() + p->grad().bytes());
      }
      EXPECT_EQ(fx.allocator->live_bytes(), expected) << "after step " << step;
      // Three layers: (64*48 + 64 + 32*64 + 32 + 32 + 1) floats, twice.
      EXPECT_EQ(expected, 2 * 4 * (64 * 48 + 64 + 32 * 64 + 32 + 1 * 32 + 1));
    }
  });
}

}  // namespace
}  // namespace asyncscope::nn
