// Creation ops (fills, seeded random arrays, the run's random permutations
// and multinomial draws, host values), copies between
// devices, and wait_all.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/base/random.h"
#include "engine/cuda/cuda.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::Chunk;
using ops_detail::ChunkRef;
using ops_detail::launch;

namespace {

// Host values on their way to a GPU: copied into page-locked memory, from
// which the device copies asynchronously (from pageable memory the runtime
// may wait for the stream first). The op's function holds it, and the
// engine drops the function only after the device finished the op.
struct PinnedStaging {
  void* block = nullptr;
  size_t bytes = 0;
  ~PinnedStaging() {
    if (block != nullptr) cuda::pinned_allocator().deallocate(block, bytes);
  }
  const void* hold(const void* values, size_t n_bytes) {
    bytes = n_bytes;
    block = cuda::pinned_allocator().allocate(bytes);
    if (bytes != 0) std::memcpy(block, values, bytes);
    return block;
  }
};

void copy_host_values_to(void* stream, void* device, const void* values, size_t bytes, PinnedStaging& staging) {
  cuda::copy_to_device(stream, device, staging.hold(values, bytes), bytes);
}

const ContextPtr& checked(const ContextPtr& ctx, const char* op) {
  if (!ctx) throw std::invalid_argument(std::string(op) + ": null context");
  return ctx;
}

NDArray fill_op(const ContextPtr& ctx, const Shape& shape, float value, Device device, trace::NameId name,
                const char* op) {
  NDArray out = NDArray::empty(checked(ctx, op), shape, device);
  Chunk* o = out.chunk();
  launch(
      name, op, {}, {&out},
      [o, value](const RunContext&) {
        float* y = o->data_for_write();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] = value;
      },
      [o, value](const RunContext& rc) { cuda::fill(rc.stream, o->data_for_write(), o->shape.size(), value); });
  return out;
}

}  // namespace

NDArray zeros(const ContextPtr& ctx, const Shape& shape, Device device) {
  static const trace::NameId kName = trace::intern("zeros");
  return fill_op(ctx, shape, 0.0f, device, kName, "zeros");
}

NDArray ones(const ContextPtr& ctx, const Shape& shape, Device device) {
  static const trace::NameId kName = trace::intern("ones");
  return fill_op(ctx, shape, 1.0f, device, kName, "ones");
}

NDArray full(const ContextPtr& ctx, const Shape& shape, float value, Device device) {
  static const trace::NameId kName = trace::intern("full");
  return fill_op(ctx, shape, value, device, kName, "full");
}

NDArray uniform(const ContextPtr& ctx, const Shape& shape, float low, float high, Device device) {
  static const trace::NameId kName = trace::intern("uniform");
  if (!(low < high)) {
    throw std::invalid_argument("uniform: need low < high, got low=" + std::to_string(low) +
                                " high=" + std::to_string(high));
  }
  NDArray out = NDArray::empty(checked(ctx, "uniform"), shape, device);
  Chunk* o = out.chunk();
  const uint64_t key = ctx->next_random_key();
  launch(
      kName, "uniform", {}, {&out},
      [o, key, low, high](const RunContext&) {
        random::fill_uniform(o->data_for_write(), o->shape.size(), key, low, high);
      },
      [o, key, low, high](const RunContext& rc) {
        cuda::fill_uniform(rc.stream, o->data_for_write(), o->shape.size(), key, low, high);
      });
  return out;
}

NDArray normal(const ContextPtr& ctx, const Shape& shape, float mean, float std_dev, Device device) {
  static const trace::NameId kName = trace::intern("normal");
  if (!(std_dev >= 0.0f)) throw std::invalid_argument("normal: need std_dev >= 0, got " + std::to_string(std_dev));
  NDArray out = NDArray::empty(checked(ctx, "normal"), shape, device);
  Chunk* o = out.chunk();
  const uint64_t key = ctx->next_random_key();
  launch(
      kName, "normal", {}, {&out},
      [o, key, mean, std_dev](const RunContext&) {
        random::fill_normal(o->data_for_write(), o->shape.size(), key, mean, std_dev);
      },
      [o, key, mean, std_dev](const RunContext& rc) {
        cuda::fill_normal(rc.stream, o->data_for_write(), o->shape.size(), key, mean, std_dev);
      });
  return out;
}

