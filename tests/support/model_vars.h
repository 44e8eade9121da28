// Test helpers for hand-built trace models: set_vars gives an op its read
// and write var ids, appended to the model's var list the way the model's
// builder stores them (reads first, then writes); add_op appends an op
// executed on a lane (a CPU op unless the caller says more). Threading: test thread only.
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

// One op of a hand-built model, as the fixtures list them.
struct OpRow {
  trace::NameId name;
  int64_t enqueue, start, end;
  uint16_t worker;
  std::vector<uint64_t> reads, writes;
};

// Appends the op (the next id, enqueued on frontend 0, which must exist) and
// returns it for the fields a fixture sets besides. The worker lanes'
// op lists are the caller's.
inline trace::OpInfo& add_op(trace::TraceModel& m, const OpRow& r) {
  trace::OpInfo op;
  op.id = m.first_op_id + m.ops.size();
  op.name = r.name;
  op.enqueue = r.enqueue;
  op.start = r.start;
  op.end = r.end;
  op.worker = r.worker;
  set_vars(m, op, r.reads, r.writes);
  m.frontends.at(0).enqueues.push_back(static_cast<uint32_t>(m.ops.size()));
  m.ops.push_back(op);
  return m.ops.back();
}

}  // namespace asyncscope::testing
