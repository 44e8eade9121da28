// Every differentiable op's gradient against central finite differences, on
// small shapes, including the broadcast forms, the axis reductions, views,
// and every dot transpose.
#include <gtest/gtest.h>

#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::expect_gradients_match;
using testing::GradFixture;
using testing::host_random;
using testing::host_random_away_from_zero;
using testing::run_with_timeout;
using Inputs = std::vector<NDArray>;

std::vector<std::vector<float>> random_values(const std::vector<Shape>& shapes, uint32_t seed) {
  std::vector<std::vector<float>> v;
  for (const Shape& s : shapes) v.push_back(host_random(s.size(), seed++));
  return v;
}

void check(const testing::OpUnderTest& f, const std::vector<Shape>& shapes) {
  GradFixture fx;
  expect_gradients_match(fx.ctx, f, shapes, random_values(shapes, 7));
}

TEST(OpGradients, DotEveryTransposeCombination) {
  run_with_timeout([] {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "transpose_a=" << ta << " transpose_b=" << tb);
        const Shape a = ta ? Shape{4, 3} : Shape{3, 4};  // op(a): 3x4
        const Shape b = tb ? Shape{2, 4} : Shape{4, 2};  // op(b): 4x2
        check([ta, tb](const Inputs& x) { return dot(x[0], x[1], ta, tb); }, {a, b});
      }
    }
  });
}

TEST(OpGradients, TransposeReshapeAndBroadcasts) {
  run_with_timeout([] {
    check([](const Inputs& x) { return transpose(x[0]); }, {{3, 4}});
    check([](const Inputs& x) { return reshape(x[0], Shape{2, 6}) * 2.0f; }, {{3, 4}});
    check([](const Inputs& x) { return reshape(x[0], Shape{12}); }, {{3, 4}});
    check([](const Inputs& x) { return broadcast_to(x[0], {3, 4}); }, {{4}});
    check([](const Inputs& x) { return broadcast_to(x[0], {2, 3, 4}); }, {{3, 1}});
    check([](const Inputs& x) { return sum_to(x[0], {4}); }, {{3, 4}});
    check([](const Inputs& x) { return sum_to(x[0], {3, 1}); }, {{2, 3, 4}});
  });
}

TEST(OpGradients, BinaryOpsWithEveryBroadcastForm) {
  run_with_timeout([] {
    using Binary = NDArray (*)(const NDArray&, const NDArray&);
    const std::pair<const char*, Binary> ops[] = {
        {"add", [](const NDArray& a, const NDArray& b) { return a + b; }},
        {"sub", [](const NDArray& a, const NDArray& b) { return a - b; }},
        {"mul", [](const NDArray& a, const NDArray& b) { return a * b; }}};
    // Same shape, a 1-D row (the bias case), a {1,n} row, a column, one
    // element, 0-d, a {1,n} row onto a 1-D array, and both sides stretched.
    const std::pair<Shape, Shape> pairs[] = {{{3, 4}, {3, 4}}, {{3, 4}, {4}},    {{3, 4}, {1, 4}},
                                             {{3, 4}, {3, 1}}, {{3, 4}, {1}},    {{3, 4}, Shape{}},
                                             {{4}, {1, 4}},    {{3, 1}, {1, 4}}, {{2, 3, 4}, {3, 1}}};
    for (const auto& [name, op] : ops) {
      for (const auto& [sa, sb] : pairs) {
        SCOPED_TRACE(::testing::Message() << name << " " << sa.to_string() << " and " << sb.to_string());
        check([op](const Inputs& x) { return op(x[0], x[1]); }, {sa, sb});
        check([op](const Inputs& x) { return op(x[1], x[0]); }, {sa, sb});  // broadcast on the left
      }
    }
  });
}

TEST(OpGradients, DivideWithDenominatorsAwayFromZero) {
  run_with_timeout([] {
    GradFixture fx;
    const std::pair<Shape, Shape> pairs[] = {{{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{3, 4}, {1}}, {{3, 4}, {3, 1}}};
    for (const auto& [sa, sb] : pairs) {
      SCOPED_TRACE(sa.to_string() + " / " + sb.to_string());
      expect_gradients_match(fx.ctx, [](const Inputs& x) { return x[0] / x[1]; }, {sa, sb},
                             {host_random(sa.size(), 3), host_random(sb.size(), 4, 0.5f, 1.5f)});
    }
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return 2.0f / x[0]; }, {{3, 4}},
                           {host_random(12, 5, 0.5f, 1.5f)});
  });
}

