#include "engine/tensor/context.h"

#include <algorithm>
#include <stdexcept>

#include "engine/cuda/cuda.h"
#include "engine/tensor/blas.h"
#include "engine/base/random.h"

namespace asyncscope {

std::shared_ptr<Context> Context::create() { return create(Options{}); }

std::shared_ptr<Context> Context::create(const Options& options) {
  return std::shared_ptr<Context>(new Context(options));
}

namespace {

// The engine options a context needs: a stream worker for its GPU device.
EngineOptions engine_options(const Context::Options& options) {
  EngineOptions engine = options.engine;
  if (options.device.kind != DeviceKind::cpu) {
    cuda::require(options.device);
    if (engine.gpu_streams == 0) engine.gpu_streams = 1;
    engine.gpu_device = options.device;
  }
  if (engine.gpu_streams > 0 && !engine.stream_factory) engine.stream_factory = cuda::make_stream;
  return engine;
}

}  // namespace

Context::Context(const Options& options)
    : allocator_(options.allocator ? options.allocator : &host_allocator()),
      device_(options.device),
      engine_(make_engine(engine_options(options))),
      seed_(options.seed) {
  const EngineOptions& engine = options.engine;
  const Device gpu = options.device.kind != DeviceKind::cpu ? options.device : engine.gpu_device;
  if (engine_->num_workers(gpu) > 0) {
    device_allocator_ = options.device_allocator ? options.device_allocator : &cuda::device_allocator(gpu);
  }
  if (options.blas_threads < 0) throw std::invalid_argument("blas_threads must be >= 0 (0 = automatic)");
  const int workers = std::max(1, engine_->num_workers(Device::cpu()));
  blas_threads_ = options.blas_threads > 0 ? options.blas_threads : std::max(1, hardware_threads() / workers);
  blas::set_threads(blas_threads_);
}

Context::~Context() {
  try {
    engine_->wait_all();
  } catch (...) {
    // Errors nobody waited for die with the run; the engine is going away.
  }
}

PooledAllocator& Context::allocator_for(Device device) const {
  if (device.kind == DeviceKind::cpu) return *allocator_;
  cuda::require(device);
  if (device_allocator_ == nullptr || engine_->num_workers(device) == 0) {
    throw std::invalid_argument("device " + to_string(device) +
                                " has no stream worker in this context's engine (make the context with "
                                "Options::device or EngineOptions::gpu_streams)");
  }
  return *device_allocator_;
}

uint64_t Context::next_random_key() noexcept { return random::mix64(seed_ ^ random::mix64(++random_ops_)); }

}  // namespace asyncscope
