// A hand-built CPU trace where one worker helps with another's op (a split
// matrix product, SpanKind::help), shared by the trace, insight and widget
// tests.
//   op0 add  writes 1         enq 100   run  500..900    CPU worker 1
//   op1 dot  reads 1 -> 2     enq 200   run 1000..9000   CPU worker 0
//   op2 add  reads 2 -> 3     enq 300   run 9500..9700   CPU worker 0
//   CPU worker 1 helps op1 from 1200 to 8000.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/model.h"
#include "support/model_vars.h"

namespace asyncscope::testing {

inline trace::TraceModel help_test_model() {
  using trace::DeviceKind;
  using trace::SpanKind;
  trace::TraceModel m;
  m.first_op_id = 1;
  m.names = {"", "add", "dot"};
  m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}, {}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {1, 2}, {}});
  m.workers.push_back(trace::WorkerLane{"CPU worker 1", DeviceKind::cpu, 0, 1, SpanKind::execute, {0}, {}});
  m.workers[1].helps.push_back(trace::HelpSpan{1, 1200, 8000});
  for (const OpRow& r : {OpRow{1, 100, 500, 900, 1, {}, {1}}, OpRow{2, 200, 1000, 9000, 0, {1}, {2}},
                            OpRow{1, 300, 9500, 9700, 0, {2}, {3}}}) {
    add_op(m, r);
  }
  return m;
}

}  // namespace asyncscope::testing
