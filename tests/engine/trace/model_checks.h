// Checks shared by the trace model tests: the invariants every model must
// hold, and field-by-field model equality.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::trace {

inline std::vector<uint64_t> var_list(const uint64_t* ids, uint16_t count) { return {ids, ids + count}; }

// The order lanes must keep: by device, device index and worker, a stream's
// launch lane directly above its execution lane.
inline auto lane_key(const WorkerLane& w) {
  return std::tuple(w.device, w.device_index, w.worker, w.span == SpanKind::launch ? 0 : 1);
}

// Every op on an execution lane is executed and knows its lane; every op on a
// launch lane is launched and knows that lane; an op has at most one span of
// each kind; a lane's spans are start-sorted and never overlap; a launch
// starts before its execution. expected_total > 0: the execution lanes hold
// exactly that many ops (a GPU op counts once, though it is on two lanes).
inline void expect_worker_lanes_consistent(const TraceModel& m, size_t expected_total) {
  std::vector<int> seen(m.ops.size(), 0);
  std::vector<int> seen_launch(m.ops.size(), 0);
  size_t total = 0;
  for (size_t lane = 0; lane < m.workers.size(); ++lane) {
    const WorkerLane& w = m.workers[lane];
    if (lane > 0) {
      EXPECT_LT(lane_key(m.workers[lane - 1]), lane_key(w)) << "lanes out of order at " << w.name;
    }
    for (size_t k = 0; k < w.ops.size(); ++k) {
      ASSERT_LT(w.ops[k], m.ops.size());
      const OpInfo& op = m.ops[w.ops[k]];
      if (w.launches()) {
        ASSERT_TRUE(op.launched()) << "op " << op.id;
        EXPECT_EQ(op.launch_worker, lane) << "op " << op.id;
        EXPECT_LE(op.launch_start, op.launch_end) << "op " << op.id;
        if (op.enqueue != kNoTime) {
          EXPECT_LE(op.enqueue, op.launch_start) << "op " << op.id;
        }
        if (op.executed()) {
          EXPECT_LE(op.launch_start, op.start) << "op " << op.id;
        }
        EXPECT_EQ(++seen_launch[w.ops[k]], 1) << "op " << op.id << " on a launch lane twice";
      } else {
        ASSERT_TRUE(op.executed()) << "op " << op.id;
        EXPECT_EQ(op.worker, lane) << "op " << op.id;
        EXPECT_LE(op.start, op.end) << "op " << op.id;
        if (op.enqueue != kNoTime) {
          EXPECT_LE(op.enqueue, op.start) << "op " << op.id;
        }
        EXPECT_EQ(++seen[w.ops[k]], 1) << "op " << op.id << " on a lane twice";
        ++total;
      }
      if (k > 0) {
        const OpInfo& prev = m.ops[w.ops[k - 1]];
        EXPECT_GE(w.start_of(op), w.end_of(prev)) << "ops " << prev.id << " and " << op.id << " overlap on " << w.name;
      }
    }
  }
  for (size_t i = 0; i < m.ops.size(); ++i) {
    EXPECT_EQ(seen[i], m.ops[i].executed() ? 1 : 0) << "op " << m.ops[i].id << " executed but on no lane";
    EXPECT_EQ(seen_launch[i], m.ops[i].launched() ? 1 : 0) << "op " << m.ops[i].id << " launched but on no lane";
  }
  if (expected_total > 0) {
    EXPECT_EQ(total, expected_total);
  }
}

inline void expect_same_op(const TraceModel& a, const TraceModel& b, const OpInfo& x, const OpInfo& y) {
  EXPECT_EQ(x.id, y.id);
  EXPECT_EQ(x.enqueue, y.enqueue) << x.id;
  EXPECT_EQ(x.start, y.start) << x.id;
  EXPECT_EQ(x.end, y.end) << x.id;
  EXPECT_EQ(x.launch_start, y.launch_start) << x.id;
  EXPECT_EQ(x.launch_end, y.launch_end) << x.id;
  EXPECT_EQ(x.out_bytes, y.out_bytes) << x.id;
  EXPECT_EQ(x.iteration, y.iteration) << x.id;
  EXPECT_EQ(a.op_name(x), b.op_name(y)) << x.id;
  EXPECT_EQ(x.frontend, y.frontend) << x.id;
  EXPECT_EQ(x.worker, y.worker) << x.id;
  EXPECT_EQ(x.launch_worker, y.launch_worker) << x.id;
  EXPECT_EQ(x.device, y.device) << x.id;
  EXPECT_EQ(x.device_index, y.device_index) << x.id;
  EXPECT_EQ(x.status, y.status) << x.id;
  EXPECT_EQ(x.internal, y.internal) << x.id;
  EXPECT_EQ(x.source, y.source) << x.id;
  EXPECT_EQ(a.source_text(x.source), b.source_text(y.source)) << x.id;
  EXPECT_EQ(x.num_reads, y.num_reads) << x.id;
  EXPECT_EQ(x.num_writes, y.num_writes) << x.id;
  EXPECT_EQ(var_list(a.reads_of(x), x.num_reads), var_list(b.reads_of(y), y.num_reads)) << x.id;
  EXPECT_EQ(var_list(a.writes_of(x), x.num_writes), var_list(b.writes_of(y), y.num_writes)) << x.id;
}

