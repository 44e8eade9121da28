// Context: the current context of a thread, stop and close, shared
// lifetimes, the device a context may use, and (without a GPU) why not.
#include "engine/tensor/context.h"

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>

#include "engine/core/errors.h"
#include "engine/cuda/cuda.h"
#include "engine/tensor/ops.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

TEST(Context, OnAGpuWithoutCudaSaysWhy) {
  if (cuda::available()) GTEST_SKIP() << "a CUDA device is present";
  Context::Options options;
  options.device = Device::cuda(0);
  try {
    Context::create(options);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(cuda::status().reason), std::string::npos) << e.what();
  }
  EXPECT_FALSE(cuda::status().reason.empty());
}

TEST(CurrentContext, CreationOpsUseTheInnermostScopeOfTheirThread) {
  testing::run_with_timeout([] {
    EXPECT_EQ(current_context_or_null(), nullptr);
    try {
      ones({2, 3});
      FAIL() << "expected std::logic_error";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("no current context"), std::string::npos) << e.what();
    }
    ContextPtr outer = Context::create();
    ContextPtr inner = Context::create();
    {
      ContextScope a(outer);
      EXPECT_EQ(&ones({2, 3}).context(), outer.get());
      {
        ContextScope b(inner);
        EXPECT_EQ(&zeros({1}).context(), inner.get());
        EXPECT_EQ(&uniform({4}).context(), inner.get());
        EXPECT_EQ(&full(outer, {1}, 2.0f).context(), outer.get()) << "an explicit context still wins";
      }
      EXPECT_EQ(&normal({2}).context(), outer.get());
      // Other threads have their own (none here).
      std::thread([] { EXPECT_EQ(current_context_or_null(), nullptr); }).join();
      EXPECT_EQ(ones({2, 3}).to_host(), std::vector<float>(6, 1.0f));
    }
    EXPECT_EQ(current_context_or_null(), nullptr);
    EXPECT_THROW(ContextScope(nullptr), std::invalid_argument);
  });
}

TEST(Context, StopDropsPendingWorkAndMakesTheNextPushOrWaitThrow) {
  testing::run_with_timeout([] {
    Context::Options options;
    options.engine.cpu_workers = 1;
    ContextPtr ctx = Context::create(options);
    NDArray x = ones(ctx, {4});
    x.wait_to_read();
    // A gate holds the only worker, so everything pushed after it is pending.
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    ctx->engine().push([opened](const RunContext&) { opened.wait(); }, {}, {}, OpMeta("gate"));
    NDArray y = x + 1.0f;
    std::thread stopper([&ctx] { ctx->stop(); });  // any thread may stop
    stopper.join();
    gate.set_value();
    EXPECT_TRUE(ctx->stopped());
    EXPECT_THROW(x + 1.0f, StoppedError);
    EXPECT_THROW(x.wait_to_read(), StoppedError);
    EXPECT_THROW(y.to_host(), StoppedError);
    EXPECT_THROW(ctx->wait_all(), StoppedError);
    EXPECT_THROW(ones(ctx, {1}), StoppedError);
    ctx->close();  // the run ends: waits for what is left, then refuses pushes for good
    EXPECT_TRUE(ctx->closed());
  });
}

TEST(Context, AClosedContextKeepsItsArraysReadableAndRefusesNewOps) {
  testing::run_with_timeout([] {
    ContextPtr ctx = Context::create();
    NDArray kept = from_host(ctx, {2}, {3, 4});
    NDArray sum_kept = sum(kept);
    ctx->close();
    ctx.reset();  // only the arrays hold the context now
    EXPECT_EQ(kept.to_host(), (std::vector<float>{3, 4}));
    EXPECT_EQ(sum_kept.item(), 7.0f);
    try {
      kept * 2.0f;
      FAIL() << "expected std::logic_error";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("mul_scalar: the run that made this array has ended"), std::string::npos)
          << e.what();
    }
    kept = NDArray();  // freeing still works after the run
    sum_kept = NDArray();
  });
}

TEST(Context, ArraysKeepTheirAllocatorAliveAfterEverythingElseIsGone) {
  testing::run_with_timeout([] {
    NDArray survivor;
    std::weak_ptr<PooledAllocator> watch;
    {
      Context::Options options;
      auto allocator = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>());
      watch = allocator;
      options.allocator = allocator;
      ContextPtr ctx = Context::create(options);
      survivor = full(ctx, {1000}, 2.0f);
      ctx->close();
    }
    EXPECT_FALSE(watch.expired()) << "the array holds its context, which holds the allocator";
    EXPECT_EQ(survivor.to_host()[999], 2.0f);
    EXPECT_EQ(watch.lock()->live_bytes(), 4000);
    survivor = NDArray();  // frees into the still-living allocator, then lets everything go
    EXPECT_TRUE(watch.expired());
  });
}

}  // namespace
}  // namespace asyncscope
