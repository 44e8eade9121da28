// Every differentiable op's gradient against central finite differences, on
// small shapes, including the broadcast forms and every dot transpose.
#include "engine/nn/functional.h"

#include <gtest/gtest.h>

#include "nn_test_support.h"
#include "support/timeout.h"

namespace asyncscope::nn {
namespace {

namespace ag = autograd;
using testing::expect_gradients_match;
using testing::host_random;
using testing::host_random_away_from_zero;
using testing::NnFixture;
using Inputs = std::vector<NDArray>;

std::vector<std::vector<float>> random_values(const std::vector<Shape>& shapes, uint32_t seed) {
  std::vector<std::vector<float>> v;
  for (const Shape& s : shapes) v.push_back(host_random(s.size(), seed++));
  return v;
}

void check(const testing::OpUnderTest& f, const std::vector<Shape>& shapes) {
  NnFixture fx;
  expect_gradients_match(fx.ctx, f, shapes, random_values(shapes, 7));
}

TEST(AutogradOps, DotEveryTransposeCombination) {
  asyncscope::testing::run_with_timeout([] {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "transpose_a=" << ta << " transpose_b=" << tb);
        const Shape a = ta ? Shape{4, 3} : Shape{3, 4};  // op(a): 3x4
        const Shape b = tb ? Shape{2, 4} : Shape{4, 2};  // op(b): 4x2
        check([ta, tb](const Inputs& x) { return ag::dot(x[0], x[1], ta, tb); }, {a, b});
      }
    }
  });
}

TEST(AutogradOps, Transpose) {
  asyncscope::testing::run_with_timeout([] {
    check([](const Inputs& x) { return ag::transpose(x[0]); }, {{3, 4}});
  });
}

TEST(AutogradOps, BinaryOpsSameShapeAndBroadcast) {
  asyncscope::testing::run_with_timeout([] {
    using Binary = NDArray (*)(const NDArray&, const NDArray&);
    const std::pair<const char*, Binary> ops[] = {{"add", ag::add},
                                                  {"subtract", ag::subtract},
                                                  {"multiply", ag::multiply}};
    // Same shape, a 1-D row (the bias case), a {1,n} row, one element, 0-d,
    // and a {1,n} row broadcast onto a 1-D array.
    const std::pair<Shape, Shape> pairs[] = {{{3, 4}, {3, 4}}, {{3, 4}, {4}},    {{3, 4}, {1, 4}},
                                             {{3, 4}, {1}},    {{3, 4}, Shape{}}, {{4}, {1, 4}}};
    for (const auto& [name, op] : ops) {
      for (const auto& [sa, sb] : pairs) {
        SCOPED_TRACE(::testing::Message() << name << " " << sa.to_string() << " and " << sb.to_string());
        check([op](const Inputs& x) { return op(x[0], x[1]); }, {sa, sb});
        check([op](const Inputs& x) { return op(x[1], x[0]); }, {sa, sb});  // broadcast on the left
      }
    }
  });
}

TEST(AutogradOps, DivideWithDenominatorsAwayFromZero) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    const std::pair<Shape, Shape> pairs[] = {{{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{3, 4}, {1}}};
    for (const auto& [sa, sb] : pairs) {
      SCOPED_TRACE(sa.to_string() + " / " + sb.to_string());
      expect_gradients_match(fx.ctx, [](const Inputs& x) { return ag::divide(x[0], x[1]); }, {sa, sb},
                             {host_random(sa.size(), 3), host_random(sb.size(), 4, 0.5f, 1.5f)});
    }
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return ag::divide(2.0f, x[0]); }, {{3, 4}},
                           {host_random(12, 5, 0.5f, 1.5f)});
  });
}

TEST(AutogradOps, ScalarOpsAndNegative) {
  asyncscope::testing::run_with_timeout([] {
    const testing::OpUnderTest ops[] = {
        [](const Inputs& x) { return ag::add(x[0], 1.5f); },
        [](const Inputs& x) { return ag::subtract(x[0], 1.5f); },
        [](const Inputs& x) { return ag::subtract(1.5f, x[0]); },
        [](const Inputs& x) { return ag::multiply(x[0], -2.5f); },
        [](const Inputs& x) { return ag::divide(x[0], 4.0f); },
        [](const Inputs& x) { return ag::negative(x[0]); },
        [](const Inputs& x) { return ag::square(x[0]); },
    };
    for (size_t i = 0; i < std::size(ops); ++i) {
      SCOPED_TRACE(::testing::Message() << "scalar op #" << i);
      check(ops[i], {{3, 4}});
    }
  });
}

TEST(AutogradOps, ReluAwayFromItsKink) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return ag::relu(x[0]); }, {{3, 4}},
                           {host_random_away_from_zero(12, 11)});
  });
}

TEST(AutogradOps, Reductions) {
  asyncscope::testing::run_with_timeout([] {
    const testing::OpUnderTest ops[] = {
        [](const Inputs& x) { return ag::sum(x[0]); },        [](const Inputs& x) { return ag::mean(x[0]); },
        [](const Inputs& x) { return ag::sum(x[0], 0); },     [](const Inputs& x) { return ag::sum(x[0], 1); },
        [](const Inputs& x) { return ag::mean(x[0], 0); },    [](const Inputs& x) { return ag::mean(x[0], 1); },
    };
    for (size_t i = 0; i < std::size(ops); ++i) {
      SCOPED_TRACE(::testing::Message() << "reduction #" << i);
      check(ops[i], {{3, 4}});
    }
  });
}

TEST(AutogradOps, ReshapesBetweenRowAndColumnForms) {
  asyncscope::testing::run_with_timeout([] {
    check([](const Inputs& x) { return ag::reshape_row(x[0], {1, 5}); }, {{5}});
    check([](const Inputs& x) { return ag::reshape_row(x[0], {5}); }, {{1, 5}});
    check([](const Inputs& x) { return ag::reshape_row(x[0], {1, 1}); }, {Shape{}});
    check([](const Inputs& x) { return ag::as_column(x[0]); }, {{5}});
  });
}

TEST(AutogradOps, ChainedOpsLikeADenseLayer) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    // relu(x W^T + b) with x kept constant-free: all three get gradients.
    expect_gradients_match(
        fx.ctx, [](const Inputs& x) { return ag::relu(ag::add(ag::dot(x[0], x[1], false, true), x[2])); },
        {{4, 3}, {5, 3}, {5}}, {host_random(12, 1), host_random(15, 2), host_random_away_from_zero(5, 3, 0.5f)});
  });
}

TEST(AutogradOps, ShapeErrorsAreThrownAtTheForwardOp) {
  asyncscope::testing::run_with_timeout([] {
    NnFixture fx;
    autograd::Variable x(ones(fx.ctx, {2, 3}));
    autograd::Record record;
    EXPECT_THROW(ag::dot(x.data(), x.data()), std::invalid_argument);
    EXPECT_THROW(ag::add(x.data(), ones(fx.ctx, {2})), std::invalid_argument);
    EXPECT_THROW(ag::reshape_row(x.data(), {6}), std::invalid_argument);
    EXPECT_THROW(ag::as_column(x.data()), std::invalid_argument);
    // A row broadcast over a 3-D output has no supported reduction.
    autograd::Variable cube(ones(fx.ctx, {2, 2, 3}));
    EXPECT_THROW(ag::add(cube.data(), ones(fx.ctx, {3})), std::invalid_argument);
    EXPECT_EQ(autograd::tape_size(), 0u);
  });
}

}  // namespace
}  // namespace asyncscope::nn
