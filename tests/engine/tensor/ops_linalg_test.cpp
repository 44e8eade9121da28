// dot counts its 2mnk flops on the context at push (the demos' GFLOP/s);
// batch_dot's products, transposes, gradients and refusals;
// reshape as a view: no op is pushed, the storage (and the engine var) is
// shared with the base, -1 is inferred, and a view keeps its base's storage
// alive after the base's handles are gone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/tensor/ops.h"
#include "engine/trace/model.h"
#include "support/grad_check.h"
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

// batch_dot: every product of a batch, every transpose combination, against
// the triple loop; split among the workers when the batch is large enough;
// one op on the trace; gradients against finite differences; refusals.
TEST(BatchDot, EveryProductAndTransposeMatchesTheTripleLoopInOneOp) {
  testing::run_with_timeout([] {
    Context::Options options;
    options.engine.cpu_workers = 2;
    auto recorder = std::make_shared<trace::Recorder>();
    options.engine.recorder = recorder;
    ContextPtr c = Context::create(options);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    struct Case {
      int64_t batch, m, k, n;
    };
    int pushed = 0;
    for (const Case& shape : {Case{5, 3, 4, 2}, Case{37, 64, 48, 80}, Case{1, 7, 0, 3}}) {
      const int64_t bsz = shape.batch, m = shape.m, k = shape.k, n = shape.n;
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          std::vector<float> va(static_cast<size_t>(bsz * m * k)), vb(static_cast<size_t>(bsz * k * n));
          for (float& x : va) x = value(rng);
          for (float& x : vb) x = value(rng);
          const NDArray a = from_host(c, ta ? Shape{bsz, k, m} : Shape{bsz, m, k}, va);
          const NDArray b = from_host(c, tb ? Shape{bsz, n, k} : Shape{bsz, k, n}, vb);
          const NDArray out = batch_dot(a, b, ta, tb);
          ++pushed;
          ASSERT_EQ(out.shape(), (Shape{bsz, m, n}));
          const std::vector<float> got = out.to_host();
          for (int64_t i = 0; i < bsz; ++i) {
            const std::vector<float> ai(va.begin() + i * m * k, va.begin() + (i + 1) * m * k);
            const std::vector<float> bi(vb.begin() + i * k * n, vb.begin() + (i + 1) * k * n);
            const std::vector<double> want = testing::reference_matmul(ai, bi, m, k, n, ta, tb);
            for (size_t j = 0; j < want.size(); ++j) {
              ASSERT_NEAR(got[static_cast<size_t>(i * m * n) + j], want[j], 1e-4)
                  << "product " << i << " of " << bsz << "x" << m << "x" << k << "x" << n << " ta=" << ta << " tb=" << tb;
            }
          }
        }
      }
    }
    c->wait_all();
    const trace::TraceModel model = trace::snapshot(*recorder);
    int ops = 0;
    for (const trace::OpInfo& op : model.ops) {
      if (op.known() && model.op_name(op) == "batch_dot") ++ops;
    }
    EXPECT_EQ(ops, pushed);
    EXPECT_THROW(batch_dot(ones(c, {2, 3, 4}), ones(c, {3, 4, 5})), std::invalid_argument);
    EXPECT_THROW(batch_dot(ones(c, {2, 3, 4}), ones(c, {2, 5, 4})), std::invalid_argument);
    EXPECT_THROW(batch_dot(ones(c, {3, 4}), ones(c, {4, 5})), std::invalid_argument);
  });
}

TEST(BatchDot, GradientsMatchFiniteDifferencesForEveryTranspose) {
  testing::run_with_timeout([] {
    testing::GradFixture fx;
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(std::string("ta=") + (ta ? "1" : "0") + " tb=" + (tb ? "1" : "0"));
        testing::expect_gradients_match(fx.ctx, [ta, tb](const std::vector<NDArray>& x) {
          return batch_dot(x[0], x[1], ta, tb);
        }, {ta ? Shape{2, 4, 3} : Shape{2, 3, 4}, tb ? Shape{2, 5, 4} : Shape{2, 4, 5}},
           {testing::host_random(24, 3), testing::host_random(40, 4)});
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
