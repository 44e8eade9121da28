// The tape: what gets recorded, scope nesting, when it is cleared, grad_req
// semantics, head gradients, and that backward never waits for the engine.
#include "engine/nn/autograd.h"

#include <gtest/gtest.h>

#include <future>

#include "engine/nn/functional.h"
#include "nn_test_support.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

namespace ag = autograd;
using testing::NnFixture;

std::vector<float> values(const NDArray& a) { return a.to_host(); }

TEST(Autograd, NothingIsTapedOutsideARecordScope) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable x(ones(fx.ctx, {3}));
    EXPECT_FALSE(ag::is_recording());
    NDArray y = ag::multiply(x.data(), 2.0f);
    EXPECT_EQ(ag::tape_size(), 0u);
    EXPECT_THROW(ag::backward(y), std::logic_error);
    EXPECT_EQ(values(y), (std::vector<float>{2, 2, 2}));
  });
}

TEST(Autograd, OnlyOpsThatReachALeafAreTaped) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable x(ones(fx.ctx, {3}));
    NDArray c = ones(fx.ctx, {3});
    ag::Record record;
    NDArray constant = ag::multiply(c, 2.0f);  // no leaf involved
    EXPECT_EQ(ag::tape_size(), 0u);
    NDArray y = ag::add(x.data(), constant);
    NDArray z = ag::square(y);
    EXPECT_EQ(ag::tape_size(), 2u);
    ag::backward(z);
    EXPECT_EQ(ag::tape_size(), 0u);
    EXPECT_EQ(values(x.grad()), (std::vector<float>{6, 6, 6}));  // 2 * (1 + 2)
  });
}

TEST(Autograd, NestedScopesShareOneTapeClearedByTheOutermost) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable x(ones(fx.ctx, {2}));
    {
      ag::Record outer;
      NDArray y = ag::multiply(x.data(), 3.0f);
      NDArray z;
      {
        ag::Record inner;
        z = ag::add(y, 1.0f);
      }
      EXPECT_TRUE(ag::is_recording());
      EXPECT_EQ(ag::tape_size(), 2u);
      ag::backward(z);  // through the op taped in the inner scope
      EXPECT_EQ(values(x.grad()), (std::vector<float>{3, 3}));
      NDArray unused = ag::multiply(x.data(), 5.0f);
      EXPECT_EQ(ag::tape_size(), 1u);
    }
    EXPECT_FALSE(ag::is_recording());
    EXPECT_EQ(ag::tape_size(), 0u);  // the scope ended without backward: cleared
  });
}

TEST(Autograd, NonScalarHeadBackpropagatesOnes) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable w(from_host(fx.ctx, {2, 3}, {1, 2, 3, 4, 5, 6}));
    ag::Record record;
    NDArray per_sample = ag::sum(w.data(), 1);  // {2}: like a per-sample loss
    ag::backward(per_sample);
    EXPECT_EQ(values(w.grad()), (std::vector<float>(6, 1.0f)));
  });
}

TEST(Autograd, WriteReplacesAddAccumulatesNullSkips) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable write(ones(fx.ctx, {2}), ag::GradReq::write);
    ag::Variable add(ones(fx.ctx, {2}), ag::GradReq::add);
    ag::Variable none(ones(fx.ctx, {2}), ag::GradReq::null);
    for (int pass = 0; pass < 2; ++pass) {
      ag::Record record;
      NDArray y = ag::add(ag::multiply(write.data(), 2.0f), ag::multiply(add.data(), 3.0f));
      ag::backward(ag::add(y, ag::multiply(none.data(), 4.0f)));
    }
    EXPECT_EQ(values(write.grad()), (std::vector<float>{2, 2}));
    EXPECT_EQ(values(add.grad()), (std::vector<float>{6, 6}));
    EXPECT_TRUE(none.grad().is_null());
    add.zero_grad();
    EXPECT_EQ(values(add.grad()), (std::vector<float>{0, 0}));
  });
}

TEST(Autograd, ALeafUsedTwiceGetsTheSumOfBothPaths) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable x(from_host(fx.ctx, {2}, {1, 2}));
    ag::Record record;
    ag::backward(ag::multiply(x.data(), x.data()));
    EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 4}));
  });
}

