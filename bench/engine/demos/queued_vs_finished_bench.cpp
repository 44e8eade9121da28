// The queued-vs-finished demo's matrix product, run through the demo's own
// code (its default 2000x2000 and default workers, exactly as the CLI and the
// app run it), beside a direct sgemm of the same size with OpenBLAS given
// every core, as NumPy would. The two alternate within the benchmark, so both
// see the same machine; the demo's side is the product's span in its trace
// (what the demo reports as its GFLOP/s). The target: the demo's
// product at 0.9 or more of the direct call.
#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>
#include <vector>

#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/blas.h"

namespace asyncscope {
namespace {

constexpr int kN = 2000;
constexpr double kGemmFlops = 2.0 * kN * kN * kN;

double demo_gemm_seconds(const demos::Program& demo) {
  demos::RunHooks hooks;
  demos::RunControl control;
  const demos::Results results = demos::run_program(demo, demo.defaults(), hooks, control);
  return results.value("gemm_s");
}

double direct_sgemm_seconds(const std::vector<float>& a, std::vector<float>& c, int threads) {
  const int before = blas::threads();
  blas::set_threads(threads);
  const auto t0 = std::chrono::steady_clock::now();
  blas::sgemm(false, false, kN, kN, kN, 1.0f, a.data(), kN, a.data(), kN, 0.0f, c.data(), kN);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  benchmark::DoNotOptimize(c.data());
  blas::set_threads(before);
  return s;
}

void BM_QueuedVsFinishedDemoGemmVsDirectSgemm(benchmark::State& state) {
  const demos::Program* demo = demos::find_demo("queued-vs-finished");
  if (demo == nullptr) {
    state.SkipWithError("no queued-vs-finished demo");
    return;
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<float> a(static_cast<size_t>(kN) * kN), c(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 97) * 0.01f;
  demo_gemm_seconds(*demo);  // warm: OpenBLAS loaded, pools and buffers
  direct_sgemm_seconds(a, c, cores);
  double demo_s = 0, direct_s = 0;
  bool demo_first = true;
  for (auto _ : state) {
    double d = 0, s = 0;
    if (demo_first) {
      d = demo_gemm_seconds(*demo);
      s = direct_sgemm_seconds(a, c, cores);
    } else {
      s = direct_sgemm_seconds(a, c, cores);
      d = demo_gemm_seconds(*demo);
    }
    demo_first = !demo_first;
    demo_s += d;
    direct_s += s;
    state.SetIterationTime(d + s);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["demo_GFLOPS"] = kGemmFlops * n / demo_s / 1e9;
  state.counters["direct_GFLOPS"] = kGemmFlops * n / direct_s / 1e9;
  state.counters["demo_over_direct"] = direct_s / demo_s;
  state.counters["direct_threads"] = cores;
  state.SetLabel("OpenBLAS core " + blas::info().core);
}
BENCHMARK(BM_QueuedVsFinishedDemoGemmVsDirectSgemm)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(4.0);

}  // namespace
}  // namespace asyncscope
