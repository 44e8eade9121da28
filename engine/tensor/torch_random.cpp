#include "engine/tensor/torch_random.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch_typed;
using ops_detail::NoFunction;

namespace {

constexpr const char* kBytesHeader = "asyncscope torch generator 1";

uint32_t draw32(std::mt19937& e) { return static_cast<uint32_t>(e()); }
uint64_t draw64(std::mt19937& e) {
  const uint64_t high = draw32(e);
  return (high << 32) | draw32(e);
}
// Uniform in [0, 1): float32's 24 bits of one draw, float64's 53 bits of two.
double unit_float(std::mt19937& e) { return static_cast<double>(draw32(e) & 0xFFFFFFu) * 0x1.0p-24; }
double unit_double(std::mt19937& e) { return static_cast<double>(draw64(e) & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53; }
double unit(std::mt19937& e, DType t) { return t == DType::float64 ? unit_double(e) : unit_float(e); }
uint64_t draws_per_unit(DType t) { return t == DType::float64 ? 2 : 1; }

const ContextPtr& checked(const ContextPtr& ctx, const char* op) {
  if (!ctx) throw std::invalid_argument(std::string(op) + ": null context");
  return ctx;
}

void require_floating(DType dtype, const char* op) {
  if (!is_floating(dtype)) {
    throw std::invalid_argument(std::string(op) + ": random values of this kind need a floating-point dtype, not " +
                                name(dtype));
  }
}

// The state an op's `draws` start from; the generator moves past them
// before the op is pushed (a push may let another Python thread run, whose
// ops must not start from the same state).
std::shared_ptr<std::mt19937> take_draws(TorchGenerator& gen, uint64_t draws) {
  auto start = std::make_shared<std::mt19937>(gen.state().engine);
  gen.state().engine.discard(draws);
  return start;
}

// The op writing a fresh CPU array of `shape` and `dtype`: fill(engine, T*
// out, n) runs on a worker from a copy of the generator's state now, which
// skips the `draws` the fill makes.
template <class Fill>
NDArray random_op(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, uint64_t draws,
                  const char* op, Fill fill) {
  NDArray out = NDArray::empty(checked(ctx, op), shape, Device::cpu(), dtype);
  Chunk* o = out.chunk();
  auto start = take_draws(gen, draws);
  launch_typed(
      trace::intern(op), op, {}, {&out},
      [o, start, fill, dtype](const RunContext&) {
        visit_dtype(dtype, [&](auto zero) {
          using T = decltype(zero);
          fill(*start, o->typed_for_write<T>(), o->shape.size());
        });
      },
      NoFunction{});
  return out;
}

// PyTorch's Box-Muller over 16 uniforms: the first 8 give the radii, the last
// 8 the angles; element j becomes the cosine sample, j + 8 the sine one.
// float32 as PyTorch's AVX2 kernel (the angle in float32), float64 as its
// scalar one (the angle in double).
template <class T>
void box_muller_16(T* d, T mean, T std_dev) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = T(1) - d[j];  // (0, 1] for the log
    const T u2 = d[j + 8];
    const T radius = std::sqrt(T(-2) * std::log(u1));
    const T theta = std::is_same_v<T, float> ? static_cast<T>(static_cast<float>(2.0 * std::numbers::pi) * u2)
                                             : static_cast<T>(2.0 * std::numbers::pi * u2);
    d[j] = std::fma(radius * std::cos(theta), std_dev, mean);
    d[j + 8] = std::fma(radius * std::sin(theta), std_dev, mean);
  }
}

// One sample of N(mean, std^2) as PyTorch draws them one at a time (in
// double, the second of each pair kept for the next call).
double normal_sample(TorchGenerator::State& s, double mean, double std_dev) {
  if (s.next_normal) {
    const double cached = *s.next_normal;
    s.next_normal.reset();
    return cached * std_dev + mean;
  }
  const double u1 = unit_double(s.engine);
  const double u2 = unit_double(s.engine);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  s.next_normal = r * std::sin(theta);
  return r * std::cos(theta) * std_dev + mean;
}

}  // namespace

