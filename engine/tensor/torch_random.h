// PyTorch's CPU random streams, for the torch edition.
//
// TorchGenerator draws as PyTorch 1.13's CPU generator does: an mt19937
// seeded with the low 32 bits of torch.manual_seed's seed, 64-bit draws made
// of two 32-bit ones (the first is the high half), and a cached second
// sample of the normal distribution. The ops below take their numbers from
// it in the order and with the transformations of PyTorch's CPU kernels, so
// a seeded program gets the real PyTorch's numbers: bit for bit for uniform,
// integer, permutation and Bernoulli draws, and to a few float32 ulps for
// normal ones (PyTorch's AVX2 kernel has its own log, sin and cos).
//
// The counter-based keys of engine/base/random.h stay the streams of the
// other editions and of GPU arrays (PyTorch's CUDA streams are not its CPU
// ones either): those need no order between ops.
//
// Threading: a TorchGenerator is used by one thread at a time (the frontend
// thread that pushes the ops drawing from it, or Python threads taking turns
// under the GIL). Each op takes a copy of the state it starts from, and the
// generator moves past that op's draws before it is pushed, so the numbers
// depend on the push order only, never on when or on which worker an op runs.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "engine/tensor/ndarray.h"

namespace asyncscope {

class TorchGenerator {
 public:
  struct State {
    std::mt19937 engine;
    std::optional<double> next_normal;  // the second sample of the last normal pair drawn one at a time
  };

  explicit TorchGenerator(uint64_t seed) { manual_seed(seed); }

  void manual_seed(uint64_t seed) {
    seed_ = seed;
    state_ = State{std::mt19937(static_cast<uint32_t>(seed)), std::nullopt};
  }
  uint64_t initial_seed() const noexcept { return seed_; }

  // The whole state (torch.get_rng_state / set_rng_state, Generator.get_state).
  const State& state() const noexcept { return state_; }
  State& state() noexcept { return state_; }
  void set_state(const State& state) { state_ = state; }
  // Its bytes: the seed, the cached normal sample and the engine's text form;
  // from_bytes refuses bytes it did not make (std::invalid_argument).
  std::string to_bytes() const;
  void from_bytes(const std::string& bytes);

 private:
  uint64_t seed_ = 0;
  State state_;
};

// One int64 drawn as Tensor.random_() draws it, at once on the calling
// thread (what torch.empty((), dtype=torch.int64).random_().item() gives).
int64_t torch_random_int64(TorchGenerator& gen);

// U(from, to) samples of a floating dtype (torch.rand, Tensor.uniform_).
NDArray torch_uniform(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double from,
                      double to);
// N(mean, std^2) samples of a floating dtype (torch.randn, torch.normal, Tensor.normal_).
NDArray torch_normal(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double mean,
                     double std_dev);
// Integers uniform in [low, high), in any dtype but bool (torch.randint, Tensor.random_(low, high)).
NDArray torch_random_range(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, int64_t low,
                           int64_t high);
// Tensor.random_(): integers uniform over what the dtype holds exactly
// (0 .. 2^63 - 1 for int64, 0 .. 2^24 for float32, 0 or 1 for bool).
NDArray torch_random_full(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype);
// A random permutation of 0 .. n - 1 (torch.randperm).
NDArray torch_randperm(const ContextPtr& ctx, TorchGenerator& gen, int64_t n, DType dtype);
// 1 with probability p, else 0 (Tensor.bernoulli_(p), dropout's mask).
NDArray torch_bernoulli(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double p);
// 1 with each element's probability, else 0, of dtype (torch.bernoulli(probabilities)).
NDArray torch_bernoulli(TorchGenerator& gen, const NDArray& probabilities, DType dtype);

// `samples` category indices per row of weights (1-d or 2-d, floats; int64),
// drawn as PyTorch draws them: without replacement, or one sample, the
// largest weight / Exp(1) (one exponential sample per category); with
// replacement, a binary search of the normalised cumulative weights for
// one uniform sample each. Bad weights (negative, infinite, NaN, all zero)
// are the op's error at the sync point, as PyTorch's CPU kernel finds them.
NDArray torch_multinomial(TorchGenerator& gen, const NDArray& weights, int64_t samples, bool replacement);

}  // namespace asyncscope
