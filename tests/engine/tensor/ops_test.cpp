// NDArray ops against straightforward reference loops, on both engines.
#include "engine/tensor/ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "engine/core/errors.h"

#include "support/both_engines.h"
#include "support/reference_matmul.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

std::vector<float> random_values(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << "element " << i;
  }
}

class Ops : public testing::BothEngines {};
INSTANTIATE_TEST_SUITE_P(Both, Ops, ::testing::Values(EngineKind::threaded, EngineKind::naive), testing::engine_name);

TEST_P(Ops, CreationFillsValues) {
  auto c = ctx();
  expect_near_all(zeros(c, {2, 3}).to_host(), std::vector<float>(6, 0.0f));
  expect_near_all(ones(c, {4}).to_host(), std::vector<float>(4, 1.0f));
  expect_near_all(full(c, {3, 1}, 2.5f).to_host(), std::vector<float>(3, 2.5f));
  expect_near_all(from_host(c, {2, 2}, {1, 2, 3, 4}).to_host(), {1, 2, 3, 4});
  EXPECT_THROW(from_host(c, {2, 2}, {1, 2, 3}), std::invalid_argument);
}

TEST_P(Ops, ElementwiseMatchesLoops) {
  auto c = ctx();
  const auto va = random_values(60, 1);
  auto vb = random_values(60, 2, 0.5f, 3.0f);  // away from zero for division
  NDArray a = from_host(c, {6, 10}, va);
  NDArray b = from_host(c, {6, 10}, vb);
  std::vector<float> add(60), sub(60), mul(60), div(60), relu_ref(60), adds(60), rsub(60), rdiv(60);
  for (size_t i = 0; i < 60; ++i) {
    add[i] = va[i] + vb[i];
    sub[i] = va[i] - vb[i];
    mul[i] = va[i] * vb[i];
    div[i] = va[i] / vb[i];
    relu_ref[i] = va[i] > 0 ? va[i] : 0;
    adds[i] = va[i] + 1.0f;
    rsub[i] = 3.0f - va[i];
    rdiv[i] = 2.0f / vb[i];
  }
  expect_near_all((a + b).to_host(), add);
  expect_near_all((a - b).to_host(), sub);
  expect_near_all((a * b).to_host(), mul);
  expect_near_all((a / b).to_host(), div);
  expect_near_all(relu(a).to_host(), relu_ref);
  expect_near_all((a + 1.0f).to_host(), adds);
  expect_near_all((1.0f + a).to_host(), adds);
  expect_near_all((3.0f - a).to_host(), rsub);
  expect_near_all((2.0f / b).to_host(), rdiv);
  std::vector<float> neg(60), grad(60);
  for (size_t i = 0; i < 60; ++i) {
    neg[i] = -va[i];
    grad[i] = va[i] > 0 ? vb[i] : 0;
  }
  expect_near_all((-a).to_host(), neg);
  expect_near_all(relu_grad(a, b).to_host(), grad);
}

TEST_P(Ops, BroadcastsRowsAndScalars) {
  auto c = ctx();
  const auto va = random_values(12, 3);
  NDArray a = from_host(c, {3, 4}, va);
  NDArray row = from_host(c, {4}, {1, 2, 3, 4});
  NDArray row2 = from_host(c, {1, 4}, {1, 2, 3, 4});
  NDArray scalar = from_host(c, {1}, {10});
  std::vector<float> plus_row(12), row_minus(12), times_scalar(12);
  for (size_t i = 0; i < 12; ++i) {
    plus_row[i] = va[i] + static_cast<float>(i % 4 + 1);
    row_minus[i] = static_cast<float>(i % 4 + 1) - va[i];
    times_scalar[i] = va[i] * 10;
  }
  expect_near_all((a + row).to_host(), plus_row);
  expect_near_all((a + row2).to_host(), plus_row);
  expect_near_all((row - a).to_host(), row_minus);
  expect_near_all((a * scalar).to_host(), times_scalar);
  expect_near_all((scalar * a).to_host(), times_scalar);
  NDArray bad = from_host(c, {3}, {1, 2, 3});
  EXPECT_THROW(a + bad, std::invalid_argument);
}

