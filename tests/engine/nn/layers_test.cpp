// Dense and Sequential: output shapes, deferred initialisation, the values a
// Dense computes, parameter naming, and identical results on every engine.
#include "engine/nn/layers.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "engine/nn/loss.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "engine/nn/optimizer.h"
#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using Fixture = asyncscope::testing::GradFixture;

TEST(Dense, InfersItsInputSizeAtTheFirstForward) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Dense dense(5, Activation::relu);
    dense.initialize(init::uniform(), fx.ctx);
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
    // More than two dimensions: flattened to {batch, rest}, as Gluon's Dense does.
    EXPECT_EQ(dense(ones(fx.ctx, {3, 1, 7})).shape(), (Shape{3, 5}));
  });
}

TEST(Dense, KnownInputSizeInitializesAtOnce) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Dense dense(4, Activation::none, /*use_bias=*/false, /*in_units=*/3);
    dense.initialize(init::uniform(), fx.ctx);
    EXPECT_TRUE(dense.weight().is_initialized());
    EXPECT_EQ(dense.collect_params().size(), 1u);
  });
}

TEST(Dense, ComputesActivationOfXWTransposedPlusB) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Dense dense(2, Activation::relu, true, 3);
    dense.initialize([](const ContextPtr& ctx, const Shape& shape) {
      return from_host(ctx, shape, {1, 2, 3, -1, -2, -3});  // rows are output units
    }, fx.ctx);
    NDArray y = dense(from_host(fx.ctx, {2, 3}, {1, 1, 1, 1, 0, -1}));
    // Bias zeros: row 0 -> [6, -6] -> relu [6, 0]; row 1 -> [-2, 2] -> [0, 2].
    EXPECT_EQ(y.to_host(), (std::vector<float>{6, 0, 0, 2}));
  });
}

TEST(Dense, TheDefaultInitializerIsUniformInPlusMinus0_07WithZeroBiases) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Dense dense(64, Activation::none, true, 32);
    dense.initialize();
    float largest = 0.0f;
    for (float w : dense.weight().data().to_host()) largest = std::max(largest, std::abs(w));
    EXPECT_LE(largest, 0.07f);
    EXPECT_GT(largest, 0.9f * 0.07f);  // 2048 draws fill the interval
    EXPECT_EQ(dense.bias().data().to_host(), std::vector<float>(64, 0.0f));
  });
}

TEST(Dense, XavierUniformStaysWithinGlorotBounds) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Dense dense(64, Activation::none, true, 32);
    dense.initialize(init::xavier_uniform(), fx.ctx);
    const float bound = std::sqrt(6.0f / (64 + 32));
    float largest = 0.0f;
    for (float w : dense.weight().data().to_host()) largest = std::max(largest, std::abs(w));
    EXPECT_LE(largest, bound);
    EXPECT_GT(largest, 0.9f * bound);  // 2048 draws fill the interval
  });
}

TEST(Sequential, ChainsBlocksAndNamesParametersLikeGluon) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Sequential net;
    {
      auto names = net.name_scope();
      net.add(Dense(8, Activation::relu), ReLU(), Dense(1));
    }
    net.initialize();
    EXPECT_EQ(net.size(), 3u);
    NDArray y = net(ones({4, 6}));
    EXPECT_EQ(y.shape(), (Shape{4, 1}));
    const ParameterDict params = net.collect_params();
    EXPECT_EQ(params.keys(), (std::vector<std::string>{"sequential0_dense0_weight", "sequential0_dense0_bias",
                                                       "sequential0_dense1_weight", "sequential0_dense1_bias"}));
    EXPECT_EQ(params["sequential0_dense1_weight"].data().shape(), (Shape{1, 8}));
    // Outside a name scope, blocks count from 0 per kind at the root.
    Dense a(2), b(3);
    EXPECT_EQ(a.prefix(), "dense0_");
    EXPECT_EQ(b.collect_params().keys(), (std::vector<std::string>{"dense1_weight", "dense1_bias"}));
    EXPECT_THROW(activation_from_name("tanh"), std::invalid_argument);
    EXPECT_EQ(activation_from_name("relu"), Activation::relu);
  });
}

// A block's call pushes its ops in its scope on the trace, nested in its
// parents', so the memory they hold is named after the layer; the scopes
// survive the export and its import.
// A context tracing into a recorder of its own, current on this thread, and
// a two-layer network made in its name scope (sequential0 > dense0, dense1).
struct TracedMlp {
  static ContextPtr traced(const std::shared_ptr<trace::Recorder>& recorder) {
    Context::Options options;
    options.engine.cpu_workers = 2;
    options.engine.recorder = recorder;
    return Context::create(options);
  }
  TracedMlp() {
    {
      auto names = net.name_scope();
      net.add(Dense(64, Activation::relu), Dense(1));
    }
    net.initialize();
  }
  std::shared_ptr<trace::Recorder> recorder = std::make_shared<trace::Recorder>();
  ContextPtr ctx = traced(recorder);
  ContextScope scope{ctx};
  Sequential net;
};

