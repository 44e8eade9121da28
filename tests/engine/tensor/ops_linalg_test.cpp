// dot counts its 2mnk flops on the context at push (the demos' GFLOP/s);
// reshape as a view: no op is pushed, the storage (and the engine var) is
// shared with the base, -1 is inferred, and a view keeps its base's storage
// alive after the base's handles are gone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/tensor/ops.h"
#include "engine/trace/model.h"
#include "support/reference_matmul.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

TEST(Dot, CountsItsFlopsOnTheContextWhenPushed) {
  ContextPtr ctx = Context::create();
  const uint64_t before = ctx->matmul_flops();
  const NDArray a = ones(ctx, {3, 4});
  const NDArray b = ones(ctx, {5, 4});
  const NDArray c = dot(a, b, false, true);  // 3x4 by 4x5
  EXPECT_EQ(ctx->matmul_flops() - before, 2u * 3 * 5 * 4);
  EXPECT_EQ(c.to_host(), std::vector<float>(15, 4.0f));
  EXPECT_EQ(ctx->matmul_flops() - before, 2u * 3 * 5 * 4) << "waiting counts nothing";
}

// A product large enough is split into blocks of rows (or, wider than tall,
// columns) that idle workers help with; every transpose combination and
// both split directions must give the triple loop's result, also for sizes
// that are not multiples of the blocks.
TEST(DotInParts, EveryTransposeAndBothSplitDirectionsMatchTheTripleLoop) {
  testing::run_with_timeout([] {
    Context::Options options;
    options.engine.cpu_workers = 2;
    options.engine.recorder = std::make_shared<trace::Recorder>();
    ContextPtr c = Context::create(options);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    struct Case {
      int64_t m, k, n;
    };
    for (const Case& shape : {Case{517, 411, 301}, Case{133, 557, 611}}) {  // taller (3 parts), then wider (2)
      const int64_t m = shape.m, k = shape.k, n = shape.n;
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          std::vector<float> va(static_cast<size_t>(m * k)), vb(static_cast<size_t>(k * n));
          for (float& x : va) x = value(rng);
          for (float& x : vb) x = value(rng);
          NDArray a = from_host(c, ta ? Shape{k, m} : Shape{m, k}, va);
          NDArray b = from_host(c, tb ? Shape{n, k} : Shape{k, n}, vb);
          const std::vector<float> got = dot(a, b, ta, tb).to_host();
          ASSERT_EQ(got.size(), static_cast<size_t>(m * n));
          const std::vector<double> want = testing::reference_matmul(va, vb, m, k, n, ta, tb);
          double worst = 0;
          for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(want[i] - got[i]));
          EXPECT_LT(worst, 1e-3) << m << "x" << k << " by " << k << "x" << n << " ta=" << ta << " tb=" << tb;
        }
      }
    }
  });
}

TEST(Reshape, IsAViewSharingStorageAndVarWithNoOpPushed) {
  testing::run_with_timeout([] {
    ContextPtr c = Context::create();
    NDArray a = from_host(c, {2, 3}, {1, 2, 3, 4, 5, 6});
    const uint64_t pushed = c->engine().stats().pushed;
    NDArray v = reshape(a, Shape{3, 2});
    EXPECT_EQ(c->engine().stats().pushed, pushed) << "a view pushes nothing";
    EXPECT_TRUE(v.is_view());
    EXPECT_EQ(v.var(), a.var());
    EXPECT_EQ(v.shape(), (Shape{3, 2}));
    EXPECT_EQ(v.to_host(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    a += ones(c, {2, 3});  // an in-place write of the base is seen through the view, in order
    EXPECT_EQ(v.to_host(), (std::vector<float>{2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(dot(v, a).shape(), (Shape{3, 3}));  // a view is an operand like any other
  });
}

TEST(Reshape, InfersOneDimensionAndRefusesWrongSizes) {
  testing::run_with_timeout([] {
    ContextPtr c = Context::create();
    NDArray a = zeros(c, {4, 6});
    const int64_t flat[] = {-1};
    const int64_t cols[] = {-1, 3};
    const int64_t two[] = {-1, -1};
    const int64_t bad[] = {5, -1};
    EXPECT_EQ(reshape(a, flat).shape(), (Shape{24}));
    EXPECT_EQ(reshape(a, cols).shape(), (Shape{8, 3}));
    EXPECT_THROW(reshape(a, two), std::invalid_argument);
    EXPECT_THROW(reshape(a, bad), std::invalid_argument);
    try {
      reshape(a, Shape{5, 5});
      FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "reshape: cannot view 4x6 (24 elements) as 5x5 (25 elements)");
    }
  });
}

TEST(Reshape, AViewKeepsTheStorageAfterItsBaseIsGone) {
  testing::run_with_timeout([] {
    auto allocator = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>());
    Context::Options options;
    options.allocator = allocator;
    ContextPtr c = Context::create(options);
    NDArray v;
    {
      NDArray a = full(c, {10, 10}, 3.0f);
      v = reshape(a, Shape{100});
    }
    c->wait_all();
    EXPECT_EQ(allocator->live_bytes(), 400);
    EXPECT_EQ(v.to_host()[99], 3.0f);
    v = NDArray();
    c->wait_all();
    EXPECT_EQ(allocator->live_bytes(), 0);
  });
}

TEST(Shape, FromARuntimeListAsPythonTuplesBecome) {
  const std::vector<int64_t> dims{2, 0, 5};
  const Shape s{std::span<const int64_t>(dims)};
  EXPECT_EQ(s, (Shape{2, 0, 5}));
  EXPECT_EQ(s.size(), 0);
  const std::vector<int64_t> too_many{1, 2, 3, 4, 5};
  EXPECT_THROW(Shape{std::span<const int64_t>(too_many)}, std::invalid_argument);
  const std::vector<int64_t> negative{2, -3};
  EXPECT_THROW(Shape{std::span<const int64_t>(negative)}, std::invalid_argument);
}

}  // namespace
}  // namespace asyncscope
