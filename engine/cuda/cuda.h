// The CUDA backend's entry points, usable without CUDA headers: whether CUDA
// can be used here (and if not, why), the engine's stream workers
// (DeviceStream), device and pinned host memory for the pooled allocator.
//
// CUDA is optional twice over. At build time: without nvcc the backend is not
// compiled and status() says so. At run time: the CUDA runtime is linked
// statically and reaches the driver only through its own loader, so the
// program starts on machines without a GPU or driver; status() then carries
// the runtime's reason (no driver, no device, driver too old).
//
// Threading: every function may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/core/device.h"
#include "engine/core/device_stream.h"
#include "engine/base/allocator.h"

namespace asyncscope::cuda {

// A CUDA runtime or cuBLAS call failed: what() names the call and the reason,
// e.g. "cudaMalloc: out of memory".
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Status {
  bool built = false;      // this build has the CUDA backend
  bool available = false;  // built, and a device can be used
  std::string reason;      // why not (empty when available)
  int device_count = 0;
  std::string device_name;      // device 0, e.g. "NVIDIA H100 80GB HBM3"
  int compute_capability = 0;   // e.g. 90
  size_t total_memory = 0;      // device 0, bytes
  int runtime_version = 0;      // e.g. 13000
  int driver_version = 0;       // 0 without a driver
};

// Probed once, on first use (creating the CUDA context takes a moment).
const Status& status();
inline bool available() { return status().available; }

// Throws std::invalid_argument saying why `device` cannot be used, or returns.
void require(Device device);

// The engine's stream worker for `device` (EngineOptions::stream_factory's default).
std::unique_ptr<DeviceStream> make_stream(Device device, int index);

// Device memory (cudaMalloc) for a PooledAllocator.
std::unique_ptr<BlockSource> make_device_source(Device device);
// The budget for a device allocator: 90% of the device's memory, or
// ASYNCSCOPE_GPU_MEMORY_BUDGET_MB (std::invalid_argument if malformed).
int64_t default_device_budget_bytes(Device device);
// A pooled device allocator with the default budget.
std::unique_ptr<PooledAllocator> make_device_allocator(Device device);
// Process-wide device allocator (contexts that were not given one); never destroyed.
PooledAllocator& device_allocator(Device device);
// Process-wide page-locked host memory, the host side of device-to-host
// copies (so the copy is asynchronous); never destroyed.
PooledAllocator& pinned_allocator();

// How long a stream's completer polls an op's end event (cudaEventQuery in a
// loop) before it sleeps in cudaEventSynchronize: a short op's end then wakes
// its waiter within a query's time instead of the driver's wake-up (several
// microseconds), and a long op costs at most this much of a core per op.
// Starts at ASYNCSCOPE_GPU_POLL_US microseconds when set (0 turns polling
// off; std::invalid_argument if malformed), else kDefaultCompletionPollNs.
// Read by each wait, so a change applies to the next op's completion.
inline constexpr int64_t kDefaultCompletionPollNs = 50'000;
int64_t completion_poll_ns();
void set_completion_poll_ns(int64_t ns);  // clamped to [0, 1 s]

}  // namespace asyncscope::cuda
