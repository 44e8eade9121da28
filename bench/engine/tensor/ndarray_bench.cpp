// NDArray workloads of the demos: y = x + 1 (tiny and 2000x2000) and the
// 2000x2000 GEMM through the engine vs a raw sgemm call with the same threads.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <vector>

#include "engine/tensor/blas.h"
#include "engine/tensor/ops.h"
#include "engine/tensor/random.h"

namespace asyncscope {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

ContextPtr context_with(int workers, int blas_threads = 0) {
  Context::Options options;
  options.engine.cpu_workers = workers;
  options.blas_threads = blas_threads;
  return Context::create(options);
}

// y = x + 1 on 1x2 through NDArray: a new output array (and a free op for the
// previous one) per iteration, as a Python frontend would do it.
void BM_NDArrayTinyAddAsync(benchmark::State& state) {
  auto ctx = context_with(static_cast<int>(state.range(0)));
  NDArray x = ones(ctx, {1, 2});
  NDArray y;
  constexpr int kBatch = 10000;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) y = x + 1.0f;
    ctx->engine().wait_all();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_NDArrayTinyAddAsync)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

// y = x + 1 on 2000x2000, waited on each time; the pool keeps page faults away.
void BM_NDArrayAdd2000(benchmark::State& state) {
  auto ctx = context_with(2);
  NDArray x = ones(ctx, {2000, 2000});
  x.wait_to_read();
  NDArray y = x + 1.0f;
  y.wait_to_read();
  const long faults_before = minor_faults();
  for (auto _ : state) {
    y = x + 1.0f;
    y.wait_to_read();
  }
  state.counters["page_faults_per_op"] =
      static_cast<double>(minor_faults() - faults_before) / static_cast<double>(state.iterations());
  state.SetBytesProcessed(state.iterations() * 2 * 2000 * 2000 * 4);
}
BENCHMARK(BM_NDArrayAdd2000)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

constexpr int kN = 2000;
constexpr double kGemmFlops = 2.0 * kN * kN * kN;

// dot(x, x) through the engine, one worker, BLAS on every core.
void BM_DotEngine2000(benchmark::State& state) {
  auto ctx = context_with(1);
  NDArray x = uniform(ctx, {kN, kN});
  dot(x, x).wait_to_read();
  for (auto _ : state) dot(x, x).wait_to_read();
  state.counters["GFLOPS"] = benchmark::Counter(kGemmFlops * static_cast<double>(state.iterations()) / 1e9,
                                                benchmark::Counter::kIsRate);
  state.counters["blas_threads"] = blas::threads();
}
BENCHMARK(BM_DotEngine2000)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The same product by a direct sgemm call with the same thread count.
void BM_DotRawSgemm2000(benchmark::State& state) {
  auto ctx = context_with(1);  // same BLAS thread policy as above
  std::vector<float> a(static_cast<size_t>(kN) * kN), c(static_cast<size_t>(kN) * kN);
  random::fill_uniform(a.data(), static_cast<int64_t>(a.size()), 1, 0.0f, 1.0f);
  blas::sgemm(false, false, kN, kN, kN, 1.0f, a.data(), kN, a.data(), kN, 0.0f, c.data(), kN);
  for (auto _ : state) {
    blas::sgemm(false, false, kN, kN, kN, 1.0f, a.data(), kN, a.data(), kN, 0.0f, c.data(), kN);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(kGemmFlops * static_cast<double>(state.iterations()) / 1e9,
                                                benchmark::Counter::kIsRate);
  state.counters["blas_threads"] = blas::threads();
  state.SetLabel(blas::info().core);
}
BENCHMARK(BM_DotRawSgemm2000)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace asyncscope