inline void expect_same_model(const TraceModel& a, const TraceModel& b) {
  EXPECT_EQ(a.origin_ns, b.origin_ns);
  EXPECT_EQ(a.first_op_id, b.first_op_id);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) expect_same_op(a, b, a.ops[i], b.ops[i]);

  ASSERT_EQ(a.frontends.size(), b.frontends.size());
  for (size_t i = 0; i < a.frontends.size(); ++i) {
    EXPECT_EQ(a.frontends[i].name, b.frontends[i].name);
    EXPECT_EQ(a.frontends[i].enqueues, b.frontends[i].enqueues);
    EXPECT_EQ(a.frontends[i].syncs, b.frontends[i].syncs);
    EXPECT_EQ(a.frontends[i].sources, b.frontends[i].sources);
  }
  ASSERT_EQ(a.source_lines.size(), b.source_lines.size());
  for (size_t i = 0; i < a.source_lines.size(); ++i) {
    EXPECT_EQ(a.name(a.source_lines[i].file), b.name(b.source_lines[i].file));
    EXPECT_EQ(a.source_lines[i].line, b.source_lines[i].line);
  }
  ASSERT_EQ(a.source_points.size(), b.source_points.size());
  for (size_t i = 0; i < a.source_points.size(); ++i) {
    EXPECT_EQ(a.source_points[i].t, b.source_points[i].t);
    EXPECT_EQ(a.source_points[i].line, b.source_points[i].line);
    EXPECT_EQ(a.source_points[i].frontend, b.source_points[i].frontend);
  }
  ASSERT_EQ(a.workers.size(), b.workers.size());
  for (size_t i = 0; i < a.workers.size(); ++i) {
    EXPECT_EQ(a.workers[i].name, b.workers[i].name);
    EXPECT_EQ(a.workers[i].device, b.workers[i].device);
    EXPECT_EQ(a.workers[i].device_index, b.workers[i].device_index);
    EXPECT_EQ(a.workers[i].worker, b.workers[i].worker);
    EXPECT_EQ(a.workers[i].span, b.workers[i].span);
    EXPECT_EQ(a.workers[i].ops, b.workers[i].ops);
    ASSERT_EQ(a.workers[i].helps.size(), b.workers[i].helps.size());
    for (size_t h = 0; h < a.workers[i].helps.size(); ++h) {
      EXPECT_EQ(a.workers[i].helps[h].op, b.workers[i].helps[h].op);
      EXPECT_EQ(a.workers[i].helps[h].start, b.workers[i].helps[h].start);
      EXPECT_EQ(a.workers[i].helps[h].end, b.workers[i].helps[h].end);
    }
  }
  ASSERT_EQ(a.syncs.size(), b.syncs.size());
  for (size_t i = 0; i < a.syncs.size(); ++i) {
    const SyncSpan& x = a.syncs[i];
    const SyncSpan& y = b.syncs[i];
    EXPECT_EQ(x.begin, y.begin);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.last_op, y.last_op);
    EXPECT_EQ(x.frontend, y.frontend);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.source, y.source);
  }
  ASSERT_EQ(a.markers.size(), b.markers.size());
  for (size_t i = 0; i < a.markers.size(); ++i) {
    EXPECT_EQ(a.markers[i].t, b.markers[i].t);
    EXPECT_EQ(a.markers[i].value, b.markers[i].value);
    EXPECT_EQ(a.name(a.markers[i].name), b.name(b.markers[i].name));
    EXPECT_EQ(a.markers[i].frontend, b.markers[i].frontend);
  }
  EXPECT_EQ(a.counter_names, b.counter_names);
  ASSERT_EQ(a.counters.size(), b.counters.size());
  for (size_t i = 0; i < a.counters.size(); ++i) {
    EXPECT_EQ(a.counters[i].t, b.counters[i].t);
    for (int c = 0; c < kMaxCounters; ++c) EXPECT_EQ(a.counters[i].values[c], b.counters[i].values[c]);
  }
  EXPECT_EQ(a.errors, b.errors);
  EXPECT_EQ(a.dropped, b.dropped);
}

}  // namespace asyncscope::trace
