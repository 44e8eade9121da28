#include "engine/demos/session.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/core/errors.h"
#include "engine/cuda/cuda.h"

#include "engine/trace/clock.h"

namespace asyncscope::demos {

Device device_from(const ParamValues& values) {
  const std::string& name = values.choice("device");
  if (name == "cpu") return Device::cpu();
  const Device gpu = Device::cuda(0);
  try {
    cuda::require(gpu);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--device " + name + ": " + e.what() + "; use --device cpu");
  }
  return gpu;
}

SessionOptions session_options(const ParamValues& values) {
  SessionOptions options;
  options.workers = static_cast<int>(values.integer("workers"));
  options.device = device_from(values);
  options.seed = static_cast<uint64_t>(values.integer("seed"));
  return options;
}

Session::Session(const SessionOptions& options, RunEnv& env) : env_(env) {
  if (!env_.recorder) env_.recorder = std::make_shared<trace::Recorder>();
  trace::set_thread_name("frontend");
  allocator_ = std::make_unique<PooledAllocator>(std::make_unique<HostBlockSource>());
  Context::Options context;
  context.engine.kind = options.kind;
  context.engine.cpu_workers = options.workers;
  context.engine.max_inflight = options.max_inflight;
  context.engine.recorder = env_.recorder;
  context.seed = options.seed;
  context.allocator = allocator_.get();
  context.device = options.device;
  if (options.device.kind != DeviceKind::cpu) {
    device_allocator_ = cuda::make_device_allocator(options.device);
    context.device_allocator = device_allocator_.get();
  }
  ctx_ = Context::create(context);

  PooledAllocator* alloc = allocator_.get();
  Engine* engine = &ctx_->engine();
  std::vector<trace::Counter> counters;
  counters.push_back(trace::rss_counter());
  counters.back().name = kRssCounter;
  counters.push_back({kLiveCounter, [alloc] { return alloc->live_bytes(); }});
  counters.push_back({kPooledCounter, [alloc] { return alloc->pooled_bytes(); }});
  counters.push_back({kQueueCounter, [engine] { return static_cast<int64_t>(engine->stats().pending); }});
  counters.push_back({kRunningCounter, [engine] { return static_cast<int64_t>(engine->stats().running); }});
  if (PooledAllocator* device = device_allocator_.get()) {
    counters.push_back({kDeviceLiveCounter, [device] { return device->live_bytes(); }});
    counters.push_back({kDevicePooledCounter, [device] { return device->pooled_bytes(); }});
  }
  sampler_ = std::make_unique<trace::CounterSampler>(env_.recorder, std::move(counters), env_.sample_rate_hz);
  sampler_->start();
}

Session::~Session() {
  // Stop sampling before the engine and allocator it reads go away.
  sampler_.reset();
  if (ctx_) {
    ctx_->engine().cancel();
    try {
      ctx_->engine().wait_all();
    } catch (...) {
      // A cancelled or failed run: its errors were reported where they were raised.
    }
  }
}

void Session::mark(std::string_view name, int64_t value) {
  if (env_.recorder->enabled()) env_.recorder->record_marker(trace::intern(name), value);
}

void Session::check_stop() {
  if (!env_.stopped()) return;
  ctx_->engine().cancel();
  throw DemoCancelled();
}

void Session::wait_all(const std::string& what, double from, double to) {
  const uint64_t start_pending = std::max<uint64_t>(1, engine().stats().pending);
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock lock(mutex);
    while (!cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
      if (env_.stopped()) engine().cancel();
      const double left = static_cast<double>(engine().stats().pending) / static_cast<double>(start_pending);
      env_.report(from + (to - from) * (1.0 - std::min(1.0, left)), what);
    }
  });
  std::exception_ptr error;
  try {
    engine().wait_all();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  cv.notify_one();
  watcher.join();
  if (env_.stopped()) throw DemoCancelled();
  if (error) std::rethrow_exception(error);
}

void Session::finish() {
  ctx_->engine().wait_all();
  sampler_->stop();
}

double seconds_since(int64_t start_ns) { return static_cast<double>(trace::now_ns() - start_ns) * 1e-9; }

}  // namespace asyncscope::demos
