// The elementwise math ops of the op table (ops_math.cpp and the unary ops
// it lists): values against the C library on random and edge inputs, the
// rounding rules (halves to even for rint, away from zero for round), and
// every gradient against central finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "engine/tensor/op_table.h"
#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::expect_gradients_match;
using testing::GradFixture;
using testing::host_random;
using testing::run_with_timeout;

// The C library's value of each unary op of the table.
double reference(std::string_view op, double x) {
  if (op == "negative") return -x;
  if (op == "relu") return x > 0 ? x : 0;
  if (op == "square") return x * x;
  if (op == "sqrt") return std::sqrt(x);
  if (op == "exp") return std::exp(x);
  if (op == "log") return std::log(x);
  if (op == "log1p") return std::log1p(x);
  if (op == "abs") return std::fabs(x);
  if (op == "sign") return (x > 0) - (x < 0);
  if (op == "sin") return std::sin(x);
  if (op == "cos") return std::cos(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "floor") return std::floor(x);
  if (op == "ceil") return std::ceil(x);
  if (op == "rint") return std::nearbyint(x);
  if (op == "round") return std::round(x);
  if (op == "expm1") return std::expm1(x);
  if (op == "arcsin") return std::asin(x);
  if (op == "arccos") return std::acos(x);
  if (op == "arctan") return std::atan(x);
  if (op == "sinh") return std::sinh(x);
  if (op == "cosh") return std::cosh(x);
  if (op == "erf") return std::erf(x);
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

// Inputs inside each op's domain.
bool positive_only(std::string_view op) { return op == "sqrt" || op == "log"; }
bool within_one(std::string_view op) { return op == "arcsin" || op == "arccos"; }

TEST(OpsMath, EveryUnaryOpOfTheTableMatchesTheCLibrary) {
  run_with_timeout([] {
    GradFixture fx;
    for (const OpDef& op : op_table()) {
      if (op.kind != OpKind::unary) continue;
      SCOPED_TRACE(std::string(op.name));
      ASSERT_NE(op.unary, nullptr);
      const float low = positive_only(op.name) ? 0.01f : (op.name == "log1p" || within_one(op.name) ? -0.99f : -4.0f);
      std::vector<float> v = host_random(257, 3, low, within_one(op.name) ? 0.99f : 4.0f);
      const NDArray y = op.unary(from_host(fx.ctx, Shape{257}, v));
      const std::vector<float> out = y.to_host();
      ASSERT_EQ(y.shape(), Shape{257});
      for (size_t i = 0; i < v.size(); ++i) {
        const double want = reference(op.name, v[i]);
        EXPECT_NEAR(out[i], want, 2e-6 * (1.0 + std::fabs(want))) << "x = " << v[i];
      }
    }
  });
}

TEST(OpsMath, RoundingRulesAndEdgeValues) {
  GradFixture fx;
  const NDArray halves = from_host(fx.ctx, Shape{6}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f});
  EXPECT_EQ(rint(halves).to_host(), (std::vector<float>{-2, -2, -0.0f, 0, 2, 2})) << "halves to even";
  EXPECT_EQ(round(halves).to_host(), (std::vector<float>{-3, -2, -1, 1, 2, 3})) << "halves away from zero";
  EXPECT_EQ(floor(halves).to_host(), (std::vector<float>{-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(ceil(halves).to_host(), (std::vector<float>{-2, -1, -0.0f, 1, 2, 3}));
  const float inf = std::numeric_limits<float>::infinity();
  const NDArray edges = from_host(fx.ctx, Shape{3}, {-inf, 0.0f, inf});
  EXPECT_EQ(sign(edges).to_host(), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(sigmoid(edges).to_host(), (std::vector<float>{0, 0.5f, 1}));
  EXPECT_EQ(tanh(edges).to_host(), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(abs(edges).to_host(), (std::vector<float>{inf, 0, inf}));
  // Empty and 0-d arrays keep their shapes.
  EXPECT_EQ(sin(from_host(fx.ctx, Shape{0, 3}, {})).shape(), (Shape{0, 3}));
  EXPECT_EQ(cos(from_host(fx.ctx, Shape{}, {0.0f})).to_host(), (std::vector<float>{1}));
  // The inverse functions at their domain's ends and beyond, and the limits.
  const std::vector<float> ends = asin(from_host(fx.ctx, Shape{4}, {-1.0f, 1.0f, 1.5f, -2.0f})).to_host();
  EXPECT_FLOAT_EQ(ends[0], -1.5707964f);
  EXPECT_FLOAT_EQ(ends[1], 1.5707964f);
  EXPECT_TRUE(std::isnan(ends[2]) && std::isnan(acos(from_host(fx.ctx, Shape{}, {-1.5f})).to_host()[0]));
  EXPECT_EQ(atan(edges).to_host(), (std::vector<float>{-1.5707964f, 0, 1.5707964f}));
  EXPECT_EQ(erf(edges).to_host(), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(expm1(edges).to_host(), (std::vector<float>{-1, 0, inf}));
  EXPECT_EQ(cosh(edges).to_host(), (std::vector<float>{inf, 1, inf}));
  // exact where exp(a) - 1 would lose every digit
  EXPECT_FLOAT_EQ(expm1(from_host(fx.ctx, Shape{}, {1e-10f})).to_host()[0], 1e-10f);
}

TEST(OpsMath, EveryDifferentiableUnaryOpsGradientMatchesFiniteDifferences) {
  run_with_timeout([] {
    GradFixture fx;
    for (const OpDef& op : op_table()) {
      if (op.kind != OpKind::unary || !op.gradient) continue;
      SCOPED_TRACE(std::string(op.name));
      // Away from each op's kinks and steps (0 for abs, sign, relu; the
      // integers for the rounding ops, whose gradient is zero between them).
      std::vector<float> v = host_random(12, 5, 0.1f, 0.4f);
      for (size_t i = 0; i < v.size(); ++i) {
        if (!positive_only(op.name) && i % 2 == 1) {
          v[i] = -v[i] - (op.name == "log1p" || within_one(op.name) ? 0.0f : 1.0f);
        }
      }
      const auto fn = op.unary;
      expect_gradients_match(fx.ctx, [fn](const std::vector<NDArray>& x) { return fn(x[0]); }, {Shape{3, 4}}, {v});
    }
  });
}

TEST(OpTable, NamesAreUniqueAndEveryUnaryOpHasItsFunction) {
  std::set<std::string_view> names;
  for (const OpDef& op : op_table()) {
    EXPECT_TRUE(names.insert(op.name).second) << op.name;
    EXPECT_FALSE(op.doc.empty()) << op.name;
    EXPECT_EQ(op.unary != nullptr, op.kind == OpKind::unary) << op.name;
    EXPECT_EQ(find_op(op.name), &op);
  }
  EXPECT_EQ(find_op("no such op"), nullptr);
  EXPECT_EQ(frontend_names("neg negative"), (std::vector<std::string_view>{"neg", "negative"}));
  EXPECT_TRUE(frontend_names("").empty());
}

}  // namespace
}  // namespace asyncscope
