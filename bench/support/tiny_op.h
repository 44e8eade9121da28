// The smallest op the engine can run (y = x + 1 on a 1x2 buffer) and a rig
// that pushes it: what the engine's and the trace's overhead benchmarks
// push, so that their figures compare.
// Threading: the benchmark's thread.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <utility>

#include "engine/core/engine.h"

namespace asyncscope::bench {

struct TinyAdd {
  const float* x;
  float* y;
  void operator()(const RunContext&) const {
    y[0] = x[0] + 1.0f;
    y[1] = x[1] + 1.0f;
  }
};

// The op's input and output, on a cache line of their own. As locals of the
// benchmark function they shared a line with the frontend's stack, which the
// workers then wrote on every op: a cost of the benchmark, not of the engine
// (an NDArray's buffer is a heap allocation of its own).
struct alignas(64) TinyBuffers {
  float x[2] = {1, 2};
  float y[2] = {};
  TinyAdd op() { return TinyAdd{x, y}; }
};

inline std::shared_ptr<Engine> engine_for(const benchmark::State& state, std::shared_ptr<trace::Recorder> recorder = {}) {
  EngineOptions options;
  options.cpu_workers = static_cast<int>(state.range(0));
  options.recorder = std::move(recorder);
  return make_engine(options);
}

// An engine with state.range(0) workers and the tiny op on its two vars.
struct TinyOpRig {
  explicit TinyOpRig(const benchmark::State& state, std::shared_ptr<trace::Recorder> recorder = {})
      : TinyOpRig(engine_for(state, std::move(recorder))) {}
  explicit TinyOpRig(std::shared_ptr<Engine> e) : engine(std::move(e)), x(engine->new_var()), y(engine->new_var()) {}

  void push() { engine->push(buffers->op(), {x}, {y}, meta); }
  // n pushes and a wait_all.
  void batch(int n) {
    for (int i = 0; i < n; ++i) push();
    engine->wait_all();
  }

  std::shared_ptr<Engine> engine;
  Var* x;
  Var* y;
  std::unique_ptr<TinyBuffers> buffers = std::make_unique<TinyBuffers>();
  const OpMeta meta{"add_scalar"};
};

}  // namespace asyncscope::bench
