// Cost of recording one trace event on the hot path.
#include <benchmark/benchmark.h>

#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {
namespace {

// Appending an execution event (the timestamp is taken by the caller anyway).
void BM_TraceRecordExec(benchmark::State& state) {
  Recorder recorder;
  ExecEvent e{1, 100, 200, 0, DeviceKind::cpu, 0, OpStatus::ok};
  for (auto _ : state) {
    ++e.op;
    recorder.record_exec(e);
  }
}
BENCHMARK(BM_TraceRecordExec)->Iterations(8 << 20);

// The same with a fresh steady_clock reading per event.
void BM_TraceRecordExecWithClock(benchmark::State& state) {
  Recorder recorder;
  ExecEvent e{1, 0, 0, 0, DeviceKind::cpu, 0, OpStatus::ok};
  for (auto _ : state) {
    ++e.op;
    e.end = now_ns();
    recorder.record_exec(e);
  }
}
BENCHMARK(BM_TraceRecordExecWithClock)->Iterations(8 << 20);

// A layer's call on the trace: entering its scope inside another (the
// network's) and leaving it, as a Gluon block's or a torch module's call does.
void BM_TraceScopeEnterLeave(benchmark::State& state) {
  Recorder recorder;
  const NameId outer = intern("net"), inner = intern("dense0");
  recorder.enter_scope(outer);
  for (auto _ : state) {
    recorder.enter_scope(inner);
    benchmark::ClobberMemory();
    recorder.leave_scope();
  }
  recorder.leave_scope();
}
BENCHMARK(BM_TraceScopeEnterLeave)->Iterations(4 << 20);

}  // namespace
}  // namespace asyncscope::trace
