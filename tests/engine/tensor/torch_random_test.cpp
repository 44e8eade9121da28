// PyTorch's CPU random streams (torch_random.h): the first numbers of
// well-known seeds as PyTorch 1.13 gives them, the cached normal sample,
// the numbers independent of the workers and of when ops run, each draw
// leaving the generator where the next op starts, the saved state, and the
// refusals. (tests/python/torch_edition/test_random_streams.py compares
// every function with the real PyTorch.)
#include "engine/tensor/torch_random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/typed_values.h"

namespace asyncscope {
namespace {

using testing::GradFixture;
using testing::values;

TEST(TorchRandom, TheFirstNumbersOfSeedZeroArePyTorchs) {
  GradFixture fx;
  TorchGenerator gen(0);
  // torch.manual_seed(0); torch.rand(3): exact, as PyTorch prints them with float.hex.
  EXPECT_EQ(values<float>(torch_uniform(fx.ctx, gen, Shape{3}, DType::float32, 0.0, 1.0)),
            (std::vector<float>{0x1.fc2ab0p-2f, 0x1.89545ep-1f, 0x1.6a6750p-4f}));
  gen.manual_seed(0);
  const std::vector<float> normal = values<float>(torch_normal(fx.ctx, gen, Shape{5}, DType::float32, 0.0, 1.0));
  const std::vector<float> expected{1.5409960746765137f, -0.293428897857666f, -2.1787893772125244f,
                                    0.5684312582015991f, -1.0845223665237427f};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(normal[i], expected[i]) << i;
  gen.manual_seed(0);
  const std::vector<float> many = values<float>(torch_normal(fx.ctx, gen, Shape{20}, DType::float32, 0.0, 1.0));
  const std::vector<float> first_of_many{-1.1258398294448853f, -1.152360200881958f, -0.2505785822868347f,
                                         -0.4338788092136383f};
  for (size_t i = 0; i < first_of_many.size(); ++i) EXPECT_NEAR(many[i], first_of_many[i], 1e-6) << i;
  gen.manual_seed(0);
  EXPECT_EQ(values<int64_t>(torch_random_range(fx.ctx, gen, Shape{5}, DType::int64, 0, 100)),
            (std::vector<int64_t>{44, 39, 33, 60, 63}));
  EXPECT_EQ(values<int64_t>(torch_randperm(fx.ctx, gen, 8, DType::int64)),
            (std::vector<int64_t>{3, 7, 0, 5, 1, 4, 6, 2}));
  gen.manual_seed(0);
  EXPECT_EQ(values<float>(torch_bernoulli(fx.ctx, gen, Shape{6}, DType::float32, 0.5)),
            (std::vector<float>{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(values<double>(torch_uniform(fx.ctx, gen, Shape{2}, DType::float64, 0.0, 1.0)),
            (std::vector<double>{0.17860617520075095, 0.3511076243939284}));
}

TEST(TorchRandom, SmallNormalDrawsKeepTheSecondSampleOfTheirPairForTheNextCall) {
  GradFixture fx;
  TorchGenerator pair(3);
  const std::vector<double> two = values<double>(torch_normal(fx.ctx, pair, Shape{2}, DType::float64, 0.0, 1.0));
  TorchGenerator single(3);
  const double first = values<double>(torch_normal(fx.ctx, single, Shape{1}, DType::float64, 0.0, 1.0))[0];
  EXPECT_TRUE(single.state().next_normal.has_value());
  const double second = values<double>(torch_normal(fx.ctx, single, Shape{1}, DType::float64, 0.0, 1.0))[0];
  EXPECT_FALSE(single.state().next_normal.has_value());
  EXPECT_EQ(two, (std::vector<double>{first, second}));
  single.manual_seed(3);
  EXPECT_FALSE(single.state().next_normal.has_value()) << "a new seed drops the cached sample";
}

// Ops pushed back to back on several workers give what one generator drawing
// them in push order gives: each op starts where the previous one's draws end.
TEST(TorchRandom, TheNumbersDependOnPushOrderOnlyNotOnTheWorkers) {
  const auto draw_all = [](int workers) {
    GradFixture fx(EngineKind::threaded, workers);
    TorchGenerator gen(42);
    std::vector<NDArray> out;
    for (int i = 0; i < 6; ++i) {
      out.push_back(torch_uniform(fx.ctx, gen, Shape{1000}, DType::float64, -1.0, 1.0));
      out.push_back(torch_normal(fx.ctx, gen, Shape{37}, DType::float32, 0.0, 1.0));
      out.push_back(torch_normal(fx.ctx, gen, Shape{3}, DType::float32, 0.0, 1.0));
      out.push_back(torch_random_range(fx.ctx, gen, Shape{50}, DType::int64, -(int64_t{1} << 40), int64_t{1} << 40));
      out.push_back(torch_randperm(fx.ctx, gen, 100, DType::int64));
      out.push_back(torch_bernoulli(fx.ctx, gen, Shape{64}, DType::uint8, 0.25));
      out.push_back(torch_random_full(fx.ctx, gen, Shape{9}, DType::int32));
      const NDArray weights = torch_uniform(fx.ctx, gen, Shape{4, 6}, DType::float32, 0.0, 1.0);
      out.push_back(torch_multinomial(gen, weights, 3, false));
      out.push_back(torch_multinomial(gen, weights, 10, true));
    }
    std::vector<std::vector<double>> numbers;
    for (const NDArray& a : out) numbers.push_back(values<double>(astype(a, DType::float64)));
    return numbers;
  };
  const auto one = draw_all(1);
  EXPECT_EQ(draw_all(4), one);
  // And each op's numbers are its own: no two outputs of one kind are the same.
  EXPECT_NE(one[0], one[7]);
  EXPECT_NE(one[4], one[14]);
}

TEST(TorchRandom, EachKindOfDrawLeavesTheGeneratorWhereTheNextOpStarts) {
  GradFixture fx;
  // Draw counts: float32 uniforms one 32-bit number each, float64 two; a
  // normal fill of n >= 16 its n uniforms and 16 more when 16 does not divide n.
  const auto next_after = [&](auto draw) {
    TorchGenerator gen(5);
    draw(gen);
    return values<float>(torch_uniform(fx.ctx, gen, Shape{1}, DType::float32, 0.0, 1.0))[0];
  };
  const auto after_skipping = [&](uint64_t draws) {
    TorchGenerator gen(5);
    gen.state().engine.discard(draws);
    return values<float>(torch_uniform(fx.ctx, gen, Shape{1}, DType::float32, 0.0, 1.0))[0];
  };
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_uniform(fx.ctx, g, Shape{10}, DType::float32, 0, 1); }),
            after_skipping(10));
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_uniform(fx.ctx, g, Shape{10}, DType::float64, 0, 1); }),
            after_skipping(20));
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_normal(fx.ctx, g, Shape{35}, DType::float32, 0, 1); }),
            after_skipping(35 + 16));
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_normal(fx.ctx, g, Shape{32}, DType::float64, 0, 1); }),
            after_skipping(64));
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_randperm(fx.ctx, g, 10, DType::int64); }), after_skipping(9));
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_bernoulli(fx.ctx, g, Shape{4}, DType::float32, 0.5); }),
            after_skipping(8));
  EXPECT_EQ(next_after([&](TorchGenerator& g) { torch_random_int64(g); }), after_skipping(2));
}

