// The raw event records that writers append to their per-thread buffers.
// Times are absolute steady_clock ns (see clock.h). Plain, fixed-size structs:
// recording one is a copy into a ChunkedLog, never an allocation.
// Threading: plain data.
#pragma once

#include <cstdint>

#include "engine/trace_record/names.h"

namespace asyncscope::trace {

// Where an op runs. Mirrors the engine's Device without depending on it.
enum class DeviceKind : uint8_t { cpu = 0, cuda = 1 };

// Why the frontend waited.
enum class SyncKind : uint8_t {
  wait_to_read,   // NDArray::wait_to_read / Engine::wait_for_var
  wait_all,       // Engine::wait_all
  to_host,        // NDArray::to_host (asnumpy)
  item,           // NDArray::item (asscalar)
  print,          // operator<< on an NDArray
  inflight_bound  // push blocked by max_inflight (backpressure)
};
inline constexpr int kSyncKindCount = 6;
const char* to_string(SyncKind kind) noexcept;

// How an op's execution ended.
enum class OpStatus : uint8_t {
  ok,
  failed,     // its function threw; the error text is in the recorder's error table
  skipped,    // an input carried an error, so it did not run and inherited the error
  cancelled   // dropped by Engine::cancel()
};
const char* to_string(OpStatus status) noexcept;

// Recorded by the pushing thread when an op enters the engine: `t` is when
// the op was prepared (its record filled, its var ids read), push_ns how long
// push then took to link it into its vars and hand it on (waking a worker,
// if it did): [t, t + push_ns] is the frontend enqueuing it. Var ids (reads,
// then writes) are stored inline when there are at most kInlineVarIds of
// them (the common case: an elementwise op on two arrays reads two and writes
// one), else in the thread's var log. One cache line: the frontend writes one
// per push.
inline constexpr int kInlineVarIds = 3;
struct EnqueueEvent {
  uint64_t op = 0;
  int64_t t = 0;
  uint64_t out_bytes : 40 = 0;  // up to 1 TiB per op, saturated
  uint64_t push_ns : 24 = 0;    // up to 16.7 ms, saturated
  union {
    uint64_t inline_vars[kInlineVarIds] = {};  // at most kInlineVarIds ids
    uint64_t vars_offset;                      // more: index of the first id in the var log
  };
  uint32_t iteration = 0;
  NameId name = 0;
  uint16_t num_reads = 0;
  uint16_t num_writes = 0;
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
  uint8_t internal = 0;  // engine bookkeeping (e.g. freeing an array), not user work
};
static_assert(sizeof(EnqueueEvent) == 64, "an enqueue is one cache line");
inline constexpr uint64_t kMaxEnqueueOutBytes = (uint64_t{1} << 40) - 1;
inline constexpr uint64_t kMaxPushNs = (uint64_t{1} << 24) - 1;

// Which part of an op's life an ExecEvent spans. A CPU op has one span, its
// execution on a worker. A GPU op has two: `launch`, on the host thread of the
// stream worker that submitted its kernels (host clock), and `execute`, the
// time its work ran on the GPU stream, measured with CUDA events on the
// device and mapped onto the host clock.
// help: a CPU worker that was idle ran parts of another worker's op (a
// large matrix product split over the pool, engine/core/help_board.h); the
// op's own span is on the worker that ran it, the help spans on the helpers.
enum class SpanKind : uint8_t { execute = 0, launch = 1, help = 2 };

// Recorded by the worker that executed (or skipped) the op; for a GPU op, the
// launch span by the stream's host thread and the execute span by the thread
// that saw the stream's events complete.
//
// A CPU op's start is never before its enqueue, the ends of the ops it
// depends on, or the end of the previous op on its worker. When a worker runs
// an op that it made ready itself by finishing the previous one (the next op
// of a dependency chain), the op starts exactly where that one ended: the
// engine's hand-off between them (a few hundred ns) is counted in the op,
// and the worker reads the clock once per op instead of twice.
struct ExecEvent {
  uint64_t op = 0;
  int64_t start = 0;
  int64_t end = 0;
  uint16_t worker = 0;  // index within the device's pool (GPU: the stream)
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
  OpStatus status = OpStatus::ok;
  SpanKind span = SpanKind::execute;
};

// Recorded by the frontend around every wait.
struct SyncEvent {
  int64_t begin = 0;
  int64_t end = 0;
  uint64_t target = 0;  // var id (wait_to_read & co), 0 for wait_all / inflight_bound
  uint64_t last_op = 0; // the last op id pushed before the wait began
  SyncKind kind = SyncKind::wait_to_read;
};

// The frontend entered a line of a script's source: recorded by a scripting
// frontend (Python) before the first push or wait of each execution of a
// line. The enqueues and waits that follow on the same thread, up to the
// next SourceEvent, came from that execution. Line 0 says the thread left
// the script (what follows, such as the host's final wait, has no line).
// C++ programs record none.
struct SourceEvent {
  int64_t t = 0;
  NameId file = 0;
  uint32_t line = 0;
};

// The frontend entered (`enter` 1) a scope named `name`, or left (`enter` 0,
// `name` 0) the innermost one it is in: recorded by a framework around a
// layer's forward (a Gluon Block, a torch.nn.Module), an optimizer's step.
// The enqueues that follow on the same thread, up to the next ScopeEvent,
// were made inside the scopes entered and not left. Like SourceEvent,
// appended before the enqueues it accounts for.
struct ScopeEvent {
  int64_t t = 0;
  NameId name = 0;
  uint32_t enter = 0;
};

// A named instant with a value: demo phases, iteration boundaries.
struct MarkerEvent {
  int64_t t = 0;
  int64_t value = 0;
  NameId name = 0;
};

// One row of the counter sampler: all counters read at one instant.
inline constexpr int kMaxCounters = 8;
struct CounterSample {
  int64_t t = 0;
  int64_t values[kMaxCounters] = {};
};

}  // namespace asyncscope::trace