std::string TorchGenerator::to_bytes() const {
  std::ostringstream out;
  out << kBytesHeader << '\n' << seed_ << '\n' << (state_.next_normal ? 1 : 0) << ' ' << std::hexfloat
      << state_.next_normal.value_or(0.0) << std::defaultfloat << '\n' << state_.engine;
  return out.str();
}

void TorchGenerator::from_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  std::string header;
  std::getline(in, header);
  uint64_t seed = 0;
  int has_normal = 0;
  std::string normal_text;
  State state;
  in >> seed >> has_normal >> normal_text >> state.engine;
  if (header != kBytesHeader || in.fail() || (has_normal != 0 && has_normal != 1)) {
    throw std::invalid_argument("set_rng_state: not a generator state saved by get_rng_state");
  }
  if (has_normal == 1) state.next_normal = std::strtod(normal_text.c_str(), nullptr);
  seed_ = seed;
  state_ = std::move(state);
}

int64_t torch_random_int64(TorchGenerator& gen) {
  return static_cast<int64_t>(draw64(gen.state().engine) % (uint64_t{1} << 63));
}

NDArray torch_uniform(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double from,
                      double to) {
  require_floating(dtype, "uniform");
  if (!(from <= to)) {
    throw std::invalid_argument("uniform_ expects to return a [from, to) range, but found from=" +
                                std::to_string(from) + " > to=" + std::to_string(to));
  }
  // PyTorch takes the bounds and their difference in the tensor's type,
  // then computes in double.
  double width = to - from;
  if (dtype == DType::float32) {
    from = static_cast<float>(from);
    width = static_cast<float>(static_cast<float>(to) - static_cast<float>(from));
  }
  return random_op(ctx, gen, shape, dtype, static_cast<uint64_t>(shape.size()) * draws_per_unit(dtype), "uniform",
                   [dtype, from, width](std::mt19937& e, auto* out, int64_t n) {
                     using T = std::remove_pointer_t<decltype(out)>;
                     for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(unit(e, dtype) * width + from);
                   });
}

NDArray torch_normal(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double mean,
                     double std_dev) {
  require_floating(dtype, "normal");
  if (!(std_dev >= 0.0)) throw std::invalid_argument("normal expects std >= 0.0, but found std " + std::to_string(std_dev));
  const int64_t n = shape.size();
  if (n < 16) {
    // PyTorch draws these one at a time: at push, since the cached sample
    // they leave is the next call's.
    std::vector<double> values(static_cast<size_t>(n));
    for (double& v : values) v = normal_sample(gen.state(), mean, std_dev);
    return random_op(ctx, gen, shape, dtype, 0, "normal", [values](std::mt19937&, auto* out, int64_t count) {
      using T = std::remove_pointer_t<decltype(out)>;
      for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(values[static_cast<size_t>(i)]);
    });
  }
  // Uniforms for every element, Box-Muller over blocks of 16, and a last
  // block of 16 fresh uniforms over the end when 16 does not divide n.
  const uint64_t units = static_cast<uint64_t>(n) + (n % 16 != 0 ? 16 : 0);
  return random_op(ctx, gen, shape, dtype, units * draws_per_unit(dtype), "normal",
                   [dtype, mean, std_dev](std::mt19937& e, auto* out, int64_t count) {
                     using T = std::remove_pointer_t<decltype(out)>;
                     if constexpr (std::is_floating_point_v<T>) {
                       const auto m = static_cast<T>(mean);
                       const auto s = static_cast<T>(std_dev);
                       for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(unit(e, dtype));
                       for (int64_t i = 0; i + 16 <= count; i += 16) box_muller_16(out + i, m, s);
                       if (count % 16 != 0) {
                         T* last = out + count - 16;
                         for (int j = 0; j < 16; ++j) last[j] = static_cast<T>(unit(e, dtype));
                         box_muller_16(last, m, s);
                       }
                     }
                   });
}

