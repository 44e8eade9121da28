// What an op is, as the frontend sees it: the function a worker runs, the
// context it runs in, and the metadata the trace records.
// Threading: plain types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/core/device.h"
#include "engine/core/inline_function.h"
#include "engine/trace_record/names.h"

namespace asyncscope {

// Passed to an op's function on the worker that runs it.
// RunContext::worker of a function run on the calling thread, not a worker
// (delete_var's on_delete when the var was already idle).
inline constexpr uint16_t kCallerThread = 0xffff;

class HelpBoard;

struct RunContext {
  Device device;
  uint16_t worker = 0;  // index within the device's worker pool, or kCallerThread
  uint64_t op_id = 0;
  void* stream = nullptr;  // the CUDA stream of a GPU worker; null on CPU
  // The idle workers of this pool that may run parts of the op (run_parts()
  // in engine/core/help_board.h); null where nobody can help.
  HelpBoard* helpers = nullptr;
};

// Captures up to this many bytes are stored in the op record itself (no allocation).
inline constexpr size_t kOpFnInlineBytes = 104;
using OpFn = InlineFunction<void(const RunContext&), kOpFnInlineBytes>;

struct OpMeta {
  trace::NameId name = 0;  // intern once per op kind: static const auto id = trace::intern("dot");
  Device device = Device::cpu();
  uint32_t iteration = 0;  // the demo iteration that pushed it
  uint64_t out_bytes = 0;  // bytes of the arrays it writes
  bool internal = false;   // engine bookkeeping (freeing an array), not user work
  // A line the op's function reads first that the pushing thread wrote last
  // (an output array's header), or null: a worker that was idle when it took
  // the op asks for it with the op's own lines instead of missing on it later.
  // Only a hint: the engine prefetches it and never reads through it.
  const void* first_touch = nullptr;

  OpMeta() = default;
  explicit OpMeta(trace::NameId name_id, Device dev = Device::cpu()) : name(name_id), device(dev) {}
  // Interns the name (takes a lock): fine in tests and setup, not on hot paths.
  explicit OpMeta(std::string_view op_name, Device dev = Device::cpu())
      : name(trace::intern(op_name)), device(dev) {}
};

}  // namespace asyncscope
