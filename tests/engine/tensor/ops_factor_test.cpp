// The factorisations through LAPACK: each factor put back together gives the
// matrix, factors have their shapes and structure, solves solve, a matrix
// LAPACK cannot factor fails the op at the sync point with PyTorch's words,
// and the differentiable ones match finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/core/errors.h"
#include "engine/tensor/factor.h"
#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/typed_values.h"

namespace asyncscope {
namespace {

using testing::GradFixture;
using testing::host_random;
using testing::values;

NDArray matrix(const GradFixture& fx, const Shape& shape, std::vector<float> v, DType dtype = DType::float64) {
  return astype(from_host(fx.ctx, shape, std::move(v)), dtype);
}

// The largest |x - y| over two arrays of one shape, read as doubles.
double gap(const NDArray& x, const NDArray& y) {
  EXPECT_EQ(x.shape().to_string(), y.shape().to_string());
  const std::vector<double> a = values<double>(astype(x, DType::float64));
  const std::vector<double> b = values<double>(astype(y, DType::float64));
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// x @ y for 2-D arrays or batches of one batch dim.
NDArray product(const NDArray& x, const NDArray& y) {
  return x.shape().ndim() == 2 ? dot(x, y) : batch_dot(x, y);
}

// An (n, n) identity of `like`'s type, or a batch of them.
NDArray identity(const GradFixture& fx, const Shape& shape) {
  const int64_t n = shape[shape.ndim() - 1];
  std::vector<float> v(static_cast<size_t>(shape.size()), 0.0f);
  for (int64_t i = 0; i < shape.size(); ++i) v[static_cast<size_t>(i)] = (i % (n * n)) % (n + 1) == 0;
  return matrix(fx, shape, v);
}

const std::vector<float> kSpd = {4, 1, 2, 1, 3, 0, 2, 0, 5};  // symmetric, positive-definite

TEST(Factor, SvdPutsTheMatrixBackWithDescendingValues) {
  GradFixture fx;
  for (const Shape& shape : {Shape{3, 2}, Shape{2, 3}, Shape{2, 4, 3}}) {
    const NDArray a = matrix(fx, shape, host_random(shape.size(), 3));
    const Svd r = svd(a, false, true);
    const int64_t m = shape[shape.ndim() - 2], n = shape[shape.ndim() - 1], k = std::min(m, n);
    EXPECT_EQ(r.s.shape()[r.s.shape().ndim() - 1], k);
    // U diag(S) Vh: S scales U's columns.
    const NDArray us = r.u * (r.s.shape().ndim() == 1 ? reshape(r.s, Shape{1, k}) : reshape(r.s, Shape{2, 1, k}));
    EXPECT_LT(gap(product(us, r.vh), a), 1e-12) << shape.to_string();
    const std::vector<double> s = values<double>(r.s);
    for (size_t i = 1; i < s.size(); ++i) {
      if (static_cast<int64_t>(i) % k != 0) {
        EXPECT_GE(s[i - 1], s[i]);
      }
    }
    const Svd full = svd(a, true, true);
    EXPECT_EQ(full.u.shape()[full.u.shape().ndim() - 1], m);
    EXPECT_EQ(full.vh.shape()[full.vh.shape().ndim() - 2], n);
    EXPECT_LT(gap(svd(a, false, false).s, r.s), 1e-12) << "the values alone are the same values";
  }
}

TEST(Factor, QrIsAnOrthogonalTimesAnUpperTriangle) {
  GradFixture fx;
  const NDArray a = matrix(fx, Shape{4, 3}, host_random(12, 5));
  const Qr reduced = qr(a, "reduced");
  EXPECT_EQ(reduced.q.shape(), (Shape{4, 3}));
  EXPECT_EQ(reduced.r.shape(), (Shape{3, 3}));
  EXPECT_LT(gap(dot(reduced.q, reduced.r), a), 1e-12);
  EXPECT_LT(gap(dot(reduced.q, reduced.q, true, false), identity(fx, Shape{3, 3})), 1e-12);
  const std::vector<double> r = values<double>(reduced.r);
  EXPECT_EQ(r[3], 0.0);  // below the diagonal
  EXPECT_EQ(r[6], 0.0);
  const Qr complete = qr(a, "complete");
  EXPECT_EQ(complete.q.shape(), (Shape{4, 4}));
  EXPECT_LT(gap(dot(complete.q, complete.r), a), 1e-12);
  EXPECT_TRUE(qr(a, "r").q.is_null());
  EXPECT_THROW((void)qr(a, "economic"), std::invalid_argument);
  // geqrf's reflectors give the same Q through ormqr (Q^T A = R).
  const QrReflectors h = geqrf(a);
  EXPECT_LT(gap(ormqr(h.a, h.tau, a, true, true), complete.r), 1e-12);
}

TEST(Factor, EighAndCholeskyOfASymmetricPositiveDefiniteMatrix) {
  GradFixture fx;
  const NDArray a = matrix(fx, Shape{3, 3}, kSpd);
  const Eigh e = eigh(a, false, true);
  const std::vector<double> w = values<double>(e.values);
  EXPECT_LT(w[0], w[1]);
  EXPECT_LT(w[1], w[2]);
  EXPECT_LT(gap(dot(a, e.vectors), e.vectors * reshape(e.values, Shape{1, 3})), 1e-12) << "A V = V diag(w)";
  const NDArray l = cholesky(a, false);
  EXPECT_LT(gap(dot(l, l, false, true), a), 1e-12);
  EXPECT_EQ(values<double>(l)[1], 0.0) << "above the diagonal of L";
  const NDArray u = cholesky(a, true);
  EXPECT_LT(gap(dot(u, u, true, false), a), 1e-12);
}

TEST(Factor, LuSolvesAndTheInverseInvertsEachMatrixOfABatch) {
  GradFixture fx;
  std::vector<float> v = kSpd;
  const std::vector<float> other = {0, 2, 1, 1, 1, 0, 3, 0, 1};  // needs a row swap
  v.insert(v.end(), other.begin(), other.end());
  const NDArray a = matrix(fx, Shape{2, 3, 3}, v);
  const NDArray b = matrix(fx, Shape{2, 3, 2}, host_random(12, 7));
  const Lu f = lu_factor(a);
  EXPECT_EQ(f.pivots.dtype(), DType::int32);
  const NDArray x = lu_solve(f.lu, f.pivots, b, false);
  EXPECT_LT(gap(batch_dot(a, x), b), 1e-12);
  const NDArray xt = lu_solve(f.lu, f.pivots, b, true);
  EXPECT_LT(gap(batch_dot(a, xt, true, false), b), 1e-12) << "A^T X = B";
  EXPECT_LT(gap(batch_dot(a, inverse(a)), identity(fx, Shape{2, 3, 3})), 1e-12);
  // Triangular solves: L X = B and L^T X = B with L from cholesky.
  const NDArray l = cholesky(matrix(fx, Shape{3, 3}, kSpd), false);
  const NDArray c = matrix(fx, Shape{3, 2}, host_random(6, 8));
  EXPECT_LT(gap(dot(l, solve_triangular(l, c, false, false, false)), c), 1e-12);
  EXPECT_LT(gap(dot(l, solve_triangular(l, c, false, true, false), true, false), c), 1e-12);
}

TEST(Factor, AMatrixLapackCannotFactorFailsTheOpAtTheSyncPoint) {
  GradFixture fx;
  const NDArray singular = matrix(fx, Shape{2, 2}, {1, 2, 2, 4});
  const NDArray inv = inverse(singular);  // pushed: the failure is the op's, seen when read
  try {
    inv.wait_to_read();
    FAIL() << "a singular matrix was inverted";
  } catch (const OpError& e) {
    EXPECT_NE(std::string(e.what()).find("the input matrix is singular"), std::string::npos) << e.what();
  }
  const NDArray indefinite = matrix(fx, Shape{2, 2}, {1, 2, 2, 1});
  try {
    cholesky(indefinite, false).wait_to_read();
    FAIL() << "an indefinite matrix was factored";
  } catch (const OpError& e) {
    EXPECT_NE(std::string(e.what()).find("not positive-definite"), std::string::npos) << e.what();
  }
}

TEST(Factor, RefusesWhatLapackDoesNotTake) {
  GradFixture fx;
  EXPECT_THROW((void)svd(astype(from_host(fx.ctx, Shape{2, 2}, {1, 2, 3, 4}), DType::int64), false, true),
               std::invalid_argument);
  EXPECT_THROW((void)qr(from_host(fx.ctx, Shape{3}, {1, 2, 3}), "reduced"), std::invalid_argument);
  EXPECT_THROW((void)inverse(matrix(fx, Shape{2, 3}, host_random(6, 1))), std::invalid_argument);
  EXPECT_THROW((void)solve_triangular(matrix(fx, Shape{2, 2}, {1, 0, 0, 1}), matrix(fx, Shape{3, 1}, {1, 2, 3}),
                                      false, false, false),
               std::invalid_argument);
}

TEST(Factor, EmptyMatricesFactorToEmptyAndIdentityFactors) {
  GradFixture fx;
  const NDArray a = NDArray::empty(fx.ctx, Shape{0, 3}, Device::cpu(), DType::float64);
  const Svd r = svd(a, true, true);
  EXPECT_EQ(r.s.shape(), (Shape{0}));
  EXPECT_EQ(values<double>(r.vh), values<double>(identity(fx, Shape{3, 3})));
}

TEST(Factor, InverseAndTriangularSolvesHaveTheirGradients) {
  GradFixture fx;
  testing::expect_gradients_match(
      fx.ctx, [](const std::vector<NDArray>& x) { return inverse(x[0]); }, {Shape{3, 3}}, {kSpd});
  // A lower triangle (its upper part unused: its gradient must be zero there), and B.
  const std::vector<float> lower = {2, 0.7f, -0.4f, 0.5f, 1.5f, 0.9f, -1, 0.3f, 2.5f};
  for (const bool transpose : {false, true}) {
    testing::expect_gradients_match(
        fx.ctx,
        [transpose](const std::vector<NDArray>& x) { return solve_triangular(x[0], x[1], false, transpose, false); },
        {Shape{3, 3}, Shape{3, 2}}, {lower, host_random(6, 4)});
  }
}

}  // namespace
}  // namespace asyncscope
