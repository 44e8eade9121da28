// run_paired: times two variants of the same work in alternating order (a
// then b, then b then a, ...) within one benchmark, so that both see the same
// machine. On a shared VM whose speed drifts within minutes, two separate
// benchmarks run one after the other compare the drift as much as the code.
// Each iteration's manual time is the sum of both sides (use UseManualTime);
// the totals per side come back for the benchmark's counters.
// Threading: the benchmark's thread.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

namespace asyncscope::bench {

struct PairedSeconds {
  double a = 0;
  double b = 0;
};

template <class A, class B>
PairedSeconds run_paired(benchmark::State& state, A&& a, B&& b) {
  const auto timed = [](auto& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  PairedSeconds total;
  bool a_first = true;
  for (auto _ : state) {
    double ta = 0;
    double tb = 0;
    if (a_first) {
      ta = timed(a);
      tb = timed(b);
    } else {
      tb = timed(b);
      ta = timed(a);
    }
    total.a += ta;
    total.b += tb;
    state.SetIterationTime(ta + tb);
    a_first = !a_first;
  }
  return total;
}

// The counters of a paired benchmark whose every iteration ran `ops` ops on
// each side: "<a>_ns_per_op" and "<b>_ns_per_op", and the items processed
// (both sides). The caller adds the ratio it reports.
inline void per_op_counters(benchmark::State& state, const PairedSeconds& s, int64_t ops, const std::string& a,
                            const std::string& b) {
  const double n = static_cast<double>(state.iterations()) * static_cast<double>(ops);
  state.SetItemsProcessed(state.iterations() * 2 * ops);
  state.counters[a + "_ns_per_op"] = s.a / n * 1e9;
  state.counters[b + "_ns_per_op"] = s.b / n * 1e9;
}

}  // namespace asyncscope::bench
