// The trace clock: cost of a read, of setting up and of calibrating, and how
// far it drifts from steady_clock over 10 s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/trace_record/clock.h"

namespace asyncscope::trace {
namespace {

// Waits (at most ~1 s) until the process clock is past calibrating.
ClockInfo calibrated_process_clock() {
  for (int i = 0; i < 1000 && clock_info().source != ClockSource::tsc && clock_info().source != ClockSource::steady;
       ++i) {
    now_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  now_ns();
  return clock_info();
}

void report(benchmark::State& state, const ClockInfo& info) {
  state.SetLabel(info.source == ClockSource::tsc ? "tsc" : std::string(to_string(info.source)) + ": " + info.reason);
}

void BM_TraceClockNow(benchmark::State& state) {
  report(state, calibrated_process_clock());
  for (auto _ : state) benchmark::DoNotOptimize(now_ns());
}
BENCHMARK(BM_TraceClockNow);

void BM_TraceClockNowUnordered(benchmark::State& state) {
  report(state, calibrated_process_clock());
  for (auto _ : state) benchmark::DoNotOptimize(now_ns_unordered());
}
BENCHMARK(BM_TraceClockNowUnordered);

void BM_SteadyClockNow(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(steady_now_ns());
}
BENCHMARK(BM_SteadyClockNow);

// What a process pays once, on its first read (at static initialisation):
// the trust criterion and the first anchor. The process clock's own figure
// includes the first (uncached) sysfs read; the loop's, CPUID and the anchor.
void BM_TraceClockSetup(benchmark::State& state) {
  for (auto _ : state) {
    TraceClock clock;
    benchmark::DoNotOptimize(clock.now_ns());
  }
  const ClockInfo info = calibrated_process_clock();
  state.counters["process_setup_ns"] = static_cast<double>(info.setup_cost_ns);
  state.counters["process_calibration_ns"] = static_cast<double>(info.calibration_cost_ns);
}
BENCHMARK(BM_TraceClockSetup)->Iterations(200);

// Offset of the process clock from steady_clock (midpoint of the tightest of
// 50 brackets) every 100 ms for 10 s; drift_ppm is the slope over the run.
void BM_TraceClockDrift10s(benchmark::State& state) {
  const ClockInfo info = calibrated_process_clock();
  report(state, info);
  const auto offset = [] {
    int64_t best = INT64_MAX, at = 0;
    for (int i = 0; i < 50; ++i) {
      const int64_t before = steady_now_ns();
      const int64_t t = now_ns();
      const int64_t after = steady_now_ns();
      if (after - before < best) {
        best = after - before;
        at = t - before - (after - before) / 2;
      }
    }
    return at;
  };
  int64_t first = 0, last = 0, worst = 0;
  for (auto _ : state) {
    first = offset();
    for (int i = 0; i < 100; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      last = offset();
      worst = std::max(worst, last < 0 ? -last : last);
    }
  }
  state.counters["offset_first_ns"] = static_cast<double>(first);
  state.counters["offset_last_ns"] = static_cast<double>(last);
  state.counters["offset_max_abs_ns"] = static_cast<double>(worst);
  state.counters["drift_ppm"] = static_cast<double>(last - first) / 10e9 * 1e6;
  state.counters["bound_ppm"] = info.rate_error_ppm;
  state.counters["anchor_error_ns"] = static_cast<double>(info.anchor_error_ns);
}
BENCHMARK(BM_TraceClockDrift10s)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace asyncscope::trace