TEST(Sequential, ItsLayersOpsArePushedInTheLayersScopes) {
  asyncscope::testing::run_with_timeout([] {
    TracedMlp mlp;
    NDArray x = ones({256, 32});  // outside any scope
    NDArray y = mlp.net(x);
    // Every op, the frees of the intermediates included: the attribution
    // reads ops in push order and stops at the first that has not run, and
    // the run is read as complete below.
    mlp.ctx->wait_all();
    const trace::TraceModel model = trace::snapshot(*mlp.recorder);
    std::map<std::string, std::set<std::string>> scopes_of;  // op name -> scopes it was pushed in
    for (const trace::OpInfo& op : model.ops) {
      if (op.known() && !op.internal) scopes_of[std::string(model.op_name(op))].insert(std::string(model.scope_text(op.scope)));
    }
    EXPECT_EQ(scopes_of["ones"], (std::set<std::string>{""}));
    ASSERT_FALSE(scopes_of["dot"].empty());
    EXPECT_EQ(scopes_of["dot"], (std::set<std::string>{"sequential0 > dense0", "sequential0 > dense1"}));

    trace::RunInsight insight;
    insight.update(model, true);
    const trace::HolderTable peak = insight.peak_holders(model);
    bool named = false;
    for (const trace::Holder& h : peak.rows) {
      if (h.scope == "sequential0 > dense0") {
        named = true;
        EXPECT_EQ(trace::holder_label(h), h.op + " in dense0");
      }
    }
    EXPECT_TRUE(named) << "no holder is named after the first layer";

    const trace::TraceModel back = trace::parse_chrome_trace(trace::to_chrome_trace_json(model));
    ASSERT_EQ(back.ops.size(), model.ops.size());
    for (size_t i = 0; i < model.ops.size(); ++i) {
      EXPECT_EQ(back.scope_text(back.ops[i].scope), model.scope_text(model.ops[i].scope)) << "op " << i;
    }
    EXPECT_EQ(back.scopes, model.scopes);
  });
}

TEST(Sequential, BackwardPushesEachLayersGradientInThatLayersScope) {
  asyncscope::testing::run_with_timeout([] {
    TracedMlp mlp;
    L2Loss loss_fn;
    NDArray x = ones({256, 32});
    NDArray label = zeros({256, 1});
    NDArray loss;
    {
      autograd::Record record;
      loss = loss_fn(mlp.net(x), label);
    }
    loss.backward();
    NDArray after = ones({2});  // back outside every scope
    mlp.ctx->wait_all();

    const trace::TraceModel model = trace::snapshot(*mlp.recorder);
    std::map<std::string, std::set<std::string>> scopes_of;  // op name -> scopes it was pushed in
    std::set<std::string> backward_scopes;
    for (const trace::OpInfo& op : model.ops) {
      if (!op.known() || op.internal) continue;
      const std::string where(model.scope_text(op.scope));
      scopes_of[std::string(model.op_name(op))].insert(where);
      if (where.starts_with("backward")) backward_scopes.insert(where);
    }
    // The gradients of the layers' products are pushed in their layers, inside
    // backward; the forward's stay where they were.
    EXPECT_EQ(scopes_of["dot"], (std::set<std::string>{"sequential0 > dense0", "sequential0 > dense1",
                                                       "backward > sequential0 > dense0",
                                                       "backward > sequential0 > dense1"}));
    EXPECT_EQ(backward_scopes, (std::set<std::string>{"backward", "backward > L2Loss", "backward > sequential0 > dense0",
                                                      "backward > sequential0 > dense1"}));
    EXPECT_TRUE(scopes_of["ones"].contains("backward")) << "the head gradient is pushed in backward's own scope";
    EXPECT_TRUE(scopes_of["ones"].contains("")) << "what follows backward is in no scope again";

    const trace::TraceModel back = trace::parse_chrome_trace(trace::to_chrome_trace_json(model));
    EXPECT_EQ(back.scopes, model.scopes);
  });
}

// The demo's network at a small scale: a few SGD steps, then every parameter
// and the loss of each step as host values.
struct RunResult {
  std::vector<std::vector<float>> params;
  std::vector<float> losses;
};

RunResult train_small_mlp(EngineKind kind, int workers) {
  Fixture fx(kind, workers, /*seed=*/2024);
  ContextScope scope(fx.ctx);
  Sequential net;
  net.add(Dense(32, Activation::relu), Dense(16, Activation::relu), Dense(1));
  net.initialize();
  L2Loss loss_fn;
  // Before the first forward: the parameters exist, their data comes later.
  Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", 0.05}});
  const int64_t batch = 64;
  NDArray target = ones({batch, 1});
  RunResult result;
  std::vector<NDArray> losses;
  for (int step = 0; step < 4; ++step) {
    NDArray x = normal({batch, 24});
    NDArray loss;
    {
      autograd::Record record;
      loss = loss_fn(net(x), target);
    }
    loss.backward();
    losses.push_back(mean(loss));
    trainer.step(batch);
  }
  for (const NDArray& l : losses) result.losses.push_back(l.item());
  for (Parameter* p : net.collect_params()) result.params.push_back(p->data().to_host());
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
