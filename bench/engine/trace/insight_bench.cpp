// RunInsight::update on a live run of about a million ops when the read
// brought nothing new: what the app's UI thread pays for every trace read
// of a long run between the reads that do bring ops. Two shapes
// of the same run, as a live reader sees it:
//   backlog  the frontend pushes faster than the four workers run (the async
//            loop): about half of the ops are pushed and not yet run;
//   long op  the workers keep up, but the first op (a long product) is still
//            running on a fifth worker: every op after it is run, and the
//            frontier waits for that one.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>

#include "engine/trace/insight.h"
#include "support/synthetic_ops.h"

namespace asyncscope::trace {
namespace {

constexpr uint32_t kOps = 1'000'000;
constexpr uint16_t kWorkers = 4;

enum class Shape { backlog, long_op };

// The run as read at the moment of its last enqueue: executions that ended
// later are not read yet (a lane records a span at its end).
TraceModel live_model(Shape shape) {
  TraceModel m;
  m.names = {"", "add", "mul", "dot", "free"};
  m.frontends.push_back(FrontendLane{"frontend", {}, {}, {}});
  const uint16_t lanes = shape == Shape::long_op ? kWorkers + 1 : kWorkers;
  for (uint16_t w = 0; w < lanes; ++w) {
    m.workers.push_back(WorkerLane{"CPU worker " + std::to_string(w), DeviceKind::cpu, 0, w, SpanKind::execute, {}, {}});
  }
  m.ops.reserve(kOps);
  m.var_ids.reserve(size_t{kOps} * 3);
  m.frontends[0].enqueues.reserve(kOps);
  std::mt19937_64 rng(7);
  // Backlog: a push every 0.3-0.9 µs against 2-8 µs ops on 4 workers (1.25 µs
  // an op); long op: a push every 0.6-1.8 µs against 1-3 µs ops.
  const int64_t push_min = shape == Shape::backlog ? 300 : 600, push_spread = shape == Shape::backlog ? 600 : 1200;
  const int64_t run_min = shape == Shape::backlog ? 2000 : 1000, run_spread = shape == Shape::backlog ? 6000 : 2000;
  int64_t front = 0;
  int64_t free_at[kWorkers + 1] = {};
  for (uint32_t i = 0; i < kOps; ++i) {
    front += push_min + static_cast<int64_t>(rng() % push_spread);
    OpInfo op;
    op.id = i + 1;
    op.name = static_cast<NameId>(1 + rng() % 4);
    op.internal = op.name == 4;
    op.enqueue = front;
    op.push_ns = 150;
    uint16_t w = static_cast<uint16_t>(std::min_element(free_at, free_at + kWorkers) - free_at);
    if (shape == Shape::long_op && i == 0) w = kWorkers;
    op.worker = w;
    op.start = std::max(front + 200, free_at[w] + 50);
    op.end = op.start + run_min + static_cast<int64_t>(rng() % run_spread);
    if (shape == Shape::long_op && i == 0) op.end = int64_t{1} << 62;  // still running when read
    free_at[w] = op.end;
    bench::add_synthetic_vars(m, op, i, rng);
    m.frontends[0].enqueues.push_back(i);
    m.ops.push_back(op);
  }
  // Read at the last enqueue: spans that ended after it are still to come.
  const int64_t cut = front + 1;
  for (uint32_t i = 0; i < kOps; ++i) {
    OpInfo& op = m.ops[i];
    if (op.end >= cut) {
      op.start = op.end = kNoTime;
    } else {
      m.workers[op.worker].ops.push_back(i);
    }
  }
  return m;
}

// The insight brought up to the model once (as the reads before did), then
// timed: updates that find nothing new.
void nothing_new(benchmark::State& state, Shape shape) {
  const TraceModel model = live_model(shape);
  uint64_t pending = 0;
  for (const OpInfo& op : model.ops) pending += !op.executed();
  RunInsight insight;
  insight.update(model, false);
  for (auto _ : state) {
    benchmark::DoNotOptimize(insight.update(model, false));
  }
  state.counters["ops"] = static_cast<double>(model.ops.size());
  state.counters["pending"] = static_cast<double>(pending);
}

void BM_RunInsightUpdateNothingNew_Backlog(benchmark::State& state) { nothing_new(state, Shape::backlog); }
void BM_RunInsightUpdateNothingNew_LongOp(benchmark::State& state) { nothing_new(state, Shape::long_op); }

// The first read of the same live model: everything in it is new (what
// keeping track of the ops not yet run costs on the way in).
void first_read(benchmark::State& state, Shape shape) {
  const TraceModel model = live_model(shape);
  for (auto _ : state) {
    RunInsight insight;
    benchmark::DoNotOptimize(insight.update(model, false));
  }
}

void BM_RunInsightFirstLiveRead_Backlog(benchmark::State& state) { first_read(state, Shape::backlog); }
void BM_RunInsightFirstLiveRead_LongOp(benchmark::State& state) { first_read(state, Shape::long_op); }

BENCHMARK(BM_RunInsightUpdateNothingNew_Backlog)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunInsightUpdateNothingNew_LongOp)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunInsightFirstLiveRead_Backlog)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RunInsightFirstLiveRead_LongOp)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace asyncscope::trace