NDArray torch_random_range(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, int64_t low,
                           int64_t high) {
  if (!(low < high)) {
    throw std::invalid_argument("random_ expects 'from' to be less than 'to', but got from=" + std::to_string(low) +
                                " >= to=" + std::to_string(high));
  }
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const bool wide = range >= (uint64_t{1} << 32);
  return random_op(ctx, gen, shape, dtype, static_cast<uint64_t>(shape.size()) * (wide ? 2 : 1), "randint",
                   [range, wide, low](std::mt19937& e, auto* out, int64_t n) {
                     using T = std::remove_pointer_t<decltype(out)>;
                     for (int64_t i = 0; i < n; ++i) {
                       const uint64_t v = (wide ? draw64(e) : draw32(e)) % range;
                       out[i] = static_cast<T>(static_cast<int64_t>(v + static_cast<uint64_t>(low)));
                     }
                   });
}

NDArray torch_random_full(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype) {
  const bool wide = dtype == DType::int64 || dtype == DType::float64;
  return random_op(ctx, gen, shape, dtype, static_cast<uint64_t>(shape.size()) * (wide ? 2 : 1), "random",
                   [wide](std::mt19937& e, auto* out, int64_t n) {
                     using T = std::remove_pointer_t<decltype(out)>;
                     // One more than the largest value: every integer the type holds exactly.
                     uint64_t bound = 0;
                     if constexpr (std::is_same_v<T, float>) bound = (uint64_t{1} << 24) + 1;
                     else if constexpr (std::is_same_v<T, double>) bound = (uint64_t{1} << 53) + 1;
                     else if constexpr (std::is_same_v<T, bool>) bound = 2;
                     else bound = static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1;
                     for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>((wide ? draw64(e) : draw32(e)) % bound);
                   });
}

NDArray torch_randperm(const ContextPtr& ctx, TorchGenerator& gen, int64_t n, DType dtype) {
  if (n < 0) throw std::invalid_argument("randperm: n must be non-negative, got " + std::to_string(n));
  if (dtype == DType::boolean && n > 2) throw std::invalid_argument("randperm: n is too large for bool, got " + std::to_string(n));
  // A Fisher-Yates shuffle from the front, one 32-bit draw per swap.
  return random_op(ctx, gen, Shape{n}, dtype, n > 1 ? static_cast<uint64_t>(n - 1) : 0, "randperm",
                   [](std::mt19937& e, auto* out, int64_t count) {
                     using T = std::remove_pointer_t<decltype(out)>;
                     for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(i);
                     for (int64_t i = 0; i + 1 < count; ++i) {
                       const auto z = static_cast<int64_t>(draw32(e) % static_cast<uint64_t>(count - i));
                       std::swap(out[i], out[z + i]);
                     }
                   });
}

NDArray torch_bernoulli(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
  return random_op(ctx, gen, shape, dtype, static_cast<uint64_t>(shape.size()) * 2, "bernoulli",
                   [p](std::mt19937& e, auto* out, int64_t n) {
                     using T = std::remove_pointer_t<decltype(out)>;
                     for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(unit_double(e) < p);
                   });
}

NDArray torch_bernoulli(TorchGenerator& gen, const NDArray& probabilities, DType dtype) {
  static const trace::NameId kName = trace::intern("bernoulli");
  const DType pt = probabilities.dtype();
  if (!is_floating(pt)) {
    throw std::invalid_argument(std::string("bernoulli: the probabilities must be floats, got ") + name(pt));
  }
  const NDArray p = probabilities.device() == Device::cpu() ? probabilities : to(probabilities, Device::cpu());
  NDArray out = NDArray::empty(p.context_ptr(), p.shape(), Device::cpu(), dtype);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(p, "bernoulli");
  auto start = take_draws(gen, static_cast<uint64_t>(p.shape().size()) * draws_per_unit(pt));
  launch_typed(
      kName, "bernoulli", {&p}, {&out},
      [o, x, start, pt, dtype](const RunContext&) {
        const int64_t n = o->shape.size();
        visit_dtype(dtype, [&](auto zero) {
          using T = decltype(zero);
          T* y = o->typed_for_write<T>();
          for (int64_t i = 0; i < n; ++i) {
            const double chance = pt == DType::float64 ? x->typed_for_read<double>()[i] : x->typed_for_read<float>()[i];
            if (!(chance >= 0.0 && chance <= 1.0)) {
              throw std::invalid_argument("bernoulli: the probabilities must be in [0, 1]");
            }
            y[i] = static_cast<T>(unit(*start, pt) < chance);
          }
        });
      },
      NoFunction{});
  return out;
}

