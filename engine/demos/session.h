// Session: one demo run's machinery: its own allocators (so live and peak
// bytes start at zero; a device pool too on a GPU), a Context on an engine
// traced into the run's recorder, and a CounterSampler recording RSS, live
// and pooled bytes, queue depth and running ops (and device bytes on a GPU).
// Threading: frontend only (the demo's thread); the sampler runs on its own.
#pragma once

#include <memory>
#include <string_view>

#include "engine/demos/demo.h"
#include "engine/tensor/context.h"
#include "engine/trace/counter_sampler.h"
#include "engine/trace/model.h"

namespace asyncscope::demos {

struct SessionOptions {
  int workers = 0;
  Device device = Device::cpu();
  uint64_t seed = 0;
  int64_t max_inflight = 0;
  EngineKind kind = EngineKind::threaded;
};

// Names of the counter columns every session records, in order.
inline constexpr const char* kRssCounter = "rss_bytes";
inline constexpr const char* kLiveCounter = "live_bytes";
inline constexpr const char* kPooledCounter = "pooled_bytes";
inline constexpr const char* kQueueCounter = "queue_depth";
inline constexpr const char* kRunningCounter = "running_ops";
// Only in runs on a GPU: the device memory pool's live and cached bytes.
inline constexpr const char* kDeviceLiveCounter = "device_live_bytes";
inline constexpr const char* kDevicePooledCounter = "device_pooled_bytes";

// The device a demo's --device asks for; std::invalid_argument, saying why,
// if it is not available in this build or on this machine.
Device device_from(const ParamValues& values);
// The common options (workers, device, seed) from a demo's values.
SessionOptions session_options(const ParamValues& values);

class Session {
 public:
  Session(const SessionOptions& options, RunEnv& env);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const ContextPtr& ctx() const noexcept { return ctx_; }
  Engine& engine() const noexcept { return ctx_->engine(); }
  trace::Recorder& recorder() const noexcept { return *env_.recorder; }
  PooledAllocator& allocator() const noexcept { return *allocator_; }
  // The device memory pool, or null when the run is on the CPU.
  PooledAllocator* device_allocator() const noexcept { return device_allocator_.get(); }

  // A named instant on the frontend lane (phase boundaries, iterations).
  void mark(std::string_view name, int64_t value = 0);
  // If the host asked to stop: drop pending work and throw DemoCancelled.
  void check_stop();
  void progress(double fraction, const std::string& what) const { env_.report(fraction, what); }
  // Engine::wait_all, while a watcher reports progress from the pending count
  // (fraction `from`..`to`) and turns a stop request into cancel(), so a long
  // drain can be followed and interrupted. Throws DemoCancelled when stopped.
  void wait_all(const std::string& what, double from = 0.5, double to = 1.0);
  // Waits for every op, then records a last counter sample.
  void finish();
  // Everything recorded so far.
  trace::TraceModel model() const { return trace::snapshot(*env_.recorder); }

 private:
  RunEnv& env_;
  std::unique_ptr<PooledAllocator> allocator_;
  std::unique_ptr<PooledAllocator> device_allocator_;  // before ctx_: outlives the engine
  ContextPtr ctx_;
  std::unique_ptr<trace::CounterSampler> sampler_;
};

// Steady-clock seconds since `start_ns` (trace::now_ns()).
double seconds_since(int64_t start_ns);

}  // namespace asyncscope::demos