NDArray from_host(const ContextPtr& ctx, const Shape& shape, std::vector<float> values, Device device) {
  static const trace::NameId kName = trace::intern("from_host");
  if (static_cast<int64_t>(values.size()) != shape.size()) {
    throw std::invalid_argument("from_host: " + std::to_string(values.size()) + " values for shape " +
                                shape.to_string());
  }
  NDArray out = NDArray::empty(checked(ctx, "from_host"), shape, device);
  Chunk* o = out.chunk();
  if (ops_detail::on_gpu(o->device)) {
    auto staging = std::make_shared<PinnedStaging>();
    launch(kName, "from_host", {}, {&out}, ops_detail::NoFunction{},
           [o, v = std::move(values), staging](const RunContext& rc) {
             copy_host_values_to(rc.stream, o->data_for_write(), v.data(), v.size() * sizeof(float), *staging);
           });
    return out;
  }
  launch(
      kName, "from_host", {}, {&out},
      [o, v = std::move(values)](const RunContext&) {
        if (!v.empty()) std::memcpy(o->data_for_write(), v.data(), v.size() * sizeof(float));
      },
      ops_detail::NoFunction{});
  return out;
}

NDArray zeros(const ContextPtr& ctx, const Shape& shape) { return zeros(ctx, shape, checked(ctx, "zeros")->device()); }
NDArray ones(const ContextPtr& ctx, const Shape& shape) { return ones(ctx, shape, checked(ctx, "ones")->device()); }
NDArray full(const ContextPtr& ctx, const Shape& shape, float value) {
  return full(ctx, shape, value, checked(ctx, "full")->device());
}
NDArray uniform(const ContextPtr& ctx, const Shape& shape, float low, float high) {
  return uniform(ctx, shape, low, high, checked(ctx, "uniform")->device());
}
NDArray normal(const ContextPtr& ctx, const Shape& shape, float mean, float std_dev) {
  return normal(ctx, shape, mean, std_dev, checked(ctx, "normal")->device());
}
NDArray from_host(const ContextPtr& ctx, const Shape& shape, std::vector<float> values) {
  return from_host(ctx, shape, std::move(values), checked(ctx, "from_host")->device());
}

NDArray zeros(const Shape& shape) { return zeros(current_context(), shape); }
NDArray ones(const Shape& shape) { return ones(current_context(), shape); }
NDArray full(const Shape& shape, float value) { return full(current_context(), shape, value); }
NDArray uniform(const Shape& shape, float low, float high) { return uniform(current_context(), shape, low, high); }
NDArray normal(const Shape& shape, float mean, float std_dev) {
  return normal(current_context(), shape, mean, std_dev);
}
NDArray from_host(const Shape& shape, std::vector<float> values) {
  return from_host(current_context(), shape, std::move(values));
}

void wait_all(const ContextPtr& ctx) { checked(ctx, "wait_all")->wait_all(); }
void wait_all() { current_context()->wait_all(); }

NDArray copy(const NDArray& a) {
  static const trace::NameId kName = trace::intern("copy");
  ChunkRef x = ops_detail::storage(a, "copy");
  if (a.dtype() != DType::float32) return astype(a, a.dtype());
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device());
  Chunk* o = out.chunk();
  launch(
      kName, "copy", {&a}, {&out},
      [o, x](const RunContext&) {
        std::memcpy(o->data_for_write(), x->data_for_read(), o->bytes);
      },
      [o, x](const RunContext& rc) {
        cuda::unary(rc.stream, cuda::UnaryOp::copy, o->data_for_write(), x->data_for_read(), o->shape.size());
      });
  if (autograd::should_record({&a})) {
    autograd::record(kName, {&a}, out, [](const NDArray& dy, std::span<const bool>) {
      return std::vector<NDArray>{dy};
    });
  }
  return out;
}

