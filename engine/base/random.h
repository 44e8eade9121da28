// Counter-based random numbers: element i of a random op with key k is a pure
// function of (k, i), so any worker (or several) can fill any part of an
// array and the result depends only on the seed and push order.
// The element functions compile for the GPU as well (engine/cuda/kernels.cu),
// so a CUDA array gets the same numbers as a CPU array with the same key.
// Threading: pure functions.
#pragma once

#include <math.h>

#include <cstdint>

#if defined(__CUDACC__)
#define ASYNCSCOPE_HOST_DEVICE __host__ __device__
#else
#define ASYNCSCOPE_HOST_DEVICE
#endif

namespace asyncscope::random {

// splitmix64 finaliser: a strong 64-bit mix.
ASYNCSCOPE_HOST_DEVICE inline uint64_t mix64(uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

ASYNCSCOPE_HOST_DEVICE inline uint64_t bits(uint64_t key, uint64_t counter) noexcept { return mix64(key ^ mix64(counter)); }

// Uniform in [0, 1) with 24 random bits (every float32 step in that range).
ASYNCSCOPE_HOST_DEVICE inline float unit(uint64_t key, uint64_t counter) noexcept {
  return static_cast<float>(bits(key, counter) >> 40) * (1.0f / 16777216.0f);
}

// Fills out[0..n) with uniform [lo, hi) values for elements first..first+n of key.
inline void fill_uniform(float* out, int64_t n, uint64_t key, float lo, float hi, uint64_t first = 0) noexcept {
  const float scale = hi - lo;
  for (int64_t i = 0; i < n; ++i) out[i] = lo + scale * unit(key, first + static_cast<uint64_t>(i));
}

// Normal(mean, std) by Box-Muller on pairs of uniforms: pair p gives elements
// 2p (cosine) and 2p + 1 (sine).
ASYNCSCOPE_HOST_DEVICE inline void normal_pair(uint64_t key, uint64_t pair, float mean, float std_dev, float& first,
                                               float& second) noexcept {
  constexpr double kTwoPi = 6.283185307179586;
  // 1 - u keeps the log argument in (0, 1].
  const double u1 = 1.0 - static_cast<double>(bits(key, 2 * pair) >> 11) * (1.0 / 9007199254740992.0);
  const double u2 = static_cast<double>(bits(key, 2 * pair + 1) >> 11) * (1.0 / 9007199254740992.0);
  const double r = ::sqrt(-2.0 * ::log(u1));
  first = static_cast<float>(mean + std_dev * r * ::cos(kTwoPi * u2));
  second = static_cast<float>(mean + std_dev * r * ::sin(kTwoPi * u2));
}

inline void fill_normal(float* out, int64_t n, uint64_t key, float mean, float std_dev) noexcept {
  for (int64_t i = 0; i < n; i += 2) {
    float first = 0.0f;
    float second = 0.0f;
    normal_pair(key, static_cast<uint64_t>(i) / 2, mean, std_dev, first, second);
    out[i] = first;
    if (i + 1 < n) out[i + 1] = second;
  }
}

}  // namespace asyncscope::random
