#include "engine/demos/run_env.h"

#include <vector>

#include <limits>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <stdexcept>
#include <thread>

#include "engine/core/errors.h"
#include "engine/cuda/cuda.h"
#include "engine/tensor/ops.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::demos {

void RunControl::stop() {
  stop_.store(true, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  if (context_) context_->stop();
  if (on_stop_) on_stop_();
}

void RunControl::set_on_stop(std::function<void()> fn) {
  std::lock_guard lock(mutex_);
  on_stop_ = std::move(fn);
  if (on_stop_ && stop_requested()) on_stop_();
}

void RunControl::attach(const ContextPtr& context) {
  std::lock_guard lock(mutex_);
  context_ = context;
  if (stop_requested()) context_->stop();
}

void RunControl::detach() noexcept {
  std::lock_guard lock(mutex_);
  context_.reset();
  on_stop_ = nullptr;
}

RunEnv::RunEnv(const ContextRequest& request, RunHooks& hooks, RunControl& control)
    : hooks_(hooks), control_(control) {
  if (!hooks_.recorder) hooks_.recorder = std::make_shared<trace::Recorder>();
  trace::set_thread_name("frontend");
  allocator_ = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>());
  // One budget for everything the run grows with: arrays, the trace's
  // buffers, the ops waiting to run.
  account_ = std::make_shared<AllocatorAccount>(allocator_);
  hooks_.recorder->set_memory_budget(account_);
  Context::Options context;
  context.engine.kind = request.kind;
  context.engine.cpu_workers = request.workers;
  context.engine.max_inflight = request.max_inflight;
  context.engine.recorder = hooks_.recorder;
  context.engine.memory = account_;
  context.seed = request.seed;
  context.allocator = allocator_;
  context.device = request.device;
  if (simulated_gpus() > 0) {
    // Simulated GPUs (engine/core/device.h): a pool and an allocator per
    // device (the context's); the GPU memory lanes count them together.
    if (request.device.kind != DeviceKind::cpu || (request.gpu_when_available && request.kind == EngineKind::threaded)) {
      context.engine.gpu_streams = 1;  // asks the context for the GPUs, simulated
    }
  } else if (request.device.kind != DeviceKind::cpu) {
    device_allocator_ = cuda::make_device_allocator(request.device);
    context.device_allocator = device_allocator_;
  } else if (request.gpu_when_available && request.kind == EngineKind::threaded && cuda::available()) {
    const Device gpu = Device::cuda(0);
    context.engine.gpu_streams = 1;
    context.engine.gpu_device = gpu;
    device_allocator_ = cuda::make_device_allocator(gpu);
    context.device_allocator = device_allocator_;
  }
  ctx_ = Context::create(context);

  PooledAllocator* alloc = allocator_.get();
  Engine* engine = &ctx_->engine();
  std::vector<trace::Counter> counters;
  counters.push_back(trace::rss_counter());
  counters.push_back({kLiveCounter, [alloc] { return alloc->live_bytes(); }});
  counters.push_back({kPooledCounter, [alloc] { return alloc->pooled_bytes(); }});
  counters.push_back({kQueueCounter, [engine] { return static_cast<int64_t>(engine->stats().pending); }});
  counters.push_back({kRunningCounter, [engine] { return static_cast<int64_t>(engine->stats().running); }});
  if (PooledAllocator* device = device_allocator_.get()) {
    counters.push_back({kDeviceLiveCounter, [device] { return device->live_bytes(); }});
    counters.push_back({kDevicePooledCounter, [device] { return device->pooled_bytes(); }});
  } else if (const std::vector<PooledAllocator*> sims = ctx_->simulated_allocators(); !sims.empty()) {
    const auto total = [sims](int64_t (PooledAllocator::*bytes)() const noexcept) {
      int64_t sum = 0;
      for (const PooledAllocator* a : sims) sum += (a->*bytes)();
      return sum;
    };
    counters.push_back({kDeviceLiveCounter, [total] { return total(&PooledAllocator::live_bytes); }});
    counters.push_back({kDevicePooledCounter, [total] { return total(&PooledAllocator::pooled_bytes); }});
  }
  counters.insert(counters.end(), hooks_.extra_counters.begin(), hooks_.extra_counters.end());
  // Made before the control sees the context: too many counters throw here,
  // and the run has not started.
  sampler_ = std::make_unique<trace::CounterSampler>(hooks_.recorder, std::move(counters), hooks_.sample_rate_hz);
  control_.attach(ctx_);
  sampler_->start();
}

