// DeviceStream: the engine's view of one in-order device queue (a CUDA
// stream). A stream worker runs each GPU op's function on its host thread,
// between begin_op() and end_op(); the function only *submits* work (kernel
// launches, async copies) through RunContext::stream and returns. A second
// host thread, the stream's completer, then calls wait() for each op in the
// order they were begun, and only when the device has finished an op does
// the engine release its vars. So a host op or a sync point that depends on a
// GPU op always sees its results, while the stream worker itself never waits
// for the device and can run far ahead of it.
//
// wait() also returns when the op's work ran on the device, measured on the
// device (CUDA events) and mapped onto the trace clock (trace::now_ns()).
//
// The CUDA implementation is cuda::make_stream() (engine/cuda/cuda.h); tests
// use a simulated device to check the engine's side of the contract.
//
// Threading: begin_op(), end_op() and native() from the stream worker thread
// only; wait() from the completer thread only, concurrently with the former.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "engine/core/device.h"

namespace asyncscope {

class DeviceStream {
 public:
  // When an op's submitted work ran on the device, on the trace clock.
  struct Span {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  using Token = uint64_t;

  virtual ~DeviceStream() = default;

  // Brackets the submissions of one op. end_op() must follow every begin_op()
  // (also when the op's function threw), before the next begin_op().
  virtual Token begin_op() = 0;
  virtual void end_op(Token token) = 0;
  // Blocks until the device finished the work submitted under `token`, then
  // returns its span. Tokens are waited for in the order they were begun.
  // Throws (with the failing call and reason) if the device reports an error.
  virtual Span wait(Token token) = 0;

  // What op functions receive as RunContext::stream (for CUDA: a cuda::Stream*).
  virtual void* native() noexcept = 0;
};

// Makes the stream with index `index` on `device`; throws std::runtime_error
// (with the reason) if the device cannot be used.
using StreamFactory = std::function<std::unique_ptr<DeviceStream>(Device device, int index)>;

}  // namespace asyncscope
