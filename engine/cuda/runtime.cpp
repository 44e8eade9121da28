// The CUDA runtime side of the backend: probing, streams with event timing,
// device and pinned memory. Kernels are in kernels.cu.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <type_traits>

#include "engine/cuda/cuda.h"
#include "engine/cuda/stream.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::cuda {

// Defined in kernels.cu: whether this build's kernels can run on device 0
// (the build's architectures cover it); else false and the reason.
bool kernels_loadable(std::string& reason);

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed
  throw CudaError(std::string(call) + ": " + cudaGetErrorString(status));
}

void check(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError(std::string(call) + ": " + blas_api().status_string(status));
}

namespace {

struct LoadedBlas {
  BlasApi api{};
  std::string error;  // empty when loaded
};

LoadedBlas load_blas() {
  LoadedBlas loaded;
  const std::string name = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    // Not on the loader's path: the toolkit this was built with.
    lib = dlopen((std::string(ASYNCSCOPE_CUDA_LIBRARY_DIR) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (lib == nullptr) {
    const char* why = dlerror();
    loaded.error = "cannot load " + name + (why ? std::string(" (") + why + ")" : std::string());
    return loaded;
  }
  bool missing = false;
  const auto symbol = [&](auto& fn, const char* symbol_name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol_name));
    if (fn == nullptr && !missing) {
      missing = true;
      loaded.error = name + " has no " + symbol_name;
    }
  };
  symbol(loaded.api.create, "cublasCreate_v2");
  symbol(loaded.api.destroy, "cublasDestroy_v2");
  symbol(loaded.api.set_stream, "cublasSetStream_v2");
  symbol(loaded.api.set_math_mode, "cublasSetMathMode");
  symbol(loaded.api.sgemm, "cublasSgemm_v2");
  symbol(loaded.api.dgemm, "cublasDgemm_v2");
  symbol(loaded.api.status_string, "cublasGetStatusString");
  return loaded;  // the library stays loaded for the life of the process
}

Status probe() {
  Status s;
  s.built = true;
  cudaRuntimeGetVersion(&s.runtime_version);
  cudaDriverGetVersion(&s.driver_version);  // 0 when no driver is installed
  const cudaError_t count = cudaGetDeviceCount(&s.device_count);
  if (count != cudaSuccess) {
    (void)cudaGetLastError();
    s.device_count = 0;
    s.reason = s.driver_version == 0
                   ? std::string("no NVIDIA driver found (the CUDA runtime could not load libcuda)")
                   : std::string("no usable CUDA device (") + cudaGetErrorString(count) + ")";
    return s;
  }
  if (s.device_count == 0) {
    s.reason = "no CUDA device found";
    return s;
  }
  cudaDeviceProp props{};
  if (const cudaError_t e = cudaGetDeviceProperties(&props, 0); e != cudaSuccess) {
    (void)cudaGetLastError();
    s.reason = std::string("cannot query CUDA device 0 (") + cudaGetErrorString(e) + ")";
    return s;
  }
  s.device_name = props.name;
  s.compute_capability = props.major * 10 + props.minor;
  s.total_memory = props.totalGlobalMem;
  std::string why;
  if (!kernels_loadable(why)) {
    s.reason = "CUDA device 0 (" + s.device_name + ", compute capability " + std::to_string(props.major) + "." +
               std::to_string(props.minor) + ") cannot run this build's kernels (" + why + ")";
    return s;
  }
  try {
    blas_api();
  } catch (const CudaError& e) {
    s.reason = std::string("cuBLAS is not usable: ") + e.what();
    return s;
  }
  s.available = true;
  return s;
}

int64_t env_megabytes(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long mb = std::strtoll(text, &end, 10);
  if (*end != '\0' || mb <= 0 || mb > (int64_t{1} << 43)) {
    throw std::invalid_argument(std::string(name) + " must be a positive number of megabytes, got '" + text + "'");
  }
  return static_cast<int64_t>(mb) * 1024 * 1024;
}

// std::bad_alloc (so PooledAllocator trims its cache and retries) that says what failed.
class DeviceOutOfMemory final : public std::bad_alloc {
 public:
  explicit DeviceOutOfMemory(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

class DeviceSource final : public BlockSource {
 public:
  explicit DeviceSource(Device device) : device_(device), name_(to_string(device)) {}
  void* allocate(size_t bytes) override {
    check(cudaSetDevice(device_.index), "cudaSetDevice");
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
      // Out of memory: PooledAllocator trims its cache and asks once more.
      (void)cudaGetLastError();
      throw DeviceOutOfMemory("cudaMalloc of " + std::to_string(bytes) + " bytes on " + name_ + ": " +
                              cudaGetErrorString(e));
    }
    check(e, "cudaMalloc");
    return p;
  }
  void release(void* p, size_t) noexcept override {
    // Only blocks no op uses any more reach here (the engine frees an array
    // after every op on it finished on the device).
    if (cudaSetDevice(device_.index) == cudaSuccess) (void)cudaFree(p);
    (void)cudaGetLastError();
  }
  const char* name() const override { return name_.c_str(); }

 private:
  Device device_;
  std::string name_;
};

class PinnedSource final : public BlockSource {
 public:
  void* allocate(size_t bytes) override {
    void* p = nullptr;
    // Portable: page-locked for every device's copies, not only the current one.
    const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw DeviceOutOfMemory("cudaHostAlloc of " + std::to_string(bytes) + " bytes: " + cudaGetErrorString(e));
    }
    check(e, "cudaHostAlloc");
    return p;
  }
  void release(void* p, size_t) noexcept override {
    (void)cudaFreeHost(p);
    (void)cudaGetLastError();
  }
  const char* name() const override { return "pinned host"; }
};

constexpr int64_t kAnchorMaxAgeNs = 1'000'000'000;
constexpr int64_t kMaxCompletionPollNs = 1'000'000'000;

int64_t initial_completion_poll_ns() {
  const char* text = std::getenv("ASYNCSCOPE_GPU_POLL_US");
  if (text == nullptr || *text == '\0') return kDefaultCompletionPollNs;
  char* end = nullptr;
  const long long us = std::strtoll(text, &end, 10);
  if (*end != '\0' || us < 0 || us > kMaxCompletionPollNs / 1000) {
    throw std::invalid_argument(std::string("ASYNCSCOPE_GPU_POLL_US must be a number of microseconds from 0 to ") +
                                std::to_string(kMaxCompletionPollNs / 1000) + ", got '" + text + "'");
  }
  return static_cast<int64_t>(us) * 1000;
}

std::atomic<int64_t>& completion_poll() {
  static std::atomic<int64_t> ns{initial_completion_poll_ns()};
  return ns;
}

}  // namespace

