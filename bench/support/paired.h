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

}  // namespace asyncscope::bench