namespace ops_detail {

NDArray unaliased(const NDArray& self, const NDArray& value) {
  const Chunk* s = self.chunk();
  const Chunk* v = value.chunk();
  if (s->storage() != v->storage() || (s->offset == v->offset && s->shape == v->shape)) return value;
  return copy(value);
}

}  // namespace ops_detail

NDArray to(const NDArray& a, Device device) {
  static const trace::NameId kToHost = trace::intern("to_host");
  static const trace::NameId kToDevice = trace::intern("to_device");
  if (a.device() == device) return copy(a);
  const Device from = a.device();
  if (ops_detail::on_gpu(from) && ops_detail::on_gpu(device)) {
    throw std::invalid_argument("to(): copies between two GPUs are not supported (" + to_string(from) + " to " +
                                to_string(device) + "); go through the host");
  }
  ChunkRef x = ops_detail::storage(a, "to");
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), device, a.dtype());
  Chunk* o = out.chunk();
  if (!ops_detail::on_gpu(from) && !ops_detail::on_gpu(device)) {
    // Both in host memory (the CPU, simulated GPUs): a copy run by the destination's workers.
    ops_detail::launch_typed(
        device.kind == DeviceKind::cpu ? kToHost : kToDevice, "to", {&a}, {&out},
        [o, x](const RunContext&) {
          if (o->bytes != 0) std::memcpy(o->raw_for_write(), x->raw_for_read(), o->bytes);
        },
        ops_detail::NoFunction{}, &device);
  } else if (ops_detail::on_gpu(from)) {
    // Device to host: into page-locked memory, so the copy is asynchronous too.
    o->allocator = &cuda::pinned_allocator();
    ops_detail::launch_typed(
        kToHost, "to", {&a}, {&out}, ops_detail::NoFunction{},
        [o, x](const RunContext& rc) {
          cuda::copy_to_host(rc.stream, o->raw_for_write(), x->raw_for_read(), o->bytes);
        },
        &from);
  } else {
    auto staging = std::make_shared<PinnedStaging>();
    ops_detail::launch_typed(kToDevice, "to", {&a}, {&out}, ops_detail::NoFunction{},
                             [o, x, staging](const RunContext& rc) {
                               copy_host_values_to(rc.stream, o->raw_for_write(), x->raw_for_read(), o->bytes, *staging);
                             });
  }
  if (autograd::should_record({&a})) {
    autograd::record(from == Device::cpu() ? kToDevice : kToHost, {&a}, out,
                     [from](const NDArray& dy, std::span<const bool>) { return std::vector<NDArray>{to(dy, from)}; });
  }
  return out;
}

}  // namespace asyncscope

// ---- random permutations ------------------------------------------------------