RunEnv::~RunEnv() {
  // A last line without its newline still reaches the console.
  for (const bool error : {false, true}) {
    if (!partial_[error ? 1 : 0].empty()) write("\n", error);
  }
  // Stop sampling before the engine and allocators it reads can go (arrays
  // the program kept may hold them past this run).
  sampler_.reset();
  control_.detach();
  if (!finished_) ctx_->engine().cancel();  // a failed or stopped run: drop what is left
  ctx_->close();
  if (account_->refused()) hooks_.over_budget = true;
}

void RunEnv::print(std::string_view line) {
  write(std::string(line) + "\n");
}

void RunEnv::print_error(std::string_view line) {
  write(std::string(line) + "\n", /*error=*/true);
}

void RunEnv::write(std::string_view text, bool error) {
  if (hooks_.console_text) {
    hooks_.console_text(text, error);
    return;
  }
  const auto& line_sink = error && hooks_.console_error ? hooks_.console_error : hooks_.console;
  std::string& partial = partial_[error ? 1 : 0];
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n')) {
    partial.append(text.substr(0, nl));
    if (line_sink) line_sink(partial);
    partial.clear();
    text.remove_prefix(nl + 1);
  }
  partial.append(text);
}

void RunEnv::on_stop(std::function<void()> fn) { control_.set_on_stop(std::move(fn)); }

void RunEnv::result(std::string key, std::string label, double value, std::string unit) {
  results_.rows.push_back(Result{std::move(key), std::move(label), value, std::move(unit)});
  if (hooks_.result) hooks_.result(results_.rows.back());
}

void RunEnv::note(std::string text) { results_.notes.push_back(std::move(text)); }

void RunEnv::mark(std::string_view name, int64_t value) {
  if (hooks_.recorder->enabled()) hooks_.recorder->record_marker(trace::intern(name), value);
}

void RunEnv::progress(double fraction, const std::string& what) const {
  if (hooks_.progress) hooks_.progress(fraction, what);
}

void RunEnv::check_stop() const {
  if (stop_requested()) throw StoppedError();
}

void RunEnv::wait_all(const std::string& what, double from, double to) {
  const uint64_t start_pending = std::max<uint64_t>(1, engine().stats().pending);
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock lock(mutex);
    while (!cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
      const double left = static_cast<double>(engine().stats().pending) / static_cast<double>(start_pending);
      progress(from + (to - from) * (1.0 - std::min(1.0, left)), what);
    }
  });
  std::exception_ptr error;
  try {
    ctx_->wait_all();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  cv.notify_one();
  watcher.join();
  check_stop();
  if (error) std::rethrow_exception(error);
}

void RunEnv::finish() {
  if (finished_) return;
  ctx_->wait_all();
  sampler_->stop();
  finished_ = true;
}

Results run_program(const Program& program, const ParamValues& values, RunHooks& hooks, RunControl& control) {
  const ContextRequest request = program.context_request(values);  // checks the device first
  RunEnv env(request, hooks, control);
  env.check_stop();
  try {
    ContextScope scope(env.context());
    program.run(values, env);
    env.finish();
  } catch (const CancelledError&) {
    // A wait whose work the stop dropped: to the host, the run was stopped.
    if (control.stop_requested()) throw StoppedError();
    throw;
  }
  return env.results();
}

double seconds_since(int64_t start_ns) { return static_cast<double>(trace::now_ns() - start_ns) * 1e-9; }

double op_busy_seconds(const trace::TraceModel& m, std::string_view op_name, int64_t from_ns) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const trace::OpInfo& op : m.ops) {
    if (op.executed() && op.start >= from_ns && m.op_name(op) == op_name) spans.emplace_back(op.start, op.end);
  }
  std::sort(spans.begin(), spans.end());
  int64_t busy = 0;
  int64_t covered = std::numeric_limits<int64_t>::min();
  for (const auto& [start, end] : spans) {
    const int64_t from = std::max(start, covered);
    if (end > from) {
      busy += end - from;
      covered = end;
    }
  }
  return static_cast<double>(busy) * 1e-9;
}

int64_t marker_time(const trace::TraceModel& m, std::string_view name) {
  for (const trace::Marker& marker : m.markers) {
    if (m.name(marker.name) == name) return marker.t;
  }
  return 0;
}

double gflops(double flops, double seconds) { return seconds > 0 ? flops / seconds * 1e-9 : 0; }

void warm_up_products(RunEnv& env, int64_t n) {
  const bool gpu = env.context()->device().kind != DeviceKind::cpu;
  const int64_t w = gpu ? n : 8;
  NDArray u = ones({w, w});
  NDArray s = sum(dot(u, u));
  if (gpu) {
    (void)s.item();
  } else {
    s.wait_to_read();
  }
}

}  // namespace asyncscope::demos