TEST(Autograd, PassThroughGradientsAreNeverSharedBetweenArrays) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable a(ones(fx.ctx, {2}));
    ag::Variable b(ones(fx.ctx, {2}));
    NDArray head = from_host(fx.ctx, {2}, {5, 7});
    {
      ag::Record record;
      ag::backward(ag::add(a.data(), b.data()), head);  // both gradients are `head` itself
    }
    EXPECT_NE(a.grad().chunk(), head.chunk());
    EXPECT_NE(b.grad().chunk(), head.chunk());
    EXPECT_NE(a.grad().chunk(), b.grad().chunk());
    a.set_grad_req(ag::GradReq::add);
    {
      ag::Record record;
      ag::backward(ag::multiply(a.data(), 1.0f));
    }
    EXPECT_EQ(values(a.grad()), (std::vector<float>{6, 8}));
    EXPECT_EQ(values(b.grad()), (std::vector<float>{5, 7}));
    EXPECT_EQ(values(head), (std::vector<float>{5, 7}));
  });
}

TEST(Autograd, BackwardThroughAFailedHeadLookupStillClearsTheTape) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable x(ones(fx.ctx, {2}));
    ag::Record record;
    NDArray y = ag::multiply(x.data(), 2.0f);
    EXPECT_THROW(ag::backward(ones(fx.ctx, {2})), std::logic_error);
    EXPECT_EQ(ag::tape_size(), 0u);
    EXPECT_THROW(ag::backward(y, ones(fx.ctx, {3})), std::logic_error);  // y's node is gone
  });
}

TEST(Autograd, HeadGradientShapeMustMatch) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable x(ones(fx.ctx, {2}));
    ag::Record record;
    NDArray y = ag::multiply(x.data(), 2.0f);
    EXPECT_THROW(ag::backward(y, ones(fx.ctx, {3})), std::invalid_argument);
  });
}

TEST(Autograd, AnArrayBacksAtMostOneVariable) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    NDArray data = ones(fx.ctx, {2});
    ag::Variable first(data);
    EXPECT_THROW(ag::Variable second(data), std::invalid_argument);
    ag::Variable moved = std::move(first);
    EXPECT_TRUE(first.is_null());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    EXPECT_EQ(moved.data().chunk(), data.chunk());
  });
}

TEST(Autograd, RecordBackwardAndUpdateNeverWaitForTheEngine) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable w(ones(fx.ctx, {64, 64}));
    NDArray x = ones(fx.ctx, {8, 64});
    // A gate op that writes x and blocks until released: every op below
    // depends on it, so any wait on the frontend would hang right here.
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    fx.ctx->engine().push([opened](const RunContext&) { opened.wait(); }, {}, {x.var()}, OpMeta("gate"));
    {
      ag::Record record;
      NDArray loss = ag::sum(ag::square(ag::dot(x, w.data(), false, true)), 1);
      ag::backward(loss);
    }
    NDArray wd = w.data();
    wd.add_scaled(w.grad(), -1e-3f);
    EXPECT_GT(fx.ctx->engine().stats().pending, 5u);  // everything is still queued
    gate.set_value();
    // d/dw sum((x w^T)^2) = 2 (x w^T)^T x = 2 * 8 * 64 for all-ones: 1024 per entry.
    EXPECT_FLOAT_EQ(w.grad().to_host()[0], 1024.0f);
    EXPECT_FLOAT_EQ(w.data().to_host()[0], 1.0f - 1.024f);
  });
}

TEST(Autograd, AScopeEndedWithoutBackwardFreesItsArrays) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    ag::Variable w(ones(fx.ctx, {32, 32}));
    fx.ctx->engine().wait_all();
    const int64_t leaf_bytes = fx.allocator->live_bytes();
    EXPECT_EQ(leaf_bytes, 2 * 32 * 32 * 4);  // data + grad
    {
      ag::Record record;
      NDArray h = ag::relu(ag::dot(ones(fx.ctx, {16, 32}), w.data()));
      NDArray out = ag::sum(h);
      out.wait_to_read();
      EXPECT_GT(fx.allocator->live_bytes(), leaf_bytes);
    }
    fx.ctx->engine().wait_all();
    EXPECT_EQ(fx.allocator->live_bytes(), leaf_bytes);
  });
}

}  // namespace
}  // namespace asyncscope::nn
