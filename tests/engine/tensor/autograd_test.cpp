// Autograd owned by the arrays: what gets recorded (from any op, operators
// included), backward after the recording scope, the graph's lifetime, grad_req
// semantics, head gradients, and that backward never waits for the engine.
#include "engine/tensor/autograd.h"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/core/engine.h"
#include "engine/tensor/autograd_graph.h"
#include "engine/tensor/ops.h"
#include "engine/trace/model.h"
#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"
#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::GradFixture;
using testing::run_with_timeout;

std::vector<float> values(const NDArray& a) { return a.to_host(); }

// A context whose engine traces into `recorder`.
ContextPtr traced_context(const std::shared_ptr<trace::Recorder>& recorder) {
  Context::Options o;
  o.engine.cpu_workers = 2;
  o.engine.recorder = recorder;
  return Context::create(o);
}

// The scope events the calling thread recorded from `from` on: "+name" for an
// enter, "-" for a leave.
std::vector<std::string> scope_events(trace::Recorder& recorder, size_t from) {
  std::vector<std::string> out;
  const auto& log = recorder.local().scopes;
  for (size_t i = from; i < log.size(); ++i) {
    out.push_back(log[i].enter != 0 ? "+" + std::string(trace::name_of(log[i].name)) : "-");
  }
  return out;
}

TEST(Autograd, NothingIsRecordedOutsideARecordScope) {
  run_with_timeout([] {
    GradFixture fx;
    const int64_t nodes = autograd::live_nodes();
    NDArray x = ones(fx.ctx, {3});
    x.attach_grad();
    EXPECT_FALSE(autograd::is_recording());
    NDArray y = x * 2.0f;
    EXPECT_EQ(autograd::live_nodes(), nodes);
    EXPECT_FALSE(y.requires_grad());
    EXPECT_THROW(y.backward(), std::logic_error);
    EXPECT_EQ(values(y), (std::vector<float>{2, 2, 2}));
  });
}

TEST(Autograd, OperatorsAndFunctionsAreRecordedAlikeWhenAnInputNeedsAGradient) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = from_host(fx.ctx, {3}, {1, 2, 3});
    NDArray w = from_host(fx.ctx, {3}, {4, 5, 6});
    w.attach_grad();
    NDArray c = ones(fx.ctx, {3});
    NDArray loss;
    {
      autograd::Record record;
      NDArray constant = c * 2.0f;  // no input needs a gradient: not recorded
      EXPECT_FALSE(constant.requires_grad());
      loss = sum(square(x * w + 1.0f - constant) + 2 * w + (1 - w));
      EXPECT_TRUE(loss.requires_grad());
    }
    loss.backward();
    // d/dw = 2 (x w + 1 - 2) x + 2 - 1
    const std::vector<float> xs{1, 2, 3}, ws{4, 5, 6};
    std::vector<float> want(3);
    for (size_t i = 0; i < 3; ++i) want[i] = 2 * (xs[i] * ws[i] - 1) * xs[i] + 1;
    EXPECT_EQ(values(w.grad()), want);
  });
}

TEST(Autograd, BackwardAfterTheScopeHasClosedAsInTheChaptersLoop) {
  run_with_timeout([] {
    GradFixture fx;
    ContextScope scope(fx.ctx);
    NDArray w = from_host({2, 1}, {0.5f, -1.0f});
    w.attach_grad();
    NDArray x = from_host({3, 2}, {1, 2, 3, 4, 5, 6});
    NDArray y = from_host({3}, {1, 1, 1});
    NDArray l;
    {
      autograd::Record record;
      l = square(reshape(dot(x, w), Shape{3}) - y);  // one loss per sample
    }
    EXPECT_FALSE(autograd::is_recording());
    l.backward();  // a non-scalar loss backpropagates its sum
    // residuals r = x w - y = {-2.5, -3.5, -4.5}; dL/dw = 2 x^T r
    EXPECT_EQ(values(w.grad()), (std::vector<float>{2 * (-2.5f - 10.5f - 22.5f), 2 * (-5.0f - 14.0f - 27.0f)}));
  });
}