int64_t completion_poll_ns() { return completion_poll().load(std::memory_order_relaxed); }

void set_completion_poll_ns(int64_t ns) {
  completion_poll().store(std::clamp<int64_t>(ns, 0, kMaxCompletionPollNs), std::memory_order_relaxed);
}

const BlasApi& blas_api() {
  static const LoadedBlas loaded = load_blas();
  if (!loaded.error.empty()) throw CudaError(loaded.error);
  return loaded.api;
}

const Status& status() {
  static const Status s = probe();
  return s;
}

void require(Device device) {
  if (device.kind == DeviceKind::cpu) return;
  const Status& s = status();
  if (!s.available) throw std::invalid_argument("CUDA is not available: " + s.reason);
  if (device.index >= s.device_count) {
    throw std::invalid_argument(to_string(device) + " does not exist (" + std::to_string(s.device_count) +
                                " CUDA device(s) found)");
  }
}

std::unique_ptr<DeviceStream> make_stream(Device device, int index) {
  require(device);
  (void)completion_poll_ns();  // a malformed ASYNCSCOPE_GPU_POLL_US is refused here, not on the completer
  return std::make_unique<Stream>(device.index, index);
}

std::unique_ptr<BlockSource> make_device_source(Device device) {
  require(device);
  return std::make_unique<DeviceSource>(device);
}

