// Memory attribution: every buffer of a trace attributed to the op (and
// script line) that allocated it; the holders at any instant and at the
// peak.
//
// Threading: owned by the thread that owns the model it reads; update()
// costs time in proportion to what the model gained since the last call.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::trace {

// Live buffers grouped by the op that allocated them, its script line and
// the scopes it was pushed in (the layer whose forward made it).
// A buffer is allocated inside the first op that writes it and returned to
// the pool inside the internal "free" op pushed when its last array handle
// went; the trace has the spans of both, not the instants inside them, so a
// buffer counts as live from the end of the one to the start of the other:
// when it certainly was. The live bytes at any instant, and so the peak, are
// therefore never above the allocator's exact count, and differ from it by
// buffers allocated or freed within an op running at that instant.
struct Holder {
  std::string op;    // the op's name
  std::string line;  // "file.py:12", or "" for ops pushed by no script line
  std::string scope;  // "Sequential > dense0 (Dense)", or "" for ops pushed in no scope
  uint64_t bytes = 0;
  uint64_t count = 0;
};
// The innermost scope of a path ("dense0 (Dense)" of "Sequential > dense0
// (Dense)"), or "".
std::string_view innermost_scope(std::string_view path) noexcept;
// "dot in dense0 (Dense)": the op and the innermost scope it was pushed in
// ("dot in backward of dense0 (Dense)" for a gradient autograd pushed in its
// op's scopes); the op's name alone without one.
std::string holder_label(const Holder& h);

struct HolderTable {
  int64_t t = 0;           // the instant (ns since run start)
  uint64_t live_bytes = 0; // all buffers live at t on that device
  uint64_t buffers = 0;
  std::vector<Holder> rows;  // largest first, at most `top`
};

class MemoryAttribution {
 public:
  // Reads the ops the model gained, up to the first whose events are not
  // all read yet; ids below `settled` (Frontier::settled) that the trace
  // never had are passed.
  void update(const TraceModel& model, uint64_t settled);

  // The buffers of a device live at `t`, grouped (see Holder).
  HolderTable holders_at(const TraceModel& model, int64_t t, DeviceKind device = DeviceKind::cpu,
                         uint8_t device_index = 0, size_t top = 8) const;
  // The same at the instant the device's live bytes peaked (the first such
  // instant), from the allocations themselves: exact, not sampled.
  HolderTable peak_holders(const TraceModel& model, DeviceKind device = DeviceKind::cpu, uint8_t device_index = 0,
                           size_t top = 8) const;
  // Ops read so far.
  uint64_t visits() const noexcept { return attributed_; }

 private:
  // An allocation or a free of one buffer, by the group that allocated it.
  struct MemEvent {
    int64_t t = 0;
    uint64_t bytes = 0;
    uint32_t holder = 0;  // index into holder_keys_
  };
  using HolderSums = std::vector<std::pair<uint64_t, uint64_t>>;  // per holder: bytes, buffers
  // One device's allocations and frees, each list sorted by time (events
  // arrive nearly in order: an insertion from the end), with running sums
  // per holder every kStep events, so the live buffers at any instant are
  // the allocations up to it minus the frees up to it: O(log n + kStep).
  struct DeviceMemory {
    uint16_t device = 0;
    std::vector<MemEvent> allocs, frees;
    mutable std::vector<HolderSums> alloc_sums, free_sums;  // [k]: events [0, k * kStep)
    mutable size_t alloc_valid = 0, free_valid = 0;        // leading checkpoints still right
  };
  static constexpr size_t kStep = 256;
  struct LiveVar {
    uint32_t memory = 0;  // index into memory_
    uint32_t holder = 0;
    uint64_t bytes = 0;
    int64_t alloc = 0;
  };
  struct HolderKey {
    NameId name;
    uint32_t source_line;  // 1 + index into source_lines, 0: none
    uint32_t scope;        // OpInfo::scope
    bool operator==(const HolderKey&) const = default;
  };
  struct HolderKeyHash {
    size_t operator()(const HolderKey& k) const noexcept {
      return std::hash<uint64_t>()((uint64_t{k.name} << 32 | k.source_line) ^ (uint64_t{k.scope} * 0x9E3779B97F4A7C15ull));
    }
  };
  DeviceMemory& memory_of(uint16_t device);
  const DeviceMemory* find_memory(uint16_t device) const;
  HolderSums live_at(const DeviceMemory& m, int64_t t) const;
  HolderTable table(const TraceModel& model, int64_t t, uint16_t device_key, size_t top) const;

  uint64_t attributed_ = 0;  // ops before this index have been read for allocations
  std::vector<DeviceMemory> memory_;
  std::unordered_map<uint64_t, LiveVar> live_var_;  // var id -> its buffer, until freed
  std::vector<HolderKey> holder_keys_;
  std::unordered_map<HolderKey, uint32_t, HolderKeyHash> holder_index_;
  uint64_t version_ = 0;  // changes whenever an allocation or a free is read
  mutable std::unordered_map<uint16_t, std::pair<uint64_t, int64_t>> peak_cache_;  // device -> version, peak time
  NameId free_name_ = 0;
  bool free_name_known_ = false;
  size_t names_searched_ = 0;  // model.names searched for "free" so far
};

}  // namespace asyncscope::trace
