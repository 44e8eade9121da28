// Parameter: deferred shapes, initializer precedence, reinitialisation, and
// initializers that depend only on the context seed.
#include "engine/nn/parameter.h"

#include <gtest/gtest.h>

#include "nn_test_support.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

using testing::NnFixture;

TEST(Parameter, DeferredShapeIsCreatedWhenItBecomesKnown) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Parameter p("w", {4, 0});
    EXPECT_FALSE(p.shape_known());
    p.initialize(fx.ctx, init::constant(2.0f));
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
    NnFixture fx;
    Parameter p("w", {0});
    p.set_shape({3});
    EXPECT_FALSE(p.is_initialized());
    try {
      p.data();
      FAIL() << "expected an error naming the parameter";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("parameter w"), std::string::npos) << e.what();
    }
    p.initialize(fx.ctx, init::zeros());
    EXPECT_EQ(p.data().to_host(), std::vector<float>(3, 0.0f));
  });
}

TEST(Parameter, OwnInitializerWinsAndReinitNeedsForce) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Parameter bias("b", {2}, autograd::GradReq::write, init::constant(7.0f));
    bias.initialize(fx.ctx, init::constant(1.0f));
    EXPECT_EQ(bias.data().to_host(), std::vector<float>(2, 7.0f));
    Parameter w("w", {2});
    w.initialize(fx.ctx, init::constant(1.0f));
    w.initialize(fx.ctx, init::constant(3.0f));
    EXPECT_EQ(w.data().to_host(), std::vector<float>(2, 1.0f));
    w.initialize(fx.ctx, init::constant(3.0f), /*force_reinit=*/true);
    EXPECT_EQ(w.data().to_host(), std::vector<float>(2, 3.0f));
  });
}

TEST(Parameter, RandomInitializersDependOnlyOnTheSeed) {
  asyncscope::testing::run_with_timeout([] {
    const auto draw = [](uint64_t seed, EngineKind kind, int workers) {
      NnFixture fx(kind, workers, seed);
      Parameter a("a", {16, 8});
      Parameter b("b", {16, 8});
      a.initialize(fx.ctx, init::xavier_uniform());
      b.initialize(fx.ctx, init::normal(0.5f));
      std::vector<float> v = a.data().to_host();
      for (float x : b.data().to_host()) v.push_back(x);
      return v;
    };
    const std::vector<float> reference = draw(5, EngineKind::naive, 1);
    EXPECT_EQ(draw(5, EngineKind::threaded, 4), reference);
    EXPECT_NE(draw(6, EngineKind::threaded, 4), reference);
  });
}

TEST(Parameter, GradReqNullHasNoGradient) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    Parameter p("frozen", {2}, autograd::GradReq::null);
    p.initialize(fx.ctx, init::zeros());
    EXPECT_TRUE(p.grad().is_null());
    p.set_grad_req(autograd::GradReq::write);
    EXPECT_EQ(p.grad().to_host(), std::vector<float>(2, 0.0f));
  });
}

}  // namespace
}  // namespace asyncscope::nn
