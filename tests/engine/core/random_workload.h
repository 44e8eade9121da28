// A random read/write workload over many vars, run through any engine, whose
// results must be identical to the naive engine's: the differential test of
// the dependency engine (after MXNet's engine test).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "simulated_stream.h"

namespace asyncscope::testing {

struct WorkloadAction {
  enum Kind { push, check } kind = push;
  std::vector<int> reads, writes;
  bool fails = false;  // the op throws
  // Runs on the device stream of an engine that has one (its function
  // submits the work to a SimulatedStream). Never an op that fails: a
  // device fault lets the ops already queued behind it on the stream run on
  // what it left, as on a real GPU, so the values would differ from the
  // naive engine's even though the errors agree.
  bool on_stream = false;
  int check_var = -1;
};

// Deterministic: same seed, same workload. stream_percent: the share of
// ops (that do not fail) to run on the device stream. fail_permille: the
// share of ops that throw, per thousand (-1: about one in a thousand).
inline std::vector<WorkloadAction> make_workload(uint64_t seed, int num_vars, int num_ops, int stream_percent = 0,
                                                 int fail_permille = -1) {
  std::mt19937_64 rng(seed);
  std::vector<WorkloadAction> actions;
  auto pick = [&](int max_count, std::vector<int>& out) {
    const int count = static_cast<int>(rng() % static_cast<uint64_t>(max_count + 1));
    for (int i = 0; i < count; ++i) out.push_back(static_cast<int>(rng() % static_cast<uint64_t>(num_vars)));
  };
  for (int i = 0; i < num_ops; ++i) {
    WorkloadAction a;
    pick(4, a.reads);
    pick(2, a.writes);
    if (a.writes.empty()) a.writes.push_back(static_cast<int>(rng() % static_cast<uint64_t>(num_vars)));
    a.fails = fail_permille < 0 ? rng() % 997 == 0 : static_cast<int>(rng() % 1000) < fail_permille;
    if (stream_percent > 0) a.on_stream = !a.fails && static_cast<int>(rng() % 100) < stream_percent;
    actions.push_back(std::move(a));
    if (rng() % 50 == 0) {
      WorkloadAction c;
      c.kind = WorkloadAction::check;
      c.check_var = static_cast<int>(rng() % static_cast<uint64_t>(num_vars));
      actions.push_back(std::move(c));
    }
  }
  return actions;
}

inline uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  return x ^ (x >> 29);
}

struct WorkloadResult {
  std::vector<std::vector<uint64_t>> values;  // per var
  std::vector<std::string> errors;            // per var: "" or the failing op's name
  std::vector<std::string> observed;          // what every check saw, in order
};

inline constexpr size_t kWorkloadBuffer = 8;

inline std::string describe(const std::vector<uint64_t>& v) {
  std::string s;
  for (uint64_t x : v) s += std::to_string(x % 100000) + ",";
  return s;
}

// Runs the workload; each op reads its inputs' small buffers and rewrites its
// outputs from them (and their old contents), so any ordering violation
// changes the numbers.
// With `use_stream`, the actions marked on_stream run on Device::cuda(0),
// whose stream must be a SimulatedStream.
inline WorkloadResult run_workload(Engine& engine, const std::vector<WorkloadAction>& actions, int num_vars,
                                   bool use_stream = false) {
  WorkloadResult result;
  result.values.assign(static_cast<size_t>(num_vars), std::vector<uint64_t>(kWorkloadBuffer, 0));
  std::vector<Var*> vars;
  for (int i = 0; i < num_vars; ++i) vars.push_back(engine.new_var());
  static const trace::NameId kOp = trace::intern("random-op");
  static const trace::NameId kFail = trace::intern("random-fail");

  auto observe = [&](int var) {
    try {
      engine.wait_for_var(vars[static_cast<size_t>(var)]);
      result.observed.push_back(describe(result.values[static_cast<size_t>(var)]));
    } catch (const OpError& e) {
      result.observed.push_back("error:" + e.op_name());
    }
  };

  uint64_t index = 0;
  for (const WorkloadAction& a : actions) {
    if (a.kind == WorkloadAction::check) {
      observe(a.check_var);
      continue;
    }
    std::vector<Var*> reads, writes;
    for (int r : a.reads) reads.push_back(vars[static_cast<size_t>(r)]);
    for (int w : a.writes) writes.push_back(vars[static_cast<size_t>(w)]);
    const uint64_t seed = ++index;
    const auto compute = [&result, &a, seed] {
      for (size_t k = 0; k < kWorkloadBuffer; ++k) {
        uint64_t acc = mix(seed, k);
        for (int r : a.reads) acc = mix(acc, result.values[static_cast<size_t>(r)][k]);
        for (int w : a.writes) {
          uint64_t& cell = result.values[static_cast<size_t>(w)][k];
          cell = mix(acc, cell);
        }
      }
    };
    if (use_stream && a.on_stream) {
      engine.push([compute](const RunContext& rc) { static_cast<SimulatedStream*>(rc.stream)->submit(compute); },
                  reads, writes, OpMeta(kOp, Device::cuda(0)));
      continue;
    }
    engine.push(
        [&a, compute](const RunContext&) {
          if (a.fails) throw std::runtime_error("planned failure");
          compute();
        },
        reads, writes, OpMeta(a.fails ? kFail : kOp));
  }
  for (int i = 0; i < num_vars; ++i) observe(i);
  try {
    engine.wait_all();
  } catch (const OpError&) {
  }
  for (int i = 0; i < num_vars; ++i) {
    Var* v = vars[static_cast<size_t>(i)];
    try {
      engine.wait_for_var(v);
      result.errors.emplace_back();
    } catch (const OpError& e) {
      result.errors.push_back(e.op_name() + "#" + std::to_string(e.op_id()));
    }
    engine.delete_var(v);
  }
  engine.wait_all();
  return result;
}

}  // namespace asyncscope::testing