namespace asyncscope {

using ops_detail::launch_typed;
using ops_detail::NoFunction;

NDArray randperm(const ContextPtr& ctx, int64_t n, Device device) {
  static const trace::NameId kName = trace::intern("randperm");
  if (!ctx) throw std::invalid_argument("randperm: null context");
  if (n < 0) throw std::invalid_argument("randperm: n must be non-negative, got " + std::to_string(n));
  // On the host (a sequential shuffle), then copied to the device.
  NDArray out = NDArray::empty(ctx, Shape{n}, Device::cpu(), DType::int64);
  Chunk* o = out.chunk();
  const uint64_t key = ctx->next_random_key();
  launch_typed(
      kName, "randperm", {}, {&out},
      [o, key, n](const RunContext&) {
        // Fisher-Yates, with the seeded counter-based stream: the same seed
        // and push order give the same permutation, whatever the workers.
        int64_t* y = o->typed_for_write<int64_t>();
        for (int64_t i = 0; i < n; ++i) y[i] = i;
        for (int64_t i = n - 1; i > 0; --i) {
          const uint64_t r = random::bits(key, static_cast<uint64_t>(i));
          const auto j = static_cast<int64_t>(r % static_cast<uint64_t>(i + 1));
          std::swap(y[i], y[j]);
        }
      },
      NoFunction{});
  return device == Device::cpu() ? out : to(out, device);
}

NDArray multinomial(const NDArray& weights, int64_t samples, bool replacement) {
  static const trace::NameId kName = trace::intern("multinomial");
  const Shape& s = weights.chunk("multinomial")->shape;
  if (s.ndim() != 1 && s.ndim() != 2) {
    throw std::invalid_argument("multinomial: the weights must be 1-d or 2-d, got " + s.to_string());
  }
  if (!is_floating(weights.dtype())) {
    throw std::invalid_argument(std::string("multinomial: the weights must be floats, got ") + name(weights.dtype()));
  }
  const int64_t categories = s[s.ndim() - 1];
  if (categories == 0) throw std::invalid_argument("multinomial: no categories to sample from");
  if (samples < 0) throw std::invalid_argument("multinomial: cannot sample " + std::to_string(samples) + " times");
  if (!replacement && samples > categories) {
    throw std::invalid_argument("multinomial: cannot sample " + std::to_string(samples) + " of " +
                                std::to_string(categories) + " categories without replacement");
  }
  const int64_t rows = s.ndim() == 2 ? s[0] : 1;
  const Shape out_shape = s.ndim() == 2 ? Shape{rows, samples} : Shape{samples};
  const NDArray w = weights.device() == Device::cpu() ? astype(weights, DType::float64) : to(astype(weights, DType::float64), Device::cpu());
  NDArray out = NDArray::empty(weights.context_ptr(), out_shape, Device::cpu(), DType::int64);
  Chunk* o = out.chunk();
  ChunkRef x = ops_detail::storage(w, "multinomial");
  const uint64_t key = weights.context().next_random_key();
  launch_typed(
      kName, "multinomial", {&w}, {&out},
      [o, x, key, rows, categories, samples, replacement](const RunContext&) {
        const double* p = x->typed_for_read<double>();
        int64_t* y = o->typed_for_write<int64_t>();
        std::vector<double> cumulative(static_cast<size_t>(categories));
        std::vector<std::pair<double, int64_t>> keys(static_cast<size_t>(categories));
        uint64_t counter = 0;
        for (int64_t r = 0; r < rows; ++r) {
          const double* row = p + r * categories;
          double total = 0;
          int64_t positive = 0;
          for (int64_t c = 0; c < categories; ++c) {
            if (!(row[c] >= 0) || std::isinf(row[c])) {
              throw std::invalid_argument("multinomial: the weights must be finite and non-negative");
            }
            total += row[c];
            positive += row[c] > 0;
            cumulative[static_cast<size_t>(c)] = total;
          }
          if (total <= 0) throw std::invalid_argument("multinomial: the weights of a row sum to 0");
          if (!replacement && positive < samples) {
            throw std::invalid_argument("multinomial: fewer categories with a non-zero weight than samples "
                                        "without replacement");
          }
          int64_t* out_row = y + r * samples;
          if (replacement) {
            for (int64_t k = 0; k < samples; ++k) {
              const double u = static_cast<double>(random::bits(key, counter++) >> 11) * 0x1.0p-53 * total;
              const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
              out_row[k] = std::min<int64_t>(at, categories - 1);
            }
          } else {
            // Efraimidis-Spirakis: the `samples` largest of log(u) / w are a
            // weighted draw without replacement, in draw order.
            for (int64_t c = 0; c < categories; ++c) {
              const double u = (static_cast<double>(random::bits(key, counter++) >> 11) + 0.5) * 0x1.0p-53;
              keys[static_cast<size_t>(c)] = {row[c] > 0 ? std::log(u) / row[c] : -HUGE_VAL, c};
            }
            std::partial_sort(keys.begin(), keys.begin() + samples, keys.end(),
                              [](const auto& a, const auto& b) { return a.first > b.first; });
            for (int64_t k = 0; k < samples; ++k) out_row[k] = keys[static_cast<size_t>(k)].second;
          }
        }
      },
      NoFunction{});
  return weights.device() == Device::cpu() ? out : to(out, weights.device());
}

}  // namespace asyncscope
