// Parameter: deferred shapes, initializer precedence, reinitialisation, and
// initializers that depend only on the context seed.
#include "engine/nn/parameter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using Fixture = asyncscope::testing::GradFixture;

TEST(Parameter, DeferredShapeIsCreatedWhenItBecomesKnown) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Parameter p("w", {4, 0});
    EXPECT_FALSE(p.shape_known());
    p.initialize(init::constant(2.0f), fx.ctx);
    EXPECT_FALSE(p.is_initialized());
    EXPECT_THROW(p.set_shape({3, 5}), std::invalid_argument);  // the known dimension differs
    p.set_shape({4, 2});
    ASSERT_TRUE(p.is_initialized());
    EXPECT_EQ(p.data().to_host(), std::vector<float>(8, 2.0f));
    EXPECT_EQ(p.grad().to_host(), std::vector<float>(8, 0.0f));
  });
}

TEST(Parameter, SetShapeBeforeInitializeStillWorks) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Parameter p("w", {0});
    p.set_shape({3});
    EXPECT_FALSE(p.is_initialized());
    try {
      p.data();
      FAIL() << "expected an error naming the parameter";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("parameter w"), std::string::npos) << e.what();
    }
    p.initialize(init::zeros(), fx.ctx);
    EXPECT_EQ(p.data().to_host(), std::vector<float>(3, 0.0f));
  });
}

TEST(Parameter, OwnInitializerWinsAndReinitNeedsForce) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Parameter bias("b", {2}, autograd::GradReq::write, init::constant(7.0f));
    bias.initialize(init::constant(1.0f), fx.ctx);
    EXPECT_EQ(bias.data().to_host(), std::vector<float>(2, 7.0f));
    Parameter w("w", {2});
    w.initialize(init::constant(1.0f), fx.ctx);
    w.initialize(init::constant(3.0f), fx.ctx);
    EXPECT_EQ(w.data().to_host(), std::vector<float>(2, 1.0f));
    w.initialize(init::constant(3.0f), fx.ctx, /*force_reinit=*/true);
    EXPECT_EQ(w.data().to_host(), std::vector<float>(2, 3.0f));
  });
}

TEST(Parameter, RandomInitializersDependOnlyOnTheSeed) {
  asyncscope::testing::run_with_timeout([] {
    const auto draw = [](uint64_t seed, EngineKind kind, int workers) {
      Fixture fx(kind, workers, seed);
      Parameter a("a", {16, 8});
      Parameter b("b", {16, 8});
      a.initialize(init::xavier_uniform(), fx.ctx);
      b.initialize(init::normal(0.5f), fx.ctx);
      std::vector<float> v = a.data().to_host();
      for (float x : b.data().to_host()) v.push_back(x);
      return v;
    };
    const std::vector<float> reference = draw(5, EngineKind::naive, 1);
    EXPECT_EQ(draw(5, EngineKind::threaded, 4), reference);
    EXPECT_NE(draw(6, EngineKind::threaded, 4), reference);
  });
}

TEST(Parameter, XavierCountsAConvolutionsReceptiveFieldInBothFans) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Parameter w("w", {64, 32, 5, 5});  // out, in, kh, kw
    w.initialize(init::xavier_uniform(), fx.ctx);
    const float bound = std::sqrt(3.0f / ((32 * 25 + 64 * 25) / 2.0f));  // MXNet's Xavier, magnitude 3
    float largest = 0.0f;
    for (float x : w.data().to_host()) largest = std::max(largest, std::abs(x));
    EXPECT_LE(largest, bound);
    EXPECT_GT(largest, 0.99f * bound);  // 51,200 draws fill the interval
  });
}

TEST(Parameter, GradReqNullHasNoGradient) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    Parameter p("frozen", {2}, autograd::GradReq::null);
    p.initialize(init::zeros(), fx.ctx);
    EXPECT_THROW(p.grad(), std::logic_error);
    p.set_grad_req(autograd::GradReq::write);
    EXPECT_EQ(p.grad().to_host(), std::vector<float>(2, 0.0f));
  });
}

TEST(ParameterDict, ByNameInOrderWithClearErrors) {
  asyncscope::testing::run_with_timeout([] {
    Fixture fx;
    ContextScope scope(fx.ctx);
    Parameter a("a", {2}), b("b", {3});
    ParameterDict dict;
    dict.add(&a);
    dict.add(&b);
    EXPECT_THROW(dict.add(&a), std::invalid_argument);
    EXPECT_EQ(dict.keys(), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(&dict["b"], &b);
    try {
      dict["c"];
      FAIL() << "expected std::out_of_range";
    } catch (const std::out_of_range& e) {
      EXPECT_NE(std::string(e.what()).find("there are: a, b"), std::string::npos) << e.what();
    }
    dict.initialize(init::constant(4.0f));  // the current context
    EXPECT_EQ(b.data().to_host(), std::vector<float>(3, 4.0f));
  });
}

TEST(Parameter, InitializeWithoutAContextNeedsACurrentOne) {
  asyncscope::testing::run_with_timeout([] {
    Parameter p("w", {2});
    EXPECT_THROW(p.initialize(init::zeros()), std::logic_error);
  });
}

}  // namespace
}  // namespace asyncscope::nn
