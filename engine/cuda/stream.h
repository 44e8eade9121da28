// cuda::Stream: the CUDA implementation of DeviceStream (see
// engine/core/device_stream.h), and what ops receive as RunContext::stream.
// Internal to the backend: includes the CUDA headers, so only the backend's
// own sources include it.
//
// Timing: every op gets a pair of CUDA events around its work. The start
// event is recorded just before the op's first submission (submit_handle()),
// not at begin_op(), so host work in the op's function (allocating, cuBLAS
// set-up) does not count as device time. Device times become host times
// through an anchor: an event recorded on a private stream that is always
// idle, so it runs at once, with the host time read right after the record
// returns; an op's start is anchor_host + cudaEventElapsedTime(anchor, start).
// The anchor is renewed every second, which keeps the float milliseconds of
// cudaEventElapsedTime precise to well under a microsecond and the drift
// between GPU and host clocks small. Events are pooled and reused, so a
// steady stream of ops creates none.
//
// Threading: as DeviceStream; handle(), blas() and scratch() on the stream
// worker thread (inside op functions).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/device_stream.h"

namespace asyncscope::cuda {

// Throws CudaError("<call>: <reason>") unless status is cudaSuccess.
void check(cudaError_t status, const char* call);
void check(cublasStatus_t status, const char* call);

// The cuBLAS functions the backend uses, loaded with dlopen on first use
// (libcublas.so.<major this build was compiled against>), so that programs
// start, and run on the CPU, where cuBLAS is not installed.
struct BlasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSetMathMode) set_math_mode;
  decltype(&cublasSgemm_v2) sgemm;
  decltype(&cublasDgemm_v2) dgemm;
  decltype(&cublasGetStatusString) status_string;
};
// Throws CudaError saying why cuBLAS cannot be loaded.
const BlasApi& blas_api();

class Stream final : public DeviceStream {
 public:
  Stream(int device, int index);
  ~Stream() override;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Token begin_op() override;
  void end_op(Token token) override;
  Span wait(Token token) override;
  void* native() noexcept override { return this; }

  // The stream to submit an op's work to; records the op's start event first.
  cudaStream_t submit_handle();
  cublasHandle_t blas() const noexcept { return blas_; }
  // Device scratch for reductions (ops on one stream run one after another).
  double* scratch() const noexcept { return scratch_; }
  int device() const noexcept { return device_; }

 private:
  struct Anchor {
    cudaEvent_t event = nullptr;
    int64_t host_ns = 0;
  };
  struct Pending {
    Token token = 0;
    cudaEvent_t start = nullptr;
    cudaEvent_t end = nullptr;
    std::shared_ptr<const Anchor> anchor;
    std::string broken;  // why the end event could not be recorded, if it could not
  };

  // Sets this stream's device on the calling thread (once per thread).
  void use_device() const;
  std::shared_ptr<const Anchor> new_anchor();
  cudaEvent_t take_event();  // launcher thread, under mutex_

  const int device_;
  cudaStream_t stream_ = nullptr;
  cudaStream_t anchor_stream_ = nullptr;  // never given work: anchors run at once
  cublasHandle_t blas_ = nullptr;
  double* scratch_ = nullptr;

  // Launcher thread only.
  std::shared_ptr<const Anchor> anchor_;
  Token next_token_ = 1;
  cudaEvent_t current_start_ = nullptr;  // the begun op's start event
  bool start_recorded_ = true;

  std::mutex mutex_;  // the launcher adds, the completer takes and recycles
  std::deque<Pending> pending_;
  std::vector<cudaEvent_t> free_events_;
};

}  // namespace asyncscope::cuda
