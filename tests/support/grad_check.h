// Helpers for autograd tests: a context with a private allocator (so live
// bytes are exact), host random values, and a finite-difference gradient check.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/tensor/autograd.h"
#include "engine/tensor/ops.h"

namespace asyncscope::testing {

struct GradFixture {
  std::shared_ptr<PooledAllocator> allocator;
  ContextPtr ctx;
  explicit GradFixture(EngineKind kind = EngineKind::threaded, int workers = 2, uint64_t seed = 1) {
    PooledAllocator::Options a;
    a.budget_bytes = int64_t{1} << 30;
    allocator = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>(), a);
    Context::Options o;
    o.allocator = allocator;
    o.engine.kind = kind;
    o.engine.cpu_workers = workers;
    o.seed = seed;
    ctx = Context::create(o);
  }
};

inline std::vector<float> host_random(int64_t n, uint32_t seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

// Values in [-1, 1] kept at least `gap` away from zero (for kinks such as relu).
inline std::vector<float> host_random_away_from_zero(int64_t n, uint32_t seed, float gap = 0.1f) {
  std::vector<float> v = host_random(n, seed);
  for (float& x : v) x = x < 0 ? x - gap : x + gap;
  return v;
}

using OpUnderTest = std::function<NDArray(const std::vector<NDArray>& inputs)>;

// Compares backward's gradients of L = sum(w * f(inputs)), w a fixed random
// head gradient, with central differences of L computed in double on the host.
// Every input gets attach_grad(); the inputs' values are given per input. The
// forward is recorded in a scope and backward called after it has closed.
inline void expect_gradients_match(const ContextPtr& ctx, const OpUnderTest& f, const std::vector<Shape>& shapes,
                                   const std::vector<std::vector<float>>& values, double h = 1e-2,
                                   double tolerance = 5e-3) {
  std::vector<NDArray> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    inputs.push_back(from_host(ctx, shapes[i], values[i]));
    inputs.back().attach_grad();
  }
  NDArray y;
  {
    autograd::Record record;
    y = f(inputs);
  }
  const std::vector<float> head = host_random(y.size(), 99, 0.5f, 1.5f);
  y.backward(from_host(ctx, y.shape(), head));
  const auto objective = [&](size_t input, size_t element, double delta) {
    std::vector<NDArray> args;
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::vector<float> v = values[i];
      if (i == input) v[element] = static_cast<float>(v[element] + delta);
      args.push_back(from_host(ctx, shapes[i], std::move(v)));
    }
    const std::vector<float> out = f(args).to_host();
    double total = 0.0;
    for (size_t k = 0; k < out.size(); ++k) total += static_cast<double>(head[k]) * out[k];
    return total;
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<float> analytic = inputs[i].grad().to_host();
    ASSERT_EQ(analytic.size(), values[i].size()) << "input " << i;
    for (size_t e = 0; e < analytic.size(); ++e) {
      const double numeric = (objective(i, e, h) - objective(i, e, -h)) / (2.0 * h);
      EXPECT_NEAR(analytic[e], numeric, tolerance * (1.0 + std::abs(numeric)))
          << "input " << i << " " << shapes[i].to_string() << ", element " << e;
    }
  }
}

}  // namespace asyncscope::testing
