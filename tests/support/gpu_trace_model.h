// A hand-built trace with GPU ops, shared by the widget and app tests: each GPU op has
// a launch span on "cuda:0 launch 0" and a GPU span on "cuda:0 stream 0".
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/model.h"
#include "support/model_vars.h"

namespace asyncscope::testing {

// x = normal (CPU); g = normal on the GPU; y = dot(g, g) on the GPU; z = copy(x, y) (CPU).
//   op0 normal  writes 1           enq 1000  run    2000..10000  CPU worker 0
//   op1 normal  writes 2  (GPU)    enq 1200  launch 1500..2500   GPU  2600..20000
//   op2 dot     reads 2 -> 3 (GPU) enq 1400  launch 2500..3000   GPU 20000..60000
//   op3 copy    reads 1 3 -> 4     enq 1600  run   61000..65000  CPU worker 0
// Counters: RSS, live bytes, GPU memory (device_live_bytes), queue depth.
inline trace::TraceModel gpu_test_model() {
  using trace::DeviceKind;
  using trace::SpanKind;
  trace::TraceModel m;
  m.names = {"", "normal", "dot", "copy"};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {0}, {}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {0, 3}, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 launch 0", DeviceKind::cuda, 0, 0, SpanKind::launch, {1, 2}, {}});
  m.workers.push_back(trace::WorkerLane{"cuda:0 stream 0", DeviceKind::cuda, 0, 0, SpanKind::execute, {1, 2}, {}});
  struct Row {
    trace::NameId name;
    int64_t enqueue, launch_start, launch_end, start, end;
    std::vector<uint64_t> reads, writes;
  };
  const std::vector<Row> rows = {{1, 1000, trace::kNoTime, trace::kNoTime, 2000, 10000, {}, {1}},
                                 {1, 1200, 1500, 2500, 2600, 20000, {}, {2}},
                                 {2, 1400, 2500, 3000, 20000, 60000, {2}, {3}},
                                 {3, 1600, trace::kNoTime, trace::kNoTime, 61000, 65000, {1, 3}, {4}}};
  for (const Row& r : rows) {
    const bool gpu = r.launch_start != trace::kNoTime;
    trace::OpInfo& op = add_op(m, {r.name, r.enqueue, r.start, r.end, static_cast<uint16_t>(gpu ? 2 : 0), r.reads, r.writes});
    op.launch_start = r.launch_start;
    op.launch_end = r.launch_end;
    op.device = gpu ? DeviceKind::cuda : DeviceKind::cpu;
    op.launch_worker = gpu ? 1 : 0;
  }
  m.syncs.push_back(trace::SyncSpan{1700, 66000, 4, 4, 0, trace::SyncKind::wait_to_read});
  m.counter_names = {"rss_bytes", "live_bytes", "device_live_bytes", "queue_depth"};
  for (int64_t t = 0; t <= 70000; t += 1000) {
    trace::CounterSample s;
    s.t = t;
    s.values[0] = 200'000'000;
    s.values[1] = t * 10;
    s.values[2] = t < 2600 ? 0 : t < 60000 ? 8'000'000 : 4'000'000;
    s.values[3] = t < 1600 ? t / 400 : t < 65000 ? 2 : 0;
    m.counters.push_back(s);
  }
  return m;
}

}  // namespace asyncscope::testing