TEST(TorchRandom, DrawsHaveTheirDistributionsShapes) {
  GradFixture fx;
  TorchGenerator gen(9);
  std::vector<int64_t> perm = values<int64_t>(torch_randperm(fx.ctx, gen, 1000, DType::int64));
  std::sort(perm.begin(), perm.end());
  std::vector<int64_t> identity(1000);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(perm, identity);
  const std::vector<int32_t> ints = values<int32_t>(torch_random_range(fx.ctx, gen, Shape{2000}, DType::int32, -3, 4));
  EXPECT_EQ(*std::min_element(ints.begin(), ints.end()), -3);
  EXPECT_EQ(*std::max_element(ints.begin(), ints.end()), 3);
  const std::vector<bool> coins = values<bool>(torch_bernoulli(fx.ctx, gen, Shape{4000}, DType::boolean, 0.25));
  const auto heads = std::count(coins.begin(), coins.end(), true);
  EXPECT_GT(heads, 850);
  EXPECT_LT(heads, 1150);
  const std::vector<double> u = values<double>(torch_uniform(fx.ctx, gen, Shape{1000}, DType::float64, 2.0, 3.0));
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 2.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 3.0);
  const NDArray p = torch_uniform(fx.ctx, gen, Shape{500}, DType::float32, 0.0, 1.0);
  const std::vector<float> chances = values<float>(p);
  const std::vector<float> drawn = values<float>(torch_bernoulli(gen, p, DType::float32));
  for (size_t i = 0; i < chances.size(); ++i) {
    if (chances[i] == 0.0f) {
      EXPECT_EQ(drawn[i], 0.0f);
    }
    EXPECT_TRUE(drawn[i] == 0.0f || drawn[i] == 1.0f);
  }
}

