// Broadcasting and reductions against reference loops: NumPy's shape rules
// for every binary op, broadcast_to and sum_to, and sum/mean/norm along axes
// with and without keepdims, on both engines.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/tensor/ops.h"
#include "support/both_engines.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

std::vector<float> iota(int64_t n, float start = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<float>(i);
  return v;
}

class Broadcasting : public testing::BothEngines {};
INSTANTIATE_TEST_SUITE_P(Both, Broadcasting, ::testing::Values(EngineKind::threaded, EngineKind::naive), testing::engine_name);

// out[i][j][k] for shapes aligned at the last dimension, stretched where 1.
float at(const std::vector<float>& v, const Shape& s, int64_t i, int64_t j, int64_t k) {
  int64_t d[3] = {1, 1, 1};
  for (int n = 0; n < s.ndim(); ++n) d[3 - s.ndim() + n] = s[n];
  const int64_t ii = d[0] == 1 ? 0 : i, jj = d[1] == 1 ? 0 : j, kk = d[2] == 1 ? 0 : k;
  return v[static_cast<size_t>((ii * d[1] + jj) * d[2] + kk)];
}

TEST_P(Broadcasting, BinaryOpsFollowNumpysRules) {
  auto c = ctx();
  const std::pair<Shape, Shape> cases[] = {{{2, 3, 4}, {4}},    {{2, 3, 4}, {3, 1}}, {{2, 1, 4}, {3, 1}},
                                           {{3, 1}, {1, 4}},    {{1}, {2, 3, 4}},    {Shape{}, {3, 4}},
                                           {{2, 3, 4}, {2, 3, 4}}, {{2, 1, 1}, {1, 3, 4}}};
  for (const auto& [sa, sb] : cases) {
    SCOPED_TRACE(sa.to_string() + " op " + sb.to_string());
    const auto va = iota(sa.size()), vb = iota(sb.size(), 0.5f);
    NDArray a = from_host(c, sa, va), b = from_host(c, sb, vb);
    const NDArray sum_ab = a + b, diff = a - b, prod = a * b, quot = a / b;
    const Shape out = sum_ab.shape();
    int64_t d[3] = {1, 1, 1};
    for (int n = 0; n < out.ndim(); ++n) d[3 - out.ndim() + n] = out[n];
    ASSERT_EQ(d[0] * d[1] * d[2], out.size());
    const auto s = sum_ab.to_host(), m = diff.to_host(), p = prod.to_host(), q = quot.to_host();
    size_t idx = 0;
    for (int64_t i = 0; i < d[0]; ++i) {
      for (int64_t j = 0; j < d[1]; ++j) {
        for (int64_t k = 0; k < d[2]; ++k, ++idx) {
          const float x = at(va, sa, i, j, k), y = at(vb, sb, i, j, k);
          ASSERT_EQ(s[idx], x + y) << idx;
          ASSERT_EQ(m[idx], x - y) << idx;
          ASSERT_EQ(p[idx], x * y) << idx;
          ASSERT_EQ(q[idx], x / y) << idx;
        }
      }
    }
  }
  try {
    from_host(c, {2, 3}, iota(6)) + from_host(c, {2}, iota(2));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "add: shapes 2x3 and 2 do not broadcast (aligned at the last dimension, each pair of "
                           "sizes must be equal or one of them 1)");
  }
  EXPECT_THROW(ones(c, {1, 2, 3, 4}) + ones(c, {2, 1, 1, 1, 1}), std::invalid_argument);  // 5-D
}

TEST_P(Broadcasting, BroadcastToAndSumToAreInverse) {
  auto c = ctx();
  NDArray col = from_host(c, {3, 1}, {1, 2, 3});
  NDArray wide = broadcast_to(col, {2, 3, 4});
  EXPECT_EQ(wide.shape(), (Shape{2, 3, 4}));
  const auto w = wide.to_host();
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(w[i], static_cast<float>((i / 4) % 3 + 1)) << i;
  NDArray back = sum_to(wide, {3, 1});
  EXPECT_EQ(back.shape(), (Shape{3, 1}));
  EXPECT_EQ(back.to_host(), (std::vector<float>{8, 16, 24}));  // 2 * 4 copies of each
  EXPECT_EQ(sum_to(wide, Shape{}).item(), 48.0f);
  EXPECT_EQ(sum_to(wide, {4}).to_host(), (std::vector<float>(4, 12.0f)));
  EXPECT_THROW(broadcast_to(col, {3, 2, 2}), std::invalid_argument);
  EXPECT_THROW(sum_to(wide, {5}), std::invalid_argument);
  EXPECT_EQ(broadcast_to(col, {3, 1}).chunk(), col.chunk()) << "nothing to stretch: the array itself";
}