TEST(Autograd, GradGivesTheGradientsOfLeavesAndIntermediatesAndStoresNone) {
  run_with_timeout([] {
    GradFixture fx;
    ContextScope scope(fx.ctx);
    NDArray x = from_host({3}, {1, 2, 3});
    x.attach_grad();
    NDArray unused = from_host({3}, {0, 0, 0});
    unused.attach_grad();
    NDArray h, y;
    {
      autograd::Record record;
      h = x * x;
      y = sum(h * x);  // x^3 summed: dy/dx = 3x^2, dy/dh = x
    }
    const NDArray inputs[] = {x, h, unused};
    std::vector<NDArray> g = autograd::grad(y, inputs, NDArray(), true);
    ASSERT_EQ(g.size(), 3u);
    EXPECT_EQ(values(g[0]), (std::vector<float>{3, 12, 27}));
    EXPECT_EQ(values(g[1]), (std::vector<float>{1, 2, 3}));
    EXPECT_TRUE(g[2].is_null()) << "the head does not depend on it";
    EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 0, 0})) << "grad() leaves the leaves' gradients alone";
    const NDArray just_x[] = {x};
    EXPECT_EQ(values(autograd::grad(y, just_x, from_host({}, {2.0f}))[0]), (std::vector<float>{6, 24, 54}));
    EXPECT_THROW(autograd::grad(y, just_x), std::logic_error) << "the graph went with the last grad";
    const NDArray plain[] = {from_host({1}, {1})};
    EXPECT_THROW(autograd::grad(y, plain), std::invalid_argument);
  });
}

TEST(Autograd, ASecondBackwardOnTheSameGraphIsAClearError) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = ones(fx.ctx, {2});
    x.attach_grad();
    NDArray y;
    {
      autograd::Record record;
      y = x * 3.0f + 1.0f;
    }
    y.backward();
    try {
      y.backward();
      FAIL() << "expected std::logic_error";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("already used by an earlier backward"), std::string::npos) << e.what();
    }
    // With retain_graph the graph can be walked again.
    NDArray z;
    {
      autograd::Record record;
      z = x * 5.0f;
    }
    z.backward(NDArray(), true);
    z.backward(NDArray(), true);
    EXPECT_EQ(values(x.grad()), (std::vector<float>{5, 5}));
  });
}

TEST(Autograd, TheGraphLivesAsLongAsTheArraysThatReachItAndNoLonger) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray w = ones(fx.ctx, {32, 32});
    w.attach_grad();
    fx.ctx->wait_all();
    const int64_t leaf_bytes = fx.allocator->live_bytes();
    EXPECT_EQ(leaf_bytes, 2 * 32 * 32 * 4);  // data + grad
    const int64_t nodes = autograd::live_nodes();
    NDArray out;
    {
      autograd::Record record;
      NDArray h = relu(dot(ones(fx.ctx, {16, 32}), w));
      out = sum(h * 2.0f);
    }
    EXPECT_GT(autograd::live_nodes(), nodes);
    fx.ctx->wait_all();
    EXPECT_GT(fx.allocator->live_bytes(), leaf_bytes) << "the saved activations are held by the graph";
    out = NDArray();  // the frontend lets go of the loss: the whole graph goes
    EXPECT_EQ(autograd::live_nodes(), nodes);
    fx.ctx->wait_all();
    EXPECT_EQ(fx.allocator->live_bytes(), leaf_bytes);
  });
}