// pow, maximum, minimum and the comparisons, broadcasting a column against
// a row, against loops; NaN wins in maximum and minimum.
TEST_P(Ops, PowExtremaAndComparisonsMatchLoops) {
  auto c = ctx();
  const std::vector<float> col = {0.5f, 1.0f, 2.5f};
  const std::vector<float> row = {1.0f, 2.0f, 0.5f, 2.5f};
  const NDArray a = from_host(c, {3, 1}, col);
  const NDArray b = from_host(c, {1, 4}, row);
  std::vector<float> p(12), hi(12), lo(12), eq(12), ne(12), gt(12), ge(12), lt(12), le(12);
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 4; ++j) {
      const float x = col[i], y = row[j];
      const size_t k = i * 4 + j;
      p[k] = std::pow(x, y);
      hi[k] = std::max(x, y);
      lo[k] = std::min(x, y);
      eq[k] = x == y, ne[k] = x != y, gt[k] = x > y, ge[k] = x >= y, lt[k] = x < y, le[k] = x <= y;
    }
  }
  expect_near_all(pow(a, b).to_host(), p);
  expect_near_all(maximum(a, b).to_host(), hi);
  expect_near_all(minimum(a, b).to_host(), lo);
  EXPECT_EQ(equal(a, b).to_host(), eq);
  EXPECT_EQ(not_equal(a, b).to_host(), ne);
  EXPECT_EQ(greater(a, b).to_host(), gt);
  EXPECT_EQ(greater_equal(a, b).to_host(), ge);
  EXPECT_EQ(less(a, b).to_host(), lt);
  EXPECT_EQ(less_equal(a, b).to_host(), le);
  const NDArray nan = from_host(c, {2}, {std::nanf(""), 1.0f});
  const NDArray one = from_host(c, {2}, {1.0f, std::nanf("")});
  for (const NDArray& r : {maximum(nan, one), minimum(nan, one), maximum(one, nan)}) {
    const std::vector<float> v = r.to_host();
    EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  }
  EXPECT_THROW(pow(a, from_host(c, {2, 4}, std::vector<float>(8, 1.0f))), std::invalid_argument);  // 3 against 2
}

TEST_P(Ops, DotMatchesTripleLoopWithTransposes) {
  auto c = ctx();
  const int64_t m = 7, k = 5, n = 9;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const auto va = random_values(static_cast<size_t>(m * k), 4);
      const auto vb = random_values(static_cast<size_t>(k * n), 5);
      NDArray a = from_host(c, ta ? Shape{k, m} : Shape{m, k}, va);
      NDArray b = from_host(c, tb ? Shape{n, k} : Shape{k, n}, vb);
      const std::vector<double> exact = testing::reference_matmul(va, vb, m, k, n, ta, tb);
      const std::vector<float> want(exact.begin(), exact.end());
      NDArray out = dot(a, b, ta, tb);
      EXPECT_EQ(out.shape(), (Shape{m, n}));
      expect_near_all(out.to_host(), want, 1e-4f);
    }
  }
  EXPECT_THROW(dot(from_host(c, {2, 3}, std::vector<float>(6)), from_host(c, {2, 3}, std::vector<float>(6))),
               std::invalid_argument);
  EXPECT_THROW(dot(from_host(c, {6}, std::vector<float>(6)), from_host(c, {6}, std::vector<float>(6))),
               std::invalid_argument);
}

