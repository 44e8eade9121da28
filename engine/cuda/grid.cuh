// What the kernel files share: the thread-block size, grid-stride loops, the
// stream an op submits to, and the launch check. Internal to the backend's
// .cu files.
//
// Threading: the stream worker thread that owns the stream (host functions).
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/cuda/cuda.h"
#include "engine/cuda/stream.h"

namespace asyncscope::cuda::grid {

inline constexpr int kThreads = 256;

// The engine's stream behind an op's RunContext::stream.
inline Stream& on(void* stream) { return *static_cast<Stream*>(stream); }

// Enough blocks to cover n elements, capped: kernels loop over the rest.
inline unsigned blocks_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535));
}

// Throws CudaError naming the kernel if its launch failed.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

__device__ inline int64_t global_index() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline int64_t grid_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace asyncscope::cuda::grid
