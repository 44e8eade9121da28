// The vars of an op in the benchmarks' synthetic million-op traces: it reads
// two earlier arrays and writes a new one of 64 KB, or, when it frees (an
// internal op), returns one of the last thousand arrays to the pool. Shared
// by the timeline and insight benchmarks, whose runs differ in their timing.
// Threading: the benchmark's thread.
#pragma once

#include <cstdint>
#include <random>

#include "engine/trace/model.h"

namespace asyncscope::bench {

// Appends op i's var ids to m.var_ids and sets its var range and out_bytes.
inline void add_synthetic_vars(trace::TraceModel& m, trace::OpInfo& op, uint32_t i, std::mt19937_64& rng) {
  op.vars_begin = static_cast<uint32_t>(m.var_ids.size());
  op.num_reads = 2;
  op.num_writes = 1;
  for (int v = 0; v < 2; ++v) m.var_ids.push_back(1 + (i > 0 ? rng() % i : 0));
  m.var_ids.push_back(op.internal ? 1 + (i > 1000 ? i - 1 - rng() % 1000 : 0) : 1 + uint64_t{i});
  op.out_bytes = op.internal ? 0 : 65536;
}

}  // namespace asyncscope::bench