TEST_P(Ops, TransposeAndReductions) {
  auto c = ctx();
  const auto va = random_values(12, 6);
  NDArray a = from_host(c, {3, 4}, va);
  std::vector<float> t(12);
  double total = 0, sq = 0;
  std::vector<float> col_sums(4, 0), row_sums(3, 0);
  for (int r = 0; r < 3; ++r) {
    for (int cidx = 0; cidx < 4; ++cidx) {
      const float v = va[static_cast<size_t>(r * 4 + cidx)];
      t[static_cast<size_t>(cidx * 3 + r)] = v;
      total += v;
      sq += static_cast<double>(v) * v;
      col_sums[static_cast<size_t>(cidx)] += v;
      row_sums[static_cast<size_t>(r)] += v;
    }
  }
  NDArray at = transpose(a);
  EXPECT_EQ(at.shape(), (Shape{4, 3}));
  expect_near_all(at.to_host(), t);
  EXPECT_NEAR(sum(a).item(), total, 1e-5);
  EXPECT_NEAR(mean(a).item(), total / 12, 1e-5);
  EXPECT_NEAR(norm(a).item(), std::sqrt(sq), 1e-5);
  expect_near_all(sum(a, 0).to_host(), col_sums);
  expect_near_all(sum(a, 1).to_host(), row_sums);
  EXPECT_THROW(sum(a, 2), std::invalid_argument);
}

TEST_P(Ops, InPlaceUpdatesWriteTheSameArray) {
  auto c = ctx();
  NDArray w = ones(c, {4});
  NDArray g = from_host(c, {4}, {1, 2, 3, 4});
  Var* before = w.var();
  w += g;
  w -= ones(c, {4});
  w.add_scaled(g, -0.5f);
  w *= 2.0f;
  EXPECT_EQ(w.var(), before);
  expect_near_all(w.to_host(), {1, 2, 3, 4});  // ((1+g)-1-0.5g)*2 = g
}

TEST_P(Ops, InPlaceUpdatesBroadcastTheOtherSideAndTakeNumbers) {
  auto c = ctx();
  NDArray w = from_host(c, {2, 3}, {1, 2, 3, 4, 5, 6});
  Var* before = w.var();
  w *= from_host(c, {3}, {1, 10, 100});   // a row against every row
  w /= from_host(c, {2, 1}, {1, 2});      // a column against every column
  w += 1.0f;
  w -= 0.5f;
  w /= 2.0f;
  w -= w;                                  // the array itself on the right
  w += from_host(c, {1}, {7});
  EXPECT_EQ(w.var(), before);
  expect_near_all(w.to_host(), {7, 7, 7, 7, 7, 7});
  NDArray v = from_host(c, {2, 3}, {1, 2, 3, 4, 5, 6});
  v *= from_host(c, {3}, {1, 10, 100});
  v /= from_host(c, {2, 1}, {1, 2});
  expect_near_all(v.to_host(), {1, 20, 300, 2, 25, 300});
  // NumPy's rule: the result must keep the updated array's shape.
  NDArray row = ones(c, {3});
  EXPECT_THROW(row += ones(c, {2, 3}), std::invalid_argument);
  EXPECT_THROW(row *= ones(c, {4}), std::invalid_argument);
  expect_near_all(row.to_host(), {1, 1, 1});
}