int64_t default_device_budget_bytes(Device device) {
  require(device);
  size_t total = status().total_memory;
  if (device.index != 0) {
    cudaDeviceProp props{};
    check(cudaGetDeviceProperties(&props, device.index), "cudaGetDeviceProperties");
    total = props.totalGlobalMem;
  }
  return env_megabytes("ASYNCSCOPE_GPU_MEMORY_BUDGET_MB", static_cast<int64_t>(static_cast<double>(total) * 0.9));
}

std::unique_ptr<PooledAllocator> make_device_allocator(Device device) {
  PooledAllocator::Options options;
  options.budget_bytes = default_device_budget_bytes(device);
  return std::make_unique<PooledAllocator>(make_device_source(device), options);
}

PooledAllocator& device_allocator(Device device) {
  require(device);
  // One per device index (uint8_t), made on first use and never destroyed.
  static std::mutex mutex;
  static PooledAllocator* allocators[256] = {};
  std::lock_guard lock(mutex);
  PooledAllocator*& slot = allocators[device.index];
  if (slot == nullptr) slot = make_device_allocator(device).release();
  return *slot;
}

PooledAllocator& pinned_allocator() {
  static PooledAllocator* pinned = new PooledAllocator(std::make_unique<PinnedSource>());
  return *pinned;
}

// --- Stream ---------------------------------------------------------------

