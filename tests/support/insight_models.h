// Hand-made trace models for the insight's tests: ops on worker lanes with
// their vars, bytes, source lines and status, a small run of five ops
// whose every lane state and holder is known, and a lane's states as a list
// of segments to compare.
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "engine/trace/lane_classifier.h"
#include "engine/trace/model.h"
#include "support/help_trace_model.h"

namespace asyncscope::testing {

struct Row {
  OpRow op;
  uint64_t bytes = 0;
  uint32_t source = 0;
  trace::OpStatus status = trace::OpStatus::ok;
};

// names: 1 ones, 2 mul, 3 add_scalar, 4 free
inline trace::TraceModel build(const std::vector<Row>& rows, int workers) {
  trace::TraceModel m;
  m.names = {"", "ones", "mul", "add_scalar", "free"};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}, {}});
  for (int w = 0; w < workers; ++w) {
    m.workers.push_back(trace::WorkerLane{"CPU worker " + std::to_string(w), trace::DeviceKind::cpu, 0,
                                          static_cast<uint16_t>(w), trace::SpanKind::execute, {}, {}});
  }
  for (const Row& r : rows) {
    trace::OpInfo& op = add_op(m, r.op);
    op.internal = r.op.name == 4;
    op.out_bytes = r.bytes;
    op.source = r.source;
    op.status = r.status;
  }
  // Each lane's spans in start order.
  std::vector<uint32_t> order(m.ops.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return m.ops[a].start < m.ops[b].start; });
  for (uint32_t i : order) m.workers[m.ops[i].worker].ops.push_back(i);
  return m;
}

// x = ones; y = ones; z = x * y; w = z + 1; free x; the frontend waits for w.
//   op1 ones       -> 1     enq 1000  run  2000..12000  worker 0
//   op2 ones       -> 2     enq 1500  run  2500..11000  worker 1
//   op3 mul  1 2   -> 3     enq 2000  run 13000..40000  worker 0
//   op4 add_scalar 3 -> 4   enq 2500  run 41000..50000  worker 1
//   op5 free       -> 1     enq 3000  run 41000..42000  worker 0
inline trace::TraceModel small() {
  trace::TraceModel m = build({{1, 1000, 2000, 12000, 0, {}, {1}, 4000},
                        {1, 1500, 2500, 11000, 1, {}, {2}, 4000},
                        {2, 2000, 13000, 40000, 0, {1, 2}, {3}, 4000},
                        {3, 2500, 41000, 50000, 1, {3}, {4}, 4000},
                        {4, 3000, 41000, 42000, 0, {}, {1}, 0}},
                       2);
  m.syncs.push_back(trace::SyncSpan{3500, 51000, 4, 4, 0, trace::SyncKind::wait_to_read});
  m.frontends[0].syncs.push_back(0);
  return m;
}

// One segment of a lane's states, with a length.
struct Seg {
  int64_t begin, end;
  trace::LaneState state;
  friend bool operator==(const Seg&, const Seg&) = default;
};
inline std::vector<Seg> segments(const trace::LaneStates& s) {
  std::vector<Seg> out;
  for (size_t i = 0; i < s.size(); ++i) {
    // The last segment may have no length yet: the state from its begin on.
    if (s.segment_end(i) > s.segment_begin(i)) out.push_back({s.segment_begin(i), s.segment_end(i), s.segment_state(i)});
  }
  return out;
}
inline void PrintTo(const Seg& s, std::ostream* os) {
  *os << "[" << s.begin << "," << s.end << ") " << trace::to_string(s.state);
}

}  // namespace asyncscope::testing