TEST(Autograd, BackwardFreesTheActivationsItUsed) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray w = ones(fx.ctx, {64, 64});
    w.attach_grad();
    NDArray x = ones(fx.ctx, {64, 64});
    fx.ctx->wait_all();
    const int64_t before = fx.allocator->live_bytes();
    NDArray loss;
    {
      autograd::Record record;
      loss = sum(relu(dot(x, w)) * 3.0f);
    }
    loss.backward();
    fx.ctx->wait_all();
    // What stays: w's new gradient (its old one was replaced) and the loss.
    EXPECT_EQ(fx.allocator->live_bytes(), before + 4);
  });
}

TEST(Autograd, AChainAsLongAsATrainingRunIsFreedWithoutDeepRecursion) {
  run_with_timeout([] {
    GradFixture fx(EngineKind::naive);
    const int64_t nodes = autograd::live_nodes();
    NDArray x = ones(fx.ctx, {1});
    x.attach_grad();
    NDArray y = x;
    {
      autograd::Record record;
      for (int i = 0; i < 200000; ++i) y = y + 1.0f;
    }
    EXPECT_EQ(autograd::live_nodes(), nodes + 200000);
    y = NDArray();  // would overflow the stack if each node freed the next recursively
    EXPECT_EQ(autograd::live_nodes(), nodes);
  });
}

TEST(Autograd, GradientFunctionsTakeAnyNumberOfInputs) {
  run_with_timeout([] {
    GradFixture fx;
    std::vector<NDArray> in;
    for (int i = 0; i < 5; ++i) {
      in.push_back(full(fx.ctx, {2}, static_cast<float>(i + 1)));
      in.back().attach_grad();
    }
    in[2].attach_grad(autograd::GradReq::null);  // asked for, but not wanted
    static const trace::NameId kName = trace::intern("sum5");
    NDArray out;
    {
      autograd::Record record;
      out = in[0] + in[1] + in[2] + in[3] + in[4];  // a value to stand for the custom op's output
      NDArray custom = copy(out);
      autograd::record(kName, std::span<const NDArray>(in), custom,
                       [](const NDArray& dy, std::span<const bool> need) {
                         std::vector<NDArray> g(need.size());
                         for (size_t k = 0; k < need.size(); ++k) {
                           if (need[k]) g[k] = dy * static_cast<float>(k + 1);
                         }
                         return g;
                       });
      out = custom;
    }
    out.backward();
    EXPECT_EQ(values(in[0].grad()), (std::vector<float>{1, 1}));
    EXPECT_EQ(values(in[1].grad()), (std::vector<float>{2, 2}));
    EXPECT_THROW(in[2].grad(), std::logic_error);
    EXPECT_EQ(values(in[4].grad()), (std::vector<float>{5, 5}));
  });
}

TEST(Autograd, WriteReplacesAddAccumulatesNullSkips) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray write = ones(fx.ctx, {2}), add = ones(fx.ctx, {2}), none = ones(fx.ctx, {2});
    write.attach_grad(autograd::GradReq::write);
    add.attach_grad(autograd::GradReq::add);
    none.attach_grad(autograd::GradReq::null);
    for (int pass = 0; pass < 2; ++pass) {
      NDArray y;
      {
        autograd::Record record;
        y = write * 2.0f + add * 3.0f + none * 4.0f;
      }
      y.backward();
    }
    EXPECT_EQ(values(write.grad()), (std::vector<float>{2, 2}));
    EXPECT_EQ(values(add.grad()), (std::vector<float>{6, 6}));
    EXPECT_THROW(none.grad(), std::logic_error);
    add.attach_grad(autograd::GradReq::add);  // fresh zeros
    EXPECT_EQ(values(add.grad()), (std::vector<float>{0, 0}));
  });
}

TEST(Autograd, ALeafUsedTwiceGetsTheSumOfBothPaths) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = from_host(fx.ctx, {2}, {1, 2});
    x.attach_grad();
    NDArray y;
    {
      autograd::Record record;
      y = x * x;
    }
    y.backward();
    EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 4}));
  });
}

