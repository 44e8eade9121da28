#include "engine/tensor/context.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/core/errors.h"
#include "engine/cuda/cuda.h"
#include "engine/tensor/blas.h"
#include "engine/base/random.h"
#include "engine/tensor/torch_random.h"

namespace asyncscope {

std::shared_ptr<Context> Context::create() { return create(Options{}); }

std::shared_ptr<Context> Context::create(const Options& options) {
  return std::shared_ptr<Context>(new Context(options));
}

namespace {

// The engine options a context needs: a stream worker for its GPU device,
// made by the CUDA backend unless the caller brought its own streams.
EngineOptions engine_options(const Context::Options& options) {
  EngineOptions engine = options.engine;
  if (const int simulated = simulated_gpus(); simulated > 0) {
    // Every GPU is a simulated one: a host pool per device, no CUDA.
    if (options.device.kind != DeviceKind::cpu && options.device.index >= simulated) {
      throw std::invalid_argument(to_string(options.device) + " does not exist (" + std::to_string(simulated) +
                                  " simulated GPUs)");
    }
    if (options.device.kind != DeviceKind::cpu || engine.gpu_streams > 0) {
      engine.simulated_gpus = simulated;
      engine.gpu_streams = 0;
      engine.stream_factory = nullptr;
    }
    return engine;
  }
  if (options.device.kind != DeviceKind::cpu) {
    cuda::require(options.device);
    if (engine.gpu_streams == 0) engine.gpu_streams = 1;
    engine.gpu_device = options.device;
  }
  if (engine.gpu_streams > 0 && !engine.stream_factory) engine.stream_factory = cuda::make_stream;
  return engine;
}

// A process-wide allocator as a shared pointer that owns nothing (it is never destroyed).
std::shared_ptr<PooledAllocator> unowned(PooledAllocator& allocator) {
  return std::shared_ptr<PooledAllocator>(std::shared_ptr<void>(), &allocator);
}

}  // namespace

Context::Context(const Options& options)
    : allocator_(options.allocator ? options.allocator : unowned(host_allocator())),
      device_(options.device),
      engine_(make_engine(engine_options(options))),
      seed_(options.seed),
      torch_generator_(std::make_unique<TorchGenerator>(options.seed)) {
  const EngineOptions& engine = options.engine;
  const Device gpu = options.device.kind != DeviceKind::cpu ? options.device : engine.gpu_device;
  if (const int simulated = simulated_gpus(); simulated > 0) {
    // The simulated GPUs' memory: host blocks, counted per device.
    for (int d = 0; d < simulated && engine_->num_workers(Device::cuda(static_cast<uint8_t>(d))) > 0; ++d) {
      simulated_allocators_.push_back(std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>()));
    }
  } else if (engine_->num_workers(gpu) > 0) {
    device_allocator_ = options.device_allocator ? options.device_allocator : unowned(cuda::device_allocator(gpu));
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
  if (simulated(device)) {
    if (device.index >= simulated_allocators_.size()) {
      throw std::invalid_argument("device " + to_string(device) + " is not one of this run's " +
                                  std::to_string(simulated_allocators_.size()) + " simulated GPUs");
    }
    return *simulated_allocators_[device.index];
  }
  cuda::require(device);
  if (device_allocator_ == nullptr || engine_->num_workers(device) == 0) {
    throw std::invalid_argument("device " + to_string(device) +
                                " has no stream worker in this context's engine (make the context with "
                                "Options::device or EngineOptions::gpu_streams)");
  }
  return *device_allocator_;
}

std::vector<PooledAllocator*> Context::simulated_allocators() const {
  std::vector<PooledAllocator*> out;
  for (const auto& a : simulated_allocators_) out.push_back(a.get());
  return out;
}

void Context::reseed(uint64_t seed) noexcept {
  seed_ = seed;
  random_ops_ = 0;
  torch_generator_->manual_seed(seed);
}

uint64_t Context::next_random_key() noexcept { return random::mix64(seed_ ^ random::mix64(++random_ops_)); }

void Context::stop() {
  State expected = State::open;
  if (state_.compare_exchange_strong(expected, State::stopped, std::memory_order_relaxed)) engine_->cancel();
}

void Context::close() noexcept {
  try {
    engine_->wait_all();
  } catch (...) {
    // The run's errors were reported (or dropped) where the run waited.
  }
  state_.store(State::closed, std::memory_order_relaxed);
}

void Context::throw_not_open(const char* op) const {
  if (stopped()) throw StoppedError();
  throw std::logic_error(std::string(op) +
                         ": the run that made this array has ended, so no new op can be pushed on it (its values "
                         "can still be read); make the array again in the current run");
}

void Context::wait_all() {
  check_not_stopped();
  engine_->wait_all();
  check_not_stopped();
}

namespace {

thread_local ContextPtr tls_current;

}  // namespace

ContextScope::ContextScope(ContextPtr context) : previous_(std::move(tls_current)) {
  if (!context) throw std::invalid_argument("ContextScope: null context");
  tls_current = std::move(context);
}

ContextScope::~ContextScope() { tls_current = std::move(previous_); }

const ContextPtr& current_context() {
  if (!tls_current) {
    throw std::logic_error(
        "no current context on this thread: create one (Context::create) and install it with a ContextScope, or "
        "pass a context to the creation op");
  }
  return tls_current;
}

const ContextPtr& current_context_or_null() noexcept { return tls_current; }

}  // namespace asyncscope