NDArray torch_multinomial(TorchGenerator& gen, const NDArray& weights, int64_t samples, bool replacement) {
  static const trace::NameId kName = trace::intern("multinomial");
  const Shape& s = weights.chunk("multinomial")->shape;
  if (s.ndim() != 1 && s.ndim() != 2) throw std::invalid_argument("prob_dist must be 1 or 2 dim");
  const DType wt = weights.dtype();
  if (!is_floating(wt)) throw std::invalid_argument("multinomial only supports floating-point dtypes for input");
  const int64_t categories = s[s.ndim() - 1];
  if (samples <= 0) throw std::invalid_argument("cannot sample n_sample <= 0 samples");
  if (!replacement && samples > categories) {
    throw std::invalid_argument("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  const int64_t rows = s.ndim() == 2 ? s[0] : 1;
  const NDArray w = weights.device() == Device::cpu() ? weights : to(weights, Device::cpu());
  NDArray out = NDArray::empty(w.context_ptr(), s.ndim() == 2 ? Shape{rows, samples} : Shape{samples}, Device::cpu(),
                               DType::int64);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(w, "multinomial");
  const bool by_exponentials = !replacement || samples == 1;
  auto start = take_draws(gen, static_cast<uint64_t>(rows) * static_cast<uint64_t>(by_exponentials ? categories : samples) * 2);
  launch_typed(
      kName, "multinomial", {&w}, {&out},
      [o, x, start, wt, rows, categories, samples, by_exponentials](const RunContext&) {
        visit_dtype(wt, [&](auto zero) {
          using T = decltype(zero);
          if constexpr (std::is_floating_point_v<T>) {
            const T* p = x->typed_for_read<T>();
            int64_t* y = o->typed_for_write<int64_t>();
            std::mt19937& e = *start;
            for (int64_t r = 0; r < rows; ++r) {
              const T* row = p + r * categories;
              T total = 0;
              for (int64_t c = 0; c < categories; ++c) {
                if (!(row[c] >= 0) || std::isinf(row[c])) {
                  throw std::invalid_argument("probability tensor contains either `inf`, `nan` or element < 0");
                }
                total += row[c];
              }
              if (!(total > 0)) throw std::invalid_argument("invalid multinomial distribution (sum of probabilities <= 0)");
              int64_t* out_row = y + r * samples;
              if (by_exponentials) {
                // weight / Exp(1), in the weights' type; the largest ones, largest first.
                std::vector<std::pair<T, int64_t>> q(static_cast<size_t>(categories));
                for (int64_t c = 0; c < categories; ++c) {
                  const auto exponential = static_cast<T>(-std::log(1.0 - unit_double(e)));
                  q[static_cast<size_t>(c)] = {row[c] / exponential, c};
                }
                std::partial_sort(q.begin(), q.begin() + samples, q.end(), [](const auto& a, const auto& b) {
                  return a.first > b.first || (a.first == b.first && a.second < b.second);
                });
                for (int64_t k = 0; k < samples; ++k) out_row[k] = q[static_cast<size_t>(k)].second;
              } else {
                std::vector<T> cumulative(static_cast<size_t>(categories));
                T sum = 0;
                for (int64_t c = 0; c < categories; ++c) cumulative[static_cast<size_t>(c)] = sum += row[c];
                for (T& v : cumulative) v /= sum;
                for (int64_t k = 0; k < samples; ++k) {
                  const double u = unit_double(e);
                  int64_t left = 0;
                  int64_t right = categories;
                  while (right > left) {
                    const int64_t mid = left + (right - left) / 2;
                    if (cumulative[static_cast<size_t>(mid)] < u) left = mid + 1; else right = mid;
                  }
                  out_row[k] = left;
                }
              }
            }
          }
        });
      },
      NoFunction{});
  return out;
}

}  // namespace asyncscope