TEST(Autograd, PassThroughGradientsAreNeverSharedBetweenArrays) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray a = ones(fx.ctx, {2}), b = ones(fx.ctx, {2});
    a.attach_grad();
    b.attach_grad();
    NDArray head = from_host(fx.ctx, {2}, {5, 7});
    NDArray y;
    {
      autograd::Record record;
      y = a + b;  // both gradients are `head` itself
    }
    y.backward(head);
    EXPECT_NE(a.grad().chunk(), head.chunk());
    EXPECT_NE(b.grad().chunk(), head.chunk());
    EXPECT_NE(a.grad().chunk(), b.grad().chunk());
    NDArray before = a.grad();
    a.attach_grad(autograd::GradReq::add);
    NDArray z;
    {
      autograd::Record record;
      z = a * 1.0f;
    }
    z.backward();
    EXPECT_EQ(values(a.grad()), (std::vector<float>{1, 1}));
    EXPECT_EQ(values(b.grad()), (std::vector<float>{5, 7}));
    EXPECT_EQ(values(before), (std::vector<float>{5, 7}));
    EXPECT_EQ(values(head), (std::vector<float>{5, 7}));
  });
}

TEST(Autograd, BackwardChecksItsArgumentsBeforePushingAnything) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = ones(fx.ctx, {2});
    x.attach_grad();
    NDArray y;
    {
      autograd::Record record;
      y = x * 2.0f;
    }
    NDArray plain = ones(fx.ctx, {2});
    NDArray wrong = ones(fx.ctx, {3});
    const uint64_t pushed = fx.ctx->engine().stats().pushed;
    EXPECT_THROW(plain.backward(), std::logic_error);  // not recorded
    EXPECT_THROW(y.backward(wrong), std::invalid_argument);
    EXPECT_EQ(fx.ctx->engine().stats().pushed, pushed) << "nothing was pushed";
    y.backward();  // still usable
    EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 2}));
  });
}

TEST(Autograd, InPlaceUpdatesOfRecordedArraysAreRefusedWhileRecording) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray w = ones(fx.ctx, {2});
    w.attach_grad();
    NDArray plain = ones(fx.ctx, {2});
    {
      autograd::Record record;
      EXPECT_THROW(w += plain, std::logic_error);
      EXPECT_THROW(w *= 2.0f, std::logic_error);
      EXPECT_THROW(plain += w, std::logic_error);
      NDArray other = ones(fx.ctx, {2});
      other += plain;  // nothing here needs a gradient
    }
    w += plain;  // outside recording: the trainer's update
    EXPECT_EQ(values(w), (std::vector<float>{2, 2}));
  });
}

TEST(Autograd, PauseStopsRecordingInsideARecordScope) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = ones(fx.ctx, {2});
    x.attach_grad();
    autograd::Record record;
    NDArray y = x * 2.0f;
    {
      autograd::Pause pause;
      EXPECT_FALSE(autograd::is_recording());
      EXPECT_FALSE((x * 3.0f).requires_grad());
    }
    EXPECT_TRUE(autograd::is_recording());
    EXPECT_TRUE(y.requires_grad());
  });
}

TEST(Autograd, AttachGradMakesALeafAndForgetsWhatComputedIt) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = ones(fx.ctx, {2});
    x.attach_grad();
    NDArray y;
    {
      autograd::Record record;
      y = x * 2.0f;
    }
    y.attach_grad();
    NDArray z;
    {
      autograd::Record record;
      z = y * 3.0f;
    }
    z.backward();
    EXPECT_EQ(values(y.grad()), (std::vector<float>{3, 3}));
    EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 0})) << "the graph stopped at the new leaf";
  });
}