TEST_P(Broadcasting, ReductionsAlongAxesMatchLoops) {
  auto c = ctx();
  const Shape s{2, 3, 4};
  const auto v = iota(24);
  NDArray a = from_host(c, s, v);
  // Reference: sums over axis sets.
  const auto reduce = [&v](bool r0, bool r1, bool r2, bool squares) {
    std::vector<double> out(static_cast<size_t>((r0 ? 1 : 2) * (r1 ? 1 : 3) * (r2 ? 1 : 4)), 0.0);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 4; ++k) {
          const double x = v[static_cast<size_t>((i * 3 + j) * 4 + k)];
          const int oi = r0 ? 0 : i, oj = r1 ? 0 : j, ok = r2 ? 0 : k;
          out[static_cast<size_t>((oi * (r1 ? 1 : 3) + oj) * (r2 ? 1 : 4) + ok)] += squares ? x * x : x;
        }
      }
    }
    return out;
  };
  const auto expect = [](const NDArray& got, const std::vector<double>& want, double scale, bool root) {
    const auto g = got.to_host();
    ASSERT_EQ(g.size(), want.size());
    for (size_t i = 0; i < g.size(); ++i) {
      const double w = root ? std::sqrt(want[i]) : want[i] * scale;
      EXPECT_NEAR(g[i], w, 1e-5 * std::abs(w)) << i;
    }
  };
  expect(sum(a, 0), reduce(true, false, false, false), 1.0, false);
  EXPECT_EQ(sum(a, 0).shape(), (Shape{3, 4}));
  expect(sum(a, -1), reduce(false, false, true, false), 1.0, false);
  EXPECT_EQ(sum(a, -1).shape(), (Shape{2, 3}));
  expect(mean(a, 1, true), reduce(false, true, false, false), 1.0 / 3, false);
  EXPECT_EQ(mean(a, 1, true).shape(), (Shape{2, 1, 4}));
  const int outer[] = {0, 2};
  expect(norm(a, outer), reduce(true, false, true, true), 1.0, true);
  EXPECT_EQ(norm(a, outer).shape(), (Shape{3}));
  expect(sum(a, std::span<const int>(), true), reduce(true, true, true, false), 1.0, false);
  EXPECT_EQ(sum(a, std::span<const int>(), true).shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(sum(a).shape(), Shape{});
  EXPECT_EQ(sum(a).item(), 300.0f);
  EXPECT_EQ(mean(a).item(), 12.5f);
  try {
    sum(a, 3);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "sum: axis 3 is out of range for 2x3x4 (3 dimensions)");
  }
  const int twice[] = {1, -2};
  EXPECT_THROW(sum(a, twice), std::invalid_argument);
}

// Whole-array sums run in independent lanes, then add the lanes: every
// length around the lane count (a partial tail, none, less than one lane)
// and a long one whose sequential float sum would drift, against a double
// loop over the same values.
TEST_P(Broadcasting, WholeArrayReductionsOfEveryLengthMatchADoubleLoop) {
  auto c = ctx();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 3.0f);
  for (const int64_t n : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{33}, int64_t{1000003}}) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = dist(rng);
    double s = 0.0, sq = 0.0;
    for (const float x : v) {
      s += x;
      sq += static_cast<double>(x) * x;
    }
    const NDArray a = from_host(c, Shape{n}, v);
    EXPECT_NEAR(sum(a).item(), s, 1e-6 * std::abs(s) + 1e-6) << n;
    EXPECT_NEAR(mean(a).item(), s / static_cast<double>(n), 1e-6 * std::abs(s / static_cast<double>(n)) + 1e-6) << n;
    EXPECT_NEAR(norm(a).item(), std::sqrt(sq), 1e-6 * std::sqrt(sq)) << n;
  }
  // 2^24 + 8 ones (a float): a float running sum stops at 2^24; the double lanes do not.
  const int64_t big = (int64_t{1} << 24) + 8;
  EXPECT_EQ(sum(ones(c, Shape{big})).item(), 16777224.0f);
}

}  // namespace
}  // namespace asyncscope