TEST_P(Ops, EmptyArraysAreReadableAndAnEmptyProductIsZeros) {
  auto c = ctx();
  EXPECT_TRUE(from_host(c, {0}, {}).to_host().empty());
  EXPECT_TRUE((zeros(c, {0, 3}) + 1.0f).to_host().empty());
  EXPECT_TRUE(NDArray::empty(c, {2, 0}).to_host().empty());  // nothing to write: readable as it is
  expect_near_all(dot(ones(c, {3, 0}), ones(c, {0, 2})).to_host(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(dot(ones(c, {0, 4}), ones(c, {4, 2})).shape(), (Shape{0, 2}));
  EXPECT_FLOAT_EQ(sum(zeros(c, {0})).item(), 0.0f);
}

TEST(Shape, ElementCountsBeyondAnyArrayAreRefusedNotWrapped) {
  EXPECT_THROW(Shape({int64_t{1} << 62, 4}), std::invalid_argument);
  EXPECT_THROW(Shape({(int64_t{1} << 61) + 1, 8}), std::invalid_argument);
  EXPECT_THROW(Shape({int64_t{1} << 40, int64_t{1} << 40}), std::invalid_argument);
  EXPECT_THROW(Shape({0, int64_t{1} << 62, int64_t{1} << 62}), std::invalid_argument);  // strides too
  EXPECT_EQ(Shape({Shape::kMaxElements}).size(), Shape::kMaxElements);
  EXPECT_EQ(Shape({0, Shape::kMaxElements}).size(), 0);
  EXPECT_EQ(Shape::mul_capped(int64_t{1} << 40, int64_t{1} << 40), Shape::kMaxElements + 1);
}

TEST_P(Ops, ItemNeedsOneElementAndPrintingWaits) {
  auto c = ctx();
  EXPECT_THROW(ones(c, {2}).item(), std::invalid_argument);
  EXPECT_FLOAT_EQ(full(c, {1, 1}, 3.0f).item(), 3.0f);
  std::ostringstream out;
  out << from_host(c, {2, 2}, {1, 2, 3, 4.5f});
  EXPECT_EQ(out.str(), "[[1, 2], [3, 4.5]] <NDArray 2x2 @cpu>");
  std::ostringstream big;
  big << zeros(c, {100});
  EXPECT_EQ(big.str(), "[0, 0, 0, ..., 0, 0, 0] <NDArray 100 @cpu>");
  std::ostringstream scalar;
  scalar << sum(ones(c, {3}));
  EXPECT_EQ(scalar.str(), "3 <NDArray scalar @cpu>");
}

TEST_P(Ops, NullArraysAndReadsBeforeWritesFailClearly) {
  auto c = ctx();
  NDArray null;
  EXPECT_THROW(null.shape(), std::logic_error);
  EXPECT_THROW(null + 1.0f, std::logic_error);
  NDArray never_written = NDArray::empty(c, {3});
  NDArray y = never_written + 1.0f;  // fails on the worker, reported at the sync point
  EXPECT_THROW(y.wait_to_read(), OpError);
  EXPECT_THROW(c->engine().wait_all(), OpError);
}

TEST(OpsRandom, SameSeedSameNumbersWhateverTheWorkers) {
  testing::run_with_timeout([] {
    std::vector<std::vector<float>> results;
    for (auto [kind, workers] : {std::pair{EngineKind::naive, 1}, {EngineKind::threaded, 1},
                                 {EngineKind::threaded, 2}, {EngineKind::threaded, 4}, {EngineKind::threaded, 8}}) {
      Context::Options options;
      options.engine.kind = kind;
      options.engine.cpu_workers = workers;
      options.seed = 1234;
      auto c = Context::create(options);
      // Many random ops in flight at once, finishing in any order.
      std::vector<NDArray> arrays;
      for (int i = 0; i < 16; ++i) arrays.push_back(i % 2 ? uniform(c, {50, 20}, -1, 1) : normal(c, {1001}, 2, 3));
      std::vector<float> all;
      for (const NDArray& a : arrays) {
        const auto v = a.to_host();
        all.insert(all.end(), v.begin(), v.end());
      }
      results.push_back(std::move(all));
    }
    for (size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i], results[0]);
  });
}

TEST(OpsRandom, DistributionsHaveTheRequestedMoments) {
  auto c = Context::create();
  const auto u = uniform(c, {200000}, 2.0f, 4.0f).to_host();
  const auto n = normal(c, {200000}, -1.0f, 0.5f).to_host();
  double su = 0, sn = 0, sn2 = 0;
  float umin = 10, umax = -10;
  for (float x : u) {
    su += x;
    umin = std::min(umin, x);
    umax = std::max(umax, x);
  }
  for (float x : n) {
    sn += x;
    sn2 += static_cast<double>(x) * x;
  }
  EXPECT_GE(umin, 2.0f);
  EXPECT_LT(umax, 4.0f);
  EXPECT_NEAR(su / 200000, 3.0, 0.01);
  const double mean_n = sn / 200000;
  EXPECT_NEAR(mean_n, -1.0, 0.01);
  EXPECT_NEAR(std::sqrt(sn2 / 200000 - mean_n * mean_n), 0.5, 0.01);
  // A different seed gives different numbers.
  Context::Options other;
  other.seed = 99;
  EXPECT_NE(uniform(Context::create(other), {100}).to_host(), uniform(Context::create(), {100}).to_host());
}

}  // namespace
}  // namespace asyncscope