TEST(Autograd, RecordBackwardAndUpdateNeverWaitForTheEngine) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray w = ones(fx.ctx, {64, 64});
    w.attach_grad();
    NDArray x = ones(fx.ctx, {8, 64});
    // A gate op that writes x and blocks until released: every op below
    // depends on it, so any wait on the frontend would hang right here.
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    fx.ctx->engine().push([opened](const RunContext&) { opened.wait(); }, {}, {x.var()}, OpMeta("gate"));
    NDArray loss;
    {
      autograd::Record record;
      loss = sum(square(dot(x, w, false, true)), 1);
    }
    loss.backward();
    NDArray wd = w;
    wd.add_scaled(w.grad(), -1e-3f);
    EXPECT_GT(fx.ctx->engine().stats().pending, 5u);  // everything is still queued
    gate.set_value();
    // d/dw sum((x w^T)^2) = 2 (x w^T)^T x = 2 * 8 * 64 for all-ones: 1024 per entry.
    EXPECT_FLOAT_EQ(w.grad().to_host()[0], 1024.0f);
    EXPECT_FLOAT_EQ(w.to_host()[0], 1.0f - 1.024f);
  });
}

TEST(Autograd, GradientOpsArePushedInTheScopesTheirOpsWereRecordedIn) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    ContextPtr ctx = traced_context(recorder);
    NDArray x = from_host(ctx, {3}, {1, 2, 3});
    x.attach_grad();
    NDArray y, z;
    {
      autograd::Record record;
      const trace::TraceScope model(recorder.get(), trace::intern("model"));
      {
        const trace::TraceScope first(recorder.get(), trace::intern("first"));
        y = x * 2.0f;
      }
      {
        const trace::TraceScope second(recorder.get(), trace::intern("second"));
        z = y * 3.0f;
      }
    }
    const size_t before = recorder->local().scopes.size();
    z.backward(from_host(ctx, {3}, {1, 1, 1}));
    // Backward's scope, then the layers' in reverse order: "model" is entered
    // once, as the forward entered it once for both layers; all left at the end.
    EXPECT_EQ(scope_events(*recorder, before),
              (std::vector<std::string>{"+backward", "+model", "+second", "-", "+first", "-", "-", "-"}));
    EXPECT_EQ(recorder->scope_path(), nullptr);
    EXPECT_EQ(values(x.grad()), (std::vector<float>{6, 6, 6}));

    const trace::TraceModel model = trace::snapshot(*recorder);
    std::set<std::string> mul_scopes;
    for (const trace::OpInfo& op : model.ops) {
      if (op.known() && !op.internal && model.op_name(op) == "mul_scalar") mul_scopes.insert(std::string(model.scope_text(op.scope)));
    }
    EXPECT_EQ(mul_scopes, (std::set<std::string>{"model > first", "model > second", "backward > model > second",
                                                 "backward > model > first"}));
  });
}

TEST(Autograd, GradIsAScopeOfItsOwnAndAFailedBackwardLeavesWhatItEntered) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    ContextPtr ctx = traced_context(recorder);
    NDArray x = from_host(ctx, {2}, {1, 2});
    x.attach_grad();
    NDArray y, bad;
    {
      autograd::Record record;
      const trace::TraceScope layer(recorder.get(), trace::intern("layer"));
      y = x * x;
      bad = x + 1.0f;
      autograd::record(trace::intern("broken"), {&x}, bad, [](const NDArray&, std::span<const bool>) -> std::vector<NDArray> {
        throw std::runtime_error("this gradient fails");
      });
    }
    size_t before = recorder->local().scopes.size();
    const std::vector<NDArray> g = autograd::grad(y, std::vector<NDArray>{x});
    EXPECT_EQ(scope_events(*recorder, before), (std::vector<std::string>{"+grad", "+layer", "-", "-"}));
    EXPECT_EQ(values(g[0]), (std::vector<float>{2, 4}));

    before = recorder->local().scopes.size();
    EXPECT_THROW(bad.backward(), std::runtime_error);
    EXPECT_EQ(scope_events(*recorder, before), (std::vector<std::string>{"+backward", "+layer", "-", "-"}));
    EXPECT_EQ(recorder->scope_path(), nullptr);
  });
}

}  // namespace
}  // namespace asyncscope