TEST(OpGradients, ScalarOpsAndUnaryFunctions) {
  run_with_timeout([] {
    const testing::OpUnderTest ops[] = {
        [](const Inputs& x) { return x[0] + 1.5f; },  [](const Inputs& x) { return 1.5f + x[0]; },
        [](const Inputs& x) { return x[0] - 1.5f; },  [](const Inputs& x) { return 1.5f - x[0]; },
        [](const Inputs& x) { return x[0] * -2.5f; }, [](const Inputs& x) { return 2.5f * x[0]; },
        [](const Inputs& x) { return x[0] / 4.0f; },  [](const Inputs& x) { return -x[0]; },
        [](const Inputs& x) { return square(x[0]); }, [](const Inputs& x) { return exp(x[0]); },
        [](const Inputs& x) { return copy(x[0]); },
    };
    for (size_t i = 0; i < std::size(ops); ++i) {
      SCOPED_TRACE(::testing::Message() << "op #" << i);
      check(ops[i], {{3, 4}});
    }
    GradFixture fx;
    for (auto f : {+[](const Inputs& x) { return sqrt(x[0]); }, +[](const Inputs& x) { return log(x[0]); }}) {
      expect_gradients_match(fx.ctx, f, {{3, 4}}, {host_random(12, 6, 0.5f, 2.0f)});
    }
  });
}

// Broadcast operands; pow's base positive, no ties in maximum and minimum.
TEST(OpGradients, PowMaximumMinimum) {
  run_with_timeout([] {
    GradFixture fx;
    const std::vector<Shape> shapes = {Shape{3, 1}, Shape{1, 4}};
    std::vector<std::vector<float>> v = {host_random(3, 11, 0.5f, 2.0f), host_random(4, 12, -1.5f, 1.5f)};
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return pow(x[0], x[1]); }, shapes, v);
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return maximum(x[0], x[1]) * 2.0f; }, shapes, v);
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return minimum(x[0], x[1]); }, shapes, v);
  });
}

TEST(OpGradients, ReluAwayFromItsKink) {
  run_with_timeout([] {
    GradFixture fx;
    expect_gradients_match(fx.ctx, [](const Inputs& x) { return relu(x[0]); }, {{3, 4}},
                           {host_random_away_from_zero(12, 11)});
  });
}

TEST(OpGradients, ReductionsWholeAndAlongAxes) {
  run_with_timeout([] {
    const int axes01[] = {0, 1};
    const int last[] = {-1};
    const testing::OpUnderTest ops[] = {
        [](const Inputs& x) { return sum(x[0]); },
        [](const Inputs& x) { return mean(x[0]); },
        [](const Inputs& x) { return norm(x[0]); },
        [](const Inputs& x) { return sum(x[0], 0); },
        [](const Inputs& x) { return sum(x[0], 1, true); },
        [](const Inputs& x) { return mean(x[0], 2); },
        [](const Inputs& x) { return norm(x[0], 1); },
        [&axes01](const Inputs& x) { return sum(x[0], axes01); },
        [&last](const Inputs& x) { return mean(x[0], last, true); },
    };
    for (size_t i = 0; i < std::size(ops); ++i) {
      SCOPED_TRACE(::testing::Message() << "reduction #" << i);
      check(ops[i], {{2, 3, 4}});
    }
  });
}

TEST(OpGradients, ChainedOpsLikeADenseLayer) {
  run_with_timeout([] {
    GradFixture fx;
    // relu(x W^T + b): all three get gradients.
    expect_gradients_match(
        fx.ctx, [](const Inputs& x) { return relu(dot(x[0], x[1], false, true) + x[2]); }, {{4, 3}, {5, 3}, {5}},
        {host_random(12, 1), host_random(15, 2), host_random_away_from_zero(5, 3, 0.5f)});
  });
}

TEST(OpGradients, ShapeErrorsAreThrownAtTheForwardOp) {
  run_with_timeout([] {
    GradFixture fx;
    NDArray x = ones(fx.ctx, {2, 3});
    x.attach_grad();
    const int64_t nodes = autograd::live_nodes();
    autograd::Record record;
    EXPECT_THROW(dot(x, x), std::invalid_argument);
    EXPECT_THROW(x + ones(fx.ctx, {2}), std::invalid_argument);
    EXPECT_THROW(reshape(x, Shape{4}), std::invalid_argument);
    EXPECT_THROW(sum(x, 2), std::invalid_argument);
    EXPECT_EQ(autograd::live_nodes(), nodes);
  });
}

}  // namespace
}  // namespace asyncscope