TEST(TorchRandom, TheSavedStateComesBackAndForeignBytesAreRefused) {
  GradFixture fx;
  TorchGenerator gen(11);
  torch_normal(fx.ctx, gen, Shape{1}, DType::float32, 0.0, 1.0);  // leaves a cached sample
  const std::string saved = gen.to_bytes();
  const std::vector<float> first = values<float>(torch_normal(fx.ctx, gen, Shape{7}, DType::float32, 0.0, 1.0));
  TorchGenerator other(1);
  other.from_bytes(saved);
  EXPECT_EQ(other.initial_seed(), 11u);
  EXPECT_EQ(values<float>(torch_normal(fx.ctx, other, Shape{7}, DType::float32, 0.0, 1.0)), first);
  EXPECT_THROW(other.from_bytes("not a state"), std::invalid_argument);
  EXPECT_THROW(other.from_bytes(saved.substr(0, saved.size() / 2)), std::invalid_argument);
}

TEST(TorchRandom, BadArgumentsAreRefusedAtTheCallAndLeaveTheGeneratorAlone) {
  GradFixture fx;
  TorchGenerator gen(2);
  const std::string before = gen.to_bytes();
  EXPECT_THROW(torch_uniform(fx.ctx, gen, Shape{3}, DType::int64, 0, 1), std::invalid_argument);
  EXPECT_THROW(torch_uniform(fx.ctx, gen, Shape{3}, DType::float32, 2, 1), std::invalid_argument);
  EXPECT_THROW(torch_normal(fx.ctx, gen, Shape{3}, DType::float32, 0, -1), std::invalid_argument);
  EXPECT_THROW(torch_random_range(fx.ctx, gen, Shape{3}, DType::int64, 5, 5), std::invalid_argument);
  EXPECT_THROW(torch_randperm(fx.ctx, gen, -1, DType::int64), std::invalid_argument);
  EXPECT_THROW(torch_bernoulli(fx.ctx, gen, Shape{3}, DType::float32, 1.5), std::invalid_argument);
  EXPECT_EQ(gen.to_bytes(), before);
  TorchGenerator other(3);
  const NDArray integers = torch_random_full(fx.ctx, other, Shape{2}, DType::int64);
  EXPECT_THROW(torch_bernoulli(gen, integers, DType::float32), std::invalid_argument);
  EXPECT_EQ(gen.to_bytes(), before);
}

}  // namespace
}  // namespace asyncscope
