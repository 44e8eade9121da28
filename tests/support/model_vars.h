// Test helper for hand-built trace models: gives an op its read and write
// var ids, appended to the model's var list the way the model's builder
// stores them (reads first, then writes). Threading: test thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::testing {

inline void set_vars(trace::TraceModel& m, trace::OpInfo& op, const std::vector<uint64_t>& reads,
                     const std::vector<uint64_t>& writes) {
  op.vars_begin = static_cast<uint32_t>(m.var_ids.size());
  op.num_reads = static_cast<uint16_t>(reads.size());
  op.num_writes = static_cast<uint16_t>(writes.size());
  m.var_ids.insert(m.var_ids.end(), reads.begin(), reads.end());
  m.var_ids.insert(m.var_ids.end(), writes.begin(), writes.end());
}

}  // namespace asyncscope::testing
