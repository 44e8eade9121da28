// Engine overheads on the smallest possible op (y = x + 1 on a 1x2 buffer):
// push cost, end-to-end throughput, and the push + wait round trip.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/core/engine.h"

namespace asyncscope {
namespace {

struct TinyAdd {
  const float* x;
  float* y;
  void operator()(const RunContext&) const {
    y[0] = x[0] + 1.0f;
    y[1] = x[1] + 1.0f;
  }
};

std::shared_ptr<Engine> engine_for(const benchmark::State& state, std::shared_ptr<trace::Recorder> recorder = {}) {
  EngineOptions options;
  options.cpu_workers = static_cast<int>(state.range(0));
  options.recorder = std::move(recorder);
  return make_engine(options);
}

// The frontend's cost of one push (the workers drain concurrently).
void BM_PushTinyOp(benchmark::State& state) {
  auto engine = engine_for(state);
  Var* x = engine->new_var();
  Var* y = engine->new_var();
  float bx[2] = {1, 2}, by[2] = {};
  const OpMeta meta("add_scalar");
  for (auto _ : state) {
    engine->push(TinyAdd{bx, by}, {x}, {y}, meta);
  }
  engine->wait_all();  // after the loop: not timed
}
BENCHMARK(BM_PushTinyOp)->Arg(1)->Arg(2)->Iterations(1 << 20)->UseRealTime();

// Pushed asynchronously, end to end: a batch of tiny ops and one wait_all.
void BM_TinyOpAsyncEndToEnd(benchmark::State& state, bool traced) {
  auto recorder = traced ? std::make_shared<trace::Recorder>() : nullptr;
  auto engine = engine_for(state, recorder);
  Var* x = engine->new_var();
  Var* y = engine->new_var();
  float bx[2] = {1, 2}, by[2] = {};
  const OpMeta meta("add_scalar");
  constexpr int kBatch = 10000;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) engine->push(TinyAdd{bx, by}, {x}, {y}, meta);
    engine->wait_all();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
void BM_TinyOpAsyncEndToEnd_TracingOff(benchmark::State& state) { BM_TinyOpAsyncEndToEnd(state, false); }
void BM_TinyOpAsyncEndToEnd_TracingOn(benchmark::State& state) { BM_TinyOpAsyncEndToEnd(state, true); }
BENCHMARK(BM_TinyOpAsyncEndToEnd_TracingOff)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_TinyOpAsyncEndToEnd_TracingOn)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

// One push followed by a wait on its output: the synchronous round trip.
void BM_PushWaitRoundTrip(benchmark::State& state) {
  auto engine = engine_for(state);
  Var* x = engine->new_var();
  Var* y = engine->new_var();
  float bx[2] = {1, 2}, by[2] = {};
  const OpMeta meta("add_scalar");
  std::vector<double> samples;
  samples.reserve(1 << 20);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    engine->push(TinyAdd{bx, by}, {x}, {y}, meta);
    engine->wait_for_var(y);
    samples.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  state.counters["median_ns"] = samples[samples.size() / 2];
  state.counters["p99_ns"] = samples[samples.size() * 99 / 100];
}
BENCHMARK(BM_PushWaitRoundTrip)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

}  // namespace
}  // namespace asyncscope