Stream::Stream(int device, int /*index*/) : device_(device) {
  try {
    use_device();
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaStreamCreateWithFlags(&anchor_stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    const BlasApi& api = blas_api();
    check(api.create(&blas_), "cublasCreate");
    check(api.set_stream(blas_, stream_), "cublasSetStream");
    // Plain FP32 (no TF32 tensor-core rounding), so results compare with the CPU's.
    check(api.set_math_mode(blas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    check(cudaMalloc(reinterpret_cast<void**>(&scratch_), 8 * sizeof(double)), "cudaMalloc");
    anchor_ = new_anchor();
    check(cudaEventSynchronize(anchor_->event), "cudaEventSynchronize");
  } catch (...) {
    if (blas_ != nullptr) blas_api().destroy(blas_);
    if (scratch_ != nullptr) cudaFree(scratch_);
    anchor_.reset();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (anchor_stream_ != nullptr) cudaStreamDestroy(anchor_stream_);
    (void)cudaGetLastError();
    throw;
  }
}

Stream::~Stream() {
  // Nothing here may throw: after a device fault every call fails.
  (void)cudaSetDevice(device_);
  (void)cudaStreamSynchronize(stream_);
  for (const Pending& p : pending_) {
    cudaEventDestroy(p.start);
    cudaEventDestroy(p.end);
  }
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
  anchor_.reset();
  blas_api().destroy(blas_);
  cudaFree(scratch_);
  cudaStreamDestroy(stream_);
  cudaStreamDestroy(anchor_stream_);
  (void)cudaGetLastError();
}

void Stream::use_device() const {
  thread_local int current = -1;
  if (current == device_) return;
  check(cudaSetDevice(device_), "cudaSetDevice");
  current = device_;
}

std::shared_ptr<const Stream::Anchor> Stream::new_anchor() {
  cudaEvent_t event = nullptr;
  check(cudaEventCreate(&event), "cudaEventCreate");
  const cudaError_t recorded = cudaEventRecord(event, anchor_stream_);
  const int64_t host_ns = trace::now_ns();
  if (recorded != cudaSuccess) {
    cudaEventDestroy(event);
    check(recorded, "cudaEventRecord");
  }
  return std::shared_ptr<const Anchor>(new Anchor{event, host_ns}, [](const Anchor* a) {
    cudaEventDestroy(a->event);
    delete a;
  });
}

cudaEvent_t Stream::take_event() {
  if (!free_events_.empty()) {
    cudaEvent_t e = free_events_.back();
    free_events_.pop_back();
    return e;
  }
  cudaEvent_t e = nullptr;
  // Blocking sync: the completer sleeps in cudaEventSynchronize instead of spinning a core.
  check(cudaEventCreateWithFlags(&e, cudaEventBlockingSync), "cudaEventCreateWithFlags");
  return e;
}

DeviceStream::Token Stream::begin_op() {
  use_device();
  if (trace::now_ns() - anchor_->host_ns > kAnchorMaxAgeNs) anchor_ = new_anchor();
  Pending p;
  p.token = next_token_++;
  p.anchor = anchor_;
  {
    std::lock_guard lock(mutex_);
    p.start = take_event();
    try {
      p.end = take_event();
    } catch (...) {
      free_events_.push_back(p.start);
      throw;
    }
  }
  current_start_ = p.start;
  start_recorded_ = false;
  std::lock_guard lock(mutex_);
  pending_.push_back(std::move(p));
  return pending_.back().token;
}

cudaStream_t Stream::submit_handle() {
  if (!start_recorded_) {
    check(cudaEventRecord(current_start_, stream_), "cudaEventRecord");
    start_recorded_ = true;
  }
  return stream_;
}

void Stream::end_op(Token token) {
  cudaEvent_t end = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (pending_.empty() || pending_.back().token != token) throw std::logic_error("cuda::Stream: end_op out of order");
    end = pending_.back().end;
  }
  // An op that submitted nothing still gets a (zero-length) span where the stream was.
  cudaError_t e = start_recorded_ ? cudaSuccess : cudaEventRecord(current_start_, stream_);
  start_recorded_ = true;
  if (e == cudaSuccess) e = cudaEventRecord(end, stream_);
  if (e != cudaSuccess) {
    // wait() must not trust the events: it waits for the whole stream instead.
    const std::string why = std::string("cudaEventRecord: ") + cudaGetErrorString(e);
    (void)cudaGetLastError();
    std::lock_guard lock(mutex_);
    pending_.back().broken = why;
    throw CudaError(why);
  }
}

DeviceStream::Span Stream::wait(Token token) {
  Pending p;
  {
    std::lock_guard lock(mutex_);
    if (pending_.empty() || pending_.front().token != token) throw std::logic_error("cuda::Stream: wait out of order");
    p = std::move(pending_.front());
    pending_.pop_front();
  }
  use_device();
  if (!p.broken.empty()) {
    // Its events were never recorded: wait until everything on the stream is done.
    (void)cudaStreamSynchronize(stream_);
    std::lock_guard lock(mutex_);
    free_events_.push_back(p.start);
    free_events_.push_back(p.end);
    throw CudaError(p.broken);
  }
  // Poll first (a short op ends within the budget and wakes nobody), then sleep.
  if (const int64_t poll = completion_poll_ns(); poll > 0) {
    const int64_t deadline = trace::now_ns() + poll;
    while (cudaEventQuery(p.end) == cudaErrorNotReady && trace::now_ns() < deadline) {
    }
    (void)cudaGetLastError();  // a failed query's error is reported by the synchronize below
  }
  const cudaError_t done = cudaEventSynchronize(p.end);
  Span span;
  float start_ms = 0.0f;
  float end_ms = 0.0f;
  cudaError_t timed = done;
  if (done == cudaSuccess) timed = cudaEventElapsedTime(&start_ms, p.anchor->event, p.start);
  if (timed == cudaSuccess) timed = cudaEventElapsedTime(&end_ms, p.anchor->event, p.end);
  {
    std::lock_guard lock(mutex_);
    free_events_.push_back(p.start);
    free_events_.push_back(p.end);
  }
  check(done, "cudaEventSynchronize (the op's work failed on the device)");
  check(timed, "cudaEventElapsedTime");
  span.start_ns = p.anchor->host_ns + std::llround(static_cast<double>(start_ms) * 1e6);
  span.end_ns = p.anchor->host_ns + std::llround(static_cast<double>(end_ms) * 1e6);
  return span;
}

}  // namespace asyncscope::cuda
